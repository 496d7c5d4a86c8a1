"""The forked half of a scan: same report as a serial scan, and a failing child changes nothing."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from smellkit._internal import forking
from smellkit._internal.forking import Background, Standby, standing_by
from smellkit.scanning import scanner
from smellkit.scanning.scanner import ScanRequest, scan_json

FIXTURES = Path(__file__).parents[1] / "fixtures" / "detectors"

needs_fork = pytest.mark.skipif(not forking.can_fork(), reason="forking is POSIX (Linux) only")


def _square(value: int) -> tuple[int, int]:
    return value * value, os.getpid()


def _fail(value: int) -> int:
    raise ValueError(f"bad {value}")


@needs_fork
def test_background_computes_in_a_child() -> None:
    result, pid = Background.start(_square, 7).result()
    assert result == 49
    assert pid != os.getpid()


def test_background_without_fork_computes_here() -> None:
    result, pid = Background.start(_square, 7, fork=False).result()
    assert (result, pid) == (49, os.getpid())


@needs_fork
def test_a_failing_child_surfaces_the_error_in_the_parent() -> None:
    background = Background.start(_fail, 3)
    with pytest.raises(ValueError, match="bad 3"):
        background.result()


@needs_fork
def test_cancel_reaps_the_child() -> None:
    background = Background.start(_square, 2)
    pid = background._pid
    assert pid is not None
    background.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


@needs_fork
def test_a_standby_child_forked_early_computes_the_job_sent_later() -> None:
    with standing_by() as standby:
        assert standby is not None
        child = standby._pid
        big = list(range(100_000))  # made after the fork: the job sends what it needs
        handle = standby.submit(_square, len(big))
        assert handle.result() == (100_000 ** 2, child)
        handle.join()
        with pytest.raises(RuntimeError, match="used or closed"):
            standby.submit(_square, 1)


@needs_fork
def test_an_unused_standby_child_is_let_go_and_reaped() -> None:
    with standing_by() as standby:
        assert standby is not None
        pid = standby._pid
        assert pid is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


@needs_fork
def test_a_failing_standby_job_surfaces_the_error_in_the_parent() -> None:
    standby = Standby.start()
    assert standby is not None
    with pytest.raises(ValueError, match="bad 5"):
        standby.submit(_fail, 5).result()


@needs_fork
def test_a_job_that_cannot_be_sent_is_computed_here() -> None:
    standby = Standby.start()
    assert standby is not None
    assert standby.submit(lambda value: (value + 1, os.getpid()), 2).result() == (3, os.getpid())


def test_no_standby_is_started_when_not_wanted() -> None:
    with standing_by(False) as standby:
        assert standby is None


def _report(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(scan_json(ScanRequest(path=path, include_tests=True,
                                                               use_cache=False)))
    summary = data["summary"]
    assert isinstance(summary, dict)
    summary.pop("seconds")
    return data


@needs_fork
def test_forked_scan_equals_serial_scan(tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    for case in sorted(FIXTURES.glob("*/*")):  # every detector's fixtures in one repository
        if (case / "repo").is_dir():
            shutil.copytree(case / "repo", repo / f"{case.parent.name}_{case.name}")
        elif case.is_dir():
            shutil.copytree(case, repo / f"{case.parent.name}_{case.name}")
    # astroid's time bounds make its tail depend on the machine's load: compare without it
    (repo / "pyproject.toml").write_text("[tool.smellkit]\ninference-budget = 0\n")
    serial = _report(repo)
    forks: list[bool] = []
    start = Background.start.__func__  # type: ignore[attr-defined]

    def spy(cls: type[Background[object, object]], function: object, argument: object, *,
            fork: bool = True, then: object = None) -> Background[object, object]:
        forks.append(fork)
        return start(cls, function, argument, fork=fork, then=then)  # type: ignore[no-any-return]

    monkeypatch.setattr(scanner, "MIN_DEFINITIONS", 0)
    monkeypatch.setattr(Background, "start", classmethod(spy))
    forked = _report(repo)
    assert forks == [True, True]
    assert serial["findings"], "the fixtures should have findings"
    assert forked == serial


_INFERRED_ONLY = '''\
class Oops(Exception):
    def show(self):
        return describe(self)


def describe(error):
    return str(error)


class Box:
    def __init__(self):
        self.size = 3

    def grow(self):
        self.size += 1


def handle(box):
    try:
        Box().grow()
    except Oops as error:
        error.show()
'''


@needs_fork
@pytest.mark.parametrize("fork", [False, True, "standby"])
def test_astroid_in_a_child_gives_the_serial_call_graph(tmp_path: Path,
                                                        fork: bool | str) -> None:
    from smellkit.graphs.attributes import keep_graph
    from smellkit.graphs.calls import build_call_graph
    from smellkit.project import Project

    (tmp_path / "app.py").write_text(_INFERRED_ONLY)
    serial_index = Project.load(tmp_path, use_cache=False).index
    serial = build_call_graph(serial_index, inference_seconds=30)
    index = Project.load(tmp_path, use_cache=False).index
    seen: list[int] = []

    def alongside(solver: object) -> None:
        seen.append(os.getpid())
        keep_graph(index, solver)  # type: ignore[arg-type]

    with standing_by(fork == "standby") as standby:
        built = build_call_graph(index, inference_seconds=30, alongside=alongside,
                                 fork=bool(fork), standby=standby)
    assert seen == [os.getpid()]  # the parent's work, whether astroid ran in a child or not
    assert serial.inferred == built.inferred == 1  # `error.show()`: only astroid resolves it
    assert ("app.handle", "app.Oops.show") in built.graph.edges
    assert sorted(built.graph.edges(data=True)) == sorted(serial.graph.edges(data=True))
    assert (built.call_sites, built.resolved, built.unresolved, built.external) == \
        (serial.call_sites, serial.resolved, serial.unresolved, serial.external)
    assert built.inference_modules == serial.inference_modules
    assert built.targets == serial.targets
    kept = index.__dict__["attribute_graph"]  # built alongside, before the call graph was
    assert sorted(kept.edges(data=True)) == sorted(serial_index.attribute_graph.edges(data=True))


def _pid_analysis(index: object) -> int:
    return os.getpid()


@needs_fork
def test_early_analyses_come_from_the_child(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import smellkit.detectors.runner
    from smellkit.analysis.smells import Smell
    from smellkit.detectors import registry
    from smellkit.detectors.base import Detector, DetectorOptions
    from smellkit.project import Project

    seen: list[int] = []

    class Reader(Detector[DetectorOptions]):
        smell = Smell(name="reader", description="reads an early analysis",
                      phrases=("a reader",))
        Options = DetectorOptions
        early = (_pid_analysis,)

        def detect(self, context: Any) -> list[Any]:
            seen.append(context.index.derived(_pid_analysis))
            return []

    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    monkeypatch.setattr(scanner, "MIN_DEFINITIONS", 0)
    monkeypatch.setattr(registry, "select", lambda names: [Reader])
    monkeypatch.setattr(smellkit.detectors.runner, "select", lambda names: [Reader])
    project = Project.load(tmp_path, use_cache=False)
    scanner._detect_and_measure(project, None, "info", lambda stage: None)[2].join()
    assert len(seen) == 1 and seen[0] != os.getpid()


@needs_fork
def test_a_scan_sends_astroid_to_its_standby_child(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "app.py").write_text(_INFERRED_ONLY)
    serial = _report(tmp_path)
    submitted: list[str] = []
    submit = Standby.submit

    def spy(self: Standby, function: Any, argument: Any) -> Background[Any, Any]:
        submitted.append(function.__name__)
        return submit(self, function, argument)

    monkeypatch.setattr(scanner, "STANDBY_FILES", 0)
    monkeypatch.setattr(forking, "MIN_DEFINITIONS", 0)
    monkeypatch.setattr(Standby, "submit", spy)
    forked = _report(tmp_path)
    assert submitted == ["answer"]
    assert forked == serial
    assert forked["summary"]["call_sites_unresolved"] == 0  # type: ignore[index]
