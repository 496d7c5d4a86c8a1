"""Predictions: one patch per instance and model, from the files solvers and harnesses write.

Read, told apart by content rather than extension: SWE-bench JSONL (`instance_id`,
`model_name_or_path`, `model_patch` on each line); SWE-bench JSON as a list of such records or an
object keyed by instance id; mini-swe-agent's `preds.json` (an object keyed by instance id whose
values are whole SWE-bench records). smellkit's own `agent`, `setting`, `exit_reason`, `usage`
and `duration_s` ride along when present. Also: a folder of final repositories (`--repos`),
diffed against each case's smelly tree, and the built-in `oracle` and `noop` baselines.

A bad record (a line that is not JSON, a missing or null field, a duplicate) is a
`PredictionError` next to the good predictions, never an exception that loses them; only a file
that is not JSON at all raises.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from smellkit.errors import SmellkitError, UsageError
from smellkit.evaluate.errors import InputFormatError
from smellkit.evaluate.inputs._jsonio import Raw, read_records
from smellkit.evaluate.patches.parse import prefix_paths
from smellkit.evaluate.patches.treediff import diff_trees

EXPECTED = ("SWE-bench JSONL (one {instance_id, model_name_or_path, model_patch} object per "
            "line), a JSON list of such objects, or a JSON object keyed by instance id "
            "(SWE-bench's dict form, mini-swe-agent's preds.json)")
REQUIRED = ("instance_id", "model_name_or_path", "model_patch")
EXTRAS = ("agent", "setting", "exit_reason", "usage", "duration_s")
BASELINES = ("oracle", "noop")
Baseline = Literal["oracle", "noop"]


class Origin(BaseModel):
    """Where a prediction came from: a file and its line (JSONL), list index or key (JSON)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    line: int | None = None
    key: str | None = None

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.path}:{self.line}"
        return f"{self.path} {self.key}" if self.key and self.key.startswith("[") else \
            f"{self.path} [{self.key!r}]" if self.key else self.path


class Prediction(BaseModel):
    """One model's patch for one instance (paths relative to the repository root)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    instance_id: str = Field(min_length=1)
    model: str = Field(min_length=1)
    """SWE-bench's `model_name_or_path`: the report's unit of comparison."""
    patch: str
    """A unified diff; empty means the solver changed nothing."""
    source: Origin
    agent: str | None = None
    setting: str | None = None
    exit_reason: str | None = None
    usage: dict[str, Any] = Field(default_factory=dict)
    duration_s: float | None = Field(default=None, ge=0)

    def to_swebench(self) -> dict[str, Any]:
        """The SWE-bench record (with smellkit's extras that are set)."""
        record: dict[str, Any] = {"instance_id": self.instance_id,
                                  "model_name_or_path": self.model, "model_patch": self.patch}
        for name in EXTRAS:
            value = getattr(self, name)
            if value not in (None, {}):
                record[name] = value
        return record


class RecordError(BaseModel):
    """One record of an input file that could not be used, where it is, and what to fix."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    line: int | None = None
    key: str | None = None
    field: str | None = None
    message: str

    def __str__(self) -> str:
        where = str(Origin(path=self.path, line=self.line, key=self.key))
        return f"{where}: {self.field}: {self.message}" if self.field else \
            f"{where}: {self.message}"


class PredictionError(RecordError):
    """A prediction that could not be used."""


class PredictionRead(BaseModel):
    """The predictions read, the records that were not, and each file's format."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    predictions: tuple[Prediction, ...] = ()
    errors: tuple[PredictionError, ...] = ()
    formats: dict[str, str] = Field(default_factory=dict)
    """Each file read -> jsonl, json-list, json-dict, json-object, empty, repos or baseline."""

    @property
    def models(self) -> tuple[str, ...]:
        """Model names in the order first seen: each is one model of the report."""
        return tuple(dict.fromkeys(item.model for item in self.predictions))

    def by_model(self) -> dict[str, tuple[Prediction, ...]]:
        return {model: tuple(item for item in self.predictions if item.model == model)
                for model in self.models}


def _type_name(value: object) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "number",
            float: "number", type(None): "null"}.get(type(value), type(value).__name__)


def _convert(raw: Raw, path: str, keyed: bool) -> Prediction | list[PredictionError]:
    """A prediction from one record, or every reason it is not one."""
    def error(field: str | None, message: str) -> PredictionError:
        return PredictionError(path=path, line=raw.line, key=raw.key, field=field,
                               message=message)

    if raw.problem is not None:
        return [error(None, f"{raw.problem}; each line must be one JSON object")]
    if not isinstance(raw.value, dict):
        return [error(None, f"a JSON {_type_name(raw.value)}, not an object with "
                            f"{', '.join(REQUIRED)}")]
    record = dict(raw.value)
    problems = []
    if keyed and raw.key is not None:
        record.setdefault("instance_id", raw.key)
        if record["instance_id"] != raw.key:
            problems.append(error("instance_id", f"is {record['instance_id']!r} but the record "
                                                 f"is under the key {raw.key!r}; make them equal"))
    for field in REQUIRED:
        value = record.get(field)
        if field not in record:
            problems.append(error(field, f"missing; every prediction needs `{field}`"))
        elif value is None:
            hint = "; write \"\" for a prediction that changes nothing" \
                if field == "model_patch" else ""
            problems.append(error(field, f"is null{hint}"))
        elif not isinstance(value, str):
            problems.append(error(field, f"must be a string, not a JSON {_type_name(value)}"))
        elif field != "model_patch" and not value.strip():
            problems.append(error(field, "is empty"))
    if problems:
        return problems
    data = {"instance_id": record["instance_id"], "model": record["model_name_or_path"],
            "patch": record["model_patch"],
            "source": Origin(path=path, line=raw.line, key=raw.key),
            **{name: record[name] for name in EXTRAS if record.get(name) is not None}}
    try:
        return Prediction.model_validate(data)
    except ValidationError as failure:
        return [error(str(item["loc"][0]) if item["loc"] else None, item["msg"])
                for item in failure.errors()]


def _collect(items: Iterable[Prediction | list[PredictionError]],
             seen: dict[tuple[str, str], Origin], predictions: list[Prediction],
             errors: list[PredictionError]) -> None:
    """Keep the first prediction of each (instance, model); a later one is an error."""
    for item in items:
        if isinstance(item, list):
            errors.extend(item)
            continue
        first = seen.setdefault((item.instance_id, item.model), item.source)
        if first is item.source:
            predictions.append(item)
            continue
        errors.append(PredictionError(
            path=item.source.path, line=item.source.line, key=item.source.key,
            field="instance_id",
            message=f"duplicate prediction for {item.instance_id!r} by model {item.model!r} "
                    f"(first at {first}); this one is ignored, remove one of them"))


def read_predictions(paths: Path | str | Iterable[Path | str]) -> PredictionRead:
    """Predictions from one or more files, in any of the formats above. Raises
    InputFormatError only for a file that is unreadable or holds no JSON at all."""
    files = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    seen: dict[tuple[str, str], Origin] = {}
    predictions: list[Prediction] = []
    errors: list[PredictionError] = []
    formats: dict[str, str] = {}
    for file in files:
        layout, records = read_records(file, record_keys=("instance_id", "model_patch",
                                                          "model_name_or_path"),
                                       expected=EXPECTED)
        formats[str(file)] = layout
        if layout == "empty":
            errors.append(PredictionError(path=str(file), message="the file is empty"))
        keyed = layout == "json-dict"
        _collect((_convert(raw, str(file), keyed) for raw in records), seen, predictions,
                 errors)
    return PredictionRead(predictions=tuple(predictions), errors=tuple(errors), formats=formats)


def predictions_from_repos(repos: Path | str, smelly_trees: Mapping[str, Path | str], *,
                           model: str | None = None,
                           ignore: Collection[str] = ()) -> PredictionRead:
    """One prediction per folder of `repos` (named by instance id): the diff from that
    instance's smelly tree to the folder. `model` defaults to the folder's name; `ignore`
    lists paths left out on both sides (the hidden tests a solver never had)."""
    root = Path(repos)
    if not root.is_dir():
        raise InputFormatError("not a folder", path=root,
                               hint="--repos takes a folder holding one repository per "
                                    "instance id")
    name = model or root.resolve().name
    items: list[Prediction | list[PredictionError]] = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith("."):
            continue
        def error(field: str | None, message: str, key: str = entry.name) -> PredictionError:
            return PredictionError(path=str(root), key=key, field=field, message=message)

        tree = smelly_trees.get(entry.name)
        if not entry.is_dir():
            items.append([error(None, "not a folder; --repos holds one folder per instance")])
        elif tree is None:
            items.append([error("instance_id", f"unknown instance id {entry.name!r} "
                                               "(no smelly tree was given for it)")])
        else:
            try:
                patch = diff_trees(tree, entry, ignore=ignore)
            except SmellkitError as failure:
                items.append([error(None, f"cannot diff against the smelly tree: {failure}")])
                continue
            items.append(Prediction(instance_id=entry.name, model=name, patch=patch,
                                    source=Origin(path=str(entry))))
    predictions: list[Prediction] = []
    errors: list[PredictionError] = []
    _collect(items, {}, predictions, errors)
    return PredictionRead(predictions=tuple(predictions), errors=tuple(errors),
                          formats={str(root): "repos"})


class CaseLike(Protocol):
    """What a baseline needs of a case (`EvalCase` and smellkit's `Case` both have it)."""

    @property
    def instance_id(self) -> str: ...
    @property
    def ground_truth_patch(self) -> str: ...
    @property
    def source_path(self) -> str: ...


def baseline_predictions(cases: Iterable[CaseLike], kind: Baseline) -> tuple[Prediction, ...]:
    """The `oracle` (each case's ground-truth patch, moved to the repository root) or `noop`
    (an empty patch) as predictions of a model of that name. Cases without a ground truth
    (e.g. SmellBench v1 rows) get no oracle prediction, so they show up as missing."""
    if kind not in BASELINES:
        raise UsageError(f"unknown baseline {kind!r}", hint=f"one of {', '.join(BASELINES)}")
    found = []
    for case in cases:
        if kind == "oracle" and not case.ground_truth_patch.strip():
            continue
        patch = prefix_paths(case.ground_truth_patch, case.source_path) if kind == "oracle" \
            else ""
        found.append(Prediction(instance_id=case.instance_id, model=kind, patch=patch,
                                source=Origin(path=f"<{kind}>", key=case.instance_id)))
    return tuple(found)
