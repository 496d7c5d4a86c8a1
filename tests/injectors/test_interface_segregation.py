"""Interface segregation injector: before/after on fixtures (stores, sinks, visitors), round
trips, behaviour kept, unsafe cases refused, counts and own test suites on click and jinja2.

The smelly files of each fixture case are compared with its `after_` folders, with every
injector's, in `test_fixtures.py` (SMELLKIT_REGENERATE=1 rewrites them).
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

from smellkit.checks import evaluate
from smellkit.errors import InjectionRefused
from smellkit.injectors.base import Edit, InjectionContext
from smellkit.injectors.engine import find_candidates, make_injector
from smellkit.models import DIFFICULTIES, Difficulty, Injection
from tests.injectors.support import (
    FIXTURES,
    SMALL,
    assert_round_trip,
    attempt,
    injected,
    load,
    own_tests_pass,
    real_code,
    same_behaviour,
)

SMELL = "interface_segregation"
STORAGE = FIXTURES / SMELL / "storage"
TARGET = "store.base.Storage"


def test_candidate_says_why() -> None:
    (candidate,) = find_candidates(load(STORAGE / "before"), SMELL, options=SMALL)
    assert candidate.target.qualname == TARGET
    assert "5 concrete implementers" in candidate.reason
    assert "DiskStorage.{lock, unlock}" in candidate.reason
    assert candidate.data["donors"] == {"store.disk.DiskStorage": ["lock", "unlock"]}


CASES = {"storage": TARGET, "sinks": "logs.sinks.Sink", "visitors": "tree.visitor.Visitor"}
"""Fixture -> its interface. storage: the disk store's lock and unlock folded in, declared abstract
as the abstract base declares its own, so the three other stores, in three modules, must opt out
(medium and hard; no easy case spans 4 modules). sinks: two implementers with a role each (rotate,
reconnect), folded in together so that each opts out of the other's (two modules: no hard case).
visitors: a plain base (no abstract method) whose subclasses override it, never instantiated
itself: made abstract (`abc.ABC`) with the code generator's role declared abstract, every other
visitor is forced to opt out: the transformer beside the base and the analysis visitors (easy);
at medium the transformer, never instantiated, stays abstract and the folder below it opts out
in its own module (three modules: no hard case)."""

SPANS: dict[str, tuple[Difficulty, ...]] = {
    "storage": ("medium", "hard"), "sinks": (), "visitors": ("easy", "medium")}
"""sinks: an interface that only raises, inherited by every implementer: no case (an opt-out
would repeat the raise)."""
ROUND_TRIPS = [(case, difficulty) for case in sorted(CASES) for difficulty in SPANS[case]]


@pytest.mark.parametrize("case,difficulty", ROUND_TRIPS)
def test_round_trip(case: str, difficulty: Difficulty) -> None:
    folder = FIXTURES / SMELL / case
    injection = injected(folder / "before", SMELL, difficulty, CASES[case])
    assert_round_trip(folder / "before", injection)
    assert [(target.location.qualname, target.level) for target in injection.targets] == [
        (CASES[case], "class")]


@pytest.mark.parametrize("case,difficulty", ROUND_TRIPS)
def test_stubs_are_a_handful_of_not_implemented_overrides(case: str,
                                                          difficulty: Difficulty) -> None:
    """Every method the smelly patch adds only raises NotImplementedError (no properties, no
    new modules), and there are few of them: the role's methods, declared once in the
    interface and once in each of at most `MAX_FORCED` implementers."""
    from smellkit.injectors.interface_segregation import MAX_FORCED, MAX_HOISTED

    injection = injected(FIXTURES / SMELL / case / "before", SMELL, difficulty, CASES[case])
    added = [line[1:] for line in injection.smelly_patch.splitlines()
             if line.startswith("+") and not line.startswith("+++") and line[1:].strip()]
    conversion = {"import abc", "@abc.abstractmethod", "@abstractmethod"}
    added = [line for line in added if line.strip() not in conversion
             and not line.startswith("class ")]  # a plain base made abstract: `(abc.ABC)`
    definitions = [line for line in added if line.lstrip().startswith("def ")]
    assert definitions and len(definitions) * 2 == len(added), added
    assert all(line.strip() == "raise NotImplementedError" for line in added
               if not line.lstrip().startswith("def "))
    assert len(definitions) <= MAX_HOISTED * 2 * (MAX_FORCED + 1)
    assert "new file mode" not in injection.smelly_patch
    spanned = {*injection.files, *(item.path for item in injection.locations)}
    assert len(spanned) == 2 if difficulty == "easy" else \
        len(spanned) >= {"medium": 3, "hard": 4}[difficulty], spanned


PROBES = {
    "storage": (
        "from store.memory import MemoryStorage\n"
        "from store.remote import CachedRemoteStorage\n"
        "for store in (MemoryStorage(), CachedRemoteStorage(None, 'u')):\n"
        "    try:\n"
        "        store.lock('key')\n"
        "    except (AttributeError, NotImplementedError):\n"
        "        print(type(store).__name__, 'cannot lock')\n"
        "store = MemoryStorage()\n"
        "store.write('a', 1)\n"
        "store.copy('a', 'b')\n"
        "print(store.read('b'))\n"),
    "visitors": (
        "from tree.nodes import Add, Name, Num\n"
        "from tree.codegen import CodeGenerator\n"
        "from tree.analysis import Counter, NameCollector\n"
        "from tree.folding import Folder\n"
        "tree = Add(Num(1), Add(Name('x'), Num(2)))\n"
        "print(CodeGenerator().source(tree))\n"
        "collector, counter = NameCollector(), Counter()\n"
        "collector.visit(tree)\n"
        "counter.visit(tree)\n"
        "print(sorted(collector.names), counter.count, Folder().visit(Add(Num(1), Num(2))).value)\n"
        "for visitor in (collector, counter, Folder()):\n"
        "    try:\n"
        "        visitor.write('x')\n"
        "    except (AttributeError, NotImplementedError, TypeError):\n"
        "        print(type(visitor).__name__, 'cannot write')\n"),
}
"""What each fixture prints: the same before and after (a method an implementer opts out of
fails when called, as the missing method did)."""


@pytest.mark.parametrize("case,difficulty", [item for item in ROUND_TRIPS if item[0] in PROBES])
def test_behaviour_is_kept(tmp_path: Path, case: str, difficulty: Difficulty) -> None:
    folder = FIXTURES / SMELL / case / "before"
    same_behaviour(folder, injected(folder, SMELL, difficulty, CASES[case]), tmp_path,
                   PROBES[case])


def test_a_family_with_a_getattr_fallback_is_refused(tmp_path: Path) -> None:
    """A class with `__getattr__` answered for the missing method before; a declared method
    would answer instead, so the family is left alone."""
    root = _copy(tmp_path)
    with open(root / "store" / "memory.py", "a") as handle:
        handle.write("\n    def __getattr__(self, name):\n        return f'proxied {name}'\n")
    project = load(root)
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    outcome = attempt(make_injector(SMELL, SMALL), InjectionContext(project), candidate,
                      "medium")
    assert isinstance(outcome, InjectionRefused) and "__getattr__" in outcome.message, outcome


def test_a_name_built_from_a_string_is_never_folded_in() -> None:
    """`getattr(self, "visit_" + name)` builds names: no `visit_*` method is a role to fold in
    (the base's declaration would be found by the lookup)."""
    (candidate,) = find_candidates(load(FIXTURES / SMELL / "visitors" / "before"), SMELL,
                                   options=SMALL)
    assert candidate.data["donors"] == {
        "tree.codegen.CodeGenerator": ["indent", "outdent", "source", "write"]}
    assert candidate.data["methods"] == []
    assert "a base its subclasses override" in candidate.reason


def test_an_interface_that_only_raises_gets_no_opt_out_that_repeats_it() -> None:
    """Sink declares `emit` raising, not abstract: folded in as raises, the other sink's role
    is what each sink already inherits, so an override that raises again would only repeat
    it. No case at any difficulty, and the refusal says why."""
    project = load(FIXTURES / SMELL / "sinks" / "before")
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    for difficulty in DIFFICULTIES:
        outcome = attempt(make_injector(SMELL, SMALL), InjectionContext(project), candidate,
                          difficulty)
        assert isinstance(outcome, InjectionRefused), outcome
        assert "an opt-out there would repeat it" in outcome.message


def _abstract_sinks(root: Path) -> Path:
    """The sinks with `Sink` an abstract base: a role folded in is declared abstract, and the
    sink without it must opt out."""
    shutil.copytree(FIXTURES / SMELL / "sinks" / "before", root)
    (root / "logs" / "sinks.py").write_text(
        '"""The one thing every sink does."""\n\nfrom abc import ABC, abstractmethod\n\n\n'
        "class Sink(ABC):\n    @abstractmethod\n    def emit(self, record):\n"
        "        raise NotImplementedError\n\n    @abstractmethod\n    def close(self):\n"
        "        raise NotImplementedError\n\n\n"
        "def emit_all(sinks, record):\n    for sink in sinks:\n        sink.emit(record)\n")
    for name in ("files.py", "network.py"):
        with open(root / "logs" / name, "a") as handle:
            handle.write("\n    def close(self):\n        self.closed = True\n")
    (root / "logs" / "memory.py").write_text(
        "from logs.sinks import Sink\n\n\nclass MemorySink(Sink):\n    def __init__(self):\n"
        "        self.records = []\n\n    def emit(self, record):\n"
        "        self.records.append(record)\n\n    def close(self):\n"
        "        self.records.clear()\n")
    return root


def test_difficulties_spread_over_more_files() -> None:
    """easy: the interface and one implementer's module (a visitor forced to opt out); medium
    and hard: every store an abstract declaration would leave abstract, in three
    modules, and at hard the donor's real methods as red herrings. Every file spanned is
    changed, and no new module at any difficulty."""
    easy = injected(FIXTURES / SMELL / "visitors" / "before", SMELL, "easy", CASES["visitors"])
    assert len(easy.files) == 2 and "tree/visitor.py" in easy.files
    files = {difficulty: injected(STORAGE / "before", SMELL, difficulty, TARGET).files
             for difficulty in ("medium", "hard")}
    assert [len(found) for found in files.values()] == [4, 4]
    assert all("store/base.py" in found for found in files.values())
    refused = attempt(make_injector(SMELL, SMALL), InjectionContext(load(STORAGE / "before")),
                      find_candidates(load(STORAGE / "before"), SMELL, options=SMALL)[0], "easy")
    assert isinstance(refused, InjectionRefused) and "an easy case spans 2" in refused.message
    hard = injected(STORAGE / "before", SMELL, "hard", TARGET)
    assert {location.qualname for location in hard.red_herrings} >= {
        "store.disk.DiskStorage.lock", "store.disk.DiskStorage.unlock"}


def test_a_family_in_one_file_is_refused_not_given_new_modules(tmp_path: Path) -> None:
    """When the interface and every implementer share one module the smell
    cannot span two files; no module is made up to reach it, and discovery says why."""
    root = tmp_path / "repo"
    (root / "store").mkdir(parents=True)
    (root / "store" / "__init__.py").write_text("")
    (root / "store" / "all.py").write_text("\n\n".join(
        (STORAGE / "before" / "store" / name).read_text().replace("from store.base import "
                                                                  "Storage\n", "")
        for name in ("base.py", "disk.py", "memory.py", "remote.py")))
    context = InjectionContext(load(root))
    assert find_candidates(context.project, SMELL, options=SMALL, context=context) == []
    assert context.discarded["the interface and its implementers share one module"] == 1


def test_cached_remote_inherits_the_opt_outs_instead_of_getting_its_own() -> None:
    for difficulty in ("medium", "hard"):
        injection = injected(STORAGE / "before", SMELL, difficulty, TARGET)
        assert "CachedRemoteStorage" not in {location.qualname.split(".")[2]
                                             for location in injection.locations}
    medium = injected(STORAGE / "before", SMELL, "medium", TARGET)
    # the interface's declaration, then the memory, null and remote stores' opt-outs
    assert medium.smelly_patch.count("+    def lock(self, key, reason=None):") == 4
    assert "+    @abstractmethod\n+    def lock(self, key, reason=None):\n" in \
        medium.smelly_patch


def test_the_seed_varies_which_role_is_folded_in(tmp_path: Path) -> None:
    """The file and socket sinks each have a role of their own: the seed picks which is folded
    in, and so which sinks opt out (the memory sink and the other one)."""
    from smellkit.injectors.engine import inject

    project = load(_abstract_sinks(tmp_path / "repo"))
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    chosen = set()
    for seed in range(8):
        outcome = inject(project, SMELL, "medium", candidate=candidate, seed=seed,
                         options=SMALL)
        assert isinstance(outcome, Injection), outcome
        chosen.add(outcome.files)
    assert len(chosen) >= 2, chosen


def test_checks_pass_on_the_original() -> None:
    project = load(STORAGE / "before")
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    edit = make_injector(SMELL, SMALL).inject(InjectionContext(project), candidate, "medium",
                                              random.Random(0))
    assert isinstance(edit, Edit)
    assert {check.kind for check in edit.checks} == {
        "no_finding", "interface_segregation.not_required", "interface_segregation.no_stubs"}
    assert all(result.passed for result in evaluate(project, edit.checks))


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(STORAGE / "before", root)
    return root


def test_a_method_looked_up_by_name_is_never_folded_in(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    with open(root / "store" / "memory.py", "a") as handle:
        handle.write('\n\ndef can_lock(store):\n    return hasattr(store, "lock")\n')
    (candidate,) = find_candidates(load(root), SMELL, options=SMALL)
    assert candidate.data["donors"] == {"store.disk.DiskStorage": ["unlock"]}
    outcome = attempt(make_injector(SMELL, SMALL), InjectionContext(load(root)), candidate,
                      "easy")
    assert isinstance(outcome, InjectionRefused)
    assert "would refuse 2 or more" in outcome.message  # one of 3 + 1 methods is less than a third


def test_an_implementer_with_the_method_from_elsewhere_is_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    text = (root / "store" / "remote.py").read_text()
    (root / "store" / "remote.py").write_text(text.replace(
        "class RemoteStorage(Storage):",
        "class Lockable:\n    def unlock(self, key):\n        return key\n\n\n"
        "class RemoteStorage(Lockable, Storage):"))
    project = load(root)
    candidates = find_candidates(project, SMELL, options=SMALL)
    assert all("unlock" not in names for candidate in candidates
               for names in candidate.data["donors"].values())


def test_too_few_implementers_to_refuse() -> None:
    project = load(STORAGE / "before")
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    kept = ["store.disk.DiskStorage", "store.memory.MemoryStorage"]
    narrowed = candidate.model_copy(update={"data": {**candidate.data, "implementers": kept}})
    outcome = attempt(make_injector(SMELL, SMALL), InjectionContext(project), narrowed, "easy")
    assert isinstance(outcome, InjectionRefused) and "only 1 implementer(s)" in outcome.message, \
        outcome


def _one_module_family(tmp_path: Path) -> Path:
    """The storage fixture with the interface and every store in one module."""
    root = tmp_path / "repo"
    (root / "store").mkdir(parents=True)
    (root / "store" / "__init__.py").write_text("")
    (root / "store" / "all.py").write_text("\n\n".join(
        (STORAGE / "before" / "store" / name).read_text().replace("from store.base import "
                                                                  "Storage\n", "")
        for name in ("base.py", "disk.py", "memory.py", "null.py", "remote.py")))
    return root


def test_untouched_clients_never_fill_the_span(tmp_path: Path) -> None:
    """Implementers that share the interface's module (click's commands in core.py) reach no
    other file. Functions written against the interface elsewhere (one annotated with it, one
    that checks a value with isinstance) are left unchanged by the case, so they do not count:
    the family is no candidate, rather than a medium case that changes one file."""
    root = _one_module_family(tmp_path)
    (root / "store" / "sync.py").write_text(
        "from store.all import Storage\n\n\ndef mirror(source: Storage, target):\n"
        "    target.write('key', source.read('key'))\n")
    (root / "store" / "audit.py").write_text(
        "from store import all\n\n\ndef describe(value):\n"
        "    return 'store' if isinstance(value, all.Storage) else 'other'\n")
    context = InjectionContext(load(root))
    assert find_candidates(context.project, SMELL, options=SMALL, context=context) == []
    assert context.discarded["the interface and its implementers share one module"] == 1


def test_an_implementer_never_repeats_what_it_inherits(tmp_path: Path) -> None:
    """A console sink below the socket sink (a fourth module) inherits the socket sink's
    opt-out, or its real method: it writes none of its own, at any seed. No opt-out is written
    where the class already inherits a method of that name, concrete or raising."""
    folder = _abstract_sinks(tmp_path / "repo")
    (folder / "logs" / "console.py").write_text(
        "from logs.network import SocketSink\n\n\nclass ConsoleSink(SocketSink):\n"
        "    def emit(self, record):\n        print(record)\n")
    project = load(folder)
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    index = InjectionContext(project).index
    for seed in range(4):
        medium = make_injector(SMELL, SMALL).inject(InjectionContext(project), candidate,
                                                    "medium", random.Random(seed))
        assert isinstance(medium, Edit)
        assert "logs/console.py" not in medium.changes
        opt_outs = [item.rpartition(".") for item in medium.involved
                    if item.rpartition(".")[0] in index.classes]
        assert opt_outs
        for cls, _, name in opt_outs:  # each opt-out is in a class that had no such method
            assert not any(name in index.children.get(base, {}) for base in index.mro(cls))
    outcome = attempt(make_injector(SMELL, SMALL), InjectionContext(project), candidate, "hard")
    assert isinstance(outcome, InjectionRefused), outcome
    assert "hard needs" in outcome.message


def test_an_implementer_below_a_base_of_the_interfaces_module_opts_out_in_its_own(
        tmp_path: Path) -> None:
    """A store below another that an abstract declaration would leave abstract inherits that
    one's refusal: the refusal is written once, at the top of the sub-hierarchy (never in
    both)."""
    root = _copy(tmp_path)
    with open(root / "store" / "base.py", "a") as handle:
        handle.write("\n\nclass ReadOnlyStorage(Storage):\n    def read(self, key):\n"
                     "        return key\n\n    def write(self, key, value):\n"
                     "        raise KeyError(key)\n\n    def delete(self, key):\n"
                     "        raise KeyError(key)\n")
    (root / "store" / "frozen.py").write_text(
        "from store.base import ReadOnlyStorage\n\n\nclass FrozenStorage(ReadOnlyStorage):\n"
        "    def read(self, key):\n        return key.upper()\n")
    project = load(root)
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    opted: set[str] = set()
    for seed in range(6):
        from smellkit.injectors.engine import inject

        outcome = inject(project, SMELL, "hard", candidate=candidate, seed=seed, options=SMALL)
        assert isinstance(outcome, Injection), outcome
        names = {location.qualname.rpartition(".")[2] for location in outcome.locations}
        assert not {"ReadOnlyStorage", "FrozenStorage"} <= names, names
        opted |= names
    assert "ReadOnlyStorage" in opted and "FrozenStorage" not in opted


def test_a_getattr_that_forwards_to_another_object_is_no_blocker(tmp_path: Path) -> None:
    """wtforms' FormField forwards missing attributes to its form: a declared `lock` hides
    nothing the form had, since no other class of the repository has one."""
    root = _copy(tmp_path)
    with open(root / "store" / "memory.py", "a") as handle:
        handle.write("\n    def __getattr__(self, name):\n"
                     "        return getattr(self.data, name)\n")
    injection = injected(root, SMELL, "medium", TARGET)
    assert_round_trip(root, injection)
    with open(root / "store" / "memory.py", "a") as handle:
        handle.write("\n\nclass Latch:\n    def lock(self, key):\n        return key\n")
    project = load(root)
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    outcome = attempt(make_injector(SMELL, SMALL), InjectionContext(project), candidate,
                      "medium")
    assert isinstance(outcome, InjectionRefused), outcome
    assert "forwards missing attributes with __getattr__ and store.memory.Latch has lock" in \
        outcome.message


CODECS = {
    "coding/__init__.py": "",
    "coding/base.py": (
        "from abc import ABC, abstractmethod\n\n\nclass Codec(ABC):\n    @abstractmethod\n"
        "    def encode(self, text):\n        pass\n\n    @abstractmethod\n"
        "    def decode(self, data):\n        pass\n\n    @abstractmethod\n"
        "    def _pack(self, data):\n        pass\n"),
    "coding/core.py": (
        "from coding.base import Codec\n\n\nclass BaseCodec(Codec):\n"
        "    def encode(self, text):\n        return self._pack(text.encode())\n\n"
        "    def decode(self, data):\n        return data.decode()\n\n"
        "    def _pack(self, data):\n        return bytes(data)\n\n\n"
        "class BytesCodec(BaseCodec):\n    def decode(self, data):\n        return data\n"),
    "coding/text.py": (
        "from coding.core import BaseCodec\n\n\nclass TextCodec(BaseCodec):\n"
        "    def encode(self, text):\n"
        "        return super().encode(self._fold(self._trim(text)))\n\n"
        "    def _fold(self, text):\n        return text.casefold()\n\n"
        "    def _trim(self, text):\n        return text.strip()\n"),
}


def test_a_private_role_is_folded_in_as_the_interfaces_abstract_hooks(tmp_path: Path) -> None:
    """marshmallow's FieldABC declares private abstract hooks (`_serialize`): a role of private
    helpers is folded in as more of them, and the class that would be left abstract (the base
    every codec derives from) opts out, so every codec stays instantiable."""
    root = tmp_path / "repo"
    for path, text in CODECS.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (candidate,) = find_candidates(load(root), SMELL, options=SMALL)
    assert candidate.data["abstract"] == "abstractmethod"
    assert candidate.data["donors"] == {"coding.text.TextCodec": ["_fold", "_trim"]}
    injection = injected(root, SMELL, "easy", "coding.base.Codec")
    # declared as the interface declares its hooks (a `pass` body); opted out of by raising
    assert "+    @abstractmethod\n+    def _fold(self, text):\n+        pass\n" in \
        injection.smelly_patch
    assert "+    def _fold(self, text):\n+        raise NotImplementedError\n" in \
        injection.smelly_patch
    assert injection.files == ("coding/base.py", "coding/core.py")
    assert injection.smelly_patch.count("+    def _trim(self, text):") == 2  # Codec, BaseCodec
    assert_round_trip(root, injection)
    same_behaviour(root, injection, tmp_path, [
        "coding.core:BytesCodec().encode(' A ')", "coding.text:TextCodec().encode(' A ')"])


def test_a_plain_base_that_is_instantiated_is_never_made_abstract(tmp_path: Path) -> None:
    """An abstract class cannot be instantiated: a plain base called by name somewhere keeps
    its plain declarations, which every implementer inherits: an opt-out would repeat them,
    so there is no case."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / SMELL / "visitors" / "before", root)
    with open(root / "tree" / "analysis.py", "a") as handle:
        handle.write("\n\ndef walk(node):\n    Visitor().visit(node)\n")
    project = load(root)
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    assert candidate.data["convert"] is None
    # a class kept as a value may be instantiated later: it is no less instantiated
    (root / "tree" / "analysis.py").write_text(
        (FIXTURES / SMELL / "visitors" / "before" / "tree" / "analysis.py").read_text()
        + "\n\nDEFAULT_VISITOR = Visitor\n")
    (other,) = find_candidates(load(root), SMELL, options=SMALL)
    assert other.data["convert"] is None
    for difficulty in DIFFICULTIES:
        outcome = attempt(make_injector(SMELL, SMALL), InjectionContext(project), candidate,
                          difficulty)
        assert isinstance(outcome, InjectionRefused), outcome
        assert "an opt-out there would repeat it" in outcome.message


def test_a_plain_base_made_abstract_forces_a_handful_at_most(tmp_path: Path) -> None:
    """Made abstract, a base forces every implementer that lacks the role to opt out: beyond
    `MAX_FORCED` classes that would be a wall of stubs, and the base is left plain."""
    from smellkit.injectors.interface_segregation import MAX_FORCED

    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / SMELL / "visitors" / "before", root)
    (root / "tree" / "many.py").write_text("from tree.visitor import Visitor\n" + "".join(
        f"\n\nclass {word}Visitor(Visitor):\n    def generic_visit(self, node):\n"
        f"        return {word!r}\n"
        for word in ("Alpha", "Beta", "Gamma", "Delta", "Kappa", "Sigma")[:MAX_FORCED]))
    project = load(root)
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    outcome = attempt(make_injector(SMELL, SMALL), InjectionContext(project), candidate,
                      "medium")
    assert isinstance(outcome, InjectionRefused), outcome
    assert f"a handful is at most {MAX_FORCED}" in outcome.message


def test_discovery_counts_what_it_turns_away(tmp_path: Path) -> None:
    """`smellkit candidates --explain` says why a family is no candidate: a base whose
    subclasses override it but have nothing of their own, an interface with one implementer."""
    root = _copy(tmp_path)
    (root / "store" / "hooks.py").write_text(
        "from abc import ABC, abstractmethod\n\n\nclass Hook:\n    def run(self):\n"
        "        return 0\n\n\nclass Early(Hook):\n    def run(self):\n        return 1\n"
        "\n\nclass Late(Hook):\n    def run(self):\n        return 2\n\n\n"
        "class Codec(ABC):\n    @abstractmethod\n    def encode(self, text):\n        pass\n"
        "\n\nclass Plain(Codec):\n    def encode(self, text):\n        return text\n")
    context = InjectionContext(load(root))
    found = find_candidates(context.project, SMELL, options=SMALL, context=context)
    assert [candidate.target.qualname for candidate in found] == [TARGET]
    assert context.discarded == {
        "no implementer has public methods of its own (a role) to fold in": 1,
        "fewer than 2 concrete implementers": 1,
        "a base whose public methods fewer than 2 subclasses override": 1}, context.discarded


def test_the_file_rule_reads_where_the_opt_outs_are_written(tmp_path: Path) -> None:
    """SmellBench's 500-line rule keeps a family whose interface sits in a short module when
    one of its implementers' modules is long (jinja2's NodeVisitor: a 92-line visitor.py, the
    code generator's 2000-line compiler.py): the opt-outs are written there. A family whose
    modules are all short is still removed, and the clients' modules (written against the
    interface, never edited) do not count."""
    from smellkit.injectors.engine import discover

    root = _copy(tmp_path)
    found, report = discover(load(root), SMELL)
    assert found == [] and report.removed == {"in a file shorter than 500 lines": 1}
    with open(root / "store" / "memory.py", "a") as handle:
        handle.writelines(f"\n\ndef helper_for_{word}():\n    return {word!r}\n"
                          for word in ("alpha", "beta", "gamma", "delta", "kappa") * 30)
    (candidate,) = find_candidates(load(root), SMELL)
    assert candidate.target.qualname == TARGET and candidate.target.path == "store/base.py"
    assert "store/memory.py" in candidate.data["written"]


def test_the_interfaces_own_lines_need_not_run(tmp_path: Path) -> None:
    """The edit adds only stubs, which no test runs: an interface whose declarations (raising
    methods) keep its own line coverage low is no worse a candidate for it."""
    from smellkit.injectors.engine import discover

    root = _copy(tmp_path)
    project = load(root)
    covered = frozenset({TARGET, "store.disk.DiskStorage"})
    found, report = discover(project, SMELL, options=SMALL, covered=covered,
                             line_coverage={TARGET: 0.0})
    assert [item.target.qualname for item in found] == [TARGET] and not report.removed


# -- real code ------------------------------------------------------------------------------------

REAL = {("click", "8.1.7"): (), ("jinja2", "3.1.4"): ("medium", "hard"),
        ("marshmallow", "3.23.1"): ("easy",), ("wtforms", "3.2.1"): ()}
"""The difficulties each library reaches, when only implementers with a role of their own (or
ones an abstract declaration would leave abstract) opt out and only changed files count.
click: every family lives in one module (core.py, types.py): no candidate. jinja2: NodeVisitor,
never instantiated, made abstract with CodeGenerator's role declared abstract: the other visitors
of visitor.py, compiler.py and idtracking.py are forced to opt out (medium), and at hard
NodeTransformer stays abstract so that optimizer.py's Optimizer opts out (no easy case: the forced
opt-outs span 3 modules, and no other visitor has a role of its own).
marshmallow: FieldABC widened with Nested's or Number's private helpers as abstract hooks, Field
opting out (two files). wtforms: Field, a plain base that only raises, cannot be made abstract
(it is called by name and has a dozen direct subclasses): every implementer would inherit the
raise, so an opt-out would repeat it; no case."""

CANDIDATES = {"click": 0, "jinja2": 1, "marshmallow": 1, "wtforms": 1}


def _problems(text: str, path: str) -> list[str]:
    """pyflakes' verdicts (ruff's F rules) on one file."""
    import json
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", "F",
         "--output-format", "json", "--stdin-filename", path, "-"],
        input=text, capture_output=True, text=True, check=False)
    return sorted(item["code"] + " " + item["message"] for item in json.loads(result.stdout))


@pytest.mark.slow
@pytest.mark.parametrize("name,version", sorted(REAL))
def test_real_code(tmp_path: Path, name: str, version: str) -> None:
    """Counts on real code (`pytest -s` prints them), every file size allowed; for each
    difficulty reached, the first injection spans the files its difficulty promises, passes
    every round-trip property, adds only declarations and opt-outs named after the donor's
    methods (no numbered name) and no problem pyflakes would report."""
    from smellkit.injectors.naming import is_numbered
    from tests.injectors.support import first_injection, smelly_files
    from tests.support.pypi import sdist

    root = sdist(name, version) / "src"
    counts = real_code(root, SMELL, tries=10, verified=1)
    print(f"\n{SMELL} on {name} {version}: {counts}")
    assert counts["easy"]["candidates"] == CANDIDATES[name]
    assert [difficulty for difficulty in DIFFICULTIES if counts[difficulty]["injected"]] == \
        list(REAL[(name, version)]), counts
    for difficulty in REAL[(name, version)]:
        injection = first_injection(root, SMELL, difficulty)
        spanned = {*injection.files, *(item.path for item in injection.locations)}
        assert len(spanned) == 2 if difficulty == "easy" else \
            len(spanned) >= {"medium": 3, "hard": 4}[difficulty], spanned
        added = [line[1:].strip() for line in injection.smelly_patch.splitlines()
                 if line.startswith("+") and not line.startswith("+++") and line[1:].strip()]
        header = False  # inside a `def` signature written over several lines
        for line in added:
            assert header or line.startswith(("def ", "@", "import ", "from "))\
                or line in ("raise NotImplementedError", "raise NotImplementedError()", "pass",
                            "...")\
                or re.fullmatch(r"if (\w+\.)?TYPE_CHECKING:", line)\
                or (line.startswith("class ") and line.endswith("(abc.ABC):")), line
            header = (header or line.startswith("def ")) and not line.endswith(":")
        # an opt-out refuses; only a declaration in the style of the interface's own may pass
        assert added.count("pass") + added.count("...") <= sum(
            line.endswith("abstractmethod") for line in added)
        assert not any(is_numbered(line[4:].partition("(")[0]) for line in added
                       if line.startswith("def "))
        for path, text in smelly_files(root, injection, tmp_path / difficulty).items():
            assert text is not None
            assert _problems(text, path) == _problems((root / path).read_text(), path), path


SUITES = {
    ("jinja2", "3.1.4"): ("medium", ()),
    ("marshmallow", "3.23.1"): ("easy", ("--deselect", "tests/test_version_attributes.py::"
                                         "test_version_attributes_deprecated")),
}
"""Library -> the difficulty whose first injection its own tests run on, and pytest arguments
for a test that fails on the original in an uninstalled checkout (marshmallow reads its
version from installed metadata)."""

OPTIONAL = {"wtforms": {"babel": "tests/test_locale_babel.py",
                        "email_validator": "tests/validators/test_email.py"},
            "marshmallow": {"simplejson": ""}}
"""Test dependencies this environment may lack: their tests are left out (or, "", the whole
suite is skipped)."""


@pytest.mark.slow
@pytest.mark.parametrize("name,version", sorted(SUITES))
def test_own_tests_pass_on_the_smelly_code(tmp_path: Path, name: str, version: str) -> None:
    """Behaviour is kept: the library's own test suite passes on the smelly version."""
    import importlib.util

    from tests.injectors.support import first_injection
    from tests.support.pypi import sdist

    top = sdist(name, version)
    difficulty, extra = SUITES[(name, version)]
    arguments = list(extra)
    for module, tests in OPTIONAL.get(name, {}).items():
        if importlib.util.find_spec(module) is None:
            if not tests:
                pytest.skip(f"{name}'s tests need {module}")
            arguments.append(f"--ignore={tests}")
    injection = first_injection(top / "src", SMELL, difficulty)
    result = own_tests_pass(top, injection, tmp_path, arguments)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert " passed" in result.stdout


TYPED = {
    "frames/__init__.py": "",
    "frames/base.py": (
        "import typing as t\nfrom abc import ABC, abstractmethod\n\n\n"
        "class Visitor(ABC):\n"
        "    @abstractmethod\n    def visit(self, node: int) -> None:\n"
        "        raise NotImplementedError()\n\n"
        "    @abstractmethod\n    def leave(self, node: int) -> t.Optional[int]:\n"
        "        raise NotImplementedError()\n"),
    "frames/gen.py": (
        "import typing as t\n\nfrom frames.base import Visitor\n\n\n"
        "class Frame:\n    def __init__(self) -> None:\n        self.depth = 0\n\n\n"
        "class Generator(Visitor):\n"
        "    def __init__(self) -> None:\n        self.lines: t.List[str] = []\n\n"
        "    def visit(self, node: int) -> None:\n        self.lines.append(str(node))\n\n"
        "    def leave(self, node: int) -> t.Optional[int]:\n        return node or None\n\n"
        "    def enter(self, frame: Frame, depth: int = 0) -> t.Optional[str]:\n"
        "        frame.depth = depth\n        self.lines.append('  ' * depth)\n"
        "        if depth > 3:\n            return None\n        return str(depth)\n"),
    "frames/count.py": (
        "from frames.base import Visitor\n\n\n"
        "class Counter(Visitor):\n    def __init__(self) -> None:\n        self.count = 0\n\n"
        "    def visit(self, node: int) -> None:\n        self.count += node\n\n"
        "    def leave(self, node: int) -> None:\n        self.count -= 1\n\n\n"
        "class Printer(Visitor):\n    def visit(self, node: int) -> None:\n        print(node)\n\n"
        "    def leave(self, node: int) -> None:\n        print(-node)\n"),
}
"""A typed family (checked with `mypy --strict`) in a repository that writes
`raise NotImplementedError()`: the code generator's `enter` reads `Frame`, defined in its own
module, and `t.Optional`, which the counters' module does not import."""


def test_stubs_keep_the_donors_annotations_and_the_repositorys_raise(tmp_path: Path) -> None:
    """Every declaration and opt-out carries `enter`'s annotations; the counters' module
    imports what they read for type checking only (quoted, as it does not postpone them), and
    each raise is written as the repository writes it. The smelly code passes
    `mypy --strict`, as the original does."""
    import subprocess
    import sys

    root = tmp_path / "repo"
    for path, text in TYPED.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    injection = injected(root, SMELL, "easy", "frames.base.Visitor")
    patch = injection.smelly_patch
    assert "+    def enter(self, frame: Frame, depth: int = 0) -> t.Optional[str]:\n" not in patch
    assert patch.count('+    def enter(self, frame: "Frame", depth: int = 0) '
                       '-> t.Optional[str]:\n') == 1  # the base binds `t`, not `Frame`
    assert patch.count('+    def enter(self, frame: "Frame", depth: int = 0) '
                       '-> "t.Optional[str]":\n') == 2  # Counter, Printer
    assert "+if TYPE_CHECKING:\n+    import typing as t\n" in patch or \
        "+if TYPE_CHECKING:\n+    from frames.gen import Frame\n" in patch
    assert "+from typing import TYPE_CHECKING\n" in patch
    added = [line[1:].strip() for line in patch.splitlines() if line.startswith("+")]
    assert "raise NotImplementedError" not in added
    assert added.count("raise NotImplementedError()") == 3
    smelly = tmp_path / "smelly"
    shutil.copytree(root, smelly)
    from smellkit.injectors.patches import apply_patch

    apply_patch(smelly, patch)
    for folder in (root, smelly):
        checked = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "-p", "frames"],
            cwd=folder, capture_output=True, text=True, check=False)
        assert checked.returncode == 0, checked.stdout
    assert_round_trip(root, injection)
