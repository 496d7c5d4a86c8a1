"""The build pipeline on the calc fixture: real environments and test runs, fake injections whose
fate is known (validates, breaks a test, hangs, does not apply), plus a broken spec and a
repository whose tests fail on the clean code."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from smellkit._internal.jsonl import read_jsonl
from smellkit.bench import build, load_dataset
from smellkit.config import load_repo_spec, load_spec_record
from smellkit.errors import ConfigError, UsageError
from smellkit.models import BuildReport
from tests.bench import fakes
from tests.bench.conftest import bench_cache

FIXTURES = fakes.FIXTURES


def _rejections(out: Path) -> dict[str, dict[str, object]]:
    return {str(row["key"]): row for row in read_jsonl(out / "rejections.jsonl")}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BuildReport]:
    out = tmp_path_factory.mktemp("build")
    report = build([FIXTURES / "calc.toml", FIXTURES / "broken.toml", FIXTURES / "failing.toml"],
                   out, per_cell=2, spare=0, jobs=2, cache_dir=bench_cache(),
                   backend=fakes.backend())
    return out, report


def test_good_cases_are_exported_with_smellbench_fields(built: tuple[Path, BuildReport]) -> None:
    out, report = built
    rows = read_jsonl(out / "dataset.jsonl")
    ids = [row["instance_id"] for row in rows]
    assert sorted(ids[:2]) == ["calc__feature_envy-easy-add", "calc__feature_envy-easy-countdown"]
    assert ids[2:] == ["calc__feature_envy-medium-mul", "calc__dead_code-easy-add"]
    first = next(row for row in rows if row["instance_id"] == "calc__feature_envy-easy-add")
    assert first["type"] == "feature_envy" and rows[-1]["type"] == "dead_code_elimination"
    assert first["project_name"] == "calc" and first["commit_hash"] == "local"
    assert first["smell_content"] == first["smelly_patch"]
    assert first["gt_content"] == first["ground_truth_patch"]
    assert first["hint_targeted"] == "Remove the feature_envy at calc.ops.add."
    assert first["smell_function"] == ["calc.ops.add"]
    assert first["testsuites"] == ["tests/test_ops.py::test_add"]
    assert first["settings"] == ["guided", "open", "targeted"]
    assert "timings" not in first
    adequacy = first["test_adequacy"]
    assert adequacy["targets_executed"] == ["calc.ops.add"]
    assert adequacy["changed_lines"] == adequacy["changed_lines_executed"] == 1
    assert adequacy["sensitive"] and adequacy["functions"] == [{
        "qualname": "calc.ops.add", "path": "calc/ops.py", "line": 4,
        "tests": ["tests/test_ops.py::test_add"], "caught_by": "tests/test_ops.py::test_add"}]
    cases = load_dataset(out / "dataset.jsonl")
    assert [case.instance_id for case in cases] == ids
    assert report.cases == 4 and report.by_cell == {
        "feature_envy": {"easy": 2, "medium": 1}, "dead_code": {"easy": 1}}
    assert json.loads((out / "report.json").read_text())["cases"] == 4
    assert report.distinct == {"dead_code": {"targets": 1, "files": 1},
                               "feature_envy": {"targets": 3, "files": 1}}
    assert report.tests["feature_envy"] == {"median": 1.0, "max": 1.0,  # one test per case
                                            "max_per_target_method": 1.0}
    assert adequacy["target_methods"] == ["calc.ops.add"] and adequacy["test_budget"] == 10
    from smellkit.detectors.runner import run_detectors
    from smellkit.project import Project

    original = Project.load(FIXTURES / "calcrepo" / "src", use_cache=False)
    for row in rows:  # the original's findings of the case's smell, recorded and exported
        found = run_detectors(original, [str(row["smell"])], respect_suppressions=False)
        assert row["preexisting"] == {"count": len(found), "locations": [
            item.location.model_dump(mode="json") for item in sorted(
                (item for item in found), key=lambda item: (
                    item.location.path, item.location.start_line, item.location.qualname))]}
    assert {case.preexisting for case in cases} != {None}


def test_each_built_repository_is_recorded_for_scoring(built: tuple[Path, BuildReport]) -> None:
    out, _ = built
    spec, cache = load_spec_record(out / "specs" / "calc.json")
    assert spec == load_repo_spec(FIXTURES / "calc.toml")
    assert spec.spec_path == (FIXTURES / "calc.toml").resolve()
    assert spec.local_path() == (FIXTURES / "calcrepo").resolve()
    assert cache == bench_cache().resolve()
    assert sorted(path.name for path in (out / "specs").iterdir()) == ["calc.json"]


def test_each_cell_validates_only_what_it_needs(built: tuple[Path, BuildReport]) -> None:
    out, report = built
    # feature_envy/easy offers three harmless injections; per_cell + spare = 2 are validated.
    assert report.validated == 4
    validated = [row["key"] for row in read_jsonl(out / "work" / "outcomes.jsonl")
                 if row["kind"] == "case"]
    assert not any(key.startswith("validate|feature_envy-easy-mul|") for key in validated)
    assert any(key.startswith("validate|feature_envy-easy-add|") for key in validated)


def test_each_bad_case_has_a_clear_reason(built: tuple[Path, BuildReport]) -> None:
    out, report = built
    rejections = _rejections(out)
    broken = rejections["feature_envy-medium-add"]
    assert broken["stage"] == "smelly"
    assert "fail on the smelly version: tests/test_ops.py::test_add" in str(broken["reason"])
    hung = rejections["dead_code-easy-countdown"]
    assert hung["stage"] == "smelly" and "hung" in str(hung["reason"])
    assert "tests/test_ops.py::test_countdown" in str(hung["reason"])
    patch = rejections["dead_code-medium-mul"]
    assert patch["stage"] == "apply" and "does not apply" in str(patch["reason"])
    assert report.rejections_by_stage["smelly"] == 2
    assert report.rejections_by_stage["apply"] == 1
    unguarded = rejections["feature_envy-medium-countdown"]
    assert unguarded["stage"] == "adequacy"
    reason = str(unguarded["reason"])
    assert "calc.ops._countdown_feature_envy_medium" in reason and "calc/ops.py:" in reason
    assert report.rejections_by_stage["adequacy"] == 1


def test_broken_spec_and_failing_repository_are_reported_and_the_rest_goes_on(
        built: tuple[Path, BuildReport]) -> None:
    out, report = built
    spec_error = report.repo_errors[str(FIXTURES / "broken.toml")]
    assert "broken.toml" in spec_error and "source" in spec_error
    failing = report.repo_errors["failing"]
    assert failing.startswith("mapping tests to code on the clean version: ")
    assert "failing.toml" in failing
    assert "no test passes on the clean version" in failing
    stages = {row["stage"] for row in _rejections(out).values()}
    assert {"spec", "repository"} <= stages
    assert report.repos == ("calc",)


def test_harbor_tasks_hide_the_tests_from_the_environment(
        built: tuple[Path, BuildReport]) -> None:
    out, report = built
    tasks = sorted(path.name for path in (out / "harbor").iterdir())
    assert tasks == sorted(row["instance_id"] for row in read_jsonl(out / "dataset.jsonl"))
    task = out / "harbor" / "calc__feature_envy-easy-add"
    environment = task / "environment"
    assert (environment / "repo" / "src" / "calc" / "ops.py").is_file()
    assert not any("test" in path.name for path in environment.rglob("*"))
    assert (task / "tests" / "tests" / "test_ops.py").is_file()
    case = json.loads((task / "tests" / "case.json").read_text())["case"]
    assert case["tests"] == ["tests/test_ops.py::test_add"]
    for script in (task / "tests" / "test.sh", task / "tests" / "integrity.sh",
                   task / "solution" / "solve.sh"):
        assert os.access(script, os.X_OK)
        assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    assert report.harbor_tasks == 4


def test_interrupted_build_resumes_to_the_same_dataset(built: tuple[Path, BuildReport],
                                                       tmp_path: Path) -> None:
    out, _ = built
    with pytest.raises(KeyboardInterrupt):
        build([FIXTURES / "calc.toml"], tmp_path, per_cell=2, spare=0, jobs=1,
              cache_dir=bench_cache(), backend=fakes.backend(interrupt_after=3))
    assert not (tmp_path / "dataset.jsonl").exists()
    log = tmp_path / "work" / "outcomes.jsonl"
    finished = len(read_jsonl(log))
    with open(log, "a") as handle:  # a kill in the middle of a write
        handle.write('{"key": "validate|half-writ')
    report = build([FIXTURES / "calc.toml"], tmp_path, per_cell=2, spare=0, jobs=2,
                   cache_dir=bench_cache(), backend=fakes.backend())
    assert report.reused >= 1 and finished >= 1
    assert (tmp_path / "dataset.jsonl").read_bytes() == (out / "dataset.jsonl").read_bytes()
    assert b"half-writ" not in log.read_bytes()


def test_killed_process_resumes_to_the_same_dataset(built: tuple[Path, BuildReport],
                                                    tmp_path: Path) -> None:
    """Also the same-seed check: nothing is shared with the first build but the environment."""
    out, _ = built
    env = {**os.environ, "BENCH_OUT": str(tmp_path), "BENCH_CACHE": str(bench_cache()),
           "BENCH_SLOW": "0.5"}
    root = Path(__file__).parents[2]
    process = subprocess.Popen([sys.executable, "-m", "tests.bench.fakes"], cwd=root, env=env)
    log = tmp_path / "work" / "outcomes.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if sum(1 for row in read_jsonl(log) if row["key"].startswith("validate|")) >= 2:
            break
        time.sleep(0.05)
    assert process.poll() is None, "the build finished before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not (tmp_path / "dataset.jsonl").exists()
    report = build([FIXTURES / "calc.toml"], tmp_path, per_cell=2, spare=0, jobs=2,
                   cache_dir=bench_cache(), backend=fakes.backend())
    assert report.reused >= 2
    assert (tmp_path / "dataset.jsonl").read_bytes() == (out / "dataset.jsonl").read_bytes()


def test_bad_arguments_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown smell"):
        build(FIXTURES / "calc.toml", tmp_path, smells=["long_method"], backend=fakes.backend())
    with pytest.raises(UsageError, match="unknown difficulty"):
        build(FIXTURES / "calc.toml", tmp_path, difficulties=["trivial"],
              backend=fakes.backend())


def test_a_crashing_injector_is_an_internal_error_and_the_rest_still_builds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """feature_envy/medium goes through the real engine, whose injector raises KeyError: each
    candidate is rejected as an internal error (with the traceback), never as a skip, and the
    easy cell still builds its case. A re-run reads the failures back from the work log."""
    import dataclasses

    from smellkit.bench.backend import default_backend
    from smellkit.injectors.feature_envy import FeatureEnvyInjector

    def crash(*args: object) -> object:
        raise KeyError("calc.ops.missing")

    monkeypatch.setattr(FeatureEnvyInjector, "inject", crash)
    fake, real = fakes.backend(), default_backend()

    def inject(*args: Any) -> Any:
        return (real if args[2] == "medium" else fake).inject(*args)

    backend = dataclasses.replace(fake, inject=inject)
    options = {"smells": ["feature_envy"], "difficulties": ["easy", "medium"], "per_cell": 1,
               "spare": 0, "jobs": 1, "cache_dir": bench_cache(), "backend": backend,
               "harbor": False}
    report = build(FIXTURES / "calc.toml", tmp_path, **options)  # type: ignore[arg-type]
    assert report.cases == 1 and report.by_cell == {"feature_envy": {"easy": 1}}
    internal = [row for row in _rejections(tmp_path).values() if row["stage"] == "internal"]
    # easy took `add`: medium tries the others first, then `add` (no fresh target filled it)
    assert {row["candidate"] for row in internal} == {"calc.ops.mul", "calc.ops.countdown",
                                                      "calc.ops.add"}
    assert len(internal) == 3 == report.internal_errors == report.rejections_by_stage["internal"]
    assert "inject" not in report.rejections_by_stage  # not one skip
    for row in internal:
        assert row["reason"] == "internal error: KeyError: 'calc.ops.missing'"
        assert row["difficulty"] == "medium" and "raise KeyError" in str(row["traceback"])
    kinds = [row["kind"] for row in read_jsonl(tmp_path / "work" / "outcomes.jsonl")
             if str(row["key"]).startswith("inject|")]
    assert kinds.count("failure") == 3
    again = build(FIXTURES / "calc.toml", tmp_path, **options)  # type: ignore[arg-type]
    assert again.internal_errors == 3 and again.cases == 1


def _spec_copy(folder: Path, extra: str) -> Path:
    """calc.toml with more lines, its source path made absolute so it can live in `folder`."""
    text = (FIXTURES / "calc.toml").read_text().replace(
        'path = "calcrepo"', f"path = {json.dumps(str(FIXTURES / 'calcrepo'))}")
    head, sep, tail = text.partition("[timeouts]")
    path = folder / "calc.toml"
    path.write_text(head + extra + "\n" + sep + tail)
    return path


def test_injector_options_layer_spec_then_command_line(tmp_path: Path) -> None:
    """The spec's min-file-lines, its [injectors.<smell>] tables, then min-file-lines for every
    smell, then the caller's per-smell options; the spec's exclusion reaches discovery unless
    overridden."""
    import dataclasses

    spec = _spec_copy(tmp_path, 'exclude-from-injection = ["scripts"]\nmin-file-lines = 3\n\n'
                                "[injectors.feature_envy]\nmin-file-lines = 7\n")
    fake = fakes.backend()
    seen: dict[str, tuple[Any, Any]] = {}
    asked: list[str] = []

    def findings(project: Any, smell: str) -> Any:
        asked.append(smell)
        return fake.findings(project, smell)

    def find(project: Any, smell: str, covered: Any, line_coverage: Any, seed: int,
             options: Any, exclude: Any) -> Any:
        seen[smell] = (options, exclude)
        return fake.find_candidates(project, smell, covered, line_coverage, seed, options,
                                    exclude)

    options: dict[str, Any] = {"smells": ["feature_envy", "dead_code"], "per_cell": 1,
                               "spare": 0, "difficulties": ["easy"], "jobs": 1,
                               "cache_dir": bench_cache(), "harbor": False,
                               "backend": dataclasses.replace(fake, find_candidates=find,
                                                              findings=findings)}
    report = build(spec, tmp_path / "a", **options)
    assert report.cases >= 2 and sorted(asked) == ["dead_code", "feature_envy"]  # once each
    assert seen == {"feature_envy": ({"min-file-lines": 7}, ("scripts",)),
                    "dead_code": ({"min-file-lines": 3}, ("scripts",))}  # no table: the spec's
    build(spec, tmp_path / "b", min_file_lines=0, options={"dead_code": {"min_file_lines": 4}},
          exclude_from_injection=(), **options)
    assert seen == {"feature_envy": ({"min-file-lines": 0}, ()),
                    "dead_code": ({"min-file-lines": 4}, ())}
    with pytest.raises(ConfigError, match=r"injectors\.dead_code\.min-lines: Extra inputs"):
        build(spec, tmp_path / "c", options={"dead_code": {"min-lines": 4}}, **options)


def test_the_test_maps_coverage_reaches_discovery_and_injection(tmp_path: Path) -> None:
    """The covered qualnames (with their owners) and the share of each definition's lines the
    suite runs go from the test map to candidate discovery and to every injection."""
    import dataclasses

    fake = fakes.backend()
    seen: list[tuple[str, Any, Any]] = []

    def find(project: Any, smell: str, covered: Any, line_coverage: Any, *rest: Any) -> Any:
        seen.append(("find", covered, line_coverage))
        return fake.find_candidates(project, smell, covered, line_coverage, *rest)

    def inject(project: Any, smell: str, difficulty: Any, candidate: Any, covered: Any,
               line_coverage: Any, *rest: Any) -> Any:
        seen.append(("inject", covered, line_coverage))
        return fake.inject(project, smell, difficulty, candidate, covered, line_coverage, *rest)

    build(FIXTURES / "calc.toml", tmp_path, smells=["feature_envy"], difficulties=["easy"],
          per_cell=1, spare=0, jobs=1, cache_dir=bench_cache(), harbor=False,
          backend=dataclasses.replace(fake, find_candidates=find, inject=inject))
    assert [step for step, _, _ in seen][:2] == ["find", "inject"]
    lines = {"calc.ops.add": 1.0, "calc.ops.countdown": 1.0, "calc.ops.mul": 1.0}
    for _, covered, line_coverage in seen:
        assert {"calc.ops.add", "calc.ops", "calc"} <= covered
        assert line_coverage == lines


def test_a_bad_injector_table_names_the_spec_file_and_field(tmp_path: Path) -> None:
    from smellkit.injectors.registry import injectors

    spec = _spec_copy(tmp_path, "[injectors.god_clas]\nmin-file-lines = 7\n")
    report = build(spec, tmp_path / "out", smells=["dead_code"], per_cell=1, spare=0,
                   cache_dir=bench_cache(), harbor=False, backend=fakes.backend())
    assert report.repos == () and report.cases == 0
    assert report.repo_errors["calc"] == (
        f"broken spec: {spec}: injectors.god_clas: no injector for smell 'god_clas' (known: "
        + ", ".join(injectors()) + ")")


def test_a_target_held_by_one_difficulty_comes_after_every_fresh_one() -> None:
    """The order in which a cell meets its candidates: fresh targets first; then targets released
    since (their case was rejected), then the ones another difficulty still holds (the cell
    could not be filled without them)."""
    from smellkit.bench.pipeline import _fresh_first, _Taken

    pool = [fakes.candidate("dead_code", name) for name in ("add", "mul", "countdown")]
    taken = _Taken()
    taken.held["calc.ops.add"] += 1
    order = _fresh_first(pool, taken)
    assert next(order).target.qualname == "calc.ops.mul"
    taken.held["calc.ops.mul"] += 1  # this cell's own injection at mul
    assert next(order).target.qualname == "calc.ops.countdown"
    assert next(order).target.qualname == "calc.ops.add"  # held: only after every fresh one
    assert next(order, None) is None
    taken.release("calc.ops.add")
    assert [item.target.qualname for item in _fresh_first(pool, taken)] == [
        "calc.ops.add", "calc.ops.countdown", "calc.ops.mul"]


def test_the_exclusion_a_build_uses() -> None:
    """The caller's, else the spec's, else none when `source-path` is the library's folder, else
    the engine's default for the layout (None)."""
    from smellkit.bench.pipeline import _exclusion

    spec = load_repo_spec(FIXTURES / "calc.toml")  # source-path = "src"
    assert _exclusion(spec, None) == ()
    assert _exclusion(spec, ["docs"]) == ["docs"]
    flat = spec.model_copy(update={"source_path": ""})
    assert _exclusion(flat, None) is None
    chosen = flat.model_copy(update={"exclude_from_injection": ("scripts",)})
    assert _exclusion(chosen, None) == ("scripts",) and _exclusion(chosen, ()) == ()


def test_a_resumed_build_injects_again_when_the_injector_options_change(tmp_path: Path) -> None:
    """The work log keys an injection by its candidate, the injector options and smellkit's
    source: a rerun with the same options reuses it, one with other options makes it again."""
    import dataclasses

    fake = fakes.backend()
    made: list[Any] = []

    def inject(*args: Any) -> Any:
        made.append(args[3].target.qualname)
        return fake.inject(*args)

    options: dict[str, Any] = {"smells": ["feature_envy"], "per_cell": 1, "spare": 0,
                               "difficulties": ["easy"], "jobs": 1, "cache_dir": bench_cache(),
                               "harbor": False,
                               "backend": dataclasses.replace(fake, inject=inject)}
    build(FIXTURES / "calc.toml", tmp_path, **options)
    first = len(made)
    assert first >= 1
    build(FIXTURES / "calc.toml", tmp_path, **options)
    assert len(made) == first  # reused from the work log
    build(FIXTURES / "calc.toml", tmp_path, min_file_lines=0, **options)
    assert len(made) == 2 * first  # other options: injected again
