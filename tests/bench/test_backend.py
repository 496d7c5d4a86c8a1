"""How a build loads the repository it injects into."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from smellkit.bench.backend import load_for_build
from smellkit.cli import main
from smellkit.project import Project

_ONLY_ASTROID_RESOLVES = '''\
class Oops(Exception):
    def show(self):
        return str(self)


def handle(run):
    try:
        run()
    except Oops as error:
        error.show()
'''


def _repository(root: Path) -> Path:
    (root / "pyproject.toml").write_text("[tool.smellkit]\ninference-budget = 100\n")
    (root / "app.py").write_text(_ONLY_ASTROID_RESOLVES)
    return root


def test_a_build_analyses_without_time_bound_inference(tmp_path: Path) -> None:
    """What astroid resolves within its time limits depends on the machine's load: a build
    resumed on a busy machine injected elsewhere. A build's analyses depend only on the code,
    as scoring's do, whatever the repository's configuration asks."""
    root = _repository(tmp_path)
    configured = Project.load(root, use_cache=False)
    assert configured.config.inference_budget == 100
    assert configured.index.calls.inferred == 1  # `error.show()`
    built = load_for_build(root)
    assert built.config.inference_budget == 0
    assert built.index.calls.inferred == 0
    assert ("app.handle", "app.Oops.show") not in built.index.call_graph.edges


def test_candidates_are_listed_as_a_build_finds_them(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []

    def spy(path: Path) -> Project:
        project = load_for_build(path)
        seen.append(project.config.inference_budget)
        return project

    monkeypatch.setattr("smellkit.bench.backend.load_for_build", spy)
    root = _repository(tmp_path)
    done = CliRunner().invoke(main, ["candidates", str(root), "--smell", "dead_code", "--no-cache"])
    assert done.exit_code == 0, done.output
    assert seen == [0]
