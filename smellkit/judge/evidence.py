"""What the scorer proved about one prediction, as the cross-check reads it: a `Score` row of
`smellkit evaluate` (plus, when known, the files the prediction's patch touches).

Equivalence is read from the row's differential-testing verdict when the row has one
(`equivalence` as `equivalent` / `not_equivalent` / `inconclusive`, or an object with such a
`verdict`), else from the boolean `equivalent`; absent, it is unknown (None), never assumed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from smellkit.evaluate.patches.parse import PatchFormatError, parse_patch
from smellkit.evaluate.score import Score

Equivalence = Literal["equivalent", "not_equivalent", "inconclusive"]
VERDICTS: tuple[Equivalence, ...] = ("equivalent", "not_equivalent", "inconclusive")
HIGHER_IS_BETTER = frozenset({"mi"})
"""Metrics where a rise is an improvement; for every other metric of `signals.deltas` a rise
from the smelly figure is the code getting worse."""


def equivalence_of(row: Mapping[str, Any]) -> Equivalence | None:
    """The row's equivalence verdict, or None when it was not measured."""
    for name in ("equivalence", "equivalence_verdict"):
        value = row.get(name)
        if isinstance(value, Mapping):
            value = value.get("verdict")
        if isinstance(value, str) and value in VERDICTS:
            return value
    equivalent = row.get("equivalent")
    if isinstance(equivalent, bool):
        return "equivalent" if equivalent else "not_equivalent"
    return None


def touched_files(patch: str) -> frozenset[str] | None:
    """The repository-relative files a patch changes (None when it cannot be read)."""
    if not patch.strip():
        return frozenset()
    try:
        return frozenset(path for change in parse_patch(patch) for path in change.paths)
    except PatchFormatError:
        return None


@dataclass(frozen=True)
class Evidence:
    """The deterministic signals of one prediction that a judge's dimensions can be held to."""

    applied: bool
    apply_status: str
    apply_reason: str
    tests_passed: int | None
    tests_total: int | None
    tests_timed_out: bool
    residue: int | None
    checks_passed: int | None
    checks_total: int | None
    failed_checks: tuple[str, ...]
    la: float | None
    loc_recall: float | None
    red_herrings_touched: int | None
    equivalence: Equivalence | None
    gap_closed: float | None
    worse_metrics: tuple[tuple[str, float, float], ...]
    """(metric, smelly, result) of each metric of the touched code that got worse."""
    involved_files: tuple[str, ...] = ()
    untouched_files: tuple[str, ...] | None = None
    """Involved files the patch leaves unchanged; None when the patch is not known."""

    @classmethod
    def from_score(cls, score: Score | Mapping[str, Any], *, involved: Iterable[str] = (),
                   patch: str | None = None) -> Evidence:
        row = score.model_dump(mode="json") if isinstance(score, Score) else dict(score)
        worse = []
        for name, delta in sorted((row.get("metrics") or {}).items()):
            smelly, result = (delta or {}).get("smelly"), (delta or {}).get("result")
            if isinstance(smelly, int | float) and isinstance(result, int | float):
                got_worse = result < smelly if name in HIGHER_IS_BETTER else result > smelly
                if got_worse:
                    worse.append((name, float(smelly), float(result)))
        files = tuple(involved)
        untouched = None
        if patch is not None and files:
            changed = touched_files(patch)
            if changed is not None:
                untouched = tuple(path for path in files if path not in changed)
        return cls(
            applied=bool(row.get("applied")), apply_status=str(row.get("apply_status") or ""),
            apply_reason=str(row.get("apply_reason") or ""),
            tests_passed=row.get("tests_passed"), tests_total=row.get("tests_total"),
            tests_timed_out=bool(row.get("tests_timed_out")), residue=row.get("residue"),
            checks_passed=row.get("checks_passed"), checks_total=row.get("checks_total"),
            failed_checks=tuple(row.get("failed_checks") or ()), la=row.get("la"),
            loc_recall=row.get("loc_recall"),
            red_herrings_touched=row.get("red_herrings_touched"),
            equivalence=equivalence_of(row), gap_closed=row.get("gap_closed"),
            worse_metrics=tuple(worse), involved_files=files, untouched_files=untouched)

    @property
    def checks_fail(self) -> bool:
        return self.checks_total is not None and (self.checks_passed or 0) < self.checks_total

    @property
    def tests_fail(self) -> bool:
        return bool(self.tests_total) and (self.tests_passed or 0) < (self.tests_total or 0)
