"""One row of `verdicts.jsonl`: a judge's scores of one prediction and their cross-check.

Keys of `scores`, `adjusted` and `samples` are flat (`reply` module): the general dimensions by
name, `smell_specific.<key>`, `case.<key>`. `adjusted` holds the general dimensions only.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from smellkit.judge.client import Usage
from smellkit.judge.crosscheck import Contradiction, Trust
from smellkit.judge.guard import GuardFinding

VERDICTS = "verdicts.jsonl"
Source = Literal["smellkit", "smellbench", "generic"]


def verdict_key(row: dict[str, Any]) -> str | None:
    """A verdicts.jsonl row's identity: (instance_id, model, judge_model)."""
    parts = [row.get(name) for name in ("instance_id", "model", "judge_model")]
    return "\0".join(parts) if all(isinstance(part, str) for part in parts) else None  # type: ignore[arg-type]


class Verdict(BaseModel):
    """A verdict and its cross-check."""

    model_config = ConfigDict(extra="forbid")

    instance_id: str
    model: str
    """The predictions' model (`model_name_or_path`), or `oracle` / `noop`."""
    judge_model: str
    smell: str = ""
    difficulty: str = ""
    scores: dict[str, float] = Field(default_factory=dict)
    """The median over samples of each score the judge gave."""
    overall: float | None = None
    """Mean over every expected key, missing ones counting 0 (fixed denominator)."""
    adjusted: dict[str, float] = Field(default_factory=dict)
    trust: Trust = "unverifiable"
    contradictions: tuple[Contradiction, ...] = ()
    checked: tuple[str, ...] = ()
    agreement: float | None = None
    """1 - mean |sample - median| / 10 over the general dimensions (1: the samples agree)."""
    agreement_by_score: dict[str, float] = Field(default_factory=dict)
    samples: list[dict[str, float]] = Field(default_factory=list)
    sample_errors: list[str] = Field(default_factory=list)
    """Samples with no valid reply even after the repair request, and why."""
    missing: tuple[str, ...] = ()
    """Expected criteria no valid sample scored (counted 0 in `overall`)."""
    justifications: dict[str, str] = Field(default_factory=dict)
    summary: str = ""
    guard: tuple[GuardFinding, ...] = ()
    """Text in the prediction addressed to the evaluator."""
    guarded_scores: dict[str, float] | None = None
    """When `guard` found something: the judge's medians on the patch without that text (the
    scores `adjusted` starts from)."""
    usage: Usage = Field(default_factory=Usage)
    rubric_version: str = ""
    prompt_hash: str = ""
    analysis_source: str = ""
    source: Source = "smellkit"
    """Who judged: smellkit's judge, or a verdict read by `smellkit crosscheck`."""
    weighted_score: float | None = None
    """A SmellBench verdict's own `weighted_score`, as it was read."""
