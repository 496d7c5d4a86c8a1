"""Every verdict held to what the scorer proved: contradictions with the evidence they cite, an
adjusted score per general dimension, and a trust level.

Rules (thresholds from the rubric file: `high` 7, `low` 3, `cap` 3, `floor` 7):

- **Nothing applied** (the patch failed to apply, was refused or tampered with the tests): every
  dimension's adjusted score is at most 0; nothing the judge read exists in the result.
- **SE** is bounded by `cap` when smell residue is left at the targets or a structural check
  fails. It is raised to `floor` when residue is 0, every check passes (there is at least one),
  LA is 1 and behaviour is `equivalent` (an under-scored fix).
- **CC** is bounded by `cap` when an involved file is left untouched (known when the patch is)
  or a red herring was touched.
- **SS** is bounded by `cap` when a selected test fails or times out, or the result is
  `not_equivalent`.
- **CQ** is bounded by `cap` when the touched code's metrics got worse than the smelly version's
  (`gap_closed` < 0; the metrics that rose are cited).

adjusted = the score held within every bound (min with each upper bound, max with the lower).
Each bound a score breaks is a contradiction of its own, citing its evidence: `major` when the
judge claimed the opposite (score >= high against an upper bound, <= low against a lower one),
`minor` otherwise. trust is `unverifiable` when no dimension could be checked (no Score row, or
none of the signals measured), `contradicted` when any contradiction is major, else
`consistent`. The adjusted scores depend only on the judge's scores and the evidence, so text
aimed at the judge moves them only through the scores; `run` judges a guarded prediction
without that text (`guard`) and adjusts those scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from smellkit.judge.evidence import Evidence
from smellkit.judge.rubric import GENERAL, Thresholds, rubric

Trust = Literal["consistent", "contradicted", "unverifiable"]


class Contradiction(BaseModel):
    """One disagreement between a verdict and the evidence, with the evidence it rests on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dimension: str
    kind: Literal["over_scored", "under_scored", "judge_text"]
    severity: Literal["major", "minor"]
    score: float | None = None
    bound: float | None = None
    """The most (over-scored) or least (under-scored) the evidence allows."""
    reason: str
    evidence: dict[str, Any] = Field(default_factory=dict)


class CrossCheck(BaseModel):
    """The cross-check of one verdict."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    adjusted: dict[str, float]
    trust: Trust
    contradictions: tuple[Contradiction, ...] = ()
    checked: tuple[str, ...] = ()
    """The general dimensions some evidence could be held to."""


Bound = tuple[Literal["upper", "lower"], float, str, dict[str, Any]]


def _upper_bounds(evidence: Evidence, cap: float) -> dict[str, list[Bound]]:
    bounds: dict[str, list[Bound]] = {key: [] for key in GENERAL}
    if not evidence.applied and evidence.apply_status:
        reason = f"the patch did not apply ({evidence.apply_status}: " \
                 f"{evidence.apply_reason or 'no reason recorded'}); the result is the smelly code"
        for key in GENERAL:
            bounds[key].append(("upper", 0.0, reason, {"apply_status": evidence.apply_status}))
        return bounds
    if evidence.residue:
        bounds["smell_elimination"].append((
            "upper", cap, f"{evidence.residue} finding(s) of the smell are left at the case's "
            "targets and locations", {"residue": evidence.residue}))
    if evidence.checks_fail:
        bounds["smell_elimination"].append((
            "upper", cap, f"{evidence.checks_total - (evidence.checks_passed or 0)} of "  # type: ignore[operator]
            f"{evidence.checks_total} structural checks fail: "
            + "; ".join(evidence.failed_checks[:3]),
            {"checks_passed": evidence.checks_passed, "checks_total": evidence.checks_total,
             "failed_checks": list(evidence.failed_checks)}))
    if evidence.untouched_files:
        bounds["cross_file_coordination"].append((
            "upper", cap, "involved file(s) left untouched: "
            + ", ".join(evidence.untouched_files),
            {"untouched_files": list(evidence.untouched_files),
             "involved_files": list(evidence.involved_files)}))
    if evidence.red_herrings_touched:
        bounds["cross_file_coordination"].append((
            "upper", cap, f"{evidence.red_herrings_touched} red herring(s) touched "
            "(look-alike code that is not smelly)",
            {"red_herrings_touched": evidence.red_herrings_touched}))
    if evidence.tests_fail or evidence.tests_timed_out:
        bounds["structural_soundness"].append((
            "upper", cap, f"{(evidence.tests_total or 0) - (evidence.tests_passed or 0)} of "
            f"{evidence.tests_total} selected tests fail"
            + (" (some timed out)" if evidence.tests_timed_out else ""),
            {"tests_passed": evidence.tests_passed, "tests_total": evidence.tests_total,
             "tests_timed_out": evidence.tests_timed_out}))
    if evidence.equivalence == "not_equivalent":
        bounds["structural_soundness"].append((
            "upper", cap, "differential testing found the result not equivalent to the "
            "original", {"equivalence": "not_equivalent"}))
    if evidence.gap_closed is not None and evidence.gap_closed < 0:
        worse = ", ".join(f"{name} {smelly:g} -> {result:g}"
                          for name, smelly, result in evidence.worse_metrics)
        bounds["code_quality"].append((
            "upper", cap, f"the touched code's metrics got worse than the smelly version's "
            f"(gap closed {evidence.gap_closed:.2f}" + (f"; {worse}" if worse else "") + ")",
            {"gap_closed": evidence.gap_closed,
             "worse_metrics": [list(item) for item in evidence.worse_metrics]}))
    return bounds


def _proved_fixed(evidence: Evidence) -> bool:
    return (evidence.applied and evidence.residue == 0 and bool(evidence.checks_total)
            and not evidence.checks_fail and evidence.la == 1
            and evidence.equivalence == "equivalent")


def checkable(evidence: Evidence) -> tuple[str, ...]:
    """The general dimensions some of the evidence speaks to."""
    if not evidence.applied and evidence.apply_status:
        return GENERAL
    found = []
    if evidence.residue is not None or evidence.checks_total is not None:
        found.append("smell_elimination")
    if evidence.untouched_files is not None or evidence.red_herrings_touched is not None:
        found.append("cross_file_coordination")
    if evidence.tests_total is not None or evidence.equivalence is not None:
        found.append("structural_soundness")
    if evidence.gap_closed is not None:
        found.append("code_quality")
    return tuple(found)


def crosscheck(scores: Mapping[str, float], evidence: Evidence | None,
               thresholds: Thresholds | None = None) -> CrossCheck:
    """Hold `scores` (the general dimensions; others are ignored) to `evidence`."""
    limits = thresholds or rubric().thresholds
    general = {key: float(scores[key]) for key in GENERAL if key in scores}
    if evidence is None:
        return CrossCheck(adjusted=general, trust="unverifiable")
    bounds = _upper_bounds(evidence, limits.cap)
    if _proved_fixed(evidence):
        bounds["smell_elimination"].append((
            "lower", limits.floor, "no residue, every structural check passes, LA is 1 and "
            "the result is equivalent", {"residue": 0, "checks_passed": evidence.checks_passed,
                                         "la": 1, "equivalence": "equivalent"}))
    adjusted: dict[str, float] = {}
    found: list[Contradiction] = []
    for key, score in general.items():
        value = score
        for side, limit, reason, cited in bounds[key]:
            if (score <= limit) if side == "upper" else (score >= limit):
                continue  # the score already respects this piece of evidence
            major = score >= limits.high if side == "upper" else score <= limits.low
            found.append(Contradiction(
                dimension=key, kind="over_scored" if side == "upper" else "under_scored",
                severity="major" if major else "minor", score=score, bound=limit,
                reason=reason, evidence=cited))
            value = min(value, limit) if side == "upper" else max(value, limit)
        adjusted[key] = value
    checked = checkable(evidence)
    trust: Trust = "unverifiable" if not checked else \
        "contradicted" if any(item.severity == "major" for item in found) else "consistent"
    return CrossCheck(adjusted=adjusted, trust=trust, contradictions=tuple(found),
                      checked=checked)
