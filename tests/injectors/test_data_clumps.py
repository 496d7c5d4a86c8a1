"""Data-clump injection: before/after on a fixture repository, round trips, guards, real code.

The fixture `endpoints` passes a frozen dataclass `Endpoint(host, port, timeout)` to functions in
three modules; the expected smelly files of each difficulty are stored beside it.

The smelly files of each fixture case are compared with its `after_` folders, with every
injector's, in `test_fixtures.py` (SMELLKIT_REGENERATE=1 rewrites them).
"""

from __future__ import annotations

import re
import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from smellkit.injectors.engine import find_candidates, inject
from smellkit.models import DIFFICULTIES, Difficulty, Injection
from smellkit.project import Project
from tests.injectors import support_data_clumps as support

SMELL = "data_clumps"
CASE = "endpoints"
SPAN = {"easy": (2, 2), "medium": (3, 99), "hard": (4, 99)}


@pytest.fixture(autouse=True)
def _registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield from support.available_injectors(monkeypatch)


def test_candidate_says_why() -> None:
    project = support.load(support.case_dir(SMELL, CASE) / "before")
    (candidate,) = find_candidates(project, SMELL, options=support.NO_FILTER)
    assert candidate.data["class"] == "net.settings.Endpoint"
    assert candidate.data["fields"] == ["host", "port", "timeout"]
    assert candidate.data["functions"] == ["net.client.connect", "net.client.describe",
                                           "net.client.session", "net.probe.Probe.ping"]
    assert "net.settings.Endpoint is passed whole to 4 functions" in candidate.reason
    assert "net.report.log_line" not in candidate.data["functions"]  # it prints the object


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_before_after(difficulty: Difficulty) -> None:
    _, injection = support.inject_case(SMELL, CASE, difficulty)
    spanned = {*injection.files, "net/settings.py"}
    low, high = SPAN[difficulty]
    assert low <= len(spanned) <= high
    assert all(target.level == "method" for target in injection.targets)
    if difficulty == "hard":
        assert injection.red_herrings
        assert "net.report.log_line" in {item.qualname for item in injection.red_herrings}
        assert "_value: " in injection.smelly_patch  # one parameter renamed
    if difficulty != "easy":  # retyped: the fields' declared types on the new parameters
        assert "host: str, port: int, timeout" in injection.smelly_patch
    if difficulty == "medium":  # a delegation chain: session hands the loose fields on
        assert "net.client.session" in {target.location.qualname for target in
                                        injection.targets}


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_round_trip(difficulty: Difficulty) -> None:
    project, injection = support.inject_case(SMELL, CASE, difficulty)
    support.assert_round_trip(support.case_dir(SMELL, CASE) / "before", injection, project)
    kinds = [check.kind for check in injection.checks]
    assert kinds == ["data_clumps.not_together", "no_finding"]


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_behaviour_is_kept(tmp_path: Path, difficulty: Difficulty) -> None:
    before = support.case_dir(SMELL, CASE) / "before"
    _, injection = support.inject_case(SMELL, CASE, difficulty)
    smelly = support.smelly_copy(before, injection, tmp_path)
    assert support.run_main(smelly, "net.app") == support.run_main(before, "net.app")


# -- guards -------------------------------------------------------------------------------------

BASE = {
    "shop/__init__.py": "",
    "shop/area.py": """\
        class Area:
            def __init__(self, street: str, city: str, zipcode: str) -> None:
                self.street = street
                self.city = city
                self.zipcode = zipcode


        def label(area: Area) -> str:
            return f"{area.street}, {area.zipcode} {area.city}"
        """,
    "shop/ship.py": """\
        from shop.area import Area, label


        def cost(area: Area) -> int:
            return len(area.city) + len(area.zipcode) + len(area.street)


        def slip(area: Area) -> str:
            return f"{area.city}/{area.zipcode}/{area.street}"


        def run(area: Area) -> list[object]:
            return [label(area), cost(area), slip(area)]
        """,
}

VARIANTS = {
    "a field reassigned elsewhere": ("shop/ship.py", """\

        def move(area: Area) -> None:
            area.city = "elsewhere"
        """),
    "a function passed around as a value": ("shop/ship.py", """\

        HANDLERS = [cost, slip, label]
        """),
    "a caller passing a computed object": ("shop/ship.py", """\

        def fresh() -> int:
            return cost(Area("a", "b", "c"))
        """),
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


NAMED_TUPLE = """\
    from typing import NamedTuple


    class Area(NamedTuple):
        street: str
        city: str
        zipcode: str


    def label(area: Area) -> str:
        return f"{area.street}, {area.zipcode} {area.city}"
    """


@pytest.mark.parametrize("holder", ["plain class", "NamedTuple"])
def test_guards_have_a_positive_control(tmp_path: Path, holder: str) -> None:
    files = dict(BASE) if holder == "plain class" else {**BASE, "shop/area.py": NAMED_TUPLE}
    project = support.load(_write(tmp_path, files))
    (candidate,) = find_candidates(project, SMELL, options=support.NO_FILTER)
    assert candidate.data["functions"] == ["shop.area.label", "shop.ship.cost", "shop.ship.slip"]
    assert candidate.data["fields"] == ["street", "city", "zipcode"]
    injection = inject(project, SMELL, "easy", options=support.NO_FILTER)
    assert isinstance(injection, Injection), injection
    support.assert_round_trip(tmp_path, injection, project)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_risky_code_is_refused(tmp_path: Path, variant: str) -> None:
    path, extra = VARIANTS[variant]
    files = dict(BASE)
    files[path] = textwrap.dedent(files[path]) + textwrap.dedent(extra)
    project = support.load(_write(tmp_path, files))
    found = find_candidates(project, SMELL, options=support.NO_FILTER)
    assert found == [], found


# -- fields passed beside the object ------------------------------------------------------------

KEEP_CASE = "syntax_tags"
"""`tmpl/syntax.py` defines `Syntax(open_tag, close_tag, comment, strict)`; five functions in
three modules read the three tags and also call `describe()`, so the object must stay; easy
takes the three in `syntax.py` and `lexer.py`, medium adds `tokens` (called from `output.py`),
hard also `render` (called from `app.py`), `strictness` (one field) being the red herring."""


def _inject_keep(difficulty: Difficulty) -> tuple[Project, Injection]:
    project = support.load(support.case_dir(SMELL, KEEP_CASE) / "before")
    result = inject(project, SMELL, difficulty, options=support.NO_FILTER)
    assert isinstance(result, Injection), result
    assert result.candidate.data["keep"] is True
    return project, result


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_keep_before_after(difficulty: Difficulty) -> None:
    _, injection = _inject_keep(difficulty)
    low, high = SPAN[difficulty]
    assert low <= len({*injection.files, "tmpl/syntax.py"}) <= high
    if difficulty == "hard":
        assert "tmpl.syntax.strictness" in {item.qualname for item in injection.red_herrings}


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_keep_round_trip_and_behaviour(tmp_path: Path, difficulty: Difficulty) -> None:
    before = support.case_dir(SMELL, KEEP_CASE) / "before"
    project, injection = _inject_keep(difficulty)
    support.assert_round_trip(before, injection, project)
    smelly = support.smelly_copy(before, injection, tmp_path)
    assert support.run_main(smelly, "tmpl.app") == support.run_main(before, "tmpl.app")


KEEP = {
    "shop/__init__.py": "",
    "shop/area.py": """\
        from typing import Optional


        class Area:
            def __init__(self, street: str, city: str, zipcode: str) -> None:
                self.street = street
                self.city = city
                self.zipcode = zipcode

            def short(self) -> str:
                return self.city[:3]


        def label(area: Area) -> str:
            return f"{area.street}, {area.zipcode} {area.city} ({area.short()})"
        """,
    "shop/ship.py": """\
        from shop.area import Area, label


        def cost(area: Area) -> int:
            return len(area.city) + len(area.zipcode) + len(area.street) + len(area.short())


        def slip(area: Area) -> str:
            return f"{area.city}/{area.zipcode}/{area.street}/{area.short()}"


        def run(area: Area) -> list[object]:
            return [label(area), cost(area), slip(area)]
        """,
}

KEEP_VARIANTS = {
    "the parameter rebound": ("def cost(area: Area) -> int:\n",
                              "def cost(area: Area) -> int:\n    area = Area('a', 'b', 'c')\n"),
    "a field set with setattr": ("def slip(area: Area) -> str:\n",
                                 "def slip(area: Area) -> str:\n    setattr(area, 'city', 'x')\n"),
    "an Optional annotation": ("def label(area: Area)", "def label(area: Optional[Area])"),
}


@pytest.mark.parametrize("variant", [None, *sorted(KEEP_VARIANTS)])
def test_fields_passed_beside_the_object(tmp_path: Path, variant: str | None) -> None:
    """Functions that also call a method of the object keep it and get its fields as well."""
    files = {path: textwrap.dedent(text) for path, text in KEEP.items()}
    if variant is not None:
        old, new = KEEP_VARIANTS[variant]
        for path, text in files.items():
            files[path] = text.replace(old, new)
    project = support.load(_write(tmp_path, files))
    found = find_candidates(project, SMELL, options=support.NO_FILTER)
    if variant is not None:
        assert found == [], found
        return
    (candidate,) = found
    assert candidate.data["keep"] is True
    assert candidate.data["functions"] == ["shop.area.label", "shop.ship.cost", "shop.ship.slip"]
    injection = inject(project, SMELL, "easy", options=support.NO_FILTER)
    assert isinstance(injection, Injection), injection
    patch = injection.smelly_patch
    # typed as Area's constructor types them, since the signature is annotated
    assert "+def cost(area: Area, street: str, city: str, zipcode: str) -> int:" in patch
    # three calls that together outgrow the line: the list holds one per line, as black does
    assert "+    return [\n+        label(area, area.street, area.city, area.zipcode),\n" in patch
    assert "+        slip(area, area.street, area.city, area.zipcode),\n+    ]" in patch
    assert "len(city) + len(zipcode) + len(street) + len(area.short())" in patch
    support.assert_round_trip(tmp_path, injection, project)
    smelly = support.smelly_copy(tmp_path, injection, tmp_path / "copy")
    script = ("from shop.area import Area\nfrom shop.ship import run\n"
              "print(run(Area('Main St 1', 'Springfield', '12345')))\n")
    (smelly / "main_run.py").write_text(script, encoding="utf-8")
    (tmp_path / "main_run.py").write_text(script, encoding="utf-8")
    assert support.run_main(smelly, "main_run") == support.run_main(tmp_path, "main_run")


# -- real signatures, no wrappers ----------------------------------------------------------------

PLAIN = {
    "shop/__init__.py": "",
    "shop/render.py": (
        'def render(title, width, height=3, border="*"):\n'
        '    top = border * width\n'
        '    inner = [f"{border}{title.center(width - 2)}{border}"] * height\n'
        '    return "\\n".join([top, *inner, top])\n'),
    "shop/app.py": ("from shop.render import render\n\n\ndef banner(name):\n"
                    "    return render(name.upper(), len(name) + 6)\n"),
    "shop/report.py": ("from shop.render import render\n\n\ndef section(name, lines):\n"
                       "    return render(name, 12, height=lines)\n"),
}
"""`render(title, width, height=3, border="*")` called from two other modules: plain
parameters, no parameter object. Forwarding functions around `render` would add signatures with
the group, but a function that only passes its parameters on is a middle man, not a data clump:
no candidate."""


def test_plain_parameters_without_an_object_offer_no_candidate(tmp_path: Path) -> None:
    for path, text in PLAIN.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    project = support.load(tmp_path)
    assert find_candidates(project, SMELL, options=support.NO_FILTER) == []


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_the_clump_travels_through_existing_functions(difficulty: Difficulty) -> None:
    """The smelly version defines no new function: every signature that carries the group is
    one the original had (with the object), so nothing only forwards it."""
    _, injection = support.inject_case(SMELL, CASE, difficulty)
    added = [line for line in injection.smelly_patch.splitlines()
             if line.startswith("+") and line.lstrip("+ ").startswith("def ")]
    removed = [line for line in injection.smelly_patch.splitlines()
               if line.startswith("-") and line.lstrip("- ").startswith("def ")]
    names = sorted(line.split("def ")[1].split("(")[0] for line in added)
    assert names == sorted(line.split("def ")[1].split("(")[0] for line in removed)
    # the changed signatures are the targets, with the dataclass's fields the third holder
    assert names == sorted(item.location.qualname.rpartition(".")[2]
                           for item in injection.targets)


def _unannotated(tmp_path: Path) -> Path:
    """The `endpoints` fixture with its `endpoint: Endpoint` annotations (and the imports they
    needed) removed, as in a library that annotates nothing."""
    root = tmp_path / "repo"
    shutil.copytree(support.case_dir(SMELL, CASE) / "before", root)
    for name in ("client.py", "probe.py", "report.py"):
        path = root / "net" / name
        text = path.read_text(encoding="utf-8").replace("endpoint: Endpoint", "endpoint")
        path.write_text(text.replace("from net.settings import Endpoint\n", ""),
                        encoding="utf-8")
    return root


def test_a_parameter_typed_by_its_callers_is_a_parameter_object(tmp_path: Path) -> None:
    """Without annotations, the points-to analysis sees every caller pass an `Endpoint`: the
    same functions qualify as with them."""
    project = support.load(_unannotated(tmp_path))
    (candidate,) = find_candidates(project, SMELL, options=support.NO_FILTER)
    assert candidate.data["class"] == "net.settings.Endpoint"
    assert candidate.data["functions"] == ["net.client.connect", "net.client.describe",
                                           "net.client.session", "net.probe.Probe.ping"]


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_unannotated_round_trip_and_behaviour(tmp_path: Path, difficulty: Difficulty) -> None:
    before = _unannotated(tmp_path)
    project = support.load(before)
    injection = inject(project, SMELL, difficulty, options=support.NO_FILTER)
    assert isinstance(injection, Injection), injection
    low, high = SPAN[difficulty]
    assert low <= len({*injection.files, "net/settings.py"}) <= high
    support.assert_round_trip(before, injection, project)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    smelly = support.smelly_copy(before, injection, scratch)
    assert support.run_main(smelly, "net.app") == support.run_main(before, "net.app")


def test_a_parameter_that_may_be_missing_is_no_parameter_object(tmp_path: Path) -> None:
    """Typed only by its callers, a parameter the function checks against None could be
    missing: it does not qualify (an annotation would have said)."""
    root = _unannotated(tmp_path)
    path = root / "net" / "probe.py"
    text = path.read_text(encoding="utf-8").replace(
        "        line = f", "        if endpoint is None:\n            return self.label\n"
        "        line = f")
    path.write_text(text, encoding="utf-8")
    project = support.load(root)
    found = find_candidates(project, SMELL, options=support.NO_FILTER)
    assert all("net.probe.Probe.ping" not in item.data["functions"] for item in found)


# -- fields passed one by one ---------------------------------------------------------------------

FIELDS_CASE = "limits"
"""`limits/checks.py` holds the validators `Length` and `Span`, both built from `(low, high,
message)`; four of their methods and `Window.label` in `limits/ranges.py` use `self` only to read
those fields (`Span.steps` is a generator, `Length.__call__` has a local named `message`, the
validators raise `LimitError` defined beside them). The case moves their bodies into functions
beside their classes (easy, medium) or into the package's `utils.py` (hard, with `Band.caption` of
`limits/bands.py`), taking `low, high, message` one by one; the validators' `__call__` stay out
of `utils.py`, which would import `LimitError` from the module that imports it."""


def _inject_fields(difficulty: Difficulty) -> tuple[Project, Injection]:
    project = support.load(support.case_dir(SMELL, FIELDS_CASE) / "before")
    result = inject(project, SMELL, difficulty, options=support.NO_FILTER)
    assert isinstance(result, Injection), result
    assert result.candidate.data["mode"] == "fields"
    return project, result


def test_fields_candidate_says_why() -> None:
    project = support.load(support.case_dir(SMELL, FIELDS_CASE) / "before")
    (candidate,) = [item for item in find_candidates(project, SMELL, options=support.NO_FILTER)
                    if item.data.get("mode") == "fields"]
    assert candidate.data["fields"] == ["low", "high", "message"]
    assert candidate.data["readers"] == [
        "limits.bands.Band.caption", "limits.checks.Length.__call__",
        "limits.checks.Length.describe", "limits.checks.Span.__call__",
        "limits.checks.Span.steps", "limits.ranges.Window.label"]
    assert candidate.data["holders"] == ["limits.checks.Length.__init__",
                                         "limits.checks.Span.__init__"]
    assert "use self only to read (low, high, message)" in candidate.reason
    assert "Span.widest" not in candidate.reason  # two fields and another object's


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_fields_span_and_shape(difficulty: Difficulty) -> None:
    _, injection = _inject_fields(difficulty)
    spanned = {*injection.files, *(item.path for item in injection.locations)}
    low, high = SPAN[difficulty]
    assert low <= len(spanned) <= high, spanned
    # no new module: the bodies sit beside their classes, or in the package's `utils.py`
    assert all((support.case_dir(SMELL, FIELDS_CASE) / "before" / path).exists()
               for path in injection.files), injection.files
    assert ("limits/utils.py" in injection.files) is (difficulty == "hard")
    for target in injection.targets:  # module-level functions taking the fields first
        assert target.location.qualname.count(".") == 2
        assert re.search(rf"def {target.location.qualname.rpartition('.')[2]}\(low, high, "
                         "message", injection.smelly_patch)
    assert "return " in injection.smelly_patch and "(self.low, self.high, self.message" in \
        injection.smelly_patch
    assert '"""The value\'s length, or LimitError."""' not in [
        line[1:].strip() for line in injection.smelly_patch.splitlines()
        if line.startswith("-")]  # the method keeps its docstring
    herrings = {item.qualname for item in injection.red_herrings}
    if difficulty == "hard":
        assert herrings and all(name.startswith("limits.") for name in herrings)
        assert not herrings & {target.location.qualname for target in injection.targets}
    else:
        assert not herrings


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_fields_behaviour_is_kept(tmp_path: Path, difficulty: Difficulty) -> None:
    before = support.case_dir(SMELL, FIELDS_CASE) / "before"
    _, injection = _inject_fields(difficulty)
    smelly = support.smelly_copy(before, injection, tmp_path)
    assert support.run_main(smelly, "limits") == support.run_main(before, "limits")


def test_fields_renames_a_local_named_like_a_field() -> None:
    project = support.load(support.case_dir(SMELL, FIELDS_CASE) / "before")
    (candidate,) = [item for item in find_candidates(project, SMELL, options=support.NO_FILTER)
                    if item.data.get("mode") == "fields"]
    for seed in range(6):
        result = inject(project, SMELL, "medium", candidate=candidate, seed=seed,
                        options=support.NO_FILTER)
        assert isinstance(result, Injection), result
        added = [line[1:] for line in result.smelly_patch.splitlines() if line.startswith("+")]
        if any("size = len(value)" in line for line in added):  # Length.__call__ moved
            assert not any(re.search(r"\bmessage = ", line) for line in added)
            assert any(re.search(r"\b\w+_message = message or", line) for line in added)
            return
    pytest.fail("no seed moved Length.__call__")


FIELDS_BASE = {
    "kit/__init__.py": "",
    "kit/rules.py": """\
        class Rule:
            def __init__(self, low, high, label):
                self.low = low
                self.high = high
                self.label = label

            def text(self):
                return f"{self.label}: {self.low}-{self.high}"


        class Band:
            def __init__(self, low, high, label):
                self.low = low
                self.high = high
                self.label = label

            def width(self, scale=1):
                return (self.high - self.low) * scale, self.label
        """,
}

FIELDS_VARIANTS = {
    "a method call through self": ("text", """\
            def text(self):
                return f"{self.label}: {self.low}-{self.high} {self.width()}"

            def width(self):
                return 1
        """),
    "a field reassigned after construction": ("text", """\
            def text(self):
                return f"{self.label}: {self.low}-{self.high}"

            def grow(self):
                self.high = self.high + 1
        """),
    "self passed on": ("text", """\
            def text(self):
                return f"{self.label}: {self.low}-{self.high}" + str(id(self))
        """),
    "a closure over self": ("text", """\
            def text(self):
                show = lambda: f"{self.label}: {self.low}-{self.high}"
                return show()
        """),
    "super()": ("text", """\
            def text(self):
                return f"{self.label}: {self.low}-{self.high}" + super().__repr__()
        """),
    "a coroutine": ("text", """\
            async def text(self):
                return f"{self.label}: {self.low}-{self.high}"
        """),
    "keyword arguments that may name a field": ("text", """\
            def text(self, **options):
                return f"{self.label}: {self.low}-{self.high}" + str(options)
        """),
    "a builtin named like a field": ("text", """\
            def text(self):
                return f"{self.label}: {self.low}-{self.high}" + str(low(1))
        """),
}
"""Each replaces `Rule.text` (or adds to `Rule`) so that moving it would change behaviour."""


def _fields_readers(root: Path) -> set[str]:
    project = support.load(root)
    return {reader for item in find_candidates(project, SMELL, options=support.NO_FILTER)
            if item.data.get("mode") == "fields" for reader in item.data["readers"]}


def test_fields_guards_have_a_positive_control(tmp_path: Path) -> None:
    assert _fields_readers(_write(tmp_path, FIELDS_BASE)) == {"kit.rules.Rule.text",
                                                              "kit.rules.Band.width"}


@pytest.mark.parametrize("variant", sorted(FIELDS_VARIANTS))
def test_fields_risky_methods_are_refused(tmp_path: Path, variant: str) -> None:
    _, replacement = FIELDS_VARIANTS[variant]
    files = dict(FIELDS_BASE)
    text = textwrap.dedent(files["kit/rules.py"])
    original = textwrap.dedent("""\
            def text(self):
                return f"{self.label}: {self.low}-{self.high}"
        """)
    text = text.replace(textwrap.indent(original, "    "),
                        textwrap.indent(textwrap.dedent(replacement), "    "))
    if variant == "a builtin named like a field":
        text = "def low(value):\n    return value\n\n\n" + text
    assert text != textwrap.dedent(files["kit/rules.py"])
    files["kit/rules.py"] = text
    assert "kit.rules.Rule.text" not in _fields_readers(_write(tmp_path, files))


def test_fields_set_only_sometimes_are_refused(tmp_path: Path) -> None:
    files = dict(FIELDS_BASE)
    files["kit/rules.py"] = textwrap.dedent(files["kit/rules.py"]).replace(
        "        self.label = label\n\n    def text", "        if label:\n"
        "            self.label = label\n\n    def text", 1)
    assert "kit.rules.Rule.text" not in _fields_readers(_write(tmp_path, files))


CACHE_FILES = {
    "store/__init__.py": "",
    "store/cache.py": """\
        class Entry:
            def __init__(self, key):
                self.key = key
                self.value = None


        class RemoteCache:
            def __init__(self, client, prefix, timeout):
                self.client = client
                self.prefix = prefix
                self.timeout = timeout

            def dump(self, entry: Entry) -> None:
                key = self.prefix + entry.key
                self.client[key] = (entry.value, self.timeout)

            def load(self, entry: Entry) -> bool:
                found = self.client.get(self.prefix + entry.key, (None, self.timeout))
                entry.value = found[0]
                return entry.value is not None
        """,
    "store/__main__.py": """\
        from store.cache import Entry, RemoteCache

        cache = RemoteCache({}, "p:", 30)
        entry = Entry("a")
        entry.value = 5
        print(cache.dump(entry), cache.load(Entry("a")), cache.load(Entry("b")), cache.client)
        """,
}
"""A cache whose methods read (client, prefix, timeout), all in one module."""


def test_fields_of_one_module_without_a_helper_module_make_no_case(tmp_path: Path) -> None:
    """One module holds the class and every signature of the group, and the package keeps no
    helper module (a `_compat` shim is none): bodies beside their class leave the group in one
    module (no clump), and a new module would be a file made up for the count. Every
    difficulty is refused, naming the module looked at."""
    root = _write(tmp_path / "repo", {**CACHE_FILES, "store/_compat.py": """\
        def text(value):
            return str(value)
        """})
    project = support.load(root)
    for difficulty in DIFFICULTIES:
        result = inject(project, SMELL, difficulty, options=support.NO_FILTER)
        assert not isinstance(result, Injection), result
        assert "beside their classes (in store.cache)" in result.reason, result.reason
        assert "none it can import without a cycle" in result.reason, result.reason


GAUGE_FILES = {
    "gauge/__init__.py": "",
    "gauge/errors.py": """\
        class OutOfBounds(ValueError):
            \"\"\"A value outside its bounds.\"\"\"
        """,
    "gauge/utils.py": """\
        def clamp(value, low, high):
            return max(low, min(value, high))
        """,
    "gauge/bounds.py": """\
        from gauge.errors import OutOfBounds


        class Range:
            def __init__(self, low, high, error=None):
                self.low = low
                self.high = high
                self.error = error

            def _message(self, value):
                return (self.error or "{value} not in {low}..{high}").format(
                    value=value, low=self.low, high=self.high)

            def __call__(self, value):
                if not self.low <= value <= self.high:
                    raise OutOfBounds(self._message(value))
                return value


        class Size:
            def __init__(self, low, high, error=None):
                self.low = low
                self.high = high
                self.error = error

            def _message(self, value):
                return (self.error or "size {value} not in {low}..{high}").format(
                    value=len(value), low=self.low, high=self.high)

            def __call__(self, value):
                if not self.low <= len(value) <= self.high:
                    raise OutOfBounds(self._message(value))
                return len(value)
        """,
    "gauge/__main__.py": """\
        from gauge.bounds import OutOfBounds, Range, Size

        for check, value in ((Range(1, 3), 2), (Range(1, 3), 5), (Range(0, 1, "{value}!"), 4),
                             (Size(1, 2), "ab"), (Size(1, 2), "abcd"), (Size(2, 2, "no"), "")):
            try:
                print(check(value))
            except OutOfBounds as error:
                print("error", error)
        """,
}
"""Two validators whose `__call__` reads (low, high) and calls `_message`, which reads (low,
high, error): four methods carry the clump only if a body may call another one's on `self`. The
package keeps its exception in `errors.py` and shared functions in `utils.py`."""


def test_fields_thread_through_the_helpers_they_call(tmp_path: Path) -> None:
    """The moved `__call__` hands its fields on to the function that took `_message`'s body,
    both in the package's `utils.py` (the validators' module holds every signature, so bodies
    beside their class would make no clump): a chain of signatures carrying (low, high, error);
    no new module; pyflakes-clean; behaviour alike."""
    from smellkit.injectors.patches import patched_paths
    from smellkit.injectors.tells import added_tells

    root = _write(tmp_path / "repo", GAUGE_FILES)
    project = support.load(root)
    for seed in range(8):
        injection = inject(project, SMELL, "easy", seed=seed, options=support.NO_FILTER)
        assert isinstance(injection, Injection), injection
        smelly = support.smelly_copy(root, injection, tmp_path / str(seed))
        files = {path: (smelly / path).read_text(encoding="utf-8")
                 for path in patched_paths(injection.smelly_patch)}
        assert set(files) == {"gauge/bounds.py", "gauge/utils.py"}, set(files)
        helper = files["gauge/utils.py"]
        chained = re.search(r"def \w+\(low, high, error, value\):\n.*raise OutOfBounds\("
                            r"(\w+)\(low, high, error, value\)\)", helper, re.DOTALL)
        if chained is None:
            continue
        assert f"def {chained.group(1)}(low, high, error, value):" in helper, helper
        assert "from gauge.errors import OutOfBounds" in helper, helper
        assert "self" not in helper
        assert not added_tells({path: (root / path).read_text() for path in files}, dict(files))
        support.assert_round_trip(root, injection, project)
        assert support.run_main(smelly, "gauge") == support.run_main(root, "gauge")
        return
    pytest.fail("no seed moved a `__call__` with its `_message`")


CHOICE_FILES = {
    "pick/__init__.py": "",
    "pick/choices.py": """\
        class NotAllowed(ValueError):
            \"\"\"A value the validator turns away.\"\"\"


        def _listed(values):
            return ", ".join(str(value) for value in values)


        class AnyOf:
            def __init__(self, values, message=None, values_formatter=None):
                self.values = values
                self.message = message
                if values_formatter is None:
                    values_formatter = self.default_values_formatter
                self.values_formatter = values_formatter

            def __call__(self, data):
                if data in self.values:
                    return data
                message = self.message or "must be one of: %(values)s"
                raise NotAllowed(message % dict(values=self.values_formatter(self.values)))

            @staticmethod
            def default_values_formatter(values):
                return _listed(values)


        class NoneOf:
            def __init__(self, values, message=None, values_formatter=None):
                self.values = values
                self.message = message
                self.values_formatter = values_formatter or _listed

            def __call__(self, data):
                if data not in self.values:
                    return data
                message = self.message or "cannot be any of: %(values)s"
                raise NotAllowed(message % dict(values=self.values_formatter(self.values)))
        """,
    "pick/__main__.py": """\
        from pick.choices import AnyOf, NoneOf, NotAllowed

        for check, value in ((AnyOf([1, 2]), 1), (AnyOf([1, 2]), 3), (NoneOf("ab"), "c"),
                             (NoneOf("ab", "no %(values)s", "|".join), "a"),
                             (AnyOf([3], None, lambda values: "three"), 4)):
            try:
                print(check(value))
            except NotAllowed as error:
                print("error", error)
        """,
}
"""WTForms' `AnyOf` and `NoneOf`: `__call__` reads (values, message) and calls the callable its
`values_formatter` field holds, which the constructor set (a static method read through `self`,
a module function, or the caller's)."""

CHOICE_SPLIT = {
    **CHOICE_FILES,
    "pick/errors.py": """\
        class NotAllowed(ValueError):
            \"\"\"A value the validator turns away.\"\"\"
        """,
    "pick/utils.py": """\
        def unique(values):
            return list(dict.fromkeys(values))
        """,
    "pick/choices.py": CHOICE_FILES["pick/choices.py"].replace(
        """class NotAllowed(ValueError):
            \"\"\"A value the validator turns away.\"\"\"
""", "from pick.errors import NotAllowed\n"),
    "pick/__main__.py": CHOICE_FILES["pick/__main__.py"].replace(
        "from pick.choices import AnyOf, NoneOf, NotAllowed",
        "from pick.choices import AnyOf, NoneOf\n        from pick.errors import NotAllowed"),
}
"""The same validators, their exception in `errors.py` and a `utils.py` beside them, as WTForms
keeps its `utils.py`: the bodies can go there."""


@pytest.mark.parametrize("difficulty", ["easy"])
def test_fields_holding_a_callable_may_be_called(tmp_path: Path, difficulty: Difficulty) -> None:
    """A stored callable called as `self.values_formatter(self.values)` is read once the body
    moves (`values_formatter(values)`): the clump takes it in and behaviour stays. (Medium would
    need a third file: the package has none that carries the group.)"""
    root = _write(tmp_path / "repo", CHOICE_SPLIT)
    project = support.load(root)
    (candidate,) = [item for item in find_candidates(project, SMELL, options=support.NO_FILTER)
                    if item.data.get("mode") == "fields"]
    assert candidate.data["fields"] == ["values", "message", "values_formatter"]
    assert set(candidate.data["readers"]) == {"pick.choices.AnyOf.__call__",
                                              "pick.choices.NoneOf.__call__"}
    injection = inject(project, SMELL, difficulty, candidate=candidate,
                       options=support.NO_FILTER)
    assert isinstance(injection, Injection), injection
    added = "\n".join(line[1:] for line in injection.smelly_patch.splitlines()
                      if line.startswith("+"))
    assert "values_formatter(values)" in added and "self.values_formatter(" not in added
    # named after the class's phrase (`none_of`), not its one long word (`none`, read as None)
    defined = re.findall(r"def (\w+?)_(any|none)_of\(values, message, values_formatter, data\):",
                         added)
    assert len(defined) == 2, added  # easy too: one function beside the constructor is no clump
    assert len({verb for verb, _ in defined}) == 1, defined  # both bodies' names alike
    # the local `message` gives way to the field's parameter, named after the phrase too
    assert re.search(r"\b(any|none)_of_message = message or ", added), added
    support.assert_round_trip(root, injection, project)
    smelly = support.smelly_copy(root, injection, tmp_path)
    assert support.run_main(smelly, "pick") == support.run_main(root, "pick")


@pytest.mark.parametrize("variant", ["a function stored on the class",
                                     "a subclass storing a function on its class",
                                     "a method called through self"])
def test_a_called_attribute_that_binds_self_keeps_its_method(tmp_path: Path,
                                                              variant: str) -> None:
    """`self.f(x)` gets `self` first when `f` is a function on the class (here, a base or a
    subclass) or a method: moved as `f(x)` it would not, so the body stays."""
    files = dict(CHOICE_FILES)
    text = textwrap.dedent(files["pick/choices.py"])
    if variant == "a function stored on the class":
        text = text.replace("class NoneOf:\n",
                            "class NoneOf:\n    values_formatter = _listed\n\n")
    elif variant == "a subclass storing a function on its class":
        text += "\n\nclass Strict(NoneOf):\n    values_formatter = _listed\n"
    else:
        text = text.replace("        self.values_formatter = values_formatter or _listed\n",
                            "        self.formatter = values_formatter or _listed\n\n"
                            "    def values_formatter(self, values):\n"
                            "        return self.formatter(values)\n")
    assert text != textwrap.dedent(files["pick/choices.py"])
    files["pick/choices.py"] = text
    assert "pick.choices.NoneOf.__call__" not in _fields_readers(_write(tmp_path, files))


def test_a_helper_called_elsewhere_stays_a_method(tmp_path: Path) -> None:
    """A moved helper that code outside the moved bodies still calls keeps its method (now
    delegating)."""
    files = dict(GAUGE_FILES)
    files["gauge/report.py"] = """\
        from gauge.bounds import Range


        def explain(check: Range, value):
            return check._message(value)
        """
    root = _write(tmp_path / "repo", files)
    project = support.load(root)
    (candidate,) = [item for item in find_candidates(project, SMELL, options=support.NO_FILTER)
                    if item.data.get("mode") == "fields"]
    for seed in range(4):
        injection = inject(project, SMELL, "easy", candidate=candidate, seed=seed,
                           options=support.NO_FILTER)
        assert isinstance(injection, Injection), injection
        smelly = support.smelly_copy(root, injection, tmp_path / str(seed))
        text = (smelly / "gauge/bounds.py").read_text()
        assert "def _message(" in text.partition("class Size")[0], text


def test_a_decorated_helper_keeps_its_caller(tmp_path: Path) -> None:
    """A cached helper is a reader of its own (its decorator stays on the method), but a call
    of its bare body would skip the cache: its caller stays a method."""
    files = dict(GAUGE_FILES)
    files["gauge/bounds.py"] = "import functools\n\n\n" + textwrap.dedent(
        files["gauge/bounds.py"]).replace(
        "class Range:\n    def __init__(self, low, high, error=None):\n        self.low = low\n"
        "        self.high = high\n        self.error = error\n\n    def _message",
        "class Range:\n    def __init__(self, low, high, error=None):\n        self.low = low\n"
        "        self.high = high\n        self.error = error\n\n"
        "    @functools.lru_cache(maxsize=None)\n    def _message", 1)
    assert "lru_cache" in files["gauge/bounds.py"]
    readers = _fields_readers(_write(tmp_path, files))
    assert "gauge.bounds.Range._message" in readers
    assert "gauge.bounds.Range.__call__" not in readers
    assert "gauge.bounds.Size.__call__" in readers


def test_a_helper_overridden_below_keeps_its_caller(tmp_path: Path) -> None:
    """`self._message(...)` in a class whose subclass overrides `_message` may reach another
    body: the caller stays a method (no reader)."""
    files = dict(GAUGE_FILES)
    files["gauge/loud.py"] = """\
        from gauge.bounds import Range


        class LoudRange(Range):
            def _message(self, value):
                return "LOUD"
        """
    readers = _fields_readers(_write(tmp_path, files))
    assert "gauge.bounds.Range.__call__" not in readers
    assert "gauge.bounds.Size.__call__" in readers


# -- real code ------------------------------------------------------------------------------------

MEASURED = {"click": "1 candidates (1 without the 500-line filter); made/verified: easy 0/0  "
                     "medium 0/0  hard 0/0",
            "jinja2": "1 candidates (2 without the 500-line filter); made/verified: easy 1/1  "
                      "medium 0/0  hard 0/0"}
"""The survey when last reviewed; a change means: look at the new candidates and refusals.
The forwarding wrappers that gave click 3 candidates and jinja2 2 more were middle men, not
clumps, and are gone. jinja2's second candidate is of the fields mode: the memcached bytecode
cache's `load_bytecode` and `dump_bytecode` read (client, prefix, ignore_memcache_errors); every
signature of the group is in `bccache.py`, and `jinja2.utils` would import `bccache` back (a
cycle), so no case now that no new module takes the bodies. click's candidate is
`ShellComplete.get_completions`, the one method reading (cli, ctx_args, prog_name), which
`shell_complete`, `ShellComplete.__init__` and `_resolve_context` take already, all in
`shell_completion.py`: `click.utils` could hold its body only by importing `_resolve_context`
inside the function (a cycle at its top), so no case either."""


@pytest.mark.slow
@pytest.mark.parametrize("name,version", [("click", "8.1.7"), ("jinja2", "3.1.4")])
def test_real_code_survey(name: str, version: str) -> None:
    from tests.support.pypi import sdist

    result = support.survey(sdist(name, version) / "src", SMELL)
    print(result.row(name))
    assert not result.failures, result.failures
    assert result.row(name).partition(": ")[2] == MEASURED[name]


WTFORMS_PROBE = """\
from wtforms.validators import Length, NumberRange, ValidationError


class Field:
    def __init__(self, data):
        self.data = data

    def gettext(self, text):
        return text

    def ngettext(self, one, many, count):
        return one if count == 1 else many


for check in (Length(2, 5), Length(min=3), Length(max=2), Length(4, 4), Length(1, 3, "short"),
              NumberRange(1, 5), NumberRange(min=2), NumberRange(max=1), NumberRange(1, 2, "x")):
    for data in ("abc", "a", "abcdefg", 3, 0, 9, None, float("nan")):
        try:
            print(check(None, Field(data)))
        except (ValidationError, TypeError) as error:
            print(type(error).__name__, error)
"""

MARSHMALLOW_PROBE = """\
from marshmallow import validate
from marshmallow.exceptions import ValidationError

for check in (validate.Length(2, 5), validate.Length(equal=3), validate.Length(max=1),
              validate.Range(1, 5), validate.Range(min=2, min_inclusive=False),
              validate.Range(max=3, error="{input} > {max}"), validate.OneOf([1, 2], ["a", "b"])):
    print(repr(check))
    for data in ("abc", "a", "abcdefg", 1, 2, 9):
        try:
            print(check(data))
        except (ValidationError, TypeError) as error:
            print(type(error).__name__, getattr(error, "messages", error))
"""


@pytest.mark.slow
@pytest.mark.parametrize("name,version,probe", [("wtforms", "3.2.1", WTFORMS_PROBE),
                                                ("marshmallow", "3.23.1", MARSHMALLOW_PROBE)])
def test_fields_mode_on_real_code(tmp_path: Path, name: str, version: str, probe: str) -> None:
    """The validators of both libraries read (min, max, message/error) from self alone, and
    every signature carrying the group is in their own module. marshmallow's bodies go to its
    `utils.py` at easy (the exception imported from `marshmallow.exceptions`, which imports
    neither module); medium and hard would need a third file
    no honest placement reaches. WTForms' `utils.py` would import `ValidationError` back from
    `validators.py`, which imports it: a cycle, so no case, and the refusal says so."""
    from tests.support.pypi import sdist

    root = sdist(name, version) / "src"
    project = support.load(root)
    found = [item for item in find_candidates(project, SMELL, options=support.NO_FILTER)
             if item.data.get("mode") == "fields"]
    assert found, "no candidate of the fields mode"
    made: dict[str, Injection] = {}
    reasons: list[str] = []
    for difficulty in DIFFICULTIES:
        for candidate in found:
            result = inject(project, SMELL, difficulty, candidate=candidate,
                            options=support.NO_FILTER)
            if isinstance(result, Injection):
                made[difficulty] = result
                break
            reasons.append(result.reason)
    if name == "wtforms":
        assert not made and any(f"{name}.utils would import {name}.validators" in reason
                                and "a cycle" in reason for reason in reasons), reasons
        return
    assert sorted(made) == ["easy"], sorted(made)
    assert all(f"{name}.validate" in reason and f"{name}.utils" in reason
               for reason in reasons if reason.startswith("no choice")), reasons
    assert set(made["easy"].files) == {"marshmallow/utils.py", "marshmallow/validate.py"}
    for difficulty, injection in made.items():
        spanned = {*injection.files, *(item.path for item in injection.locations)}
        low, high = SPAN[difficulty]
        assert low <= len(spanned) <= high, (difficulty, spanned)
        _assert_reads_as_the_repository_s(injection.smelly_patch)
        added = [line[1:] for line in injection.smelly_patch.splitlines()
                 if line.startswith("+") and not line.startswith("+++")]
        # the clump in two new signatures at least, even at easy
        assert len([line for line in added if line.startswith("def ")]) >= 2, added
        # imports at the top, none inside a function
        assert not _imports_in_functions(added), added
        # no wrap the `self.` prefixes had forced left open over a now short condition
        assert not [line for line in added if re.match(r"\s*(el)?if .* \($", line)], added
        assert not any(re.search(r"_\d+\b|\d\.py", line) for line in
                       injection.smelly_patch.splitlines() if line.startswith("+++ "))
        support.assert_round_trip(root, injection, project)
        copy = support.smelly_copy(root, injection, tmp_path / difficulty)
        assert _probe(copy, probe) == _probe(root, probe)


def _imports_in_functions(lines: list[str]) -> list[str]:
    """Indented import lines outside `if TYPE_CHECKING:` blocks."""
    found: list[str] = []
    checking = False
    for line in lines:
        if line and not line[0].isspace():
            checking = line.startswith("if") and "TYPE_CHECKING" in line
        elif re.match(r"\s+(from \S+ )?import ", line) and not checking:
            found.append(line)
    return found


def _assert_reads_as_the_repository_s(patch: str) -> None:
    """No added line past 88 columns (both repositories' ruff default) but lines carried from
    the original, and no generated prose: a new module opens with code, not a docstring."""
    removed = {line[1:].strip() for line in patch.splitlines() if line.startswith("-")}
    long = [line for line in patch.splitlines() if line.startswith("+")
            and not line.startswith("+++") and len(line) - 1 > 88
            and line[1:].strip() not in removed]
    assert not long, long
    for opening in re.findall(r"--- /dev/null\n\+\+\+ b/\S+\n@@[^\n]*\n\+(.*)", patch):
        assert not opening.lstrip().startswith(('"' * 3, "'" * 3)), opening


def _probe(root: Path, script: str) -> str:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True,
                            text=True, timeout=60, check=True,
                            env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin",
                                 "PYTHONDONTWRITEBYTECODE": "1"})
    assert result.stdout.strip()
    return result.stdout


def test_a_name_the_source_module_defines_keeps_the_body_out_of_the_helper_module(
        tmp_path: Path) -> None:
    """The exception the validators raise lives in their own module, which would import the
    helper module: `utils.py` importing it back closes a cycle, and an import inside the
    function or through the module (`choices.NotAllowed`) is no code a person writes. Refused,
    with the reason; once the exception has a module of its own the bodies go to `utils.py`
    (`test_fields_holding_a_callable_may_be_called`)."""
    files = {**CHOICE_FILES, "pick/__init__.py": "from pick import choices\n",
             "pick/utils.py": CHOICE_SPLIT["pick/utils.py"]}
    root = _write(tmp_path / "repo", files)
    project = support.load(root)
    (candidate,) = [item for item in find_candidates(project, SMELL, options=support.NO_FILTER)
                    if item.data.get("mode") == "fields"]
    result = inject(project, SMELL, "easy", candidate=candidate, options=support.NO_FILTER)
    assert not isinstance(result, Injection), result
    assert "pick.utils would import pick.choices" in result.reason, result.reason


@pytest.mark.parametrize("code,joined", [
    ("if low is not None and (\n    value < low if inclusive else value <= low\n)",
     "if low is not None and (value < low if inclusive else value <= low)"),
    ("return (error or message).format(\n    input=value, low=low\n)",
     "return (error or message).format(input=value, low=low)"),
    ("call(\n    a,\n    b,\n)", None),  # a trailing comma keeps it exploded
    ("call(\n    a,  # why\n    b\n)", None),
    ('call(\n    """x\n    y"""\n)', None),
])
def test_wrapped_lines_join(code: str, joined: str | None) -> None:
    from smellkit.injectors.data_clumps.body import joined_lines

    assert joined_lines(code) == joined


COMPLETION_FILES = {
    "shells/__init__.py": "",
    "shells/__main__.py": """\
        from shells.completion import Completer, complete


        def main():
            print(complete("cli", ["a", "b"], "prog", "COMPLETE", "bash"))
            print(Completer("cli", ["x"], "prog", "COMPLETE").get_completions(["y"], "z"))


        main()
        """,
    "shells/core.py": """\
        from shells.completion import complete


        class Command:
            def main_completion(self, ctx_args, prog_name, complete_var):
                return complete(self, ctx_args, prog_name, complete_var, "bash")
        """,
    "shells/completion.py": """\
        def complete(cli, ctx_args, prog_name, complete_var, instruction):
            \"\"\"Complete for a shell.\"\"\"
            completer = Completer(cli, ctx_args, prog_name, complete_var)
            return f"{instruction}: {completer.get_completions(list(ctx_args), '')}"


        class Completer:
            def __init__(self, cli, ctx_args, prog_name, complete_var):
                self.cli = cli
                self.ctx_args = ctx_args
                self.prog_name = prog_name
                self.complete_var = complete_var

            def get_completions(self, args, incomplete):
                \"\"\"The completions of the incomplete word.\"\"\"
                context = _resolve_context(self.cli, self.ctx_args, self.prog_name, args)
                return [word for word in context if word.startswith(incomplete)]


        def _resolve_context(cli, ctx_args, prog_name, args):
            return [cli, prog_name, *ctx_args, *args]
        """,
}
"""click's shell completion in small: `(ctx_args, prog_name, complete_var)` is a reported clump
(`complete`, `Completer.__init__`, `Command.main_completion`); `(cli, ctx_args, prog_name)`
travels through `complete`, `Completer.__init__` and `_resolve_context`, all of one module."""


def test_a_group_beside_a_reported_one_needs_an_honest_place(tmp_path: Path) -> None:
    """Signatures that already carry a reported clump can carry another group no finding names
    (`(cli, ctx_args, prog_name)`), but every one of them sits in `completion.py`: the body
    beside its class leaves the group in one module, and `utils.py` would import
    `_resolve_context` back from the module that imports it. Refused, saying so."""
    root = _write(tmp_path / "repo", {**COMPLETION_FILES, "shells/utils.py": """\
        def words(text):
            return text.split()
        """})
    project = support.load(root)
    (candidate,) = [item for item in find_candidates(project, SMELL, options=support.NO_FILTER)
                    if item.data.get("mode") == "fields"]
    assert candidate.data["fields"] == ["cli", "ctx_args", "prog_name"]
    result = inject(project, SMELL, "easy", candidate=candidate, options=support.NO_FILTER)
    assert not isinstance(result, Injection), result
    assert "shells.utils would import shells.completion" in result.reason, result.reason


def test_a_group_a_finding_already_names_is_left_alone(tmp_path: Path) -> None:
    """Negative control: where the readers' fields are a clump the original already reports at
    those signatures, nothing is offered (the case would only add to a known smell)."""
    files = dict(COMPLETION_FILES)
    files["shells/core.py"] = files["shells/core.py"].replace(
        "main_completion(self, ctx_args, prog_name, complete_var)",
        "main_completion(self, cli, ctx_args, prog_name)").replace(
        "return complete(self, ctx_args, prog_name, complete_var,", "print(prog_name)\n"
        "        return complete(cli, ctx_args, prog_name, 'COMPLETE',")
    root = _write(tmp_path / "repo", files)
    project = support.load(root)
    assert not [item for item in find_candidates(project, SMELL, options=support.NO_FILTER)
                if item.data.get("mode") == "fields"]


GENERIC_FILES = {
    "bounds/__init__.py": "",
    "bounds/__main__.py": """\
        from bounds.checks import Between, Outside

        for check in (Between(1, 5), Outside(1, 5, "outside {low}..{high}")):
            for value in (0, 3, 9):
                print(check.describe(value), check.clamp(value))
        """,
    "bounds/checks.py": """\
        from __future__ import annotations

        import typing

        _T = typing.TypeVar("_T")


        class Between:
            def __init__(self, low, high, message=None):
                self.low = low
                self.high = high
                self.message = message

            def describe(self, value: _T) -> str:
                return (self.message or "{low}..{high}").format(low=self.low, high=self.high)

            def clamp(self, value: _T) -> _T:
                if value < self.low:
                    return self.message or self.low
                return self.high if value > self.high else value


        class Outside:
            def __init__(self, low, high, message=None):
                self.low = low
                self.high = high
                self.message = message

            def describe(self, value: _T) -> str:
                return (self.message or "not {low}..{high}").format(low=self.low, high=self.high)

            def clamp(self, value: _T) -> _T:
                return value if value < self.low or value > self.high else self.message
        """,
}


def test_generic_code_stays_out_of_a_helper_module(tmp_path: Path) -> None:
    """A body annotated with its module's private type variable (`value: _T`) would have the
    helper module import that name from the module that imports it: refused at every
    difficulty, with the reason (no new module declaring its own type variable either)."""
    root = _write(tmp_path / "repo", {**GENERIC_FILES, "bounds/utils.py": """\
        def middle(low, high):
            return (low + high) / 2
        """})
    project = support.load(root)
    found = [item for item in find_candidates(project, SMELL, options=support.NO_FILTER)
             if item.data.get("mode") == "fields"]
    assert found
    for difficulty in DIFFICULTIES:
        result = inject(project, SMELL, difficulty, candidate=found[0],
                        options=support.NO_FILTER)
        assert not isinstance(result, Injection), result
        assert "bounds.utils" in result.reason, result.reason
