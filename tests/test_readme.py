"""The README's library example runs as written, on a small repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).parent.parent / "README.md"


def test_the_library_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "path" / "to" / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "core.py").write_text(
        "class Command:\n"
        "    def main(self):\n"
        "        return self.parse()\n\n"
        "    def parse(self):\n"
        "        return 1\n\n\n"
        "def _unused():\n"
        "    return 2\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SMELLKIT_CACHE_DIR", str(tmp_path / "cache"))
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## The library"):]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    namespace: dict[str, object] = {}
    exec(compile(code.group(1), "README.md", "exec"), namespace)
    assert namespace["calls"] is not None


def test_the_injection_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from smellkit.models import Injection

    fixture = Path(__file__).parent / "injectors" / "fixtures" / "dead_code" / "shop" / "before"
    shutil.copytree(fixture, tmp_path / "path" / "to" / "repo")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SMELLKIT_CACHE_DIR", str(tmp_path / "cache"))
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Injecting smells"):]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    namespace: dict[str, object] = {}
    exec(compile(code.group(1), "README.md", "exec"), namespace)
    assert isinstance(namespace["case"], Injection)
    assert namespace["pool"]
