"""Agreement statistics on synthetic sets whose values are known."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from smellkit.judge.agreement import against_evidence, between_judges, quadratic_kappa
from smellkit.judge.rubric import GENERAL
from smellkit.judge.verdict import Verdict
from tests.judge.conftest import score


def _weighted_kappa(a: list[int], b: list[int], labels: int = 11) -> float:
    """Quadratic-weighted kappa from its definition: 1 - sum(w O) / sum(w E)."""
    observed = np.zeros((labels, labels))
    for x, y in zip(a, b):
        observed[x, y] += 1
    expected = np.outer(observed.sum(1), observed.sum(0)) / len(a)
    weights = np.array([[(i - j) ** 2 for j in range(labels)] for i in range(labels)])
    return float(1 - (weights * observed).sum() / (weights * expected).sum())


def test_kappa_of_a_hand_computed_set():
    # two labels only: weighted kappa is Cohen's kappa, po = 3/4, pe = 1/2, kappa = 1/2
    assert quadratic_kappa([0, 0, 10, 10], [0, 10, 10, 10]) == pytest.approx(0.5)
    assert quadratic_kappa([3, 5, 8], [3, 5, 8]) == pytest.approx(1.0)
    assert quadratic_kappa([7, 7], [7, 7]) is None  # one label throughout: undefined


def test_kappa_matches_its_definition_on_a_random_set():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 11, 60).tolist()
    b = [min(10, max(0, x + int(rng.integers(-2, 3)))) for x in a]
    assert quadratic_kappa(a, b) == pytest.approx(_weighted_kappa(a, b), abs=1e-12)
    assert quadratic_kappa([7.5, 2.0, 6.5], [8, 2, 7]) == pytest.approx(1.0)  # half up


def _verdict(instance: str, judge: str, values: list[float], **extra: Any) -> Verdict:
    return Verdict(instance_id=instance, model="m", judge_model=judge,
                   scores=dict(zip(GENERAL, values)), adjusted=dict(zip(GENERAL, values)),
                   **extra)


def test_between_judges_on_a_synthetic_set():
    first = [0, 2, 4, 6, 8, 10, 10, 0]
    second = [0, 10, 4, 6, 8, 10, 10, 0]
    verdicts = [_verdict(f"c{i}", "a", [x] * 4) for i, x in enumerate(first)] + \
        [_verdict(f"c{i}", "b", [y] * 4) for i, y in enumerate(second)]
    found = between_judges(verdicts)
    se = next(item for item in found if item.dimension == "smell_elimination")
    assert (se.judge_a, se.judge_b, se.n) == ("a", "b", 8)
    assert se.kappa == pytest.approx(_weighted_kappa(first, second), abs=1e-12)
    assert se.kappa_ci is not None and se.kappa_ci[0] <= se.kappa <= se.kappa_ci[1]
    from scipy import stats

    assert se.spearman == pytest.approx(stats.spearmanr(first, second).statistic)
    assert se.spearman_ci is not None
    assert between_judges(verdicts) == found  # seeded: the same intervals again


def test_too_few_shared_predictions_get_no_interval():
    verdicts = [_verdict("c0", "a", [8] * 4), _verdict("c0", "b", [2] * 4)]
    (se, *_) = between_judges(verdicts)
    assert se.n == 1 and se.kappa_ci is None and se.spearman is None and se.note


def test_dimension_against_its_deterministic_counterpart():
    rows = [score("m", instance_id=f"c{i}", residue=residue)
            for i, residue in enumerate([0, 0, 0, 1, 1, 2])]
    judged = [9, 7, 8, 3, 8, 1]  # fixed: 9, 7, 8; smelly: 3, 8, 1
    verdicts = [_verdict(f"c{i}", "a", [value, 5, 5, 5]) for i, value in enumerate(judged)]
    found = {item.dimension: item for item in against_evidence(verdicts, rows)}
    se = found["smell_elimination"]
    assert (se.signal, se.n, se.positives) == ("eliminated", 6, 3)
    # of the 9 (fixed, smelly) pairs, 7 are ordered right, (7, 8) wrong, (8, 8) a tie: 7.5 / 9
    assert se.auc == pytest.approx(7.5 / 9)
    assert se.auc_ci is not None and se.auc_ci[0] <= se.auc <= se.auc_ci[1]
    from scipy import stats

    labels = [1, 1, 1, 0, 0, 0]
    assert se.point_biserial == pytest.approx(stats.pointbiserialr(labels, judged).statistic)
    assert found["structural_soundness"].auc is None  # every prediction is sound
    assert "every prediction is sound" in found["structural_soundness"].note


def test_the_bootstraps_closed_forms_equal_the_libraries():
    from scipy import stats
    from sklearn import metrics

    from smellkit.judge import agreement

    rng = np.random.default_rng(11)
    a = rng.integers(0, 11, (5, 30)).astype(float)
    b = np.clip(a + rng.integers(-3, 4, (5, 30)), 0, 10)
    labels = rng.integers(0, 2, (5, 30)).astype(float)
    for row in range(5):
        assert agreement._kappa_rows(a, b)[row] == pytest.approx(metrics.cohen_kappa_score(
            a[row].astype(int), b[row].astype(int), labels=list(range(11)),
            weights="quadratic"))
        assert agreement._spearman_rows(a, b)[row] == pytest.approx(
            stats.spearmanr(a[row], b[row]).statistic)
        assert agreement._auc_rows(labels, a)[row] == pytest.approx(
            metrics.roc_auc_score(labels[row], a[row]))
