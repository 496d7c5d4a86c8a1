"""`smellkit evaluate` end to end on the calc dataset: real environment and test runs, the
stand-in signals (see conftest). Baselines, bad patches, tampering, hangs, bad input lines,
resuming after a kill, missing specs, final repositories and crashes inside a signal."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from smellkit._internal.jsonl import read_jsonl
from smellkit.cli import main
from smellkit.evaluate.score import Score
from smellkit.evaluate.scorer import evaluate
from tests.bench.conftest import bench_cache
from tests.evaluate.conftest import StandInSignals, edit, smelly_source

COUNTDOWN = "calc__feature_envy-easy-countdown"
ADD = "calc__feature_envy-easy-add"
MUL = "calc__feature_envy-medium-mul"
DEAD = "calc__dead_code-easy-add"


def _rows(out: Path) -> dict[tuple[str, str], Score]:
    return {(row["instance_id"], row["model"]): Score.model_validate(row)
            for row in read_jsonl(out / "scores.jsonl")}


def _dataset(folder: Path) -> dict[str, dict[str, Any]]:
    return {row["instance_id"]: row for row in read_jsonl(folder / "dataset.jsonl")}


def _line(instance_id: str, patch: str, model: str = "m") -> str:
    return json.dumps({"instance_id": instance_id, "model_name_or_path": model,
                       "model_patch": patch}) + "\n"


def test_oracle_is_resolved_and_noop_is_not(calc_dataset: Path, tmp_path: Path,
                                            signals: StandInSignals) -> None:
    envs = sorted(path.name for path in (bench_cache() / "envs").iterdir())
    report = evaluate(calc_dataset, (), tmp_path / "out", baselines=("oracle", "noop"),
                      signals=signals)
    rows = _rows(tmp_path / "out")
    assert report.exit_code == 0 and report.scored == 8 and len(rows) == 8
    for instance_id in _dataset(calc_dataset):
        oracle, noop = rows[instance_id, "oracle"], rows[instance_id, "noop"]
        assert oracle.applied and oracle.apply_status == "applied"
        assert oracle.tests_total == 1 and oracle.tpr == 1.0 and not oracle.errors
        assert oracle.resolved and oracle.error_category == "resolved"
        assert noop.apply_status == "empty" and noop.tpr == 1.0
        assert not noop.resolved and noop.error_category == "no_patch"
    assert sorted(signals.prepared) == sorted(_dataset(calc_dataset))  # once per case
    assert len(signals.measured) == 8
    assert sorted(path.name for path in (bench_cache() / "envs").iterdir()) == envs
    assert not (tmp_path / "out" / "work").exists()
    assert json.loads((tmp_path / "out" / "run.json").read_text())["scored"] == 8


def test_bad_predictions_and_bad_lines_leave_the_others_scored(
        calc_dataset: Path, tmp_path: Path, signals: StandInSignals) -> None:
    cases = _dataset(calc_dataset)
    smelly = smelly_source(cases[ADD], tmp_path)
    marker = tmp_path / "conftest-ran"
    tamper = ("diff --git a/tests/conftest.py b/tests/conftest.py\nnew file mode 100644\n"
              "--- /dev/null\n+++ b/tests/conftest.py\n@@ -0,0 +1 @@\n"
              f"+open({str(marker)!r}, 'w').close()\n")
    stale = edit(smelly.replace("return a + b", "return b + a"), "return b + a", "return a")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        _line(ADD, edit(smelly, "return a + b", "return b + a"))  # fine
        + _line(MUL, stale)  # made against other code: does not apply
        + _line(COUNTDOWN, tamper)
        + _line(DEAD, "--- a/../outside.py\n+++ b/../outside.py\n@@ -1 +1 @@\n-a\n+b\n")
        + "{not json\n"
        + _line("calc__no-such-case", "")
        + _line(ADD, "", model="m"))  # a duplicate of the first line
    result = CliRunner().invoke(main, ["evaluate", str(calc_dataset), str(preds), "-o",
                                       str(tmp_path / "out"), "--no-progress"])
    assert result.exit_code == 0, result.output
    rows = _rows(tmp_path / "out")
    assert set(rows) == {(ADD, "m"), (MUL, "m"), (COUNTDOWN, "m"), (DEAD, "m")}
    assert rows[ADD, "m"].tpr == 1.0 and rows[ADD, "m"].applied
    failed = rows[MUL, "m"]
    assert failed.error_category == "apply_failed" and "does not apply" in failed.apply_reason
    tampered = rows[COUNTDOWN, "m"]
    assert tampered.error_category == "tampered" and "tests/conftest.py" in tampered.apply_reason
    assert tampered.tests_total is None and not marker.exists()  # never run
    refused = rows[DEAD, "m"]
    assert refused.apply_status == "refused" and refused.error_category == "apply_failed"
    assert "'../outside.py' climbs out" in refused.apply_reason and refused.tests_total is None
    errors = read_jsonl(tmp_path / "out" / "input_errors.jsonl")
    messages = " | ".join(row["message"] for row in errors)
    assert len(errors) == 3 and {row["line"] for row in errors} == {5, 6, 7}
    assert "not valid JSON" in messages or "JSON" in messages
    assert "unknown instance id 'calc__no-such-case'" in messages
    assert "duplicate prediction" in messages
    for name in ("summary.json", "summary.csv", "summary.md", "report.html"):
        assert (tmp_path / "out" / name).is_file(), name  # the reports follow the scores
    assert "3 inputs not scored" in result.output and "calc__no-such-case" in result.output


def _new_file(path: str, text: str) -> str:
    lines = text.splitlines()
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{line}\n" for line in lines))


def test_forced_passes_plugins_binaries_and_hidden_tests_are_refused_per_record(
        calc_dataset: Path, tmp_path: Path, signals: StandInSignals) -> None:
    """A root conftest.py that makes every test pass (with a change that breaks one), a .pth
    plugin, a binary patch and an edit of a hidden test: each gets its own verdict and is never
    run, and the good record beside them is scored."""
    cases = _dataset(calc_dataset)
    smelly = smelly_source(cases[ADD], tmp_path)
    marker = tmp_path / "plugin-ran"
    forcer = _new_file("conftest.py", f"""import pytest

open({str(marker)!r}, "w").close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
""") + edit(smelly, "return a + b", "return a - b")
    plugin = _new_file("src/calc/speedups.pth", f"import os; open({str(marker)!r}, 'w')")
    binary = ("diff --git a/src/calc/logo.png b/src/calc/logo.png\nnew file mode 100644\n"
              "index 0000000..d00491f\nGIT binary patch\nliteral 3\nKcmZ?wWd{HN00031\n\n"
              "literal 0\nHcmV?d00001\n\n")
    hidden = ("diff --git a/tests/test_ops.py b/tests/test_ops.py\n--- a/tests/test_ops.py\n"
              "+++ b/tests/test_ops.py\n@@ -4,2 +4,2 @@\n def test_add() -> None:\n"
              "-    assert add(2, 3) == 5\n+    assert True\n")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(_line(ADD, forcer, model="forcer") + _line(MUL, plugin, model="plugin")
                     + _line(COUNTDOWN, binary, model="binary")
                     + _line(ADD, hidden, model="hidden")
                     + _line(ADD, edit(smelly, "return a + b", "return b + a"), model="fine"))
    report = evaluate(calc_dataset, [preds], tmp_path / "out", signals=signals)
    rows = _rows(tmp_path / "out")
    assert report.scored == 5 and report.exit_code == 0 and report.input_errors == 0
    forced = rows[ADD, "forcer"]
    assert forced.error_category == "tampered" and not forced.resolved
    assert "conftest.py" in forced.apply_reason and forced.tests_total is None
    pth = rows[MUL, "plugin"]
    assert pth.error_category == "tampered" and "speedups.pth" in pth.apply_reason
    assert not marker.exists(), "neither plugin was ever imported"
    refused = rows[COUNTDOWN, "binary"]
    assert refused.apply_status == "refused" and refused.error_category == "apply_failed"
    assert "binary patch" in refused.apply_reason and refused.tests_total is None
    edited = rows[ADD, "hidden"]
    assert edited.error_category == "tampered" and edited.tests_total is None
    assert "tests/test_ops.py" in edited.apply_reason
    fine = rows[ADD, "fine"]
    assert fine.applied and fine.tpr == 1.0 and fine.error_category == "resolved"
    assert sorted(signals.measured) == [(ADD, "fine")], "only the good record was measured"


def test_a_hanging_test_is_cut_off_and_the_run_ends(calc_dataset: Path, tmp_path: Path,
                                                    signals: StandInSignals) -> None:
    smelly = smelly_source(_dataset(calc_dataset)[COUNTDOWN], tmp_path)
    preds = tmp_path / "preds.jsonl"
    preds.write_text(_line(COUNTDOWN, edit(smelly, "        n -= 1\n", "        pass\n"))
                     + _line(MUL, ""))
    report = evaluate(calc_dataset, [preds], tmp_path / "out", signals=signals)
    rows = _rows(tmp_path / "out")
    hung = rows[COUNTDOWN, "m"]
    assert report.scored == 2 and report.exit_code == 0
    assert hung.error_category == "broke_tests" and hung.tests_timed_out
    assert hung.tests_passed == 0 and hung.tests_total == 1 and hung.tpr == 0.0
    assert any("cut off after 3s" in error for error in hung.errors)
    assert hung.test_seconds < 60  # the per-test limit, not the run's
    assert rows[MUL, "m"].error_category == "no_patch"


def test_a_rerun_scores_only_what_is_missing(calc_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = evaluate(calc_dataset, (), out, baselines=("noop",), signals=StandInSignals())
    assert first.scored == 4
    lines = (out / "scores.jsonl").read_text().splitlines(keepends=True)
    dropped = json.loads(lines[1])["instance_id"]
    # a kill: one row never written, the next cut off halfway
    (out / "scores.jsonl").write_text(lines[0] + "".join(lines[2:]) + lines[1][:40])
    again = StandInSignals()
    second = evaluate(calc_dataset, (), out, baselines=("noop",), signals=again)
    assert second.scored == 1 and second.reused == 3
    assert again.prepared == [dropped]  # the other cases are not even prepared
    rows = read_jsonl(out / "scores.jsonl")
    assert len(rows) == 4 and {row["instance_id"] for row in rows} == set(_dataset(calc_dataset))
    assert (out / "scores.jsonl").read_text().endswith("\n")


def test_a_dataset_without_its_spec_says_what_to_pass(calc_dataset: Path, tmp_path: Path,
                                                      signals: StandInSignals) -> None:
    alone = tmp_path / "dataset.jsonl"
    shutil.copyfile(calc_dataset / "dataset.jsonl", alone)
    result = CliRunner().invoke(main, ["evaluate", str(alone), "--baseline", "noop", "-o",
                                       str(tmp_path / "out"), "--no-progress"])
    assert result.exit_code == 4, result.output
    assert "no repo spec for repository 'calc'" in result.output
    assert "--spec" in result.output
    assert not read_jsonl(tmp_path / "out" / "scores.jsonl")
    spec = Path(__file__).parents[1] / "bench" / "fixtures" / "calc.toml"
    report = evaluate(alone, (), tmp_path / "out", baselines=("noop",), specs=[spec],
                      cache_dir=bench_cache(), signals=signals)
    assert report.exit_code == 0 and report.scored == 4


def test_a_spec_of_other_code_is_refused_per_case(calc_dataset: Path, tmp_path: Path,
                                                  signals: StandInSignals) -> None:
    dataset = tmp_path / "build"
    shutil.copytree(calc_dataset, dataset, ignore=shutil.ignore_patterns("work"))
    rows = read_jsonl(dataset / "dataset.jsonl")
    rows[0]["revision"] = rows[0]["commit_hash"] = "pypi:calc==9.9"
    (dataset / "dataset.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    report = evaluate(dataset, (), tmp_path / "out", baselines=("noop",), signals=signals)
    assert report.scored == 3 and report.not_scored == 1 and report.exit_code == 1
    (problem,) = report.problems.values()
    assert "built from pypi:calc==9.9" in problem and "gives local" in problem


def test_final_repositories_and_a_crashing_signal(calc_dataset: Path, tmp_path: Path) -> None:
    from smellkit.injectors.patches import apply_patch

    cases = _dataset(calc_dataset)
    repos = tmp_path / "agent"
    for instance_id in (ADD, MUL):  # what an agent left: the smelly code, then its change
        final = repos / instance_id
        shutil.copytree(Path(__file__).parents[1] / "bench" / "fixtures" / "calcrepo", final,
                        ignore=shutil.ignore_patterns("tests", "__pycache__", "*.egg-info"))
        apply_patch(final / "src", cases[instance_id]["smelly_patch"])
    ops = repos / MUL / "src" / "calc" / "ops.py"
    ops.write_text(ops.read_text().replace("return a * b", "return b * a  # crash"))
    crashing = StandInSignals(crash_on="# crash")
    report = evaluate(calc_dataset, (), tmp_path / "out", repos=repos, signals=crashing)
    rows = _rows(tmp_path / "out")
    assert report.scored == 2 and report.models == ("agent",)
    assert rows[ADD, "agent"].apply_status == "empty"  # no change: the tests folder is ignored
    crashed = rows[MUL, "agent"]
    assert crashed.applied and crashed.tpr == 1.0 and crashed.la is None
    assert any("RuntimeError: the stand-in signals crashed" in error for error in crashed.errors)
    assert crashed.error_category == "wrong_location" and not crashed.resolved


def test_without_tests_and_with_the_whole_suite(calc_dataset: Path, tmp_path: Path,
                                                signals: StandInSignals) -> None:
    quick = evaluate(calc_dataset, (), tmp_path / "quick", baselines=("oracle",), tests=False,
                     signals=signals)
    rows = _rows(tmp_path / "quick")
    assert quick.scored == 4 and all(row.tests_total is None for row in rows.values())
    assert all(row.resolved for row in rows.values())
    evaluate(calc_dataset, (), tmp_path / "full", baselines=("oracle",), full_suite=True,
             signals=signals)
    for row in _rows(tmp_path / "full").values():
        assert (row.full_suite_passed, row.full_suite_total) == (3, 3)


def test_nothing_to_score_is_a_usage_error(calc_dataset: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["evaluate", str(calc_dataset), "-o", str(tmp_path)])
    assert result.exit_code == 2 and "nothing to score" in result.output


@pytest.mark.parametrize("jobs", [1, 3])
def test_the_rows_do_not_depend_on_the_number_of_jobs(calc_dataset: Path, tmp_path: Path,
                                                      jobs: int) -> None:
    evaluate(calc_dataset, (), tmp_path / "out", baselines=("oracle", "noop"), jobs=jobs,
             signals=StandInSignals())
    rows = _rows(tmp_path / "out")
    assert {key: (row.error_category, row.tpr) for key, row in rows.items()} == {
        (instance_id, model): ("resolved" if model == "oracle" else "no_patch", 1.0)
        for instance_id in _dataset(calc_dataset) for model in ("oracle", "noop")}


@pytest.mark.docker
def test_the_docker_runner_scores_without_network(calc_dataset: Path, tmp_path: Path) -> None:
    from smellkit.sandbox.docker import docker_available

    problem = docker_available()
    if problem is not None:
        pytest.skip(f"Docker is not usable here: {problem}")
    report = evaluate(calc_dataset, (), tmp_path / "out", baselines=("oracle",),
                      runner="docker", signals=StandInSignals())
    rows = _rows(tmp_path / "out")
    assert report.scored == 4 and all(row.resolved and row.tpr == 1.0 for row in rows.values())
