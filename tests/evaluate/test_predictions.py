"""Reading predictions: every format, bad records as values, duplicates, baselines, --repos."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smellkit.errors import UsageError
from smellkit.evaluate.errors import InputFormatError
from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.inputs.predictions import (
    Prediction,
    baseline_predictions,
    predictions_from_repos,
    read_predictions,
)
from tests.evaluate.helpers import make_tree

PATCH = "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"


def _record(iid: str, model: str = "gpt-x", patch: str | None = PATCH) -> dict[str, object]:
    return {"instance_id": iid, "model_name_or_path": model, "model_patch": patch}


def _jsonl(path: Path, *lines: object) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines))
    return path


def test_swebench_jsonl_with_smellkit_extras(tmp_path: Path) -> None:
    extra = {**_record("a"), "agent": "claude-code", "setting": "guided",
             "exit_reason": "submitted", "usage": {"input_tokens": 10}, "duration_s": 3.5,
             "cost": 0.1}
    read = read_predictions(_jsonl(tmp_path / "p.jsonl", extra, _record("b", patch="")))
    assert read.errors == () and read.formats == {str(tmp_path / "p.jsonl"): "jsonl"}
    first, second = read.predictions
    assert (first.instance_id, first.model, first.patch) == ("a", "gpt-x", PATCH)
    assert first.agent == "claude-code" and first.usage == {"input_tokens": 10}
    assert first.duration_s == 3.5 and str(first.source) == f"{tmp_path / 'p.jsonl'}:1"
    assert second.patch == "" and second.source.line == 2
    assert first.to_swebench()["model_name_or_path"] == "gpt-x"
    assert first.to_swebench()["setting"] == "guided"
    assert "usage" not in second.to_swebench()


def test_malformed_line_is_an_error_and_the_other_lines_are_read(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "p.jsonl", _record("a"), '{"instance_id": "b", oops', "",
                  _record("c"))
    read = read_predictions(path)
    assert [item.instance_id for item in read.predictions] == ["a", "c"]
    (error,) = read.errors
    assert error.line == 2 and "not valid JSON" in error.message
    assert str(error).startswith(f"{path}:2: ")


def test_missing_field_null_patch_and_wrong_types_are_errors(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "p.jsonl", {"instance_id": "a", "model_patch": PATCH},
                  _record("b", patch=None), {**_record("c"), "model_patch": 3},
                  {**_record("d"), "duration_s": -1}, [1, 2], _record("e"))
    read = read_predictions(path)
    assert [item.instance_id for item in read.predictions] == ["e"]
    by_line = {(error.line, error.field): error.message for error in read.errors}
    assert "missing" in by_line[(1, "model_name_or_path")]
    assert 'write ""' in by_line[(2, "model_patch")]
    assert "must be a string" in by_line[(3, "model_patch")]
    assert (4, "duration_s") in by_line
    assert "not an object" in by_line[(5, None)]


def test_json_list_dict_and_single_object(tmp_path: Path) -> None:
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([_record("a"), {"instance_id": "b"}], indent=2))
    keyed = tmp_path / "dict.json"
    keyed.write_text(json.dumps({"c": {"model_name_or_path": "m2", "model_patch": ""}}))
    single = tmp_path / "one.json"
    single.write_text(json.dumps(_record("d", model="m3"), indent=2))
    read = read_predictions([listed, keyed, single])
    assert [(p.instance_id, p.model) for p in read.predictions] == [
        ("a", "gpt-x"), ("c", "m2"), ("d", "m3")]
    assert read.models == ("gpt-x", "m2", "m3")
    assert list(read.formats.values()) == ["json-list", "json-dict", "json-object"]
    assert [(error.key, error.field) for error in read.errors] == [
        ("[1]", "model_name_or_path"), ("[1]", "model_patch")]
    assert read.predictions[1].source.key == "c"


def test_mini_swe_agent_preds_json(tmp_path: Path) -> None:
    """mini-swe-agent writes {iid: {model_name_or_path, instance_id, model_patch}}."""
    path = tmp_path / "preds.json"
    path.write_text(json.dumps({"calc__x": _record("calc__x", model="openai/gpt-5"),
                                "calc__y": _record("calc__z", model="openai/gpt-5")}))
    read = read_predictions(path)
    assert [p.instance_id for p in read.predictions] == ["calc__x"]
    assert read.by_model() == {"openai/gpt-5": read.predictions}
    (error,) = read.errors
    assert error.key == "calc__y" and "make them equal" in error.message


def test_duplicates_in_one_file_and_across_files(tmp_path: Path) -> None:
    one = _jsonl(tmp_path / "one.jsonl", _record("a"), _record("a", patch=""),
                 _record("a", model="other"))
    two = _jsonl(tmp_path / "two.jsonl", _record("a", model="other"), _record("b"))
    read = read_predictions([one, two])
    assert [(p.instance_id, p.model, p.patch) for p in read.predictions] == [
        ("a", "gpt-x", PATCH), ("a", "other", PATCH), ("b", "gpt-x", PATCH)]
    first, second = read.errors
    assert first.line == 2 and f"first at {one}:1" in first.message
    assert second.path == str(two) and f"first at {one}:3" in second.message


def test_file_that_is_not_json_raises_with_the_formats(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("these are my patches\nnot json\n")
    with pytest.raises(InputFormatError, match="SWE-bench JSONL") as caught:
        read_predictions(path)
    assert caught.value.path == str(path) and caught.value.exit_code == 2
    number = tmp_path / "n.json"
    number.write_text("3\n")
    with pytest.raises(InputFormatError, match="JSON int"):
        read_predictions(number)
    with pytest.raises(InputFormatError, match="cannot read"):
        read_predictions(tmp_path / "missing.jsonl")


def test_format_is_told_by_content_not_extension(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "preds.json", _record("a"), _record("b"))
    assert read_predictions(path).formats[str(path)] == "jsonl"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    read = read_predictions(empty)
    assert read.predictions == () and read.errors[0].message == "the file is empty"


def _case(iid: str, gt: str, source_path: str = "") -> EvalCase:
    return EvalCase(instance_id=iid, repo="calc", smell="dead_code", ground_truth_patch=gt,
                    source_path=source_path, format="smellbench")


def test_baselines_oracle_moves_the_ground_truth_to_the_repository_root() -> None:
    cases = [_case("a", PATCH, source_path="src"), _case("b", PATCH), _case("c", "")]
    oracle = baseline_predictions(cases, "oracle")
    assert [(p.instance_id, p.model) for p in oracle] == [("a", "oracle"), ("b", "oracle")]
    assert "--- a/src/m.py\n+++ b/src/m.py" in oracle[0].patch
    assert oracle[1].patch == PATCH
    noop = baseline_predictions(cases, "noop")
    assert [(p.instance_id, p.model, p.patch) for p in noop] == [
        ("a", "noop", ""), ("b", "noop", ""), ("c", "noop", "")]
    with pytest.raises(UsageError):
        baseline_predictions(cases, "gold")  # type: ignore[arg-type]


def test_repos_folder_gives_one_diff_per_instance(tmp_path: Path) -> None:
    smelly = make_tree(tmp_path / "smelly", {"m.py": "a = 1\n", "tests/test_m.py": "t\n"})
    repos = tmp_path / "final-repos"
    make_tree(repos / "calc__a", {"m.py": "a = 2\n", "new.py": "b = 1\n"})
    make_tree(repos / "calc__b", {"m.py": "a = 1\n"})
    make_tree(repos / "stranger", {"m.py": "a = 1\n"})
    (repos / "README").write_text("not a case\n")
    (repos / ".DS_Store").write_text("ignored\n")
    read = predictions_from_repos(repos, {"calc__a": smelly, "calc__b": smelly},
                                  ignore=["tests"])
    assert read.models == ("final-repos",)
    by_id = {p.instance_id: p for p in read.predictions}
    assert "+a = 2" in by_id["calc__a"].patch and "new file mode" in by_id["calc__a"].patch
    assert "tests" not in by_id["calc__a"].patch
    assert by_id["calc__b"].patch == ""
    messages = sorted(str(error) for error in read.errors)
    assert any("README" in m and "not a folder" in m for m in messages)
    assert any("unknown instance id 'stranger'" in m for m in messages)
    with pytest.raises(InputFormatError):
        predictions_from_repos(tmp_path / "nowhere", {})


def test_prediction_model_is_strict() -> None:
    with pytest.raises(ValueError):
        Prediction(instance_id="", model="m", patch="", source={"path": "x"})  # type: ignore
