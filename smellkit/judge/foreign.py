"""Verdicts of other judges, read without calling a model, for `smellkit crosscheck`.

Formats, told apart per record:

- SmellBench's `judge_rubric.py` output: the four dimensions as `{score, justification}`, at the
  top level (the judge's raw reply) or under `general` (its result file), with `smell_specific`,
  `custom_rubrics` (or custom keys at the top), `summary`, `weighted_score` and
  `_meta.model` (the judge). One object, a JSON list of them, a JSON object keyed by instance
  id, or JSONL.
- Generic JSONL or CSV: `instance_id`, `model` (the predictions'), optionally `judge_model`, and
  one column per dimension, named in full (`smell_elimination`) or short (`SE`, `CC`, `SS`,
  `CQ`), holding a number.

A record that cannot be used (no instance id, a dimension missing or not a number in 0-10) is an
error value naming its line; the others are read.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from smellkit.judge.errors import VerdictFormatError
from smellkit.judge.reply import CASE, SPECIFIC
from smellkit.judge.rubric import GENERAL, SHORT, criterion_key

ALIASES = {**{key: key for key in GENERAL}, **{short.lower(): key for key, short in SHORT.items()}}
"""Column names (lower case) accepted for each general dimension."""
_SKIP = {"instance_id", "model", "model_name_or_path", "judge_model", "general", SPECIFIC,
         "custom_rubrics", "summary", "weighted_score", "usage", "_meta"}


class ForeignVerdict(BaseModel):
    """One verdict of another judge, as read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    instance_id: str
    model: str | None
    judge_model: str
    scores: dict[str, float]
    justifications: dict[str, str] = Field(default_factory=dict)
    summary: str = ""
    weighted_score: float | None = None
    source: Literal["smellbench", "generic"]
    line: int | None = None


class ForeignError(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    line: int | None
    message: str


def _number(value: Any) -> float | None:
    if isinstance(value, dict):
        value = value.get("score")
    if isinstance(value, bool) or value in (None, ""):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if 0 <= number <= 10 else None


def _text(value: Any) -> str:
    return str(value.get("justification", "")) if isinstance(value, dict) else ""


def _smellbench(record: dict[str, Any]) -> bool:
    general = record.get("general")
    return isinstance(general, dict) or any(isinstance(record.get(key), dict)
                                           for key in GENERAL)


def _entries(group: Any) -> list[tuple[str, Any]]:
    """A group of criteria as (name, value): a dict by name, or a list of objects that carry
    their `name` (or `key`)."""
    if isinstance(group, dict):
        return [(str(name), value) for name, value in group.items()]
    if isinstance(group, list):
        return [(str(item.get("name") or item.get("key")), item) for item in group
                if isinstance(item, dict) and (item.get("name") or item.get("key"))]
    return []


def _record(record: dict[str, Any], line: int | None, judge_model: str | None
            ) -> ForeignVerdict | str:
    instance_id = record.get("instance_id")
    if not isinstance(instance_id, str) or not instance_id:
        return "no instance_id"
    smellbench = _smellbench(record)
    scores: dict[str, float] = {}
    notes: dict[str, str] = {}
    if smellbench:
        general = record.get("general") if isinstance(record.get("general"), dict) else record
        assert isinstance(general, dict)
        top = {criterion_key(str(key)): value for key, value in general.items()}
        for key in GENERAL:
            number = _number(top.get(key))
            if number is None:
                return f"{key}: missing, or not a score from 0 to 10"
            scores[key], notes[key] = number, _text(top.get(key))
        for prefix, group in ((SPECIFIC, record.get(SPECIFIC)),
                              (CASE, record.get("custom_rubrics"))):
            for name, value in _entries(group):
                number = _number(value)
                if number is not None:
                    scores[f"{prefix}.{criterion_key(name)}"] = number
                    notes[f"{prefix}.{criterion_key(name)}"] = _text(value)
        for name, value in record.items():
            if name not in _SKIP and criterion_key(name) not in GENERAL and \
                    isinstance(value, dict) and _number(value) is not None:
                scores.setdefault(f"{CASE}.{criterion_key(name)}", _number(value) or 0.0)
    else:
        columns = {str(key).strip().lower(): value for key, value in record.items()}
        for alias, key in ALIASES.items():
            if alias in columns and key not in scores:
                number = _number(columns[alias])
                if number is None:
                    return f"{alias}: not a score from 0 to 10 ({columns[alias]!r})"
                scores[key] = number
        missing = [key for key in GENERAL if key not in scores]
        if missing:
            return f"no column for {', '.join(missing)} (full names or SE, CC, SS, CQ)"
    meta = record.get("_meta") if isinstance(record.get("_meta"), dict) else {}
    judge = record.get("judge_model") or (meta or {}).get("model") or judge_model or "unknown"
    model = record.get("model") or record.get("model_name_or_path")
    weighted = _number(record.get("weighted_score"))
    return ForeignVerdict(
        instance_id=instance_id, model=str(model) if model else None, judge_model=str(judge),
        scores=scores, justifications=notes, summary=str(record.get("summary") or ""),
        weighted_score=weighted, source="smellbench" if smellbench else "generic", line=line)


def _records(path: Path) -> list[tuple[int | None, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise VerdictFormatError(f"cannot read the verdicts: {error}", path=path) from error
    if path.suffix.lower() == ".csv":
        return [(number, row) for number, row in enumerate(csv.DictReader(io.StringIO(text)),
                                                           start=2)]
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, list):
        return [(None, item) for item in whole]
    if isinstance(whole, dict):
        if "instance_id" in whole or _smellbench(whole):
            return [(None, whole)]
        return [(None, {"instance_id": key, **value} if isinstance(value, dict) else value)
                for key, value in whole.items()]
    found: list[tuple[int | None, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            found.append((number, json.loads(line)))
        except ValueError:
            found.append((number, None))
    if found and all(item is None for _, item in found):
        raise VerdictFormatError(
            "not SmellBench judge output, JSONL or CSV", path=path,
            hint="give judge_rubric.py's JSON, a JSONL of verdicts, or a .csv with instance_id, "
                 "model and one column per dimension")
    return found


def read_foreign(path: Path | str, *, judge_model: str | None = None
                 ) -> tuple[list[ForeignVerdict], list[ForeignError]]:
    """Every verdict of the file, and the records that could not be used."""
    file = Path(path)
    verdicts: list[ForeignVerdict] = []
    errors: list[ForeignError] = []
    for line, record in _records(file):
        item = _record(record, line, judge_model) if isinstance(record, dict) else \
            "not a JSON object"
        if isinstance(item, str):
            errors.append(ForeignError(path=str(file), line=line, message=item))
        else:
            verdicts.append(item)
    if not verdicts and not errors:
        raise VerdictFormatError("no verdicts in the file", path=file)
    return verdicts, errors
