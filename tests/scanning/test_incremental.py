"""A graphs-and-metrics re-scan after a few files changed patches the stored report, and the
patched report is the report a scan without any cache gives."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from smellkit.scanning import scanner
from smellkit.scanning.scanner import ScanRequest, scan_json
from tests.graphs.test_stored import EDITS, FILES, _append, _replace

MORE_EDITS: list[tuple[str, Callable[[Path], None], bool]] = [
    ("a branch added (CC and WMC move)",
     _replace("app/core.py", "        limit = 20\n",
              "        limit = 20\n        if limit > 5:\n            pass\n"), True),
    ("a new local name in a method (NOAV moves)",
     _replace("app/core.py", "        total = 0\n", "        total = 0\n        spare = 2\n"),
     True),
    ("a docstring and blank lines (raw counts move)",
     _replace("app/util.py", "def helper(value):\n",
              'def helper(value):\n    """Join."""\n\n'), True),
    ("a syntax error", _append("app/main.py", "\ndef broken(:\n"), False),
    ("the syntax error mended", _replace("app/main.py", "\ndef broken(:\n", "\n"), False),
    ("a new file", _append("app/extra.py", "X = 1\n"), False),
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The small repository the graph-reuse tests scan."""
    folder = tmp_path / "repo"
    for relative, content in FILES.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(content)
    return folder


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Grows by one each time a report is computed rather than patched or read back."""
    calls: list[bool] = []
    compute = scanner._compute

    def spy(*args: Any) -> Any:
        calls.append(True)
        return compute(*args)

    monkeypatch.setattr(scanner, "_compute", spy)
    return calls


def _report(root: Path, cache: Path | None) -> dict[str, Any]:
    text = scan_json(ScanRequest(path=root, smells=[], include_tests=True, cache_dir=cache,
                                 use_cache=cache is not None, jobs=1))
    data: dict[str, Any] = json.loads(text)
    for volatile in ("seconds", "files_parsed", "files_from_cache"):
        data["summary"].pop(volatile)
    return data


def test_patched_reports_equal_fresh_reports(tmp_path: Path, root: Path,
                                             computed: list[bool]) -> None:
    cache = tmp_path / "cache"
    assert _report(root, cache) == _report(root, None)
    for label, edit, patchable in [*EDITS, *MORE_EDITS]:
        edit(root)
        computed.clear()
        patched = _report(root, cache)
        assert computed == ([] if patchable else [True]), label
        assert patched == _report(root, None), label
        computed.clear()
        assert _report(root, cache) == patched, label  # and stored for the next run
        assert computed == [], label


def test_the_summary_counts_the_files_parsed(tmp_path: Path, root: Path) -> None:
    request = ScanRequest(path=root, smells=[], cache_dir=tmp_path / "cache", jobs=1)
    first = json.loads(scan_json(request))["summary"]
    _append("app/util.py", "\n_edit = 1\n")(root)
    second = json.loads(scan_json(request))["summary"]
    assert (second["files_parsed"], second["files_from_cache"]) == (1, first["files"] - 1)
    assert second["lines"] == first["lines"] + 2


def test_scans_with_detectors_are_never_patched(tmp_path: Path, root: Path,
                                                computed: list[bool]) -> None:
    request = ScanRequest(path=root, smells=["dead_code"], cache_dir=tmp_path / "cache", jobs=1)
    scan_json(request)
    _append("app/util.py", "\n_edit = 1\n")(root)
    computed.clear()
    scan_json(request)
    assert computed == [True]
