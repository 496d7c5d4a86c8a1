"""Feature envy injector: before/after on a fixture repository at each difficulty, round trips
there and on click and jinja2 (slow), and the refusals that keep edits safe.

The smelly files of each fixture case are compared with its `after_` folders, with every
injector's, in `test_fixtures.py` (SMELLKIT_REGENERATE=1 rewrites them).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from smellkit.errors import InjectionRefused
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.engine import make_injector
from smellkit.injectors.feature_envy import FeatureEnvyInjector
from smellkit.injectors.naming import is_doubled
from smellkit.models import Difficulty
from smellkit.project import Project
from tests.injectors.support import (
    FIXTURES,
    assert_round_trip,
    attempt,
    first_injection,
    injected,
    real_code_yield,
    same_behaviour,
)
from tests.injectors.support_lint import added_lint, tells

SMELL = "feature_envy"
SHOP = FIXTURES / SMELL / "shop"
LEDGER = FIXTURES / SMELL / "ledger"
SHOP_RUN = ("from shop.customer import Customer\nfrom shop.invoice import Invoice\n"
            "from shop.report import summary\n"
            "people = [Customer('a', 'silver', 1, 'EU'), Customer('b', 'gold', 9, 'US', True)]\n"
            "print(summary([Invoice(person, amount) for person in people\n"
            "               for amount in (10.0, 2000.0)]))\n")
LEDGER_RUN = "from bank.run import demo\nprint(demo())\n"
REACHED: tuple[Difficulty, ...] = ("easy",)
"""A moved method spans two files (its class's, its new home's): medium and hard need subclasses
in other modules that call it (the `handed` case) or calls there on objects typed as its class
(the `typed` case), one module and two; else a third or fourth file would be a mixin or would
only declare the collaborator's type (padding), refused."""


def test_candidates_say_why() -> None:
    context = InjectionContext(Project.load(SHOP / "before"))
    injector = make_injector(SMELL, {"min-file-lines": 0})
    assert isinstance(injector, FeatureEnvyInjector)
    found = {item.target.qualname: item for item in injector.candidates(context)}
    assert sorted(found) == ["shop.customer.Customer._describe",
                             "shop.customer.Customer._discount_rate"]
    candidate = found["shop.customer.Customer._discount_rate"]
    assert "self.customer" in candidate.reason and "so it can move" in candidate.reason
    assert candidate.data["holder"] == "shop.invoice.Invoice"


@pytest.mark.parametrize("difficulty", REACHED)
def test_before_after(difficulty: Difficulty) -> None:
    """The method leaves its class (a move, never a copy) and spans its difficulty's files."""
    root = SHOP / "before"
    injection = injected(root, SMELL, difficulty)
    spanned = {"easy": 2, "medium": 3, "hard": 4}[difficulty]
    assert len(injection.files) == spanned
    assert "-    def _discount_rate(self, amount: float) -> float:" in injection.smelly_patch \
        or "-    def _describe(self) -> str:" in injection.smelly_patch
    assert (len(injection.red_herrings) > 0) == (difficulty != "easy")


@pytest.mark.parametrize("difficulty", REACHED)
def test_round_trip(tmp_path: Path, difficulty: Difficulty) -> None:
    root = SHOP / "before"
    injection = injected(root, SMELL, difficulty)
    assert_round_trip(root, injection)
    same_behaviour(root, injection, tmp_path, SHOP_RUN)


@pytest.mark.parametrize("difficulty", REACHED)
def test_through_a_name(tmp_path: Path, difficulty: Difficulty) -> None:
    """`account._overdraft_fee(...)` in a method of Ledger: the account becomes a parameter."""
    root = LEDGER / "before"
    injection = injected(root, SMELL, difficulty)
    assert "bank/account.py" in injection.files  # private and called from Ledger only: moved
    assert len({*injection.files, *injection.candidate.files}) >= {"easy": 2, "medium": 3,
                                                                   "hard": 4}[difficulty]
    herrings = [item.qualname for item in injection.red_herrings]
    assert herrings == []
    assert_round_trip(root, injection)
    same_behaviour(root, injection, tmp_path, LEDGER_RUN)


STUDIO = FIXTURES / SMELL / "studio"
STUDIO_RUN = "from studio.run import demo\nprint(demo())\n"


def test_both_classes_in_one_module_make_no_candidate() -> None:
    """`Expression.__call__` calls `self._template._new_context(...)` and both classes share a
    module: the envy would span one file, and a module made to hold the method would be a file
    added to reach the count: no candidate, and discovery says why."""
    context = InjectionContext(Project.load(STUDIO / "before", use_cache=False, jobs=1))
    assert not list(make_injector(SMELL, {"min-file-lines": 0}).candidates(context))
    assert context.discarded["both classes share a module (the envy would span one file)"] == 1


def test_refuses_super_and_a_taken_name(tmp_path: Path) -> None:
    shutil_copy = tmp_path / "repo"
    import shutil

    shutil.copytree(SHOP / "before", shutil_copy)
    customer = shutil_copy / "shop" / "customer.py"
    text = customer.read_text()
    customer.write_text(text.replace("        rate = 0.1 if self.vip else 0.0",
                                     "        rate = super().__hash__() * 0 + (0.1 if self.vip "
                                     "else 0.0)"))
    invoice = shutil_copy / "shop" / "invoice.py"
    invoice.write_text(invoice.read_text() + "\n    def _describe(self) -> str:\n"
                       "        return ''\n\n    def _customer_describe(self) -> str:\n"
                       "        return ''\n")
    project = Project.load(shutil_copy)
    injector = make_injector(SMELL, {"min-file-lines": 0})
    context = InjectionContext(project)
    import random

    reasons = {item.target.qualname.rpartition(".")[2]:
               attempt(injector, context, item, "easy", random.Random(0))
               for item in injector.candidates(context)}
    assert "uses super" in str(reasons["_discount_rate"])
    assert "already has members named _describe and _customer_describe" in str(
        reasons["_describe"])


@pytest.mark.slow
@pytest.mark.parametrize("package", [("click", "8.1.7"), ("jinja2", "3.1.4")])
def test_real_code(package: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """Candidates on the real package, and at each difficulty the first injection that passes
    every round-trip property (any success that fails one fails the test), the detector
    finding the envy. Both repositories' candidates are public methods a class lends to the
    object it holds (`ShellComplete.source_vars` to its `cli`, `CodeGenerator.newline` and
    `CodeGenerator.write` to its `environment`): they move, and a forwarding method keeps their
    name. `write` is called by `NativeCodeGenerator` in another module too: medium sends those
    calls to the new home (this test has no test map, so it does not ask whether tests run them);
    no method has callers in two other modules, which hard needs.
    `ShellComplete.get_completions` is turned away: once `self.cli` is its new `self` it reads
    only two attributes of the completer, too few for the detector."""
    count, verified = real_code_yield(package, SMELL)
    with capsys.disabled():
        print(f"\n{SMELL} {package[0]}: {count} candidates, verified {verified}")
    assert count >= 1
    assert all(verified[difficulty] for difficulty in REACHED), verified
    # jinja2's `CodeGenerator.write` is called by `NativeCodeGenerator` in nativetypes.py too:
    # medium sends those calls to the new home; no method of click's has such callers
    assert bool(verified["medium"]) == (package[0] == "jinja2"), verified
    assert not verified["hard"], verified


@pytest.mark.slow
@pytest.mark.parametrize("difficulty", ["easy", "medium"])
def test_jinja2_tests_pass_on_the_smelly_code(tmp_path: Path, difficulty: Difficulty) -> None:
    """Behaviour is kept: jinja2's own test suite passes on the easy injection (two files: the
    method of `CodeGenerator` forwarding, `Environment` holding the method) and on the medium
    one, where `NativeCodeGenerator` in nativetypes.py calls `self.environment.write(self, ...)`
    directly (three files)."""
    from tests.injectors.support import first_injection, own_tests_pass
    from tests.support.pypi import sdist

    top = sdist("jinja2", "3.1.4")
    injection = first_injection(top / "src", SMELL, difficulty)
    assert len(injection.files) == {"easy": 2, "medium": 3}[difficulty]
    assert bool(injection.red_herrings) == (difficulty == "medium")
    if difficulty == "medium":
        assert "+            self.environment.write(self, finalize.src)" in \
            injection.smelly_patch
    result = own_tests_pass(top, injection, tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert " passed" in result.stdout


def test_declared_type_types_a_receiver_the_analysis_cannot_follow(tmp_path: Path) -> None:
    """A visitor method called by name gets its argument from nowhere the analysis sees: the
    parameter's annotation (one class, not Optional) types it; a wider annotation does not."""
    from smellkit.injectors.feature_envy import sites

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(
        "class Box:\n    def __init__(self, w: int, h: int, d: int):\n"
        "        self.w, self.h, self.d = w, h, d\n\n"
        "    def volume(self) -> int:\n        return self.w * self.h * self.d\n")
    (tmp_path / "pkg" / "user.py").write_text(
        "import typing as t\n\nfrom pkg.model import Box\n\n\nclass Packer:\n"
        "    def visit_box(self, box: Box) -> int:\n        return box.volume()\n\n"
        "    def visit_maybe(self, box: t.Optional[Box]) -> int:\n"
        "        return box.volume() if box else 0\n\n"
        "    def run(self, thing: object, kind: str) -> int:\n"
        "        return getattr(self, f'visit_{kind}')(thing)\n")
    context = InjectionContext(Project.load(tmp_path))
    found = [(site.scope, site.receiver, callee)
             for site, callee in sites.call_sites(context.analysis)]
    assert found == [("pkg.user.Packer.visit_box", "box", "pkg.model.Box.volume")]


HELD = FIXTURES / SMELL / "held"
HELD_RUN = "from books.run import demo\nprint(demo())\n"


@pytest.mark.parametrize("difficulty", REACHED)
def test_a_method_moves_to_the_object_its_class_holds(tmp_path: Path,
                                                      difficulty: Difficulty) -> None:
    """`Ledger._headroom` reads three fields of its ledger and only `Ledger.status` calls it,
    while the ledger holds a `Columns` (`self.columns`, set by its constructor): the method goes
    to `Columns`, takes the ledger, and `status` calls
    `self.columns._headroom(self)`; its docstring and comment travel with it."""
    root = HELD / "before"
    injection = injected(root, SMELL, difficulty)
    assert injection.candidate.data["via"] == "columns"
    assert "self.columns._headroom(self)" in injection.smelly_patch
    assert "+    def _headroom(self, ledger):" in injection.smelly_patch
    assert "+        # the entries are signed: payments lower the balance" in injection.smelly_patch
    assert "-    def _headroom(self):" in injection.smelly_patch  # private, one caller: moved
    spanned = {injection.candidate.target.path, *injection.files}
    assert len(spanned) == {"easy": 2, "medium": 3, "hard": 4}[difficulty]
    assert_round_trip(root, injection)
    same_behaviour(root, injection, tmp_path, HELD_RUN)


LENT = FIXTURES / SMELL / "lent"
ASSERTED = FIXTURES / SMELL / "asserted"
RUN = "from {}.run import demo\nprint(demo())\n"
ASSERTED_RUN = ("from shelf.blueprint import Blueprint\nfrom shelf.rack import Rack\n"
                "rack = Rack(Blueprint('box', 3), 'north', 4)\nrack.fill(['a', 'b'])\n"
                "print(rack.describe(), rack.items)\n")


@pytest.mark.parametrize("difficulty", REACHED)
def test_a_method_moves_to_the_collaborator_its_class_passes_it(tmp_path: Path,
                                                               difficulty: Difficulty) -> None:
    """`Questionnaire._check_answers(tally, answers)` reads three fields of the questionnaire
    and only `check` calls it, passing the `Tally` it made: the method goes to `Tally`, the
    tally is its `self` and the questionnaire its new parameter, and `check`
    calls `tally._check_answers(self, answers)`; its docstring and comment travel with it."""
    root = LENT / "before"
    injection = injected(root, SMELL, difficulty)
    assert injection.candidate.data["argument"] == "tally"
    assert "+        tally._check_answers(self, answers)" in injection.smelly_patch
    assert "+    def _check_answers(self, questionnaire, answers):" in injection.smelly_patch
    assert "+                self.note(name, \"required\")" in injection.smelly_patch
    assert "+            # the limit counts characters, not words" in injection.smelly_patch
    assert "-    def _check_answers(self, tally, answers):" in injection.smelly_patch
    spanned = {injection.candidate.target.path, *injection.files}
    assert len(spanned) == {"easy": 2, "medium": 3, "hard": 4}[difficulty]
    assert not injection.red_herrings
    assert_round_trip(root, injection)
    same_behaviour(root, injection, tmp_path, RUN.format("survey"))


@pytest.mark.parametrize("difficulty", REACHED)
def test_an_asserted_type_names_the_object_a_class_holds(tmp_path: Path,
                                                         difficulty: Difficulty) -> None:
    """`Rack.blueprint` comes from the rack's users (no value the analysis can follow), but the
    constructor asserts it is a `Blueprint`: `Rack._add_item` moves there, what it read
    back through the rack (`rack.blueprint.build`) is its own `self.build`, and it declares
    the type of the rack it is given (for type checkers only), so that the detector sees
    the envy."""
    root = ASSERTED / "before"
    injection = injected(root, SMELL, difficulty)
    assert injection.candidate.data["via"] == "blueprint"
    assert "+            self.blueprint._add_item(self, label)" in injection.smelly_patch
    assert "item = self.build(f\"{rack.name}" in injection.smelly_patch
    assert "rack.blueprint" not in injection.smelly_patch
    assert 'def _add_item(self, rack: "Rack", label):' in injection.smelly_patch
    spanned = {injection.candidate.target.path, *injection.files}
    assert len(spanned) == {"easy": 2, "medium": 3, "hard": 4}[difficulty]
    assert_round_trip(root, injection)
    same_behaviour(root, injection, tmp_path, ASSERTED_RUN)


def test_a_sentinel_or_a_rebound_parameter_is_no_collaborator(tmp_path: Path) -> None:
    """An argument that is a marker object (no data of its own) is no home for the method,
    and a method that rebinds the parameter it would lose cannot read it as `self`."""
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(LENT / "before", root)
    tally = root / "survey" / "tally.py"
    tally.write_text(tally.read_text().replace(
        "    def __init__(self):\n        self.problems = {}\n", "    problems = {}\n"))
    context = InjectionContext(Project.load(root, use_cache=False, jobs=1))
    assert not list(make_injector(SMELL, {"min-file-lines": 0}).candidates(context))
    assert context.discarded["the passed object holds no data of its own (a sentinel)"] == 1
    shutil.rmtree(root)
    shutil.copytree(LENT / "before", root)
    questionnaire = root / "survey" / "questionnaire.py"
    questionnaire.write_text(questionnaire.read_text().replace(
        "        for name in self.questions:\n",
        "        tally = tally or Tally()\n        for name in self.questions:\n"))
    context = InjectionContext(Project.load(root, use_cache=False, jobs=1))
    injector = make_injector(SMELL, {"min-file-lines": 0})
    (candidate,) = injector.candidates(context)
    refusal = attempt(injector, context, candidate, "easy")
    assert "rebinds its parameter tally" in str(refusal)


@pytest.mark.parametrize(("case", "difficulty"), [
    *((case, level) for case in ["shop", "ledger", "held", "lent", "asserted"]
      for level in REACHED), ("handed", "medium"), ("handed", "hard"),
    ("typed", "medium"), ("typed", "hard")])
def test_added_code_reads_as_the_repositorys_own(case: str, difficulty: Difficulty) -> None:
    """New locals and parameters are named with the repository's words (never numbered,
    padded with underscores, doubled, or `_parts`/`_bases` of a fixed list), the added code
    defines every name it uses and imports nothing it does not, and no module is added."""
    root = FIXTURES / SMELL / case / "before"
    project = Project.load(root, use_cache=False, jobs=1)
    injection = injected(root, SMELL, difficulty)
    assert tells(project, injection) == []
    assert added_lint(root, injection) == set()
    added = [line[1:] for line in injection.smelly_patch.splitlines()
             if line.startswith("+") and not line.startswith("+++")]
    assert "--- /dev/null" not in injection.smelly_patch  # no new module
    assert not [line for line in added if "__slots__" in line or "Mixin" in line]
    names = [word for line in added for word in re.findall(r"(?:class|def) (\w+)", line)]
    assert names and not [name for name in names if is_doubled(name)]


@pytest.mark.parametrize("case", ["shop", "ledger", "held", "lent", "asserted"])
@pytest.mark.parametrize("difficulty", ["medium", "hard"])
def test_medium_and_hard_are_refused_where_a_file_would_hold_nothing(
        case: str, difficulty: Difficulty) -> None:
    """A moved method that nothing outside its two classes calls spans their two modules: a
    third or fourth (a one-method mixin, a module that only declares the collaborator's type)
    would be padding, refused; no injection adds a module."""
    root = FIXTURES / SMELL / case / "before"
    context = InjectionContext(Project.load(root, use_cache=False, jobs=1))
    injector = make_injector(SMELL, {"min-file-lines": 0})
    candidates = list(injector.candidates(context))
    assert candidates
    for candidate in candidates:
        refusal = attempt(injector, context, candidate, difficulty)
        assert isinstance(refusal, InjectionRefused), candidate.target.qualname
        assert "would be a file added to reach the count" in refusal.message


@pytest.mark.slow
def test_new_repository() -> None:
    """python-dateutil, never seen by the injector: its methods that another class calls on an
    object it holds (`_ymd.append`, `_ymd.resolve_ymd`, called by `parser`) live in the caller's
    module, so the envy would span one file (they are public too, and could only be copied): no
    candidate, and discovery says why."""
    from tests.support.pypi import sdist

    root = sdist("python-dateutil", "2.9.0.post0") / "src"
    context = InjectionContext(Project.load(root, jobs=1))
    assert not list(make_injector(SMELL, {}).candidates(context))
    assert context.discarded["both classes share a module (the envy would span one file)"] >= 1


def test_discovery_counts_methods_no_other_class_reaches(tmp_path: Path) -> None:
    """Without a call through a held or passed instance there is nothing to move: discovery
    says so for each method instead of "no definition of the kind this smell needs"."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "shapes.py").write_text(
        "class Box:\n    def __init__(self, w, h, d):\n        self.w, self.h, self.d = w, h, d\n"
        "\n    def volume(self):\n        return self.w * self.h * self.d\n"
        "\n    def area(self):\n        return 2 * (self.w * self.h + self.h * self.d)\n")
    context = InjectionContext(Project.load(tmp_path, use_cache=False, jobs=1))
    assert not list(make_injector(SMELL, {"min-file-lines": 0}).candidates(context))
    assert context.discarded == {"a method no other class calls on an instance it holds or is "
                                 "passed (self.<attr>.m(), or a typed name)": 2}


@pytest.mark.slow
def test_wtforms_lends_its_list_entries_to_the_unbound_field() -> None:
    """WTForms has no method another class calls through an attribute or a typed name; its one
    candidate is `FieldList._add_entry`, which reads eight fields of the list and whose list
    holds an `UnboundField` (asserted by the constructor). At easy the injection spans two
    files, verifies (the detector finds the envy), names what it adds with the repository's
    words and lints clean; nothing outside the list calls the method, so medium and hard,
    which would need a module made for the count, are refused."""
    from smellkit.injectors.engine import find_candidates, verify
    from tests.support.pypi import sdist

    root = sdist("wtforms", "3.2.1") / "src"
    project = Project.load(root, jobs=1)
    found = find_candidates(project, SMELL, options={"min-file-lines": 0})
    assert [item.target.qualname for item in found] == ["wtforms.fields.list.FieldList._add_entry"]
    injection = first_injection(root, SMELL, "easy")
    spanned = {*injection.files, *(item.location.path for item in injection.targets)}
    assert spanned == {"wtforms/fields/core.py", "wtforms/fields/list.py"}
    assert "self.unbound_field._add_entry(self, formdata)" in injection.smelly_patch
    result = verify(root, injection, original=project)
    assert result.ok, result
    assert tells(project, injection) == []
    assert added_lint(root, injection) == set()
    context = InjectionContext(project)
    injector = make_injector(SMELL, {"min-file-lines": 0})
    for difficulty in ("medium", "hard"):
        refusal = attempt(injector, context, found[0], difficulty)
        assert isinstance(refusal, InjectionRefused)
        assert "would be a file added to reach the count" in refusal.message


def test_a_signature_past_the_line_length_is_wrapped_as_the_formatter_would() -> None:
    """The parameter a move adds can push the `def` line past the repository's length: the
    parameters then go on a line of their own, the closing parenthesis below them."""
    import libcst as cst

    from smellkit.injectors.feature_envy import rewrite

    function = cst.parse_statement(
        "def _add_entry(self, field_list, formdata=None, data=None, index=None) -> None:\n"
        "    return None\n")
    assert isinstance(function, cst.FunctionDef)
    assert rewrite.wrapped(function, 88) is function  # 85 columns one level in: as it was
    code = rewrite.in_class(rewrite.wrapped(function, 79))
    assert code.startswith("    def _add_entry(\n        self, field_list, formdata=None, "
                           "data=None, index=None\n    ) -> None:\n        return None\n"), code
    assert all(len(line) <= 79 for line in code.splitlines())


@pytest.mark.parametrize("difficulty", REACHED)
def test_a_public_method_moves_and_its_class_hands_calls_on(tmp_path: Path,
                                                           difficulty: Difficulty) -> None:
    """A public method is API (code outside may call it): it still moves, never copied, and
    its class keeps a method of its name, with its docstring, that hands the calls on to the
    new home (its own call stays, so tests that run the class run the forwarding too)."""
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(HELD / "before", root)
    ledger = root / "books" / "ledger.py"
    ledger.write_text(ledger.read_text().replace("_headroom", "headroom"))
    injection = injected(root, SMELL, difficulty)
    assert "public, so it moves" in injection.candidate.reason
    patch = injection.smelly_patch
    assert "-        return self.opening + sum(self.entries) + self.limit" in patch
    assert "+        return self.columns.headroom(self)" in patch
    assert "room = self.headroom()" in patch and "+        room" not in patch
    assert '-        """What can still be spent' not in patch  # the forwarding method keeps it
    assert "+        return ledger.opening + sum(ledger.entries) + ledger.limit" in patch
    assert_round_trip(root, injection)
    run = ("from books.ledger import Ledger\nfrom books.run import demo\n"
           "print(demo(), Ledger('bo', 5, 1).headroom())\n")  # the API call still answers
    same_behaviour(root, injection, tmp_path, run)


HANDED = FIXTURES / SMELL / "handed"


SAVINGS = "+        if amount > self.columns.headroom(self):"
CREDIT = "+        if self.columns.headroom(self) < amount:"


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_subclasses_elsewhere_call_the_new_home_directly(
        tmp_path: Path, difficulty: Difficulty) -> None:
    """`Ledger.headroom` is public, and `SavingsLedger.withdraw` and `CreditLedger.charge`, in
    two other modules, call it too: it is a candidate all the same (the forwarding method
    serves those calls). Easy leaves the subclasses alone; medium sends one module's calls to
    the new home, `self.columns.headroom(self)` (three modules, the other subclass calling the
    forwarding method), hard both (four); the redirected methods are named among the code
    involved, and no module is added."""
    root = HANDED / "before"
    injection = injected(root, SMELL, difficulty)
    assert "books/credit.py, books/savings.py call it too" in injection.candidate.reason
    patch = injection.smelly_patch
    assert "+        return self.columns.headroom(self)" in patch  # the forwarding method
    redirected = {name for name, line in (("savings", SAVINGS), ("credit", CREDIT))
                  if line in patch}
    assert len(redirected) == {"easy": 0, "medium": 1, "hard": 2}[difficulty]
    assert len(injection.files) == {"easy": 2, "medium": 3, "hard": 4}[difficulty]
    assert "--- /dev/null" not in patch
    involved = {item.qualname for item in injection.locations}
    assert {name for name, method in (("savings", "books.savings.SavingsLedger.withdraw"),
                                      ("credit", "books.credit.CreditLedger.charge"))
            if method in involved} == redirected
    assert injection.red_herrings if difficulty != "easy" else not injection.red_herrings
    assert_round_trip(root, injection)
    same_behaviour(root, injection, tmp_path, HELD_RUN)


def test_medium_picks_the_redirected_module_by_the_seed() -> None:
    """Medium's one module of callers is the seed's pick: both show up over a few seeds."""
    import random

    project = Project.load(HANDED / "before", use_cache=False, jobs=1)
    context = InjectionContext(project)
    injector = make_injector(SMELL, {"min-file-lines": 0})
    (candidate,) = injector.candidates(context)
    picked = set()
    for seed in range(8):
        edit = attempt(injector, context, candidate, "medium", random.Random(seed))
        assert not isinstance(edit, InjectionRefused), edit
        picked.add(next(path for path in edit.changes if path.endswith(("savings.py",
                                                                        "credit.py"))))
    assert picked == {"books/savings.py", "books/credit.py"}


def _handed_copy(tmp_path: Path, old: str, new: str) -> Path:
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(HANDED / "before", root)
    savings = root / "books" / "savings.py"
    savings.write_text(savings.read_text().replace(old, new))
    return root


@pytest.mark.parametrize(("old", "new", "why"), [
    ("        self.add(-amount)\n",
     "        self.add(-amount)\n\n    def headroom(self):\n        return 0\n",
     "an override of its own: SavingsLedger's calls are not the moved method's"),
    ("self.headroom()", "super().headroom()", "a call not through self: left to the forwarder"),
])
def test_hard_needs_every_call_from_elsewhere_to_reach_the_method_through_self(
        tmp_path: Path, old: str, new: str, why: str) -> None:
    """A subclass that overrides the method, or reaches it otherwise than `self.m(...)`, is no
    caller that may go to the new home: with only `CreditLedger` left, hard is refused (one
    module of callers), while medium sends that one's calls there and easy moves the method,
    the forwarding method serving the rest."""
    root = _handed_copy(tmp_path, old, new)
    context = InjectionContext(Project.load(root, use_cache=False, jobs=1))
    injector = make_injector(SMELL, {"min-file-lines": 0})
    (candidate,) = injector.candidates(context)
    assert [caller[1] for caller in candidate.data["callers"]] == [
        "books.credit.CreditLedger.charge"], why
    refusal = attempt(injector, context, candidate, "hard")
    assert isinstance(refusal, InjectionRefused)
    assert "the callers of headroom that can go to its new home are in 1 other module" \
        in refusal.message
    medium = attempt(injector, context, candidate, "medium")
    assert not isinstance(medium, InjectionRefused), medium
    assert sorted(medium.changes) == ["books/credit.py", "books/layout.py", "books/ledger.py"]
    assert not isinstance(attempt(injector, context, candidate, "easy"), InjectionRefused)


def test_without_callers_elsewhere_medium_and_hard_are_refused(tmp_path: Path) -> None:
    """With neither subclass calling the method, a move spans two modules: medium says why."""
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(HANDED / "before", root)
    for name in ("savings.py", "credit.py"):
        path = root / "books" / name
        path.write_text(path.read_text().replace("self.headroom()", "super().headroom()"))
    context = InjectionContext(Project.load(root, use_cache=False, jobs=1))
    injector = make_injector(SMELL, {"min-file-lines": 0})
    (candidate,) = injector.candidates(context)
    for difficulty in ("medium", "hard"):
        refusal = attempt(injector, context, candidate, difficulty)
        assert isinstance(refusal, InjectionRefused)
        assert "no caller of headroom in another module can go to its new home" \
            in refusal.message


def test_callers_the_tests_do_not_run_keep_the_forwarding_method() -> None:
    """A redirected call that no test runs would be a changed line no selected test runs (the
    case would fail adequacy): a caller whose lines the test map says are half run keeps
    calling the forwarding method, as jinja2's `NativeCodeGenerator._output_child_pre` does,
    while the other subclass's call may still go to the new home."""
    project = Project.load(HANDED / "before", use_cache=False, jobs=1)
    injector = make_injector(SMELL, {"min-file-lines": 0})
    for share, expected in ((1.0, 2), (0.5, 1)):
        context = InjectionContext(project, line_coverage={
            "books.savings.SavingsLedger.withdraw": share})
        (candidate,) = injector.candidates(context)
        assert len(candidate.data["callers"]) == expected


TYPED = FIXTURES / SMELL / "typed"
TYPED_RUN = "from books.run import demo\nprint(demo())\n"
AUDIT = "+        if ledger.columns.headroom(ledger) < floor:"
BRANCH = "+        if self.account.columns.headroom(self.account) < bill:"


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_calls_on_typed_objects_elsewhere_go_to_the_new_home(
        tmp_path: Path, difficulty: Difficulty) -> None:
    """`Ledger.headroom` moves to the `Columns` its ledger holds; no subclass calls it, but
    `Branch.pay` calls it on the ledger it keeps (`self.account.headroom()`) and the audit's
    `flag_low` on each ledger it is given (`ledger.headroom()`), both typed by the points-to
    analysis. Medium sends one module's calls to the new home, hard both; the rest call the
    forwarding method, and moving the method back means editing each redirected module."""
    root = TYPED / "before"
    injection = injected(root, SMELL, difficulty)
    assert "code in books/audit.py, books/branch.py calls it too" in injection.candidate.reason
    patch = injection.smelly_patch
    assert "+        return self.columns.headroom(self)" in patch  # the forwarding method
    redirected = {name for name, line in (("audit", AUDIT), ("branch", BRANCH)) if line in patch}
    assert len(redirected) == {"easy": 0, "medium": 1, "hard": 2}[difficulty]
    assert len(injection.files) == {"easy": 2, "medium": 3, "hard": 4}[difficulty]
    assert "--- /dev/null" not in patch
    involved = {item.qualname for item in injection.locations}
    assert {name for name, scope in (("audit", "books.audit.flag_low"),
                                     ("branch", "books.branch.Branch.pay"))
            if scope in involved} == redirected
    assert_round_trip(root, injection)
    same_behaviour(root, injection, tmp_path, TYPED_RUN)


def _typed_callers(root: Path) -> list[str]:
    context = InjectionContext(Project.load(root, use_cache=False, jobs=1))
    (candidate,) = make_injector(SMELL, {"min-file-lines": 0}).candidates(context)
    return [caller[1] for caller in candidate.data["callers"]]


def _typed_copy(tmp_path: Path, name: str, old: str, new: str) -> Path:
    import shutil

    root = tmp_path / "repo"
    if not root.exists():
        shutil.copytree(TYPED / "before", root)
    path = root / "books" / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return root


def test_only_receivers_the_analysis_is_sure_of_are_redirected(tmp_path: Path) -> None:
    """A receiver that may hold something else (a `Ledger` or a string), or that nothing the
    analysis sees ever fills, is no caller that may go to the new home: `flag_low` keeps
    calling the forwarding method; declared as a `Ledger`, the parameter counts again."""
    root = _typed_copy(tmp_path, "run.py", "flag_low([ledger, spare], 20)",
                       "flag_low([ledger, spare, 'x'], 20)")
    assert _typed_callers(root) == ["books.branch.Branch.pay"]
    _typed_copy(tmp_path, "run.py", "flag_low([ledger, spare, 'x'], 20)", "''")
    _typed_copy(tmp_path, "audit.py", "def flag_low(ledgers, floor):",
                "def flag_low(ledgers, floor):\n    return [ledger.owner for ledger in ledgers]"
                "\n\n\ndef runs_low(ledger, floor):\n    return ledger.headroom() < floor\n"
                "\n\ndef _unused(ledgers, floor):")
    assert _typed_callers(root) == ["books.branch.Branch.pay"]
    _typed_copy(tmp_path, "audit.py", "def runs_low(ledger, floor):",
                "def runs_low(ledger: Ledger, floor):")
    _typed_copy(tmp_path, "audit.py", '"""Checks an auditor runs over accounts."""\n',
                '"""Checks an auditor runs over accounts."""\n\nfrom books.ledger import Ledger\n')
    assert _typed_callers(root) == ["books.audit.runs_low", "books.branch.Branch.pay"]


def test_a_receiver_whose_class_overrides_the_method_keeps_the_forwarding_method(
        tmp_path: Path) -> None:
    """The branch's account is a subclass that answers `headroom` itself: its call would no
    longer run that override if it went to the new home. The analysis's "a `Ledger`" also
    stands for what an annotation promises, which that subclass may fill: every call on a
    receiver typed `Ledger` keeps calling the forwarding method, an annotated one too."""
    root = _typed_copy(tmp_path, "branch.py", "class Branch:",
                       "class HouseLedger(Ledger):\n    def headroom(self):\n        return 0\n"
                       "\n\nclass Branch:")
    _typed_copy(tmp_path, "branch.py", "self.account = Ledger(", "self.account = HouseLedger(")
    assert _typed_callers(root) == []
    _typed_copy(tmp_path, "run.py", "flag_low([ledger, spare], 20)", "''")
    _typed_copy(tmp_path, "audit.py", "def flag_low(ledgers, floor):",
                "def flag_low(ledgers, floor):\n    return [ledger.owner for ledger in ledgers]"
                "\n\n\ndef runs_low(ledger: Ledger, floor):\n"
                "    return ledger.headroom() < floor\n\n\ndef _unused(ledgers, floor):")
    _typed_copy(tmp_path, "audit.py", '"""Checks an auditor runs over accounts."""\n',
                '"""Checks an auditor runs over accounts."""\n\nfrom books.ledger import Ledger\n')
    assert _typed_callers(root) == []


def test_typed_calls_keep_away_from_a_private_attribute(tmp_path: Path) -> None:
    """`ledger._columns.headroom(ledger)` in another module would reach into the ledger's
    private state: with the collaborator held in a private attribute, typed calls stay with the
    forwarding method (and medium is refused, no other caller being left)."""
    root = tmp_path / "repo"
    import shutil

    shutil.copytree(TYPED / "before", root)
    ledger = root / "books" / "ledger.py"
    ledger.write_text(ledger.read_text().replace("self.columns", "self._columns"))
    assert _typed_callers(root) == []
    context = InjectionContext(Project.load(root, use_cache=False, jobs=1))
    injector = make_injector(SMELL, {"min-file-lines": 0})
    (candidate,) = injector.candidates(context)
    refusal = attempt(injector, context, candidate, "medium")
    assert isinstance(refusal, InjectionRefused)
    assert "no caller of headroom in another module can go to its new home" in refusal.message


def test_typed_callers_the_tests_do_not_run_keep_the_forwarding_method() -> None:
    """As for subclasses: a typed caller whose lines the tests barely run is left alone."""
    project = Project.load(TYPED / "before", use_cache=False, jobs=1)
    injector = make_injector(SMELL, {"min-file-lines": 0})
    for share, expected in ((1.0, 2), (0.5, 1)):
        context = InjectionContext(project, line_coverage={"books.audit.flag_low": share})
        (candidate,) = injector.candidates(context)
        assert len(candidate.data["callers"]) == expected


def test_a_private_method_called_elsewhere_is_no_candidate(tmp_path: Path) -> None:
    """A private method has no forwarding method to keep its other callers working: with a
    subclass in another module calling it, it cannot move."""
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(HANDED / "before", root)
    for name in ("ledger.py", "savings.py", "credit.py"):
        path = root / "books" / name
        path.write_text(path.read_text().replace("headroom", "_headroom"))
    context = InjectionContext(Project.load(root, use_cache=False, jobs=1))
    assert not list(make_injector(SMELL, {"min-file-lines": 0}).candidates(context))
    assert context.discarded["a method its own class calls, and code elsewhere too"] == 1


def test_a_public_or_shared_method_is_never_copied(tmp_path: Path) -> None:
    """`self.customer.describe()` in Invoice, `describe` public: moving it would break its
    other callers, and a copy would leave the original in place (no move): no candidate."""
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(SHOP / "before", root)
    for name in ("customer.py", "invoice.py"):
        path = root / "shop" / name
        path.write_text(path.read_text().replace("_describe", "describe"))
    context = InjectionContext(Project.load(root, use_cache=False, jobs=1))
    found = [item.target.qualname for item in
             make_injector(SMELL, {"min-file-lines": 0}).candidates(context)]
    assert found == ["shop.customer.Customer._discount_rate"]
    assert context.discarded["public or called elsewhere too: it could only be copied to the "
                             "class that calls it, not moved"] == 1


@pytest.mark.parametrize(("relative", "expected"), [
    (False, "+    from shelf.rack import Rack"), (True, "+    from .rack import Rack")])
def test_new_imports_follow_the_module(tmp_path: Path, relative: bool, expected: str) -> None:
    """The class the moved method declares for its new parameter is imported, for type
    checkers only, in the style of the new home's module: absolute as it is, relative when that
    module imports its siblings so."""
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(ASSERTED / "before", root)
    if relative:
        (root / "shelf" / "units.py").write_text("GRAMS = 1\n")
        blueprint = root / "shelf" / "blueprint.py"
        blueprint.write_text(blueprint.read_text().replace(
            '"""\n', '"""\n\nfrom .units import GRAMS  # noqa: F401\n', 1))
    injection = injected(root, SMELL, "easy")
    added = [line for line in injection.smelly_patch.splitlines() if line.startswith("+")]
    assert expected in added, injection.smelly_patch


def test_the_line_length_is_the_formatters_not_the_longest_string() -> None:
    """Docstrings, strings and comments that run long say nothing of the limit the code keeps
    to: the limit is the common formatter length above the longest line of code."""
    from smellkit.injectors.feature_envy import rewrite

    code = ("def f(alpha, beta):\n"
            '    """' + "x" * 110 + '"""\n'
            "    return alpha + beta  # " + "y" * 100 + "\n"
            "    " + "value = alpha" + " + alpha" * 8 + "\n")
    longest_code = len("    value = alpha" + " + alpha" * 8)
    assert 79 < longest_code <= 88
    assert rewrite.line_length(code) == 88
    assert rewrite.line_length("x = 1\n") == 79


COMPLETER = {
    "pkg/__init__.py": "",
    "pkg/command.py": (
        "import typing\n\nif typing.TYPE_CHECKING:\n    from pkg.complete import Item\n\n\n"
        "class Command:\n    def __init__(self, name):\n        self.name = name\n\n"
        '    def items(self) -> "list[Item]":\n        return []\n'),
    "pkg/complete.py": (
        "from pkg.command import Command\n\n\nclass Item:\n    def __init__(self, value):\n"
        "        self.value = value\n\n\nclass Completer:\n"
        "    def __init__(self, cli: Command, name, prefix, words):\n        self.cli = cli\n"
        "        self.name = name\n        self.prefix = prefix\n        self.words = words\n\n"
        "    def completions(self, incomplete) -> list[Item]:\n"
        "        found = [word for word in self.words if word.startswith(incomplete)]\n"
        "        return [Item(f\"{self.prefix}{word}\") for word in found] + [Item(self.name)]\n\n"
        "    def run(self, incomplete):\n"
        "        return [item.value for item in self.completions(incomplete)]\n"),
    "pkg/run.py": (
        "from pkg.command import Command\nfrom pkg.complete import Completer\n\n\n"
        "def demo():\n    completer = Completer(Command('go'), 'go', '--', ['all', 'any', 'bee'])\n"
        "    return completer.run('a'), completer.run('b')\n"),
}


@pytest.mark.parametrize("difficulty", REACHED)
def test_a_class_the_signature_names_is_imported_for_type_checkers(tmp_path: Path,
                                                                    difficulty: Difficulty
                                                                    ) -> None:
    """`Completer.completions` returns `list[Item]`, and `Item` lives in the module that
    imports the new home: the moved signature quotes it, and the new module imports it under
    `TYPE_CHECKING` (the holder's module has it so already), so no import cycle appears."""
    root = tmp_path / "repo"
    for name, text in COMPLETER.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    injection = injected(root, SMELL, difficulty)
    patch = injection.smelly_patch
    assert "+        return self.cli.completions(self, incomplete)" in patch
    assert ("+    def completions(self, completer: \"Completer\", incomplete) -> \"list[Item]\":"
            in patch)
    assert_round_trip(root, injection)
    same_behaviour(root, injection, tmp_path, "from pkg.run import demo\nprint(demo())\n")
