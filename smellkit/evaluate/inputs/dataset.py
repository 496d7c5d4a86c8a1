"""The cases predictions answer, from smellkit's dataset.jsonl or SmellBench-format records.

A smellkit row (a `Case` with SmellBench's fields alongside, as `build` writes it) keeps the full
`Case`. A SmellBench record (v1 or v2 of its pipeline) cannot become a `Case`: it has no seed,
candidate, structural checks or typed targets. Both become an `EvalCase`, which holds what
scoring needs and says where each field came from:

| EvalCase field       | smellkit row                   | SmellBench record                   |
|----------------------|--------------------------------|-------------------------------------|
| `instance_id`        | `repo__id`                     | `instance_id`                       |
| `repo`, `revision`   | `repo`, `revision`             | `project_name`, `commit_hash`       |
| `smell`              | `smell`                        | `type`, mapped to smellkit's name   |
| `difficulty`         | `difficulty`                   | `difficulty` ("" in v1)             |
| `smelly_patch`       | `smelly_patch`                 | `smell_content`                     |
| `ground_truth_patch` | `ground_truth_patch`           | `gt_content` ("" when absent)       |
| `source_path`        | `source_path`                  | "" (its diffs are rooted at the repo)|
| `tests_path`         | `tests_path`                   | "" (not recorded)                   |
| `tests`              | `tests` (node ids)             | `testsuites`                        |
| `test_cmd`           | ""                             | `settings.test_cmd` (v2)            |
| `targets`            | target qualnames               | `smell_function` (v2: `file::Class.func`)|
| `instructions`       | `instructions`                 | `hint_guided`, `hint_targeted`      |
| `case`               | the `Case`                     | None                                |
| `extra`              | {}                             | every other field, as read          |

A malformed row is a `DatasetError` and the other rows are still read.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from smellkit.evaluate.inputs._jsonio import Raw, read_records
from smellkit.evaluate.inputs.predictions import (
    Prediction,
    PredictionError,
    PredictionRead,
    RecordError,
)
from smellkit.evaluate.patches.guard import protected_paths
from smellkit.evaluate.patches.parse import normal_folder
from smellkit.formats.smellbench import from_row, from_smellbench
from smellkit.models import Case

EXPECTED = ("smellkit's dataset.jsonl (one case per line) or SmellBench instances (JSONL, a "
            "JSON list, or a JSON object keyed by instance id)")
_SMELLBENCH_USED = ("instance_id", "type", "project_name", "commit_hash", "difficulty",
                    "smell_content", "gt_content", "testsuites", "smell_function",
                    "hint_guided", "hint_targeted")


class EvalCase(BaseModel):
    """One case as scoring sees it, whichever format it was read from (see the table above)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    instance_id: str = Field(min_length=1)
    repo: str = Field(min_length=1)
    revision: str = ""
    smell: str = Field(min_length=1)
    difficulty: str = ""
    smelly_patch: str = ""
    ground_truth_patch: str = ""
    source_path: str = ""
    """The folder (inside the repository) that the two patches are relative to; "" for the
    root, however the spec wrote it (`.`, `./`)."""
    tests_path: str = ""
    """The hidden tests folder; "" when unknown (the tests' own files are still protected)."""

    @field_validator("source_path", "tests_path")
    @classmethod
    def _folder(cls, value: str) -> str:
        return normal_folder(value)
    tests: tuple[str, ...] = ()
    test_cmd: str = ""
    targets: tuple[str, ...] = ()
    instructions: dict[str, str] = Field(default_factory=dict)
    case: Case | None = None
    extra: dict[str, Any] = Field(default_factory=dict)
    format: Literal["smellkit", "smellbench"]
    line: int | None = None
    """Where in the dataset file the case was (JSONL line), for messages."""

    def protected_paths(self) -> tuple[str, ...]:
        """What a prediction may not change: the tests folder and the selected tests' files."""
        return protected_paths([self.tests_path, *self.tests] if self.tests_path
                               else self.tests)

    @classmethod
    def from_case(cls, case: Case, *, line: int | None = None) -> EvalCase:
        return cls(instance_id=case.instance_id, repo=case.repo, revision=case.revision,
                   smell=case.smell, difficulty=case.difficulty, smelly_patch=case.smelly_patch,
                   ground_truth_patch=case.ground_truth_patch, source_path=case.source_path,
                   tests_path=case.tests_path, tests=case.tests,
                   targets=tuple(target.location.qualname for target in case.targets),
                   instructions={str(key): text for key, text in case.instructions.items()},
                   case=case, format="smellkit", line=line)


class DatasetError(RecordError):
    """A dataset row that could not be read."""


class DatasetRead(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    cases: tuple[EvalCase, ...] = ()
    errors: tuple[DatasetError, ...] = ()
    format: str = ""
    """jsonl, json-list, json-dict, json-object or empty."""

    def by_id(self) -> dict[str, EvalCase]:
        return {case.instance_id: case for case in self.cases}


def _targets(value: object) -> tuple[str, ...]:
    """SmellBench's `smell_function`: v2's [file, class|null, func|null] as `file::Class.func`,
    or a list of names (smellkit's export), or one name."""
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list):
        raise ValueError("must be a list ([file, class, function]) or a string")
    if len(value) == 3 and isinstance(value[0], str) and value[0].endswith(".py") and all(
            item is None or isinstance(item, str) for item in value[1:]):
        name = ".".join(item for item in value[1:] if item)
        return (f"{value[0]}::{name}" if name else value[0],)
    if not all(isinstance(item, str) for item in value):
        raise ValueError("must be a list of strings or [file, class|null, function|null]")
    return tuple(value)


def _from_smellbench(record: dict[str, Any], line: int | None) -> EvalCase:
    tests = record.get("testsuites") or []
    settings = record.get("settings")
    test_cmd = settings.get("test_cmd") if isinstance(settings, dict) else None
    instructions = {setting: record[f"hint_{setting}"] for setting in ("guided", "targeted")
                    if isinstance(record.get(f"hint_{setting}"), str)}
    kind = record.get("type")
    return EvalCase.model_validate({
        "instance_id": record.get("instance_id"), "repo": record.get("project_name"),
        "revision": record.get("commit_hash") or "",
        "smell": from_smellbench(kind) if isinstance(kind, str) else kind,
        "difficulty": record.get("difficulty") or "",
        "smelly_patch": record.get("smell_content") or "",
        "ground_truth_patch": record.get("gt_content") or "",
        "tests": [tests] if isinstance(tests, str) else tests,
        "test_cmd": test_cmd or "",
        "targets": _targets(record["smell_function"]) if record.get("smell_function") else (),
        "instructions": instructions, "format": "smellbench", "line": line,
        "extra": {key: value for key, value in record.items() if key not in _SMELLBENCH_USED}})


def _row(raw: Raw, path: str, keyed: bool) -> EvalCase | list[DatasetError]:
    def error(field: str | None, message: str) -> DatasetError:
        return DatasetError(path=path, line=raw.line, key=raw.key, field=field, message=message)

    if raw.problem is not None:
        return [error(None, f"{raw.problem}; each line must be one JSON object")]
    if not isinstance(raw.value, dict):
        return [error(None, "not a JSON object")]
    record = dict(raw.value)
    if keyed and raw.key is not None:
        record.setdefault("instance_id", raw.key)
    try:
        if "smelly_patch" in record and "candidate" in record:
            case = EvalCase.from_case(from_row(record), line=raw.line)
            if record.get("instance_id", case.instance_id) != case.instance_id:
                return [error("instance_id", f"is {record['instance_id']!r}, but repo and id "
                                             f"make {case.instance_id!r}")]
            return case
        for field in ("instance_id", "type", "project_name"):
            if not isinstance(record.get(field), str):
                return [error(field, "missing or not a string; a SmellBench instance needs it")]
        return _from_smellbench(record, raw.line)
    except ValidationError as failure:
        return [error(".".join(str(part) for part in item["loc"]) or None, item["msg"])
                for item in failure.errors()]
    except ValueError as failure:
        return [error("smell_function", str(failure))]


def read_dataset(path: Path | str) -> DatasetRead:
    """Every case of a dataset file (or of `dataset.jsonl` in a build's output folder).
    Raises InputFormatError only for a file that is unreadable or holds no JSON at all."""
    file = Path(path)
    if file.is_dir():
        file = file / "dataset.jsonl"
    layout, records = read_records(file, record_keys=("instance_id", "type", "smelly_patch",
                                                      "smell_content", "project_name"),
                                   expected=EXPECTED)
    cases: list[EvalCase] = []
    errors: list[DatasetError] = []
    seen: dict[str, EvalCase] = {}
    for raw in records:
        item = _row(raw, str(file), layout == "json-dict")
        if isinstance(item, list):
            errors.extend(item)
        elif item.instance_id in seen:
            first = seen[item.instance_id]
            errors.append(DatasetError(
                path=str(file), line=raw.line, key=raw.key, field="instance_id",
                message=f"duplicate instance id {item.instance_id!r} (first at line "
                        f"{first.line}); this row is ignored"))
        else:
            seen[item.instance_id] = item
            cases.append(item)
    return DatasetRead(path=str(file), cases=tuple(cases), errors=tuple(errors), format=layout)


class Matched(BaseModel):
    """Predictions paired with their cases, the ones that name no case, and the cases each
    model left unanswered."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pairs: tuple[tuple[Prediction, EvalCase], ...] = ()
    errors: tuple[PredictionError, ...] = ()
    missing: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """Model -> instance ids of the dataset it has no prediction for."""


def match(predictions: PredictionRead | Iterable[Prediction],
          cases: DatasetRead | Iterable[EvalCase], *, dataset: str | None = None) -> Matched:
    """Pair each prediction with its case by instance id; an unknown id is an error naming
    the dataset (`dataset`, else the path it was read from)."""
    label = dataset or (cases.path if isinstance(cases, DatasetRead) else "the dataset")
    by_id = cases.by_id() if isinstance(cases, DatasetRead) else \
        {case.instance_id: case for case in cases}
    items = predictions.predictions if isinstance(predictions, PredictionRead) else \
        tuple(predictions)
    pairs, errors = [], []
    answered: dict[str, set[str]] = {}
    for item in items:
        answered.setdefault(item.model, set())
        case = by_id.get(item.instance_id)
        if case is None:
            errors.append(PredictionError(
                path=item.source.path, line=item.source.line, key=item.source.key,
                field="instance_id",
                message=f"unknown instance id {item.instance_id!r} (not in {label})"))
            continue
        answered[item.model].add(item.instance_id)
        pairs.append((item, case))
    missing = {model: tuple(iid for iid in by_id if iid not in ids)
               for model, ids in answered.items()}
    return Matched(pairs=tuple(pairs), errors=tuple(errors), missing=missing)
