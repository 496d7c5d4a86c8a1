"""God class injector: before/after on a fixture repository at each difficulty, round trips there
and on click and jinja2 (slow), and the refusals that keep edits safe.

The smelly files of each fixture case are compared with its `after_` folders, with every
injector's, in `test_fixtures.py` (SMELLKIT_REGENERATE=1 rewrites them).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import libcst as cst
import pytest

from smellkit.errors import InjectionRefused
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.engine import make_injector
from smellkit.injectors.god_class import GodClassInjector, planning
from smellkit.injectors.god_class import absorb as absorbing
from smellkit.models import DIFFICULTIES, Difficulty
from smellkit.project import Project
from tests.injectors.support import (
    FIXTURES,
    SMALL,
    assert_round_trip,
    attempt,
    first_injection,
    injected,
    own_tests_pass,
    real_code_counts,
    same_behaviour,
)
from tests.injectors.support_lint import added_lint, tells

SMELL = "god_class"
CONSOLE = FIXTURES / SMELL / "console"
CONSOLE_RUN = ("from term.console import Console\nfrom term.main import main\n"
               "from term.screen import Event, Screen\n"
               "print(main(['echo hi', 'say a b', 'ECHO x', 'nothing', 'q']))\n"
               "console = Console(Screen(10, 2))\n"
               "print(console.alias('hi', 'echo'), console.alias('hi', 'say'), "
               "console.run('hi there', Event('enter')), console.run('', Event('up')))\n"
               "print(console.show('a long line of text to wrap'), console.ring(3), "
               "console.recolor('red', 'red'))\n")


def test_candidates_say_why() -> None:
    context = InjectionContext(Project.load(CONSOLE / "before"))
    injector = make_injector(SMELL, {"min-file-lines": 0})
    assert isinstance(injector, GodClassInjector)
    (candidate,) = injector.candidates(context)
    assert candidate.target.qualname == "term.console.Console"
    held = sorted(item["cls"] for item in candidate.data["collaborators"])
    # Screen comes in as a parameter and StatusBar is used by main.py too: neither is absorbed.
    assert held == ["term.aliases.AliasTable", "term.history.History", "term.painter.Painter"]
    assert "only it uses" in candidate.reason


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_before_after(difficulty: Difficulty) -> None:
    root = CONSOLE / "before"
    injection = injected(root, SMELL, difficulty)
    # The collaborators are public: they stay (unused here) for code outside the repository.
    assert injection.files == ("term/console.py",)
    spanned = {*injection.files, *(item.path for item in injection.locations)}
    assert len(spanned) == {"easy": 2, "medium": 3, "hard": 4}[difficulty]
    herrings = [item.qualname for item in injection.red_herrings]
    assert herrings == {"easy": [], "medium": ["term.painter.Painter", "term.screen.StatusBar"],
                        "hard": ["term.screen.StatusBar"]}[difficulty]


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_round_trip(tmp_path: Path, difficulty: Difficulty) -> None:
    root = CONSOLE / "before"
    injection = injected(root, SMELL, difficulty)
    assert_round_trip(root, injection)
    same_behaviour(root, injection, tmp_path, CONSOLE_RUN)


def _refusal(tmp_path: Path, path: str, old: str, new: str) -> str:
    copy = tmp_path / "repo"
    shutil.copytree(CONSOLE / "before", copy)
    target = copy / path
    target.write_text(target.read_text().replace(old, new, 1))
    context = InjectionContext(Project.load(copy))
    injector = make_injector(SMELL, {"min-file-lines": 0})
    (candidate,) = injector.candidates(context)
    outcome = attempt(injector, context, candidate, "easy")
    assert isinstance(outcome, InjectionRefused), outcome
    return outcome.message


def test_refuses_a_collaborator_passed_on_as_a_whole(tmp_path: Path) -> None:
    reason = _refusal(tmp_path, "term/console.py", "    def alias(self",
                      "    def log(self) -> object:\n        return self.history\n\n"
                      "    def alias(self")
    assert reason == "term.console.Console uses self.history as a whole"


def test_refuses_a_method_that_uses_its_instance(tmp_path: Path) -> None:
    reason = _refusal(tmp_path, "term/history.py", "            return False\n",
                      "            return type(self) is None\n")
    assert reason == "term.history.History.add uses its instance as a whole"


def test_refuses_a_holder_with_slots(tmp_path: Path) -> None:
    reason = _refusal(tmp_path, "term/console.py", "class Console:\n",
                      "class Console:\n    __slots__ = ('__dict__',)\n\n")
    assert reason == "term.console.Console defines __slots__"


def test_no_candidate_when_the_holder_is_a_god_class_already(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(CONSOLE / "before", copy)
    (copy / "pyproject.toml").write_text(
        "[tool.smellkit.detectors.god_class]\nwmc-at-least = 20\natfd-above = 2\n")
    context = InjectionContext(Project.load(copy))
    assert list(make_injector(SMELL, {"min-file-lines": 0}).candidates(context)) == []


MINIMUM = {"click": {"easy": 4, "medium": 1, "hard": 0},
           "jinja2": {"easy": 1, "medium": 1, "hard": 0}}
"""Injections that must succeed among all candidates (files of 500 lines or more), below what
was measured: 1, 0, 0 on both once no module reached its holder through an import inside a
function (before: 4, 3, 2 and 0, 1, 1); click 5, 1, 0 and Jinja2 1, 1, 1 once that import is
allowed where the repository writes such imports itself (both do). Their central classes
(click's `core.Parameter`, Jinja2's `Environment`) live in modules that import the modules
whose functions they call: only so can those modules give them work."""


@pytest.mark.slow
@pytest.mark.parametrize("package", [("click", "8.1.7"), ("jinja2", "3.1.4")])
def test_real_code(package: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """Injections on the real package at each difficulty, and the first of each passes every
    round-trip property (any verified one that fails one fails the test)."""
    from tests.support.pypi import sdist

    counts = real_code_counts(sdist(*package) / "src", SMELL, sample=1)
    with capsys.disabled():
        print(f"\n{SMELL} {package[0]}: {counts}")
    for difficulty in DIFFICULTIES:
        row = counts[difficulty]
        assert row["injected"] >= MINIMUM[package[0]][difficulty], counts
        assert row["verified"] == row["sampled"] == min(1, row["injected"]), counts


@pytest.mark.slow
@pytest.mark.parametrize("package", [("click", "8.1.7"), ("jinja2", "3.1.4")])
def test_own_tests_pass_on_an_injection(package: tuple[str, str], tmp_path: Path) -> None:
    """Behaviour is kept: the project's own test suite passes on the first injection (easy, the
    difficulty both reach), whose absorbed code is called by name as before: no registry
    filled by a decorator and looked up by string, which reads as machine-made."""
    from tests.support.pypi import sdist

    top = sdist(*package)
    injection = first_injection(top / "src", SMELL, "easy")
    assert not re.search(r"\+def _\w+\(function\):", injection.smelly_patch)  # a registry
    assert not re.search(r'_[A-Z_]+\["\w+"\]', injection.smelly_patch)  # a lookup by name
    result = own_tests_pass(top, injection, tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert " passed" in result.stdout


# -- the second form: a holder absorbs functions of other modules -------------------------------

DESK = FIXTURES / SMELL / "desk"
DESK_RUN = ("from desk.planner import Planner\nfrom desk import dates, money, text\n"
            "p = Planner('ann')\np.add('write the quarterly report', 'd2', 4)\n"
            "p.add('call bob', 'later')\np.add('x', '', 2)\np.finish('call bob', 12.5)\n"
            "print(p.agenda(5), p.report())\n"
            "print([dates.parse_day(t) for t in ('d3', 'next week', '#x', '4')], "
            "dates.week_of(15), dates.is_weekend(6), dates.day_name(9))\n"
            "print(text.shorten('a very long title here'), text.shorten('abcdefgh', width=5), "
            "text.slug('Hello, World!'), text.title_case('the end of a day'))\n"
            "print(money.cents(3.456), money.format_price(-1234), money.format_price(5, ''), "
            "Planner.parse_day('d4') if hasattr(Planner, 'parse_day') else 4)\n")


def test_function_candidates_say_why() -> None:
    context = InjectionContext(Project.load(DESK / "before"))
    injector = make_injector(SMELL, {"min-file-lines": 0})
    (candidate,) = injector.candidates(context)
    assert candidate.target.qualname == "desk.planner.Planner"
    assert candidate.data == {"kind": "functions", "holder": "desk.planner.Planner", "modules": 1}
    assert candidate.reason.startswith("absorbing 3 functions of desk.dates (parse_day, ")
    assert "TCC 0.29" in candidate.reason


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_functions_before_after(difficulty: Difficulty) -> None:
    root = DESK / "before"
    injection = injected(root, SMELL, difficulty)
    assert len(injection.files) == {"easy": 2, "medium": 3, "hard": 4}[difficulty]
    herrings = [item.qualname for item in injection.red_herrings]
    assert herrings == {"easy": [], "medium": ["desk.money.format_price", "desk.dates.week_of"],
                        "hard": ["desk.dates.week_of", "desk.dates.is_weekend"]}[difficulty]


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_functions_round_trip(tmp_path: Path, difficulty: Difficulty) -> None:
    root = DESK / "before"
    injection = injected(root, SMELL, difficulty)
    assert_round_trip(root, injection)
    same_behaviour(root, injection, tmp_path, DESK_RUN)


def _desk_clusters(tmp_path: Path, path: str, old: str, new: str
                   ) -> tuple[InjectionContext, list[planning.Cluster]]:
    copy = tmp_path / "repo"
    shutil.copytree(DESK / "before", copy)
    target = copy / path
    target.write_text(target.read_text().replace(old, new, 1))
    context = InjectionContext(Project.load(copy))
    analysis = context.analysis
    return context, planning.clusters(analysis, "desk.planner",
                                       planning.calls_by_module(analysis))


def test_functions_called_on_import_or_decorated_stay(tmp_path: Path) -> None:
    """A decorated function, and one that runs while its module is imported, are no part of a
    cluster (the thin function would import the holder's module too early)."""
    _, found = _desk_clusters(tmp_path, "desk/dates.py", "def is_weekend(",
                              "import functools\n\n\n@functools.cache\ndef is_weekend(")
    assert [f.name for item in found if item.module == "desk.dates"
            for f in item.functions] == ["parse_day", "week_of", "day_name"]
    _, found = _desk_clusters(tmp_path / "2", "desk/text.py", "\n\ndef title_case(",
                              "\n\nDEFAULT = slug('x')\n\n\ndef title_case(")
    assert [f.name for item in found if item.module == "desk.text"
            for f in item.functions] == ["shorten", "title_case"]


def test_functions_the_tests_barely_run_stay(tmp_path: Path) -> None:
    """A moved body is changed code that the case's tests must run: functions whose lines the
    tests mostly skip are no part of a cluster."""
    context, _ = _desk_clusters(tmp_path, "desk/dates.py", "", "")
    shares = {"desk.dates.week_of": 0.4, "desk.dates.parse_day": 1.0}
    found = planning.clusters(context.analysis, "desk.planner",
                              planning.calls_by_module(context.analysis),
                              lambda name: shares.get(name, 1.0) >= 0.9)
    assert [f.name for item in found if item.module == "desk.dates"
            for f in item.functions] == ["parse_day", "is_weekend", "day_name"]


def test_functions_refused_when_unsafe(tmp_path: Path) -> None:
    context, found = _desk_clusters(tmp_path, "desk/dates.py",
                                    "    return day >= 0 and (day % 7 == 5 or day % 7 == 6)\n",
                                    "    yield day >= 0 and (day % 7 == 5 or day % 7 == 6)\n")
    (dates,) = [item for item in found if item.module == "desk.dates"]
    changes, absorbed, refused = absorbing.absorb(context, "desk.planner.Planner", [dates])
    assert refused == {"desk.dates.is_weekend": "is_weekend is a generator or awaits"}
    assert [item.name for item in absorbed] == ["parse_day", "week_of", "day_name"]
    assert "    yield day >= 0" in str(changes["desk/dates.py"])  # it stays as it was
    context, found = _desk_clusters(tmp_path / "2", "desk/planner.py", "    def report(",
                                    "    def week_of(self) -> int:\n        return 0\n\n"
                                    "    def report(")
    (dates,) = [item for item in found if item.module == "desk.dates"]
    _, absorbed, refused = absorbing.absorb(context, "desk.planner.Planner", [dates])
    assert refused == {}  # its own name is taken: one of its parameter's words joins it
    assert [item.absorbed_name for item in absorbed][1] == "week_of_day"


NEW_REPOSITORIES = {("marshmallow", "3.23.1"): ("src", ("easy",)),
                    ("wtforms", "3.2.1"): ("src", ())}
"""Libraries of a few thousand lines that the injector had never seen (source path, the
difficulties reached): their functions touch no data the analysis can type, so their holders
take over methods of the classes around them. A holder takes in only functions of modules its
own methods already call, and, as neither library makes a habit of importing its own modules
inside functions (each does so once), only of modules that can import it at their top:
marshmallow's `fields.py` imports utils.py, validate.py and class_registry.py, so only
schema.py (which imports `fields`) gives `Nested` work, an easy case; WTForms' `form.py`
imports meta.py, and SessionCSRF alone does not make `BaseForm` a god class: no candidate (it
reached medium while meta.py imported `BaseForm` inside its functions). sqlparse (0.5.2), whose
filters call no function of another module, offers candidates but no injection."""


@pytest.mark.slow
@pytest.mark.parametrize("package", sorted(NEW_REPOSITORIES))
def test_new_repositories(package: tuple[str, str]) -> None:
    """Without the file-size filter (as these libraries' specs build them: their modules are
    short) there are candidates where a difficulty is reached; each difficulty the library
    reaches gives a first injection that spans the files its difficulty promises, passes every
    round-trip property (the detector flags the holder), names what it adds with the
    repository's words and lints clean; the others give none."""
    from smellkit.injectors.engine import find_candidates, verify
    from tests.support.pypi import sdist

    folder, reached = NEW_REPOSITORIES[package]
    root = sdist(*package) / folder
    project = Project.load(root, jobs=1)
    assert bool(find_candidates(project, SMELL, options=SMALL)) == bool(reached)
    for difficulty in DIFFICULTIES:
        if difficulty not in reached:
            with pytest.raises(AssertionError, match=r"no .* god_class injection"):
                first_injection(root, SMELL, difficulty)
            continue
        injection = first_injection(root, SMELL, difficulty)
        spanned = {*injection.files, *(item.location.path for item in injection.targets)}
        assert len(spanned) >= {"easy": 2, "medium": 3, "hard": 4}[difficulty]
        result = verify(root, injection, original=project)
        assert result.ok, result
        assert tells(project, injection) == []
        assert added_lint(root, injection) == set()


def test_no_member_takes_a_name_the_holder_looks_up_as_a_hook(tmp_path: Path) -> None:
    """A base that looks up `check_<name>` members by a computed name (as a form looks up
    `validate_<field>`) would call an absorbed `check_total` as a hook: the prefixes of the
    holder's lineage are known, an unrelated class has none."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "base.py").write_text(
        "class Base:\n    def run(self, name):\n"
        "        hook = getattr(self.__class__, f\"check_{name}\", None)\n"
        "        return hook(self) if hook else None\n")
    (tmp_path / "pkg" / "holder.py").write_text(
        "from pkg.base import Base\n\n\nclass Holder(Base):\n    pass\n\n\n"
        "class Other:\n    pass\n")
    context = InjectionContext(Project.load(tmp_path, use_cache=False, jobs=1))
    assert absorbing.looked_up_prefixes(context, "pkg.holder.Holder") == {"check_"}
    assert absorbing.looked_up_prefixes(context, "pkg.holder.Other") == frozenset()


def test_red_herrings_name_each_function_once() -> None:
    """A function the holder's module calls that is also one of an absorbed module, and stays,
    is one red herring, not two."""
    def function(qualname: str) -> planning.Function:
        module, _, name = qualname.rpartition(".")
        return planning.Function(qualname, module, name, 1, frozenset())

    dates = planning.Cluster("desk.dates", [function("desk.dates.parse_day"),
                                            function("desk.dates.week_of")],
                             frozenset({"desk.dates.week_of"}))
    money = planning.Cluster("desk.money", [function("desk.money.cents")])
    assert planning.staying([dates, money], [dates], {"desk.dates.parse_day"}) == \
        ["desk.dates.week_of"]


def test_absorbed_docstrings_follow_their_function_into_the_class(tmp_path: Path) -> None:
    """A module-level function becomes a static method one level deeper: its docstring's
    continuation lines move with it (`inspect.cleandoc` reads the same text)."""
    import inspect

    root = tmp_path / "repo"
    shutil.copytree(DESK / "before", root)
    dates = root / "desk" / "dates.py"
    docstring = ('    """A day number from what a person typed.\n\n'
                 '    `d4` and `4` are day 4; an empty or `-` entry is no day (-1).\n    """\n')
    dates.write_text(dates.read_text().replace(
        "def parse_day(text: str) -> int:\n", f"def parse_day(text: str) -> int:\n{docstring}"))
    injection = injected(root, SMELL, "easy")
    planner = "\n".join(line[1:] for line in injection.smelly_patch.split(
        "+++ b/desk/planner.py")[1].splitlines() if line.startswith((" ", "+")))
    moved = re.search(r'\n( +)"""A day number.*?"""', planner, re.S)
    assert moved is not None, injection.smelly_patch
    assert moved[1] == " " * 8
    assert "\n        `d4` and `4` are day 4" in moved[0] and '\n        """' in moved[0]
    original = inspect.cleandoc(docstring.strip().strip('"'))
    assert inspect.cleandoc(moved[0].strip().strip('"')) == original


def test_reindented_docstring_leaves_one_line_docstrings_alone() -> None:
    import libcst as cst

    function = cst.parse_statement('def f():\n    """One line."""\n    return 1\n')
    assert isinstance(function, cst.FunctionDef)
    assert absorbing.reindented_docstring(function, "    ") is function


def test_an_absorbed_method_calls_its_instance_after_its_class(tmp_path: Path) -> None:
    """The instance an absorbed method takes is named after the class it came from and the
    repository base it extends (`date_time_field` for `DateTime(Field)`), never one word of
    the class's name alone (`time`) nor its words run together (`selectmultiplefield`)."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "fields.py").write_text(
        "class Field:\n    pass\n\n\nclass DateTime(Field):\n"
        "    def render(self, value):\n        return str(value)\n")
    context = InjectionContext(Project.load(root, use_cache=False, jobs=1))
    function = planning.Function("pkg.fields.DateTime.render", "pkg.fields", "render", 1,
                                 frozenset(), owner="pkg.fields.DateTime")
    node = absorbing._find_method(context.module("pkg/fields.py"), function)
    assert node is not None
    assert absorbing._instance_name(context, function, node) == "date_time_field"


def test_a_thin_function_call_past_the_line_length_is_wrapped() -> None:
    """The thin function left behind passes every argument on: past the module's line length,
    the call is wrapped as black wraps it (the arguments on their own line, or one per line)."""
    arguments = ["text", "default", "hide_input", "confirmation_prompt", "err"]
    assert absorbing._call("return Parser.prompt", arguments[:2], "    ", 88) == \
        "return Parser.prompt(text, default)"
    assert absorbing._call("return Parser.prompt", arguments, "    ", 60) == \
        "return Parser.prompt(\n    text, default, hide_input, confirmation_prompt, err\n)"
    exploded = absorbing._call("return Parser.prompt", arguments, "        ", 50)
    assert exploded.splitlines()[1:] == [f"    {name}," for name in arguments] + [")"]


def test_a_thin_function_of_a_procedure_calls_without_returning() -> None:
    """Review of click's `OptionParser` case: `UsageError.show`, annotated `-> None`, became
    `return OptionParser.show(self, file)`. A function no `return` of which gives a value
    delegates with a plain call; one that returns a value, even from a function nested in it,
    keeps `return`."""
    module = cst.parse_module(
        'def show(self, file=None) -> None:\n    """Shows it."""\n    if file is None:\n'
        "        return\n    echo(file)\n\n\n"
        "def size(self):\n    def inner():\n        return 1\n\n    inner()\n")
    show, size = module.body
    assert isinstance(show, cst.FunctionDef) and isinstance(size, cst.FunctionDef)
    assert module.code_for_node(absorbing._shim(show, "OptionParser", importing=(
        "from .parser import OptionParser"))) == (
        'def show(self, file=None) -> None:\n    """Shows it."""\n'
        "    from .parser import OptionParser\n\n    OptionParser.show(self, file)\n")
    assert module.code_for_node(absorbing._shim(size, "OptionParser")) == \
        "\n\ndef size(self):\n    return OptionParser.size(self)\n"


def test_only_modules_the_holder_already_calls_feed_it(tmp_path: Path) -> None:
    """A class grows into a god class by taking over work it already coordinates: a module
    only a function beside the holder calls (not the holder's own methods) is no source."""
    _desk_clusters(tmp_path, "desk/planner.py", "\n\nclass Planner:",
                   "\n\ndef hours(minutes: int) -> str:\n    return units.spell(minutes)\n\n\n"
                   "class Planner:")
    (tmp_path / "repo" / "desk" / "units.py").write_text(
        "def spell(minutes: int) -> str:\n    if minutes > 60:\n"
        "        return f'{minutes // 60}h'\n    return f'{minutes}m'\n")
    planner = tmp_path / "repo" / "desk" / "planner.py"
    planner.write_text("from desk import units\n" + planner.read_text())
    context = InjectionContext(Project.load(tmp_path / "repo"))
    analysis = context.analysis
    found = planning.clusters(analysis, "desk.planner", planning.calls_by_module(analysis))
    assert "desk.units" in {item.module for item in found}
    pool = planning.for_holder(analysis, found, "desk.planner.Planner")
    assert pool and "desk.units" not in {item.module for item in pool}


def test_a_metaclass_is_no_holder(tmp_path: Path) -> None:
    """marshmallow's `SchemaMeta` absorbing field deserialisation reads as no design anyone
    grows: a class deriving from `type` or `ABCMeta` takes in no functions."""
    from smellkit.injectors.god_class import _fragile_function_holder

    root = tmp_path / "repo"
    (root / "kit").mkdir(parents=True)
    (root / "kit" / "__init__.py").write_text("")
    (root / "kit" / "meta.py").write_text(
        "from abc import ABCMeta\n\n\nclass Meta(ABCMeta):\n    def resolve(cls):\n"
        "        return cls\n\n\nclass Plain(type):\n    pass\n\n\nclass Holder:\n"
        "    def run(self):\n        return 1\n")
    analysis = InjectionContext(Project.load(root)).analysis
    for name in ("kit.meta.Meta", "kit.meta.Plain"):
        assert (_fragile_function_holder(analysis, name) or "").startswith("a metaclass")
    assert _fragile_function_holder(analysis, "kit.meta.Holder") is None


def _repo(root: Path, files: dict[str, str]) -> InjectionContext:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return InjectionContext(Project.load(root, use_cache=False, jobs=1))


def test_an_absorbed_method_keeps_its_own_name_where_free(tmp_path: Path) -> None:
    """Review of WTForms' `BaseForm` case: `DefaultMeta.update_values` came in as
    `default_meta_update_values`, the class's whole name glued on. It keeps its own name where
    the holder leaves it free; where not, one word of its class (`_format_length_error`) or of
    its parameters (`week_of_day`) joins its words, never its class's name as a prefix. The
    instance it now takes is still named after its class (`one_of_validator`)."""
    context = _repo(tmp_path / "repo", {
        "kit/__init__.py": "",
        "kit/validate.py": "class Validator:\n    pass\n\n\nclass OneOf(Validator):\n"
                           "    def options(self):\n        return self.choices\n\n\n"
                           "class Length(Validator):\n"
                           "    def _format_error(self, value, message):\n"
                           "        return self.error\n\n\n"
                           "class ZshComplete:\n    def get_completion_args(self):\n"
                           "        return self.words\n\n\n"
                           "def week_of(day):\n    return day // 7\n",
        "kit/fields.py": "class Field:\n    def _format_error(self):\n        return 1\n\n"
                         "    def week_of(self):\n        return 2\n"})

    def function(qualname: str, owner: str | None = None) -> planning.Function:
        return planning.Function(qualname, "kit.validate", qualname.rpartition(".")[2], 1,
                                 frozenset(), owner=owner)

    holder = "kit.fields.Field"
    taken = {"_format_error", "week_of", "options"}
    one_of = function("kit.validate.OneOf.options", "kit.validate.OneOf")
    length = function("kit.validate.Length._format_error", "kit.validate.Length")
    week = function("kit.validate.week_of")
    assert absorbing.member_name(context, one_of, holder, set(), frozenset()) == "options"
    assert absorbing.member_name(context, length, holder, taken, frozenset()) == \
        "_format_length_error"
    assert absorbing.member_name(context, week, holder, taken, frozenset()) == "week_of_day"
    zsh = planning.Function("kit.validate.ZshComplete.get_completion_args", "kit.validate",
                            "get_completion_args", 1, frozenset(), owner="kit.validate.ZshComplete")
    assert absorbing.member_name(context, zsh, holder, {"get_completion_args"}, frozenset()) \
        == "get_zsh_completion_args"  # not `get_completion_args_complete`
    assert not absorbing.member_name(context, one_of, holder, taken, frozenset()).startswith(
        ("one_of_", "one_"))
    with pytest.raises(InjectionRefused, match="hook"):
        absorbing.member_name(context, week, holder, set(), frozenset({"week_"}))
    node = absorbing._find_method(context.module("kit/validate.py"), one_of)
    assert node is not None
    assert absorbing._instance_name(context, one_of, node) == "one_of_validator"


_LAZY = {"dates": "from desk.dates import parse_day", "money": "from desk.money import "
         "format_price", "text": "from desk.text import shorten"}
"""The imports the desk planner makes inside its methods."""


def _planner_importing_at_top(*modules: str) -> str:
    """The desk planner importing `modules` (of dates, money, text) at its top rather than
    inside its methods; the fixture imports all three inside them, which makes doing so the
    desk's idiom (`planning.dodges_cycles_in_functions`) until at most one is left."""
    text = (DESK / "before" / "desk" / "planner.py").read_text()
    for module in modules:
        text = text.replace(f"        {_LAZY[module]}\n\n", "", 1)
    top = sorted([*(_LAZY[module] for module in modules), "from desk.models import Task"])
    return text.replace("from desk.models import Task", "\n".join(top), 1)


def test_no_thin_function_imports_the_holder_when_called(tmp_path: Path) -> None:
    """Review of marshmallow's `Field` case: validate.py reached `Field` through
    `from .fields import Field` inside its functions, as fields.py imports validate.py, while
    marshmallow imports its own modules so once in all its code. Where the repository does not
    make a habit of it, a module the holder's module imports when loaded is no source (its
    functions stay); one that imports the holder's module at its top already is (its import
    reused); any other gets the import at its top. `if TYPE_CHECKING:` imports never run: they
    do not count."""
    before = (DESK / "before" / "desk" / "planner.py").read_text()
    context, found = _desk_clusters(tmp_path, "desk/planner.py", before,
                                    _planner_importing_at_top("dates", "money"))
    analysis = context.analysis
    holder = "desk.planner.Planner"
    assert [path for path, _ in analysis.derived(planning.imports_in_functions)] == [
        "desk/planner.py"]  # agenda's `from desk.text import shorten`
    assert not planning.dodges_cycles_in_functions(analysis)  # once is no habit
    assert planning.cyclic(analysis, "desk.dates", holder)
    assert not planning.cyclic(analysis, "desk.text", holder)
    assert "desk.dates" not in {item.module for item in planning.for_holder(
        analysis, found, holder)}
    assert planning.cycling(analysis, found, holder) == ["desk.dates", "desk.money"]
    (dates,) = [item for item in found if item.module == "desk.dates"]
    with pytest.raises(InjectionRefused, match=r"desk\.dates could name Planner only by "
                                               r"importing it inside functions: .*, and the "
                                               r"repository's own code imports its modules so "
                                               r"in fewer than 2 places"):
        absorbing.absorb(context, holder, [dates])
    (text,) = [item for item in found if item.module == "desk.text"]
    changes, _, _ = absorbing.absorb(context, holder, [text])
    moved = str(changes["desk/text.py"])
    assert moved.startswith('"""Text helpers for task titles."""\n\nfrom desk.planner import '
                            'Planner\n')
    assert not re.search(r"^[ \t]+(from|import) ", moved, re.M)  # none inside a function
    typed = ("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
             "    from desk.planner import Planner\n\n\n")
    context, _ = _desk_clusters(tmp_path / "typed", "desk/dates.py", "\n\ndef parse_day(",
                                f"\n\n{typed}def parse_day(")
    (tmp_path / "typed" / "repo" / "desk" / "planner.py").write_text(
        (DESK / "before" / "desk" / "planner.py").read_text().replace(
            "from desk.models", "from desk.dates import week_of\nfrom desk.models"))
    analysis = InjectionContext(Project.load(tmp_path / "typed" / "repo")).analysis
    assert planning.cyclic(analysis, "desk.dates", holder)
    context, found = _desk_clusters(tmp_path / "lifted", "desk/dates.py", "\n\ndef parse_day(",
                                    f"\n\n{typed}def parse_day(")
    (dates,) = [item for item in found if item.module == "desk.dates"]
    changes, _, _ = absorbing.absorb(context, holder, [dates])
    assert str(changes["desk/dates.py"]).startswith(  # out of the block, which goes
        '"""Days as numbers: day 0 is a Monday."""\n\nfrom desk.planner import Planner\n\n\n'
        "def parse_day(")
    context, found = _desk_clusters(tmp_path / "reused", "desk/dates.py", "\n\ndef parse_day(",
                                    "\n\nfrom desk import planner\n\n\ndef parse_day(")
    (dates,) = [item for item in found if item.module == "desk.dates"]
    assert not planning.cyclic(context.analysis, "desk.dates", holder)
    changes, _, _ = absorbing.absorb(context, holder, [dates])
    moved = str(changes["desk/dates.py"])
    assert moved.count("import") == 1 and "return planner.Planner.parse_day(text)" in moved


def test_a_choice_whose_functions_are_all_refused_is_made_again(tmp_path: Path) -> None:
    """Jinja2's `Environment` at easy: the one module first chosen gave only `args_as_const`,
    refused (a quoted annotation), and the refusal ended the injection. It comes back as the
    function's refusal, so that another choice is made without it."""
    context, found = _desk_clusters(tmp_path, "desk/text.py", "    if width <= 3",
                                    "    stack = [text]\n    if width <= 3 or not stack")
    (text,) = [item for item in found if item.module == "desk.text"]
    shorten = [item for item in text.functions if item.name == "shorten"]
    changes, absorbed, refused = absorbing.absorb(
        context, "desk.planner.Planner", [planning.Cluster(text.module, shorten, text.called)])
    assert (changes, absorbed) == ({}, [])
    assert refused == {"desk.text.shorten": "shorten inspects frames (stack): the thin "
                                            "function adds one"}


def test_a_holder_whose_module_imports_every_source_is_no_candidate(tmp_path: Path) -> None:
    """The planner importing dates, money and text at its top (as marshmallow's fields.py
    imports validate.py and utils.py), in a repository that imports nothing inside functions,
    leaves them no way to reach it but from inside functions: no candidate, and `--explain`
    says why."""
    before = (DESK / "before" / "desk" / "planner.py").read_text()
    context, _ = _desk_clusters(tmp_path, "desk/planner.py", before,
                                _planner_importing_at_top("dates", "money", "text"))
    assert context.analysis.derived(planning.imports_in_functions) == []
    injector = make_injector(SMELL, {"min-file-lines": 0})
    assert list(injector.candidates(context)) == []
    assert any("could reach it only from inside functions (a cycle), as the repository's own "
               "code does in fewer than 2 places" in rule for rule in context.discarded)


def test_only_library_code_running_imports_of_its_own_modules_makes_the_idiom(
        tmp_path: Path) -> None:
    """What counts as the repository importing its own modules inside functions: import
    statements of its library code that run. Not its tests, not `if TYPE_CHECKING:` blocks
    (they never run), not other distributions (`import json`), not text in a docstring, not
    imports at the top or in a class body there; each statement once."""
    function = ('def load(text):\n    """Reads it:\n\n        from kit.core import Thing\n'
                '    """\n    import json\n    from typing import TYPE_CHECKING\n\n'
                '    if TYPE_CHECKING:\n        from kit.core import Thing\n'
                '    return json.loads(text)\n')
    files = {"kit/__init__.py": "",
             "kit/core.py": "class Thing:\n    pass\n\n\nclass Part:\n    pass\n",
             "kit/io.py": f"from kit.core import Thing\n\n\nclass Box:\n"
                          f"    from kit import core\n\n\n{function}",
             "tests/test_io.py": "def test_load():\n    from kit.core import Thing\n\n"
                                 "    from kit.io import Box, load\n\n"
                                 "    assert Thing and Box and load('1') == 1\n"}
    context = _repo(tmp_path / "none", files)
    assert context.analysis.derived(planning.imports_in_functions) == []
    assert not planning.dodges_cycles_in_functions(context.analysis)
    once = "\n\ndef make():\n    from kit.core import Part, Thing\n\n    return Thing(), Part()\n"
    files["kit/io.py"] += once
    context = _repo(tmp_path / "once", files)
    assert len(context.analysis.derived(planning.imports_in_functions)) == 1  # one statement
    assert not planning.dodges_cycles_in_functions(context.analysis)
    files["kit/io.py"] += "\n\ndef boxed():\n    from . import core\n\n    return core\n"
    context = _repo(tmp_path / "twice", files)
    assert planning.dodges_cycles_in_functions(context.analysis)


def test_a_thin_function_imports_the_holder_where_the_repository_does_so(
        tmp_path: Path) -> None:
    """click and Jinja2 import their own modules inside functions wherever a cycle would close
    (click's core.py: `from .shell_completion import shell_complete` in a method). There a
    module the holder's module imports is a source again, and its thin functions import the
    holder first thing in their body, as the repository writes it (relative where the module
    imports its siblings so, a blank line after); an `if TYPE_CHECKING:` import of the holder
    stays, as the top can not import it. Candidates say so."""
    before = (DESK / "before" / "desk" / "planner.py").read_text()
    context, found = _desk_clusters(tmp_path, "desk/planner.py", before,
                                    _planner_importing_at_top("dates"))
    analysis = context.analysis
    holder = "desk.planner.Planner"
    assert [path for path, _ in analysis.derived(planning.imports_in_functions)] == [
        "desk/planner.py"] * 2  # of text and money
    assert planning.dodges_cycles_in_functions(analysis)
    assert planning.cyclic(analysis, "desk.dates", holder)
    assert "desk.dates" in {item.module for item in planning.for_holder(analysis, found, holder)}
    assert planning.cycling(analysis, found, holder) == []
    (dates,) = [item for item in found if item.module == "desk.dates"]
    changes, absorbed, refused = absorbing.absorb(context, holder, [dates])
    assert refused == {} and len(absorbed) == 4
    moved = str(changes["desk/dates.py"])
    assert moved.startswith('"""Days as numbers: day 0 is a Monday."""\n\n\ndef parse_day(')
    assert "def week_of(day: int) -> int:\n    from desk.planner import Planner\n\n    " \
           "return Planner.week_of(day)\n" in moved
    assert moved.count("from desk.planner import Planner") == 4
    injector = make_injector(SMELL, {"min-file-lines": 0})
    (candidate,) = injector.candidates(context)
    assert candidate.reason.endswith("the thin functions of desk.dates would import it when "
                                     "called, as the repository's code imports its modules "
                                     "inside functions in 2 places")

    typed = ('"""\n\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n'
             '    from .planner import Planner\n\n\ndef parse_day(')
    count = ('\n\n\ndef open_count(planner: "Planner") -> int:\n'
             '    return sum(1 for task in planner.tasks if not task.done)\n')
    copy = tmp_path / "relative" / "repo"
    shutil.copytree(DESK / "before", copy)
    (copy / "desk" / "planner.py").write_text(_planner_importing_at_top("dates"))
    dates_path = copy / "desk" / "dates.py"
    dates_path.write_text(dates_path.read_text().replace('"""\n\n\ndef parse_day(', typed, 1)
                          + count)
    context = InjectionContext(Project.load(copy))
    analysis = context.analysis
    (dates,) = [item for item in planning.clusters(analysis, "desk.planner",
                                                    planning.calls_by_module(analysis))
                if item.module == "desk.dates"]
    changes, _, refused = absorbing.absorb(context, holder, [dates])
    assert refused == {}
    moved = str(changes["desk/dates.py"])
    assert moved.startswith('"""Days as numbers: day 0 is a Monday.' + typed)  # it stays
    assert "    from .planner import Planner\n\n    return Planner.day_name(day)\n" in moved
    assert "from desk.planner" not in moved


def test_one_case_absorbs_what_a_reviewer_reads_as_one_change() -> None:
    """Review of marshmallow's `Nested` case: eleven members, 235 lines in one case. However
    many functions the thresholds would want, a choice stays within `MAX_FUNCTIONS` and
    `MAX_LINES`: none when only more would do."""
    holder = planning.Holder("kit.Holder", 10, 0, 2, set(), {"kit.Holder"})

    def pool(lines: int) -> list[planning.Cluster]:
        return [planning.Cluster("kit.helpers", [planning.Function(
            f"kit.helpers.{name}", "kit.helpers", name, 5, frozenset({(f"{name}_data", "kit.A")}),
            lines=lines) for name in ("alpha", "beta", "gamma", "delta", "epsilon", "zeta",
                                      "eta", "theta", "iota", "kappa")])]

    limits = (47, 1 / 3, 5)
    (short,) = planning.select(holder, pool(15), 1, limits) or []
    assert len(short.functions) == 8 <= planning.MAX_FUNCTIONS
    assert sum(item.lines for item in short.functions) <= planning.MAX_LINES
    assert planning.select(holder, pool(30), 1, limits) is None  # 8 x 30 lines: too much


_TIDY_HOLDER = ("import collections\nfrom collections.abc import Mapping as _Mapping\n\n"
                "from kit import utils\n\n\nclass Field:\n    pass\n")


def _tidy(tmp_path: Path, body: str, siblings: dict[str, str],
          patched: frozenset[str] = frozenset()) -> tuple[str, list[str]]:
    from smellkit.injectors.cst import move
    from smellkit.injectors.god_class import tidy

    context = _repo(tmp_path / "repo", {"kit/__init__.py": "", "kit/fields.py": _TIDY_HOLDER,
                                        "kit/utils.py": "def helper(x):\n    return x\n"})
    holder = tidy.Holder(context.index, "kit.fields", "Field",
                         move.module_bindings(context.index, "kit.fields"))
    function = cst.parse_statement(body)
    assert isinstance(function, cst.FunctionDef)
    new, hoisted = tidy.tidied(function, "kit.utils", holder, siblings, patched)
    return cst.Module([new]).code, hoisted


def test_absorbed_code_imports_as_a_person_would(tmp_path: Path) -> None:
    """Review of marshmallow's `Tuple` case: an absorbed sibling imported back from the module
    it left, `Mapping` imported again beside the module's `_Mapping`, a name of the source
    module imported in the body where the holder's module binds that module, and standard
    modules imported in every method."""
    code, hoisted = _tidy(tmp_path, (
        "def is_collection(obj):\n    \"\"\"Doc.\"\"\"\n"
        "    from collections.abc import Mapping\n    import functools\n"
        "    from kit.utils import helper, is_iterable\n\n"
        "    return is_iterable(obj) and not isinstance(obj, Mapping) and helper(functools)\n"),
        {"is_iterable": "is_iterable"})
    assert hoisted == ["import functools"]
    assert "import" not in code.split('"""Doc."""')[1]
    assert "return Field.is_iterable(obj) and not isinstance(obj, _Mapping) and " \
           "utils.helper(functools)" in code


def test_an_import_the_holders_module_makes_already_goes_to_its_top(tmp_path: Path) -> None:
    """Review of click's `Parameter` case: `from .parser import split_arg_string` sat in the
    body of each absorbed method although core.py imports from `.parser` at its top. Such an
    import joins the module's own (relative or not); one of a module that imports the
    holder's module (a cycle) stays in the body."""
    from smellkit.injectors.cst import move
    from smellkit.injectors.god_class import tidy

    context = _repo(tmp_path / "repo", {
        "kit/__init__.py": "",
        "kit/fields.py": "from kit.parser import split_opt\nfrom kit.schema import Schema\n\n\n"
                         "class Field:\n    pass\n",
        "kit/parser.py": "def split_opt(x):\n    return x\n\n\ndef split_arg(x):\n"
                         "    return x\n",
        "kit/schema.py": "from kit.fields import Field\n\n\nclass Schema:\n    pass\n\n\n"
                         "def make(x):\n    return x\n"})
    holder = tidy.Holder(context.index, "kit.fields", "Field",
                         move.module_bindings(context.index, "kit.fields"))
    function = cst.parse_statement("def f(x):\n    from .parser import split_arg\n"
                                   "    from kit.parser import split_opt\n"
                                   "    from kit.schema import make\n\n"
                                   "    return split_opt(split_arg(make(x)))\n")
    assert isinstance(function, cst.FunctionDef)
    new, hoisted = tidy.tidied(function, "kit.utils", holder, {}, frozenset())
    assert hoisted == ["from .parser import split_arg"]
    assert cst.Module([new]).code.splitlines()[1:3] == [
        "    from kit.schema import make", ""]


def test_the_sources_own_globals_are_read_from_it_when_called(tmp_path: Path) -> None:
    """Review of click's `HelpFormatter` case (once cycles were allowed, `_compat.py` gave it
    work): `should_strip_ansi` came with `isatty`, which then joined formatting.py's own
    `from ._compat import term_len`, so click's tests patching `click._compat.isatty` missed
    it. A global of the module a function comes from stays imported in the body, read from
    there when called, even where the holder's module imports from that module, or that very
    name, at its top."""
    from smellkit.injectors.cst import move
    from smellkit.injectors.god_class import tidy

    context = _repo(tmp_path / "repo", {
        "kit/__init__.py": "",
        "kit/fields.py": "from kit.parser import split_opt\n\n\nclass Field:\n    pass\n",
        "kit/parser.py": "def split_opt(x):\n    return x\n\n\ndef split_arg(x):\n"
                         "    return x\n"})
    holder = tidy.Holder(context.index, "kit.fields", "Field",
                         move.module_bindings(context.index, "kit.fields"))
    function = cst.parse_statement("def f(x):\n    from .parser import split_arg\n"
                                   "    from kit.parser import split_opt\n\n"
                                   "    return split_opt(split_arg(x))\n")
    assert isinstance(function, cst.FunctionDef)
    new, hoisted = tidy.tidied(function, "kit.parser", holder, {}, frozenset())
    assert hoisted == []
    assert cst.Module([new]).code.splitlines()[1:4] == [
        "    from .parser import split_arg", "    from kit.parser import split_opt", ""]


def test_the_holders_own_module_is_not_imported_into_it(tmp_path: Path) -> None:
    """`Schema._init_fields` absorbed by marshmallow's `Nested` kept
    `from marshmallow import fields as ma_fields` inside fields.py itself."""
    code, hoisted = _tidy(tmp_path, "def f(obj):\n    from kit import fields as ma_fields\n\n"
                                    "    return ma_fields.Field(obj)\n", {})
    assert hoisted == [] and "import" not in code
    assert "return Field(obj)" in code


def test_a_sibling_that_code_replaces_stays_read_from_its_module(tmp_path: Path) -> None:
    from smellkit.injectors.cst.move import replaced

    assert replaced("kit.utils", ["utils.is_iterable = fake\n",
                                       'patch("kit.utils.now")\n', "utils.helper(1)\n"]) == \
        frozenset({"is_iterable", "now"})
    code, _ = _tidy(tmp_path, "def f(obj):\n    from kit.utils import is_iterable\n"
                              "    return is_iterable(obj)\n",
                    {"is_iterable": "is_iterable"}, frozenset({"is_iterable"}))
    assert "return utils.is_iterable(obj)" in code  # read from the module when called


def test_only_a_central_class_takes_in_functions(tmp_path: Path) -> None:
    """A leaf class beside a bigger one of its module (marshmallow's `Tuple` next to `Field`)
    is no host; the base, or a class other modules import, is."""
    from smellkit.injectors.god_class import _central

    branches = "".join(f"        if x == {n}:\n            return {n}\n" for n in range(20))
    context = _repo(tmp_path / "repo", {
        "kit/__init__.py": "",
        "kit/fields.py": f"class Field:\n    def run(self, x):\n{branches}\n\n"
                         "class Tuple(Field):\n    def go(self, x):\n        return x\n\n\n"
                         "class Loner:\n    def go(self, x):\n        return x\n\n\n"
                         "class Shared:\n    def go(self, x):\n        return x\n",
        "kit/schema.py": "from kit.fields import Shared\n"})
    analysis = context.analysis
    assert _central(analysis, "kit.fields.Field", 21)
    assert not _central(analysis, "kit.fields.Tuple", 1)
    assert not _central(analysis, "kit.fields.Loner", 1)
    assert _central(analysis, "kit.fields.Shared", 1)
