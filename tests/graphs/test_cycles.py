"""Cycles in what the analysis walks: class hierarchies, MROs, imports, re-exports and aliases.

Python rejects a class that is its own ancestor, but the index can still see one: `class X(X)`
after `from a import X` (compatibility layers and tests do it), names it cannot resolve, code
that never runs. Re-exports and star imports can form rings that Python tolerates. Every walk
over such structure must end, and give values that make sense.
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smellkit
from smellkit.graphs.classes import depth_of_inheritance, inheritance_depths
from smellkit.graphs.index import Index
from smellkit.project import Project

REPO = Path(__file__).resolve().parents[2]


HEADROOM = 2 << 30
"""Address space a test may add to what the process holds: a looping walk soon runs out."""


def _address_space() -> int | None:
    try:
        return int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def within(seconds: int) -> Iterator[None]:
    """Fail instead of hanging when a walk loops again (it used to run until memory ran out):
    an alarm after `seconds`, and where /proc tells the process's size, MemoryError past
    `HEADROOM` more."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"still running after {seconds} s: a walk does not end")

    limits = resource.getrlimit(resource.RLIMIT_AS)
    used = _address_space()
    if used is not None and limits[0] == resource.RLIM_INFINITY:
        cap = used + HEADROOM if limits[1] == resource.RLIM_INFINITY else \
            min(used + HEADROOM, limits[1])
        resource.setrlimit(resource.RLIMIT_AS, (cap, limits[1]))
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        resource.setrlimit(resource.RLIMIT_AS, limits)


def write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


def index_of(root: Path) -> Index:
    with within(20):
        index = Project.load(root, use_cache=False, jobs=1).index
        index.class_graph  # noqa: B018 - built inside the time limit
        return index


def scan(root: Path) -> smellkit.ScanResult:
    """A full scan, every detector, no cache."""
    with within(30):
        return smellkit.scan(root, use_cache=False, jobs=1)


def dits(result: smellkit.ScanResult) -> dict[str, object]:
    return {row.location.qualname: row.values["dit"] for row in result.metrics.classes}


# -- the class hierarchy --------------------------------------------------------------------


SAME_NAME = {
    "pkg/__init__.py": "",
    "pkg/a.py": "class X:\n    def f(self):\n        return 1\n",
    "pkg/b.py": "from pkg.a import X\n\n\nclass X(X):\n    def g(self):\n        return self.f()\n",
}


def test_a_class_subclassing_the_imported_class_of_its_name_has_that_class_as_base(
        tmp_path: Path) -> None:
    # the base is evaluated before `class X` binds X, so it is pkg.a.X, not pkg.b.X itself
    index = index_of(write(tmp_path, SAME_NAME))
    assert index.bases("pkg.b.X") == ["pkg.a.X"]
    assert index.mro("pkg.b.X") == ["pkg.b.X", "pkg.a.X"]
    assert index.lookup_method("pkg.b.X", "f") == "pkg.a.X.f"
    assert index.descendants("pkg.a.X") == ["pkg.b.X"]
    assert list(index.class_graph.edges()) == [("pkg.b.X", "pkg.a.X")]
    assert depth_of_inheritance(index.class_graph, "pkg.b.X") == 1
    assert dits(scan(tmp_path)) == {"pkg.a.X": 0, "pkg.b.X": 1}


def test_the_reported_reproduction_scans_from_the_command_line(tmp_path: Path) -> None:
    """The two files that made `smellkit scan` die with MemoryError after 40 s; run in a child
    with its address space capped, so a regression fails here and spares the machine."""
    root = write(tmp_path / "repo", SAME_NAME)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "smellkit", "scan", str(root), "--no-cache", "--no-progress",
         "--format", "json"], capture_output=True, text=True, timeout=120, preexec_fn=cap,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert {row["location"]["qualname"]: row["values"]["dit"]
            for row in report["metrics"]["classes"]} == {"pkg.a.X": 0, "pkg.b.X": 1}


def test_a_class_named_as_its_own_unbound_base_has_an_outside_base(tmp_path: Path) -> None:
    # `class X(X)` with nothing named X before it: a NameError at import; X is not its own base
    index = index_of(write(tmp_path, {"pkg/__init__.py": "",
                                      "pkg/a.py": "class X(X):\n    pass\n"}))
    assert index.bases("pkg.a.X") == ["X"]
    assert index.mro("pkg.a.X") == ["pkg.a.X", "X"]
    assert not index.class_graph.has_edge("pkg.a.X", "pkg.a.X")
    assert dits(scan(tmp_path)) == {"pkg.a.X": 1}


def test_a_nested_class_subclassing_the_outer_name_reads_the_enclosing_scope(
        tmp_path: Path) -> None:
    index = index_of(write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": (
        "class X:\n    pass\n\n\nclass Outer:\n    class X(X):\n        pass\n\n\n"
        "def make():\n    class X(X):\n        pass\n    return X\n")}))
    assert index.bases("pkg.a.Outer.X") == ["pkg.a.X"]
    assert index.bases("pkg.a.make.X") == ["pkg.a.X"]


def test_classes_that_subclass_each_other_get_finite_depths_and_mros(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg.b import B\n\n\nclass A(B):\n    def f(self):\n        return 1\n",
        "pkg/b.py": "from pkg.a import A\n\n\nclass B(A):\n    def g(self):\n        return 2\n"})
    index = index_of(tmp_path)
    assert index.mro("pkg.a.A") == ["pkg.a.A", "pkg.b.B"]
    assert index.mro("pkg.b.B") == ["pkg.b.B", "pkg.a.A"]
    assert index.lookup_method("pkg.a.A", "g") == "pkg.b.B.g"
    assert index.descendants("pkg.a.A") == ["pkg.b.B"]
    result = scan(tmp_path)
    assert dits(result) == {"pkg.a.A": 1, "pkg.b.B": 1}
    assert result.import_cycles == (("pkg.a", "pkg.b"),)


def test_a_base_reached_through_an_inherited_nested_class(tmp_path: Path) -> None:
    # resolving `B.Inner` needs B's MRO while the MROs are being computed (it recursed forever)
    index = index_of(write(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": (
        "class A:\n    class Inner:\n        pass\n\n\nclass B(A):\n    pass\n\n\n"
        "class C(B.Inner):\n    pass\n\n\nclass D(B.Missing):\n    pass\n")}))
    assert index.bases("pkg.m.C") == ["pkg.m.A.Inner"]
    assert index.mro("pkg.m.C") == ["pkg.m.C", "pkg.m.A.Inner"]
    assert index.bases("pkg.m.D") == ["pkg.m.B.Missing"]


def test_object_as_a_base_is_depth_zero(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "",
                     "pkg/m.py": "class A(object):\n    pass\n\n\nclass B(A):\n    pass\n"})
    assert dits(scan(tmp_path)) == {"pkg.m.A": 0, "pkg.m.B": 1}


def hierarchy(*edges: tuple[str, str]) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_edges_from(edges)
    return graph


@pytest.mark.parametrize(("edges", "expected"), [
    ([("A", "A")], {"A": 0}),
    ([("A", "A"), ("A", "ext.Base")], {"A": 1, "ext.Base": 0}),
    ([("A", "B"), ("B", "A")], {"A": 1, "B": 1}),
    # a ring of three: from any class, two steps before the path would come back
    ([("A", "B"), ("B", "C"), ("C", "A")], {"A": 2, "B": 2, "C": 2}),
    # ...and a way out of it from C only: A -> B -> C -> ext
    ([("A", "B"), ("B", "C"), ("C", "A"), ("C", "ext")],
     {"A": 3, "B": 2, "C": 2, "ext": 0}),
    # a chain leading into a ring, and a class below the chain
    ([("D", "E"), ("E", "A"), ("A", "B"), ("B", "A"), ("A", "object")],
     {"D": 3, "E": 2, "A": 1, "B": 1, "object": 0}),
    # two rings joined by one edge
    ([("A", "B"), ("B", "A"), ("B", "C"), ("C", "D"), ("D", "C")],
     {"A": 3, "B": 2, "C": 1, "D": 1}),
])
def test_depth_of_inheritance_is_the_longest_path_visiting_no_class_twice(
        edges: list[tuple[str, str]], expected: dict[str, int]) -> None:
    graph = hierarchy(*edges)
    with within(10):
        assert inheritance_depths(graph) == expected
        assert {node: depth_of_inheritance(graph, node) for node in graph} == expected


def test_depth_of_a_dense_cycle_is_found_quickly() -> None:
    # every class a base of every other: a search over all paths would take 20! steps
    names = [f"C{number}" for number in range(20)]
    graph = hierarchy(*((first, second) for first in names for second in names))
    with within(10):
        depths = inheritance_depths(graph)
    assert set(depths.values()) == {19}


def test_a_large_ring_with_chords_is_searched_within_its_budget() -> None:
    names = [f"C{number}" for number in range(500)]
    ring = [(name, names[(position + 1) % 500]) for position, name in enumerate(names)]
    chords = [(name, names[(position * 7 + 3) % 500]) for position, name in enumerate(names)]
    with within(10):
        depths = inheritance_depths(hierarchy(*ring, *chords))
    assert set(depths.values()) == {499}


def test_a_long_chain_needs_no_deep_recursion() -> None:
    graph = hierarchy(*((f"C{number}", f"C{number + 1}") for number in range(5000)))
    assert depth_of_inheritance(graph, "C0") == 5000


# -- imports, re-exports, aliases -----------------------------------------------------------


def test_star_imports_in_a_ring_resolve_names_of_either_module(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from .b import *\n\n\nclass C(D):\n    pass\n",
        "pkg/b.py": "from .a import *\n\n\nclass D(Missing):\n    pass\n"})
    index = index_of(tmp_path)
    assert index.resolve_dotted("pkg.b.C") == "pkg.a.C"
    assert index.resolve_dotted("pkg.a.Nothing") is None
    assert index.bases("pkg.a.C") == ["pkg.b.D"]
    assert dits(scan(tmp_path)) == {"pkg.a.C": 2, "pkg.b.D": 1}


def test_star_imports_among_many_modules_resolve_in_time(tmp_path: Path) -> None:
    # each module star-imports every other: following every path took 21 s with 9 modules and
    # ten times more with each one added
    count = 14
    files = {"pkg/__init__.py": ""}
    for number in range(count):
        stars = "".join(f"from .m{other} import *\n" for other in range(count) if other != number)
        files[f"pkg/m{number}.py"] = (f"{stars}\n\nclass C{number}(Missing):\n"
                                      f"    def f(self):\n        return undefined()\n")
    write(tmp_path, files)
    index = index_of(tmp_path)
    with within(10):
        assert index.resolve_name("pkg.m0", "Missing") is None
        assert index.resolve_name("pkg.m0", "C13") == "pkg.m13.C13"
    assert set(dits(scan(tmp_path)).values()) == {1}


def test_re_exports_that_lead_back_to_themselves_resolve_to_nothing(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/b.py": "from .c import X\n",
        "pkg/c.py": "from .b import X\n",
        "pkg/d.py": ("from .b import X\nfrom . import c\n\n\nclass E(X):\n    pass\n\n\n"
                     "class F(c.X):\n    pass\n\n\ndef use():\n    return X(), c.X()\n")})
    index = index_of(tmp_path)
    assert index.resolve_dotted("pkg.b.X") is None
    assert index.bases("pkg.d.E") == ["pkg.b.X"]  # outside the repository, as far as it knows
    assert dits(scan(tmp_path)) == {"pkg.d.E": 1, "pkg.d.F": 1}


def test_alias_cycles_end(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "from .a import *\nfrom .b import X as Y\n",
        "pkg/a.py": ("X = Y\nY = X\n\n\nclass C(X):\n    def f(self):\n        return X()\n\n\n"
                     "def g():\n    Z = W\n    W = Z\n    return Z().f()\n"),
        "pkg/b.py": "from .a import Y as X\nfrom . import Y as X\n\n\nclass E(X):\n    pass\n"})
    result = scan(tmp_path)
    assert dits(result) == {"pkg.a.C": 1, "pkg.b.E": 1}


# -- random packages full of cycles ---------------------------------------------------------


NAMES = ("A", "B", "X", "Y")


@st.composite
def statements(draw: st.DrawFn, module: int, modules: int) -> str:
    other = draw(st.integers(0, modules - 1))  # may be the module itself
    name = draw(st.sampled_from(NAMES))
    alias = draw(st.sampled_from(NAMES))
    kind = draw(st.sampled_from(
        ["star", "from", "from_as", "module", "alias", "class", "class", "class"]))
    if kind == "star":
        return f"from .m{other} import *\n"
    if kind == "from":
        return f"from .m{other} import {name}\n"
    if kind == "from_as":
        return f"from .m{other} import {name} as {alias}\n"
    if kind == "module":
        return f"from . import m{other}\n"
    if kind == "alias":
        return f"{name} = {alias}\n"
    bases = draw(st.lists(st.sampled_from([*NAMES, f"m{other}.{alias}", "object"]),
                          max_size=2, unique=True))
    called = draw(st.sampled_from(NAMES))
    return (f"\n\nclass {name}({', '.join(bases)}):\n"
            f"    def run(self):\n        return self.run() or {called}().run()\n\n"
            f"    def {alias.lower()}(self, other):\n        return other.run()\n\n\n")


@st.composite
def packages(draw: st.DrawFn) -> dict[str, str]:
    count = draw(st.integers(2, 4))
    files = {}
    for module in range(count):
        body = draw(st.lists(statements(module, count), min_size=1, max_size=6))
        files[f"pkg/m{module}.py"] = "".join(body)
    stars = draw(st.lists(st.integers(0, count - 1), max_size=2))
    files["pkg/__init__.py"] = "".join(f"from .m{number} import *\n" for number in stars)
    return files


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(files=packages())
def test_a_full_scan_of_any_tangle_of_cycles_ends_with_sane_values(
        files: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SMELLKIT_CACHE_DIR", str(tmp_path / "cache"))
    root = write(Path(tempfile.mkdtemp(dir=tmp_path)), files)
    with within(30):
        result = smellkit.scan(root, jobs=1)  # every detector, through the cache
        index = Project.load(root, use_cache=False, jobs=1).index
        graph = index.class_graph
        for cls in index.classes:
            order = index.mro(cls)
            assert order[0] == cls and len(order) == len(set(order))
            assert cls not in index.bases(cls)
            assert not graph.has_edge(cls, cls)
    assert result.summary.files == len(files)
    classes = len(index.classes)
    for row in result.metrics.classes:
        dit = row.values["dit"]
        # a path that visits no class twice: the repository's classes, then one outside base
        assert isinstance(dit, int) and 0 <= dit <= classes
