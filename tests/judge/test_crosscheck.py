"""Each cross-check rule on small Score rows: its contradiction, the evidence it cites, the
adjusted score and the trust level."""

from __future__ import annotations

from typing import Any

import pytest

from smellkit.evaluate.score import MetricDelta
from smellkit.judge.crosscheck import crosscheck
from smellkit.judge.evidence import Evidence, equivalence_of
from tests.judge.conftest import score
from tests.judge.server import scores

HIGH = scores(9, 9, 9, 9)


def check(judged: dict[str, float], patch: str | None = None, **signals: Any) -> Any:
    evidence = Evidence.from_score(score("m", **signals), patch=patch,
                                   involved=("a.py", "b.py"))
    return crosscheck(judged, evidence)


def dimensions(result: Any) -> set[str]:
    return {item.dimension for item in result.contradictions}


def test_evidence_that_agrees_changes_nothing():
    result = check(HIGH)
    assert result.trust == "consistent" and result.adjusted == HIGH
    assert result.checked == ("smell_elimination", "cross_file_coordination",
                              "structural_soundness", "code_quality")


@pytest.mark.parametrize(("signals", "dimension", "cited"), [
    ({"residue": 1}, "smell_elimination", {"residue": 1}),
    ({"checks_passed": 0}, "smell_elimination", {"checks_passed": 0, "checks_total": 2}),
    ({"red_herrings_touched": 2}, "cross_file_coordination", {"red_herrings_touched": 2}),
    ({"tests_passed": 0}, "structural_soundness", {"tests_passed": 0, "tests_total": 1}),
    ({"equivalent": False}, "structural_soundness", {"equivalence": "not_equivalent"}),
    ({"gap_closed": -0.5}, "code_quality", {"gap_closed": -0.5}),
])
def test_each_over_score_rule(signals: dict[str, Any], dimension: str, cited: dict[str, Any]):
    result = check(HIGH, **signals)
    assert dimensions(result) == {dimension} and result.trust == "contradicted"
    (item,) = result.contradictions
    assert item.kind == "over_scored" and item.severity == "major" and item.bound == 3
    assert cited.items() <= item.evidence.items()
    assert result.adjusted[dimension] == 3
    assert all(result.adjusted[key] == 9 for key in HIGH if key != dimension)


def test_untouched_involved_file_needs_the_patch():
    patch = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    result = check(HIGH, patch=patch)
    (item,) = result.contradictions
    assert item.evidence["untouched_files"] == ["b.py"]
    assert check(HIGH).contradictions == ()  # without the patch, unknown: no claim


def test_worse_metrics_are_cited():
    result = check(HIGH, gap_closed=-1.0, metrics={
        "cc": MetricDelta(original=4, smelly=9, result=12),
        "mi": MetricDelta(original=70, smelly=60, result=50),
        "sloc": MetricDelta(original=20, smelly=30, result=25)})
    (item,) = result.contradictions
    assert item.evidence["worse_metrics"] == [["cc", 9.0, 12.0], ["mi", 60.0, 50.0]]
    assert "cc 9 -> 12" in item.reason


def test_moderate_score_against_the_evidence_is_a_minor_contradiction():
    result = check(scores(5, 9, 9, 9), residue=1)
    (item,) = result.contradictions
    assert item.severity == "minor" and result.trust == "consistent"
    assert result.adjusted["smell_elimination"] == 3


def test_low_score_of_a_proved_fix_is_under_scored():
    result = check(scores(2, 9, 9, 9), equivalent=True)
    (item,) = result.contradictions
    assert (item.kind, item.severity, result.adjusted["smell_elimination"]) == (
        "under_scored", "major", 7)
    assert check(scores(2, 9, 9, 9)).contradictions == ()  # equivalence unknown: not proved


def test_patch_that_did_not_apply_caps_everything_at_zero():
    result = check(HIGH, applied=False, apply_status="apply_failed",
                   apply_reason="hunk 1 of a.py does not match")
    assert result.adjusted == scores(0, 0, 0, 0) and len(result.contradictions) == 4
    assert "hunk 1 of a.py" in result.contradictions[0].reason


def test_no_evidence_is_unverifiable():
    assert crosscheck(HIGH, None).trust == "unverifiable"
    bare = Evidence.from_score({"instance_id": "x", "model": "m", "applied": True,
                                "apply_status": "applied"})
    result = crosscheck(HIGH, bare)
    assert result.trust == "unverifiable" and result.adjusted == HIGH


@pytest.mark.parametrize(("row", "verdict"), [
    ({"equivalence": "inconclusive", "equivalent": None}, "inconclusive"),
    ({"equivalence": {"verdict": "not_equivalent", "inputs": 100}}, "not_equivalent"),
    ({"equivalence_verdict": "equivalent"}, "equivalent"),
    ({"equivalent": True}, "equivalent"),
    ({"equivalent": False}, "not_equivalent"),
    ({}, None),
])
def test_equivalence_is_read_from_the_row(row: dict[str, Any], verdict: str | None):
    assert equivalence_of(row) == verdict


def test_inconclusive_equivalence_does_not_cap_soundness():
    row = score("m").model_dump(mode="json") | {"equivalence": {"verdict": "inconclusive"}}
    result = crosscheck(HIGH, Evidence.from_score(row))
    assert result.contradictions == () and result.adjusted == HIGH
