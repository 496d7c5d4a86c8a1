"""Flows of the points-to solver that once carried far more values than the program does:
each one multiplied the solver's work on pandas."""

from __future__ import annotations

from pathlib import Path

from smellkit.graphs.calls import build_call_graph
from smellkit.project import Project

FORWARDING = '''
def finish(callback=None, cleanup=None):
    callback()


def middle(**rest):
    finish(**rest)


def run(**options):
    middle(**options)


def start():
    pass


def stop():
    pass


def main():
    run(callback=start, cleanup=stop)
'''


def test_keywords_forwarded_through_kwargs_keep_their_names(tmp_path: Path) -> None:
    (tmp_path / "forward.py").write_text(FORWARDING, encoding="utf-8")
    project = Project.load(tmp_path, use_cache=False, include_tests=True, jobs=1)
    graph = build_call_graph(project.index, budget=0).graph
    assert "forward.start" in graph["forward.finish"]
    assert "forward.stop" not in graph["forward.finish"]
