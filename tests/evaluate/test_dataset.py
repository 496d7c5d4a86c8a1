"""Reading datasets (smellkit rows and SmellBench records) and matching predictions to cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smellkit.evaluate.errors import InputFormatError
from smellkit.evaluate.inputs.dataset import EvalCase, match, read_dataset
from smellkit.evaluate.inputs.predictions import Origin, Prediction, baseline_predictions
from smellkit.formats.smellbench import to_row
from smellkit.models import Candidate, Case, Location, Target

GT = "diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n" \
     "@@ -1 +1 @@\n-x = 2\n+x = 1\n"


def _case(name: str = "mul") -> Case:
    where = Location(path="calc/ops.py", qualname=f"calc.ops.{name}", kind="function",
                     start_line=1, end_line=2)
    return Case(id=f"dead_code-easy-{name}", smell="dead_code", difficulty="easy", seed=1,
                candidate=Candidate(smell="dead_code", target=where, reason="covered"),
                smelly_patch="", ground_truth_patch=GT, targets=(Target(location=where,
                                                                       level="method"),),
                files=("calc/ops.py",), checks=(), instructions={"guided": "Fix calc/ops.py"},
                repo="calc", revision="pypi:calc==1.0", source_path="src",
                tests=("tests/test_ops.py::test_mul",))


IID = "click-feature_envy-1a2b"
V2: dict[str, object] = {"instance_id": IID, "type": "feature_envy", "difficulty": "medium",
      "project_name": "click", "commit_hash": "abc123", "smell_content": "diff a",
      "gt_content": "diff b", "hint_guided": "look at core.py", "hint_targeted": "Command.main",
      "smell_function": ["src/click/core.py", "Command", "main"],
      "testsuites": ["tests/test_basic.py::test_x"],
      "settings": {"src_path": "src/click", "test_cmd": "-q", "env_name": "click"},
      "usage": {"cost": 1.5}, "custom_rubrics": []}


def _write(path: Path, *rows: object) -> Path:
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n"
                            for row in rows))
    return path


def test_smellkit_rows_keep_the_case(tmp_path: Path) -> None:
    case = _case()
    _write(tmp_path / "dataset.jsonl", to_row(case))
    read = read_dataset(tmp_path)  # a build's output folder
    assert read.errors == () and read.format == "jsonl"
    (item,) = read.cases
    assert item.case == case.model_copy(update={"timings": {}})
    assert item.instance_id == "calc__dead_code-easy-mul" and item.format == "smellkit"
    assert item.source_path == "src" and item.tests_path == "tests"
    assert item.targets == ("calc.ops.mul",) and item.instructions["guided"]
    assert item.protected_paths() == ("tests", "tests/test_ops.py")
    (oracle,) = baseline_predictions(read.cases, "oracle")
    assert "--- a/src/calc/ops.py" in oracle.patch


def test_smellbench_v2_record_maps_to_an_eval_case(tmp_path: Path) -> None:
    path = tmp_path / "code_smells.json"
    path.write_text(json.dumps([V2, {**V2, "instance_id": "v1-long", "type": "Long",
                                     "difficulty": None, "gt_content": None,
                                     "smell_function": "Parser.parse", "settings": ["guided"],
                                     "testsuites": "tests/test_p.py"}]))
    read = read_dataset(path)
    assert read.errors == () and read.format == "json-list"
    v2, v1 = read.cases
    assert (v2.smell, v2.repo, v2.revision, v2.difficulty) == (
        "feature_envy", "click", "abc123", "medium")
    assert (v2.smelly_patch, v2.ground_truth_patch) == ("diff a", "diff b")
    assert v2.targets == ("src/click/core.py::Command.main",)
    assert v2.test_cmd == "-q" and v2.tests == ("tests/test_basic.py::test_x",)
    assert v2.instructions == {"guided": "look at core.py", "targeted": "Command.main"}
    assert v2.extra["settings"]["src_path"] == "src/click" and "usage" in v2.extra
    assert v2.case is None and v2.protected_paths() == ("tests/test_basic.py",)
    assert (v1.smell, v1.difficulty, v1.ground_truth_patch) == ("long_method", "", "")
    assert v1.targets == ("Parser.parse",) and v1.tests == ("tests/test_p.py",)
    assert [p.instance_id for p in baseline_predictions(read.cases, "oracle")] == [
        IID]


def test_malformed_rows_are_errors_and_the_rest_is_read(tmp_path: Path) -> None:
    broken_case = {**to_row(_case("add")), "difficulty": "extreme"}
    path = _write(tmp_path / "d.jsonl", V2, "{not json", {"instance_id": "x", "type": "god"},
                  broken_case, {**V2, "smell_function": [1, 2]}, "[]",
                  {**V2, "instance_id": IID, "difficulty": "hard"},
                  to_row(_case("sub")))
    read = read_dataset(path)
    assert [case.instance_id for case in read.cases] == [IID,
                                                         "calc__dead_code-easy-sub"]
    by_line = {error.line: error for error in read.errors}
    assert set(by_line) == {2, 3, 4, 5, 6, 7}
    assert "not valid JSON" in by_line[2].message
    assert by_line[3].field == "project_name"
    assert by_line[4].field == "difficulty"
    assert by_line[5].field == "smell_function"
    assert "not a JSON object" in by_line[6].message
    assert by_line[7].field == "instance_id" and "duplicate" in by_line[7].message
    assert str(by_line[7]).startswith(f"{path}:7: instance_id: ")


def test_dataset_that_is_not_json_raises(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("instance_id,type\nx,god\n")
    with pytest.raises(InputFormatError, match=r"dataset\.jsonl"):
        read_dataset(path)


def _prediction(iid: str, model: str = "m") -> Prediction:
    return Prediction(instance_id=iid, model=model, patch="",
                      source=Origin(path="p.jsonl", line=1))


def test_match_pairs_reports_unknown_ids_and_missing_cases(tmp_path: Path) -> None:
    read = read_dataset(_write(tmp_path / "d.jsonl", V2, {**V2, "instance_id": "other"}))
    matched = match([_prediction(IID), _prediction("ghost"),
                     _prediction("other", model="n")], read)
    assert [(p.instance_id, c.instance_id) for p, c in matched.pairs] == [
        (IID, IID), ("other", "other")]
    (error,) = matched.errors
    assert error.message == f"unknown instance id 'ghost' (not in {tmp_path / 'd.jsonl'})"
    assert error.field == "instance_id" and error.line == 1
    assert matched.missing == {"m": ("other",), "n": (IID,)}
    named = match([_prediction("ghost")], list(read.cases), dataset="SmellBench")
    assert named.errors[0].message.endswith("(not in SmellBench)")


def test_eval_case_without_tests_path_protects_the_tests_files() -> None:
    case = EvalCase(instance_id="a", repo="r", smell="dead_code", format="smellbench",
                    tests=("pkg/tests/test_a.py::T::test_b", "pkg/tests/test_a.py::test_c"))
    assert case.protected_paths() == ("pkg/tests/test_a.py",)
