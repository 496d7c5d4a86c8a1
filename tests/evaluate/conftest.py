"""Shared pieces of the scoring tests: a small dataset built from the calc fixture (real
environment and test runs, the bench tests' fake injections), the click dataset the build's CI
test makes (for the slow scoring tests), and a stand-in for the signals module so the scorer is
tested on its own.

`StandInSignals` is deliberately simple: localization is 1 when the patch touches a file the case
involves, and nothing else is measured. The real signals are tested with the signals module; the
scorer only has to call them once per case and once per prediction and keep their answer.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.score import Score
from smellkit.injectors.patches import apply_patch, make_patch, patched_paths
from smellkit.models import BuildReport
from smellkit.project import Project
from tests.bench import fakes
from tests.bench.conftest import bench_cache


class StandInSignals:
    """`prepare`/`measure` with the signals module's interface; counts its calls."""

    def __init__(self, *, crash_on: str | None = None):
        self.prepared: list[str] = []
        self.measured: list[tuple[str, str]] = []
        self.crash_on = crash_on
        self._lock = threading.Lock()

    def prepare(self, case: EvalCase, original: Project | None, smelly: Project) -> Any:
        assert original is not None and smelly.files
        with self._lock:
            self.prepared.append(case.instance_id)
        files = case.case.files if case.case is not None else ()
        return {f"{case.source_path}/{path}".lstrip("/") for path in files}

    def measure(self, analysis: Any, result: Project, patch: str, score: Score) -> Score:
        with self._lock:
            self.measured.append((score.instance_id, score.model))
        if self.crash_on is not None and self.crash_on in patch:
            raise RuntimeError("the stand-in signals crashed on purpose")
        touched = set(patched_paths(patch)) if patch.strip() else set()
        score.la = 1.0 if touched & analysis else 0.0
        score.residue = 0 if touched else 1
        score.checks_passed = score.checks_total = 0
        return score


@pytest.fixture
def signals() -> StandInSignals:
    return StandInSignals()


@pytest.fixture(scope="session")
def calc_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A build's output folder: four calc cases, their specs record, no Harbor tasks."""
    from smellkit.bench import build

    out = tmp_path_factory.mktemp("calc-build")
    report = build(fakes.FIXTURES / "calc.toml", out, per_cell=2, spare=0, jobs=2,
                   cache_dir=bench_cache(), backend=fakes.backend(), harbor=False)
    assert report.cases == 4, report
    return out


CLICK_SPEC = Path(__file__).parents[2] / "examples" / "specs" / "click.toml"
CLICK_OPTIONS = {"per_cell": 2, "spare": 1, "jobs": 2, "seed": 0}  # tests/bench/test_click_build


@pytest.fixture(scope="session")
def click_dataset() -> tuple[Path, BuildReport]:
    """click 8.1.7 cases built as tests/bench/test_click_build.py builds them (same spec, seed
    and options, same cached checkout, environment and test map), kept under the test-data
    cache so a rerun only resumes the build: its output folder and report. The folder is keyed
    by smellkit's code (`tests.support.builds`): the cases are the ones this code makes."""
    from smellkit.bench import build
    from tests.support.builds import cached_build
    from tests.support.pypi import data_dir

    with cached_build("evaluate", "click-build", [CLICK_SPEC]) as dataset:
        report = build(CLICK_SPEC, dataset, cache_dir=data_dir() / "sandbox",
                       **CLICK_OPTIONS)  # type: ignore[arg-type]
    assert report.cases >= 10 and not report.repo_errors, report
    return dataset, report


def smelly_source(case_row: dict[str, Any], tmp: Path) -> str:
    """The smelly `calc/ops.py` of a dataset row (the original plus its smelly patch)."""
    tree = tmp / f"smelly-{case_row['instance_id']}"
    shutil.copytree(fakes.FIXTURES / "calcrepo" / "src", tree)
    apply_patch(tree, case_row["smelly_patch"])
    return (tree / fakes.OPS).read_text()


def edit(smelly: str, old: str, new: str) -> str:
    """A prediction's patch (relative to the repository root) replacing `old` by `new`."""
    assert old in smelly
    path = f"src/{fakes.OPS}"
    return make_patch({path: smelly}, {path: smelly.replace(old, new)})
