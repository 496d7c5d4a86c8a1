"""SmellBench fields: smell strings both ways, dataset rows round-trip, SmellBench data imports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smellkit.errors import ConfigError
from smellkit.formats.smellbench import (
    from_row,
    from_smellbench,
    read_smellbench,
    smellbench_names,
    to_row,
    to_smellbench,
    write_smellbench,
)
from smellkit.injectors.registry import injectors
from smellkit.models import Case
from tests.bench import fakes


def _case() -> Case:
    return Case(**dict(fakes.harmless("god_class", "hard", "mul")), repo="calc",
                revision="pypi:calc==1.0", tests=("tests/test_ops.py::test_mul",),
                timings={"smelly": 1.5})


@pytest.mark.parametrize(("ours", "theirs"), [
    ("god_class", "god_classes"), ("dead_code", "dead_code_elimination"),
    ("deep_inlining", "deeply_inlined_method"), ("duplicated_code", "Duplicated"),
    ("feature_envy", "feature_envy"), ("data_clumps", "data_clumps"),
    ("shotgun_surgery", "shotgun_surgery"), ("interface_segregation", "interface_segregation"),
    ("long_method", "Long"),
])
def test_smell_strings_map_both_ways(ours: str, theirs: str) -> None:
    assert to_smellbench(ours) == theirs
    assert from_smellbench(theirs) == ours


def test_every_injector_smell_has_a_smellbench_string() -> None:
    names = set(injectors())
    assert names <= set(smellbench_names())


def test_row_carries_the_case_and_smellbench_fields_and_round_trips() -> None:
    case = _case()
    row = to_row(case)
    assert row["instance_id"] == "calc__god_class-hard-mul"
    assert row["type"] == "god_classes" and row["difficulty"] == "hard"
    assert row["commit_hash"] == "pypi:calc==1.0"
    assert row["smell_content"] == case.smelly_patch
    assert row["gt_content"] == case.ground_truth_patch
    assert row["hint_guided"] == case.instructions["guided"]
    assert row["testsuites"] == ["tests/test_ops.py::test_mul"]
    assert "timings" not in row
    json.dumps(row)
    assert from_row(row) == case.model_copy(update={"timings": {}})


def test_smellbench_jsonl_imports_with_mapped_smells_and_exports_back(tmp_path: Path) -> None:
    source = tmp_path / "smellbench.jsonl"
    rows = [{"instance_id": "click-1", "type": "god_classes", "difficulty": "easy",
             "project_name": "click", "commit_hash": "abc", "smell_content": "diff",
             "gt_content": "diff", "hint_guided": "g", "hint_targeted": "t",
             "smell_function": "Command.main", "testsuites": ["tests/test_basic.py"],
             "settings": ["guided"], "extra_field": 3}]
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    (instance,) = read_smellbench(source)
    assert instance.smell == "god_class" and instance.smell_function == ["Command.main"]
    target = tmp_path / "again.jsonl"
    write_smellbench(target, [instance])
    again = json.loads(target.read_text())
    assert again["type"] == "god_classes" and again["extra_field"] == 3


def test_smellbench_file_without_type_names_the_field(tmp_path: Path) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_text('{"instance_id": "x"}\n')
    with pytest.raises(ConfigError, match="type"):
        read_smellbench(source)
