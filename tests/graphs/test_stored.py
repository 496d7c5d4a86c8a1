"""Re-scans after edits reuse the stored graphs only when the edit cannot change them, and always
give the report a scan without any cache gives."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from smellkit.graphs.stored import GraphCache, GraphHeader, load
from smellkit.scanning import scanner
from smellkit.scanning.scanner import ScanRequest, scan_json

FILES = {
    "app/__init__.py": "from app.core import Engine\n",
    "app/util.py": (
        "import os\n\n\n"
        "def helper(value):\n"
        "    return os.path.join(value, 'x')\n\n\n"
        "def other(value):\n"
        "    return helper(value) + helper(value)\n"
    ),
    "app/core.py": (
        "from app.util import helper\n\n\n"
        "class Part:\n"
        "    def __init__(self, size):\n"
        "        self.size = size\n\n"
        "    def weight(self):\n"
        "        return self.size * 2\n\n\n"
        "class Engine:\n"
        "    def __init__(self):\n"
        "        self.parts = [Part(1), Part(2)]\n\n"
        "    def run(self, count):\n"
        "        total = 0\n"
        "        for part in self.parts:\n"
        "            total += part.weight() + len(helper(str(count)))\n"
        "        return total\n\n"
        "    def report(self):\n"
        "        limit = 10\n"
        "        return [part.size for part in self.parts if part.size < limit]\n"
    ),
    "app/main.py": (
        "from app.core import Engine\n\n\n"
        "def main():\n"
        "    engine = Engine()\n"
        "    return engine.run(3)\n"
    ),
}


def _append(path: str, text: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        with open(root / path, "a", encoding="utf-8") as handle:
            handle.write(text)
    return edit


def _replace(path: str, old: str, new: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        target = root / path
        text = target.read_text()
        assert old in text
        target.write_text(text.replace(old, new, 1))
    return edit


EDITS: list[tuple[str, Callable[[Path], None], bool]] = [
    ("unreferenced module constant", _append("app/util.py", "\n_edit_1 = 1\n"), True),
    ("unreferenced local at the end of a body",
     _append("app/core.py", "        _unused_local = count\n"), True),
    ("constant changed in a body", _replace("app/core.py", "limit = 10", "limit = 20"), True),
    ("unreferenced local in the middle of a file (later lines move)",
     _replace("app/core.py", "        total = 0\n", "        total = 0\n        _scratch = 1\n"),
     True),
    ("comment lines inserted above everything",
     _replace("app/core.py", "from app.util", "# one\n# two\nfrom app.util"), True),
    ("body edit changing a call",
     _replace("app/main.py", "return engine.run(3)", "return engine.report()"), False),
    ("new function", _append("app/main.py", "\n\ndef extra():\n    return main()\n"), False),
    ("deleted function",
     _replace("app/util.py", "def other(value):\n    return helper(value) + helper(value)\n",
              ""), False),
    ("changed import", _replace("app/core.py", "from app.util import helper",
                                "from os.path import basename as helper"), False),
    ("assignment to a name used elsewhere", _append("app/main.py", "\nEngine = None\n"), False),
    ("dunder assignment", _append("app/util.py", "\n__version__ = '1'\n"), False),
]


def _report(root: Path, cache: Path | None) -> dict[str, object]:
    text = scan_json(ScanRequest(path=root, include_tests=True, cache_dir=cache,
                                 use_cache=cache is not None, jobs=1))
    data: dict[str, object] = json.loads(text)
    summary = data["summary"]
    assert isinstance(summary, dict)
    for volatile in ("seconds", "files_parsed", "files_from_cache"):
        summary.pop(volatile)
    return data


@pytest.mark.parametrize("fork", [False, True], ids=["serial", "forked"])
def test_rescans_equal_fresh_scans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   fork: bool) -> None:
    if fork:  # the graphs are then saved by the forked child
        monkeypatch.setattr(scanner, "MIN_DEFINITIONS", 0)
    root = tmp_path / "repo"
    for relative, content in FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(content)
    cache = tmp_path / "cache"
    reused: list[bool] = []
    attach = GraphCache.attach

    def spy(self: GraphCache, *args: object) -> bool:
        reused.append(attach(self, *args))  # type: ignore[arg-type]
        return reused[-1]

    monkeypatch.setattr(GraphCache, "attach", spy)
    assert _report(root, cache) == _report(root, None)
    assert reused == [False]
    for label, edit, expected in EDITS:
        edit(root)
        incremental = _report(root, cache)
        assert reused[-1] is expected, label
        assert incremental == _report(root, None), label


def test_a_damaged_header_is_ignored(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for relative, content in FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(content)
    cache = tmp_path / "cache"
    first = _report(root, cache)
    headers = list(cache.rglob("graphs-*.header"))
    assert len(headers) == 1
    headers[0].write_bytes(b"not a pickle")
    _append("app/util.py", "\n_edit_1 = 1\n")(root)
    assert _report(root, cache) == _report(root, None)
    assert first["findings"] is not None
    results = headers[0].parent
    assert isinstance(pickle_header(results, headers[0].name), GraphHeader)


def pickle_header(folder: Path, name: str) -> GraphHeader | None:
    class _Cache:
        def get_blob(self, blob: str) -> bytes | None:
            return (folder / blob).read_bytes()

    return load(_Cache(), name)  # type: ignore[arg-type]


def test_type_queries_on_reused_graphs_match_a_fresh_solver(tmp_path: Path) -> None:
    from smellkit.facts import Attr, Expr, Name
    from smellkit.project import Project, Survey

    root = tmp_path / "repo"
    for relative, content in FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(content)
    survey = Survey.take(root, cache_dir=tmp_path / "cache", jobs=1)
    assert survey.cache is not None
    project = Project.from_survey(survey)
    GraphCache(survey, survey.cache, "test").save(project.files, project.index)
    queries: list[tuple[str, Expr]] = [
        ("app.main.main", Name("engine")), ("app.core.Engine.run", Name("part")),
        ("app.core.Engine.report", Attr(Name("self"), "parts"))]
    expected = project.index.calls.types_of_many(queries)
    assert expected[0] == {"app.core.Engine"}

    again = Survey.take(root, cache_dir=tmp_path / "cache", jobs=1)
    assert again.cache is not None
    reloaded = Project.from_survey(again)
    assert GraphCache(again, again.cache, "test").attach(reloaded.files, reloaded.index)
    assert reloaded.index.calls.solver is None  # reused: no solver until a query needs one
    assert reloaded.index.calls.types_of_many(queries) == expected
    assert reloaded.index.calls.graph.edges == project.index.calls.graph.edges
