"""Reading other judges' verdicts: SmellBench's raw reply and result file, generic JSONL/CSV."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smellkit.judge.errors import VerdictFormatError
from smellkit.judge.foreign import read_foreign
from tests.judge.test_cli import SMELLBENCH_VERDICT

RAW_REPLY = {  # judge_rubric.py's raw reply: dimensions and custom keys at the top
    "instance_id": "x", "smell_elimination": {"score": 7, "justification": "a"},
    "cross_file_coordination": {"score": 6, "justification": "b"},
    "structural_soundness": {"score": 8, "justification": "c"},
    "code_quality": {"score": 7, "justification": "d"},
    "smell_specific": {"Fragment Identification": {"score": 6, "justification": "e"}},
    "helper_boundaries": {"score": 5, "justification": "f"}, "summary": "fine"}


def test_smellbench_result_and_raw_reply(tmp_path: Path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps([SMELLBENCH_VERDICT, RAW_REPLY]))
    (result, raw), errors = read_foreign(path, judge_model="fallback")
    assert errors == []
    assert result.judge_model == "claude-sonnet-4-5-20250929" and result.weighted_score == 8.6
    assert result.scores["case.label_logic_moved"] == 9
    assert raw.source == "smellbench" and raw.judge_model == "fallback"
    assert raw.scores["smell_specific.fragment_identification"] == 6
    assert raw.scores["case.helper_boundaries"] == 5
    assert raw.justifications["smell_elimination"] == "a"


def test_object_keyed_by_instance_id_and_jsonl(tmp_path: Path):
    keyed = tmp_path / "keyed.json"
    keyed.write_text(json.dumps({"x": {k: v for k, v in RAW_REPLY.items()
                                       if k != "instance_id"}}))
    ((one,), _) = read_foreign(keyed)
    assert one.instance_id == "x"
    lines = tmp_path / "verdicts.jsonl"
    lines.write_text(json.dumps({"instance_id": "x", "model": "m", "SE": 3, "cc": "4",
                                 "structural_soundness": 5, "Code_Quality": 6}) + "\n"
                     + "{broken\n" + json.dumps({"instance_id": "y", "SE": 3}) + "\n")
    (generic,), errors = read_foreign(lines)
    assert generic.scores == {"smell_elimination": 3, "cross_file_coordination": 4,
                              "structural_soundness": 5, "code_quality": 6}
    assert generic.model == "m" and generic.judge_model == "unknown"
    assert [(error.line, error.message[:12]) for error in errors] == [
        (2, "not a JSON o"), (3, "no column fo")]


def test_a_file_in_no_known_format_is_an_error(tmp_path: Path):
    path = tmp_path / "notes.txt"
    path.write_text("this is\nnot json\n")
    with pytest.raises(VerdictFormatError, match="JSONL or CSV"):
        read_foreign(path)


def test_criteria_given_as_lists(tmp_path: Path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps({**SMELLBENCH_VERDICT, "custom_rubrics": [
        {"name": "Label Logic Moved", "score": 6, "justification": "partly"}]}))
    ((verdict,), _) = read_foreign(path)
    assert verdict.scores["case.label_logic_moved"] == 6
