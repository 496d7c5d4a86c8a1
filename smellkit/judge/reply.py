"""A judge's reply: the JSON it must return, how a reply is read and validated, and how several
samples become one set of scores.

Keys of a verdict's scores are flat: the four general dimensions by name
(`smell_elimination`), the smell's criteria as `smell_specific.<key>` and the case's as
`case.<key>` (keys as `rubric.criterion_key` makes them). The general dimensions are required: a
reply without one of them, or with a score outside 0-10, is invalid (and asked to be repaired).
A missing or invalid criterion is recorded as missing, never fatal; the overall score divides
by the number of expected keys whatever came back (missing ones count 0), so a reply cannot
raise its mean by leaving its weak criteria out (SmellBench averages whatever it finds).
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from smellkit.judge.rubric import GENERAL, criterion_key

SPECIFIC = "smell_specific"
CASE = "case"


class Mark(BaseModel):
    """One score and why."""

    model_config = ConfigDict(extra="ignore")

    score: float = Field(ge=0, le=10)
    justification: str = ""


class _General(BaseModel):
    """The part of a reply that must validate for the reply to count."""

    model_config = ConfigDict(extra="ignore")

    smell_elimination: Mark
    cross_file_coordination: Mark
    structural_soundness: Mark
    code_quality: Mark
    summary: str = ""


@dataclass(frozen=True)
class Expected:
    """The keys a prompt asks for: its smell's criteria and its case's, by key and name."""

    specific: dict[str, str]
    case: dict[str, str]

    def all_keys(self) -> list[str]:
        return [*GENERAL, *(f"{SPECIFIC}.{key}" for key in self.specific),
                *(f"{CASE}.{key}" for key in self.case)]

    def shape(self) -> str:
        """The JSON shape the prompt shows the model."""
        mark = {"score": "<0-10>", "justification": "<brief>"}
        shape: dict[str, Any] = {key: mark for key in GENERAL}
        shape[SPECIFIC] = {key: mark for key in self.specific}
        shape.update({key: mark for key in self.case})
        shape["summary"] = "<2-3 sentence overall assessment>"
        return json.dumps(shape, indent=1)

    def schema(self) -> dict[str, Any]:
        """The JSON schema of a reply (`response_format` `json_schema`)."""
        mark = {"type": "object", "additionalProperties": False,
                "properties": {"score": {"type": "number", "minimum": 0, "maximum": 10},
                               "justification": {"type": "string"}},
                "required": ["score", "justification"]}
        properties: dict[str, Any] = {key: mark for key in GENERAL}
        properties[SPECIFIC] = {"type": "object", "additionalProperties": False,
                                "properties": {key: mark for key in self.specific},
                                "required": list(self.specific)}
        properties.update({key: mark for key in self.case})
        properties["summary"] = {"type": "string"}
        return {"type": "object", "additionalProperties": False, "properties": properties,
                "required": [*GENERAL, SPECIFIC, *self.case, "summary"]}


@dataclass(frozen=True)
class Parsed:
    """One valid reply: the scores it gave (flat keys), their justifications, what it left out."""

    scores: dict[str, float]
    justifications: dict[str, str]
    missing: tuple[str, ...]
    summary: str


class ReplyError(ValueError):
    """A reply that is not a valid verdict; the message says what is wrong, for the repair
    request and for the row's error."""


def extract_json(text: str) -> Any:
    """The JSON object in a reply: the whole text, else the last ```json block, else the last
    balanced {...}."""
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    blocks = re.findall(r"```(?:json)?\s*(.*?)```", text, flags=re.S)
    for block in reversed(blocks):
        try:
            return json.loads(block)
        except ValueError:
            continue
    end = stripped.rfind("}")
    while end != -1:
        depth = 0
        for start in range(end, -1, -1):
            depth += {"}": 1, "{": -1}.get(stripped[start], 0)
            if depth == 0:
                try:
                    return json.loads(stripped[start:end + 1])
                except ValueError:
                    break
        end = stripped.rfind("}", 0, end)
    raise ReplyError("the reply holds no JSON object (it may be cut off)")


def _normalised(mapping: Mapping[str, Any]) -> dict[str, Any]:
    return {criterion_key(str(key)): value for key, value in mapping.items()}


def _mark(value: Any) -> Mark | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = {"score": value}
    try:
        return Mark.model_validate(value)
    except ValidationError:
        return None


def parse_reply(text: str, expected: Expected) -> Parsed:
    """Validate one reply; raises ReplyError naming the first problem."""
    data = extract_json(text)
    if not isinstance(data, dict):
        raise ReplyError("the reply's JSON is not an object")
    top = _normalised(data)
    try:
        general = _General.model_validate(top)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise ReplyError(f"{where}: {problem['msg']}") from error
    scores = {key: getattr(general, key).score for key in GENERAL}
    notes = {key: getattr(general, key).justification for key in GENERAL}
    missing: list[str] = []
    specific = top.get(SPECIFIC)
    given = _normalised(specific) if isinstance(specific, dict) else {}
    for prefix, keys, source in ((SPECIFIC, expected.specific, given),
                                 (CASE, expected.case, top)):
        for key in keys:
            mark = _mark(source.get(key))
            if mark is None:  # SmellBench's layout puts case criteria at the top; accept either
                mark = _mark(given.get(key) if source is top else top.get(key))
            if mark is None:
                missing.append(f"{prefix}.{key}")
                continue
            scores[f"{prefix}.{key}"] = mark.score
            notes[f"{prefix}.{key}"] = mark.justification
    return Parsed(scores=scores, justifications=notes, missing=tuple(missing),
                  summary=general.summary)


@dataclass(frozen=True)
class Combined:
    """N samples made one: the median of each score, how far the samples strayed from it."""

    scores: dict[str, float]
    agreement: float | None
    """1 - mean |sample - median| / 10 over the general dimensions' samples (1: all equal)."""
    agreement_by_key: dict[str, float]
    missing: tuple[str, ...]
    """Expected keys no sample gave."""
    overall: float | None
    """The mean over every expected key, missing ones counting 0 (a fixed denominator)."""


def combine(samples: Sequence[Parsed], expected: Expected) -> Combined:
    """The median per score over the valid samples (None scores when there are none)."""
    scores: dict[str, float] = {}
    by_key: dict[str, float] = {}
    for key in expected.all_keys():
        values = [sample.scores[key] for sample in samples if key in sample.scores]
        if not values:
            continue
        median = float(statistics.median(values))
        scores[key] = median
        by_key[key] = round(1 - statistics.fmean(abs(value - median) for value in values) / 10,
                            4)
    general = [by_key[key] for key in GENERAL if key in by_key]
    keys = expected.all_keys()
    return Combined(
        scores=scores, agreement=round(statistics.fmean(general), 4) if general else None,
        agreement_by_key=by_key, missing=tuple(key for key in keys if key not in scores),
        overall=round(sum(scores.get(key, 0.0) for key in keys) / len(keys), 4)
        if samples else None)
