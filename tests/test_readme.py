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


def _commands() -> list[list[str]]:
    """Every `smellkit ...` command line of the README's bash blocks (continuations joined)."""
    import shlex

    text = README.read_text(encoding="utf-8")
    lines: list[list[str]] = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words[:1] == ["smellkit"] and len(words) > 1:
                lines.append(words[1:])
    return lines


def test_every_readme_command_and_option_exists() -> None:
    """A renamed or removed option fails here, not in a reader's terminal."""
    import click

    from smellkit.cli import main

    commands = _commands()
    assert any("--injector-option" in words for words in commands)
    assert any("--explain" in words for words in commands)
    for words in commands:
        command = main.commands.get(words[0])
        assert isinstance(command, click.Command), words
        known = {name for param in command.params for name in param.opts}
        known.update(["--help", "-h"])
        for word in words[1:]:
            if word.startswith("-") and word != "-":
                assert word.partition("=")[0] in known, (words[0], word)


def test_the_readme_injector_tables_are_valid() -> None:
    from smellkit.config import parse_repo_spec, tomllib
    from smellkit.injectors.engine import check_options

    text = README.read_text(encoding="utf-8")
    tables = [block for block in re.findall(r"```toml\n(.*?)```", text, re.S)
              if "[injectors." in block]
    assert tables
    for block in tables:
        spec = parse_repo_spec({"name": "x", "source": {"path": "."}, **tomllib.loads(block)})
        check_options(spec.injectors)
        assert spec.injectors
