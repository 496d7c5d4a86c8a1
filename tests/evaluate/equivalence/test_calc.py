"""`smellkit evaluate --equivalence` end to end on the calc dataset (real environment, recording
run and workers, the real signals): the oracle is equivalent; predictions the selected tests pass
but that print or take another branch on drawn inputs are not equivalent, with their
counterexample; and the option's edges (no tests, a folder scored without it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from smellkit._internal.jsonl import read_jsonl
from smellkit.cli import main
from smellkit.errors import UsageError
from smellkit.evaluate.equivalence import EquivalenceOptions
from smellkit.evaluate.score import Score
from smellkit.evaluate.scorer import evaluate
from tests.evaluate.conftest import edit, smelly_source

ADD = "calc__feature_envy-easy-add"
OPTIONS = EquivalenceOptions(case_budget=120)


def _dataset(folder: Path) -> dict[str, dict[str, Any]]:
    return {row["instance_id"]: row for row in read_jsonl(folder / "dataset.jsonl")}


def _rows(out: Path) -> dict[tuple[str, str], Score]:
    return {(row["instance_id"], row["model"]): Score.model_validate(row)
            for row in read_jsonl(out / "scores.jsonl")}


def _line(instance_id: str, patch: str, model: str) -> str:
    return json.dumps({"instance_id": instance_id, "model_name_or_path": model,
                       "model_patch": patch}) + "\n"


def test_oracle_is_equivalent_and_behaviour_changes_the_tests_miss_are_not(
        calc_dataset: Path, tmp_path: Path) -> None:
    smelly = smelly_source(_dataset(calc_dataset)[ADD], tmp_path)
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        _line(ADD, edit(smelly, "    return a + b", "    print('adding')\n    return a + b"),
              "prints")
        + _line(ADD, edit(smelly, "    return a + b", "    return b + a"), "commutes")
        + _line(ADD, edit(smelly, "def add(a: int, b: int) -> int:",
                          "def add(a: int, b: int) -> int:\n    if a == 7:\n"
                          "        return 0\n"), "shortcut")
        + _line(ADD, edit(smelly, "def add(a: int, b: int) -> int:",
                          "def add(a: int, b: int) -> int:\n    if a < 0:\n"
                          "        return 0\n"), "negative"))
    report = evaluate(calc_dataset, [preds], tmp_path / "out", baselines=("oracle",),
                      equivalence=OPTIONS)
    assert report.exit_code == 0
    rows = _rows(tmp_path / "out")
    for instance_id in _dataset(calc_dataset):
        oracle = rows[instance_id, "oracle"]
        assert oracle.equivalence == "equivalent", oracle.equivalence_detail
        assert oracle.equivalent is True and oracle.resolved
    prints = rows[ADD, "prints"]
    assert prints.tpr == 1.0  # the selected tests do not see it
    assert prints.equivalence == "not_equivalent", json.dumps(prints.equivalence_detail)
    assert prints.error_category == "not_equivalent" and not prints.resolved
    detail = prints.equivalence_detail
    assert detail is not None
    example = detail["counterexample"]
    assert example["entry_point"] == "calc.ops.add"
    assert example["difference"] == "the printed output differs"
    assert example["input"] == "[[2, 3], {}]"
    assert example["result"]["printed"] == "adding\n" and "printed" not in example["smelly"]
    assert rows[ADD, "commutes"].equivalence == "equivalent"
    # the tests call add(2, 3) only: a branch for negative numbers is reached by the inputs
    # drawn from the annotations (edge values first), one for a == 7 by none of them
    negative = rows[ADD, "negative"]
    assert negative.equivalence == "not_equivalent" and negative.tpr == 1.0
    assert negative.equivalence_detail is not None
    assert negative.equivalence_detail["counterexample"]["source"] in ("generated", "mutated")
    shortcut = rows[ADD, "shortcut"]
    assert shortcut.equivalence == "equivalent"
    assert shortcut.equivalence_detail is not None
    drawn = shortcut.equivalence_detail["inputs_by_source"]
    assert drawn["recorded"] == 1 and drawn["generated"] > 0 and drawn["mutated"] > 0


def test_equivalence_needs_the_tests_environment(calc_dataset: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--no-tests"):
        evaluate(calc_dataset, (), tmp_path / "out", baselines=("noop",), tests=False,
                 equivalence=OPTIONS)


def test_a_folder_scored_without_equivalence_is_not_reused_with_it(
        calc_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    evaluate(calc_dataset, (), out, baselines=("noop",))
    with pytest.raises(UsageError, match="without --equivalence"):
        evaluate(calc_dataset, (), out, baselines=("noop",), equivalence=OPTIONS)


def test_the_cli_option(calc_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["evaluate", str(calc_dataset), "--baseline", "noop",
                                       "-o", str(out), "--equivalence",
                                       "--equivalence-budget", "60", "--no-progress"])
    assert result.exit_code == 0, result.output
    rows = _rows(out)
    assert len(rows) == 4
    for row in rows.values():  # an empty patch changes no function
        assert row.equivalence == "inconclusive"
        assert row.equivalence_detail is not None
        assert row.equivalence_detail["reason"] == "the patch changes no function"
    refused = CliRunner().invoke(main, ["evaluate", str(calc_dataset), "--baseline", "noop",
                                        "-o", str(tmp_path / "other"),
                                        "--equivalence-budget", "60"])
    assert refused.exit_code != 0 and "needs --equivalence" in refused.output


def test_a_patch_that_does_not_apply_gets_a_verdict_and_the_folder_resumes(
        calc_dataset: Path, tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    preds.write_text(_line(ADD, "diff --git a/src/calc/ops.py b/src/calc/ops.py\n"
                                "--- a/src/calc/ops.py\n+++ b/src/calc/ops.py\n"
                                "@@ -1,1 +1,1 @@\n-no such line\n+x\n", "broken"))
    out = tmp_path / "out"
    evaluate(calc_dataset, [preds], out, equivalence=OPTIONS)
    (row,) = _rows(out).values()
    assert row.apply_status == "apply_failed" and row.equivalence == "inconclusive"
    assert row.equivalence_detail is not None
    assert row.equivalence_detail["reason"] == "the patch was not run (apply_failed)"
    again = evaluate(calc_dataset, [preds], out, equivalence=OPTIONS)  # resumes, no refusal
    assert again.reused == 1 and again.scored == 0


def test_what_no_prediction_changes_is_computed_once_per_case(
        calc_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second run with the same cache folder records no input, draws none and runs the smelly
    version only to confirm a difference (in the prediction's own call order): its verdicts
    are the first run's."""
    import smellkit.evaluate.equivalence as equivalence

    smelly = smelly_source(_dataset(calc_dataset)[ADD], tmp_path)
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        _line(ADD, edit(smelly, "    return a + b", "    print('adding')\n    return a + b"),
              "prints")
        + _line(ADD, edit(smelly, "    return a + b", "    return b + a"), "commutes"))
    options = EquivalenceOptions(case_budget=120, cache=tmp_path / "cache")
    evaluate(calc_dataset, [preds], tmp_path / "first", baselines=("oracle",), jobs=1,
             equivalence=options)
    first = _rows(tmp_path / "first")
    assert len(list((tmp_path / "cache").iterdir())) == 4  # one folder per case
    made: list[str] = []
    for name in ("record", "generate"):
        monkeypatch.setattr(equivalence, name, lambda *args, name=name, **kwargs:
                            made.append(name))
    smelly_runs: list[int] = []
    run_calls = equivalence.run_calls

    def counted(calls: Any, side: str, *args: Any, **kwargs: Any) -> Any:
        if side == "smelly":
            smelly_runs.append(len(calls))
        return run_calls(calls, side, *args, **kwargs)

    monkeypatch.setattr(equivalence, "run_calls", counted)
    evaluate(calc_dataset, [preds], tmp_path / "second", baselines=("oracle",), jobs=1,
             equivalence=options)
    second = _rows(tmp_path / "second")
    assert not made
    assert {key: row.equivalence for key, row in second.items()} == \
        {key: row.equivalence for key, row in first.items()}
    assert second[ADD, "prints"].equivalence == "not_equivalent"
    assert second[ADD, "commutes"].equivalence == "equivalent"
    assert len(smelly_runs) == 2  # the confirmation of `prints`, twice
    detail = second[ADD, "prints"].equivalence_detail
    assert detail is not None and detail["counterexample"]["input"] == "[[2, 3], {}]"


@pytest.mark.parametrize("cached", [False, True])
def test_a_machine_that_changes_between_runs_is_not_a_difference(
        calc_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        cached: bool) -> None:
    """Something outside the code changes between the runs (a file a test left behind, removed
    by another process): every run from then on returns another value. The smelly version run
    on both sides of the result's run shows it, and no difference is reported. Without a cache
    the change comes at the result's run; with one (smelly outcomes from an earlier evaluation)
    it comes at the result's run and again just after it."""
    import smellkit.evaluate.equivalence as equivalence

    smelly = smelly_source(_dataset(calc_dataset)[ADD], tmp_path)
    preds = tmp_path / "preds.jsonl"
    preds.write_text(_line(ADD, edit(smelly, "    return a + b", "    return b + a"),
                           "commutes"))
    options = EquivalenceOptions(case_budget=120, cache=tmp_path / "cache" if cached else None)
    if cached:
        evaluate(calc_dataset, [preds], tmp_path / "first", jobs=1, equivalence=options)
    run_calls = equivalence.run_calls
    sides: list[str] = []

    def drifting(calls: Any, side: str, *args: Any, **kwargs: Any) -> Any:
        sides.append(side)
        outcomes = run_calls(calls, side, *args, **kwargs)
        state = 0 if "result" not in sides else \
            1 if not cached or sides.index("result") == len(sides) - 1 else 2
        return [{**outcome, "value": ["state", state]} if state and
                outcome.get("status") == "returned" else outcome for outcome in outcomes]

    monkeypatch.setattr(equivalence, "run_calls", drifting)
    evaluate(calc_dataset, [preds], tmp_path / "out", jobs=1, equivalence=options)
    row = _rows(tmp_path / "out")[ADD, "commutes"]
    assert row.equivalence != "not_equivalent", row.equivalence_detail
    assert "smelly" in sides[sides.index("result") + 1:]  # the bracket was run
