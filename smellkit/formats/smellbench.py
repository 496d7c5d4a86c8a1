"""SmellBench's instance fields and smell strings: rows SmellBench tools can read, and imports.

A dataset row is a smellkit `Case` (minus machine-dependent timings) with SmellBench's fields
alongside, so one JSONL file serves both smellkit and tools written for SmellBench.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from smellkit.errors import ConfigError
from smellkit.models import Case

IMPORT_ONLY_NAMES: dict[str, str] = {"long_method": "Long"}
"""SmellBench strings of smells smellkit has no detector for, by the name their instances get on
import: SmellBench data with `Long` (its first generation's long method) imports and exports."""


def smellbench_names() -> dict[str, str]:
    """smellkit's smell names -> SmellBench's strings: each registered smell's declaration
    (`Smell.smellbench_name`, DESIGN.md "Smells: stable names"), plus `IMPORT_ONLY_NAMES`."""
    from smellkit.detectors.registry import smells

    names = {name: smell.smellbench_name for name, smell in smells().items()}
    return {**IMPORT_ONLY_NAMES, **names}



def to_smellbench(smell: str) -> str:
    return smellbench_names().get(smell, smell)


def from_smellbench(kind: str) -> str:
    return {value: key for key, value in smellbench_names().items()}.get(kind, kind)


class SmellBenchInstance(BaseModel):
    """One SmellBench instance, its smell already mapped to smellkit's name. Unknown fields are
    kept (`extra`), so a round trip through smellkit loses nothing."""

    model_config = ConfigDict(extra="allow", frozen=True)

    instance_id: str
    smell: str = Field(description="smellkit's smell name (SmellBench's `type`, mapped).")
    difficulty: str
    project_name: str
    commit_hash: str = ""
    smell_content: str = Field(default="", description="Unified diff: original -> smelly.")
    gt_content: str = Field(default="", description="Unified diff: smelly -> original.")
    hint_guided: str = ""
    hint_targeted: str = ""
    smell_function: list[str | None] = Field(default_factory=list)
    """v1: `file::Class.method` strings; v2: `[file, class or null, function or null]`."""
    testsuites: list[str] = Field(default_factory=list)
    settings: dict[str, Any] | list[str] = Field(default_factory=dict)
    """v2: `{"src_path": ..., "test_cmd": ...}`; v1 wrote a list."""


def smellbench_fields(case: Case) -> dict[str, Any]:
    """SmellBench's instance fields for a case: patches as unified diffs, hints from the guided
    and targeted instructions, targets as qualified names, selected tests as node ids."""
    return {
        "instance_id": case.instance_id,
        "type": to_smellbench(case.smell),
        "difficulty": case.difficulty,
        "project_name": case.repo,
        "commit_hash": case.revision,
        "smell_content": case.smelly_patch,
        "gt_content": case.ground_truth_patch,
        "hint_guided": case.instructions.get("guided", ""),
        "hint_targeted": case.instructions.get("targeted", ""),
        "smell_function": [target.location.qualname for target in case.targets],
        "testsuites": list(case.tests),
        "settings": sorted(case.instructions),
    }


def to_row(case: Case) -> dict[str, Any]:
    """One dataset line: the case (without timings) plus SmellBench's fields."""
    row: dict[str, Any] = case.model_dump(mode="json", exclude={"timings"})
    for key, value in smellbench_fields(case).items():
        if key in row and row[key] != value:
            raise ValueError(f"field {key!r} would differ between smellkit and SmellBench")
        row[key] = value
    return row


def from_row(row: dict[str, Any]) -> Case:
    """The case back from a dataset line (SmellBench's extra fields dropped)."""
    fields = {key: value for key, value in row.items() if key in Case.model_fields}
    return Case.model_validate(fields)


def read_smellbench(path: Path) -> list[SmellBenchInstance]:
    """SmellBench-format instances from a JSONL file (or a JSON list), smell strings mapped."""
    text = path.read_text(encoding="utf-8")
    try:
        if text.lstrip().startswith("["):
            rows = json.loads(text)
        else:
            rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError as error:
        raise ConfigError(f"not SmellBench JSON/JSONL: {error}", path=path) from error
    instances: list[SmellBenchInstance] = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or "type" not in row:
            raise ConfigError(f"instance {number} has no `type`", path=path, field="type")
        data = dict(row)
        data["smell"] = from_smellbench(str(data.pop("type")))
        for key in ("smell_function", "testsuites", "settings"):
            if isinstance(data.get(key), str):
                data[key] = [data[key]]
        try:
            instances.append(SmellBenchInstance.model_validate(data))
        except ValueError as error:
            raise ConfigError(f"instance {number} is not a SmellBench instance: {error}",
                              path=path) from error
    return instances


def write_smellbench(path: Path, instances: list[SmellBenchInstance]) -> None:
    """Instances as SmellBench JSONL (`type` holds SmellBench's smell string again)."""
    from smellkit._internal.jsonl import write_jsonl

    rows = []
    for item in instances:
        row = item.model_dump(mode="json")
        row["type"] = to_smellbench(row.pop("smell"))
        rows.append(row)
    write_jsonl(path, rows)
