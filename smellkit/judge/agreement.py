"""How far judges agree with each other and with the deterministic evidence.

- Between two judge models, per general dimension, over the predictions both judged: Cohen's
  kappa with quadratic weights (scikit-learn; scores rounded half up to the 11 integer labels
  0-10, so a 7.5 median counts as 8) and Spearman's rho (scipy), each with a percentile bootstrap
  interval over the paired predictions (seeded).
- Each dimension against its deterministic counterpart, a 0/1 signal of the Score row: SE
  against `eliminated` (no residue and every structural check passes), CC against `covered`
  (every involved definition touched, `loc_recall` = 1, and no red herring touched), SS against
  `sound` (every selected test passes and the result is not `not_equivalent`), CQ against
  `improved` (`gap_closed` > 0). Reported: ROC AUC of the score as a predictor of the signal
  (scikit-learn) and the point-biserial correlation with its p-value (scipy), with a bootstrap
  interval of the AUC. Both classes must occur; otherwise the statistics are None and `note`
  says why.

Point estimates come from scikit-learn and scipy; the bootstrap computes each statistic on all
resamples at once by its closed form (`_kappa_rows`, `_spearman_rows`, `_auc_rows`; the tests
hold them equal to the libraries' values), since a library call per resample takes seconds.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from typing import Any

from pydantic import BaseModel, ConfigDict

from smellkit.evaluate.score import Score
from smellkit.judge.errors import JudgeExtraMissing
from smellkit.judge.evidence import equivalence_of
from smellkit.judge.rubric import GENERAL
from smellkit.judge.verdict import Verdict

N_RESAMPLES = 2000
CONFIDENCE = 0.95
CELLS = 2_000_000
"""The most resampled values held at once (resamples x pairs) while bootstrapping."""
LABELS = list(range(11))


def _libraries() -> tuple[Any, Any, Any]:
    try:
        import numpy
        from scipy import stats
        from sklearn import metrics
    except ImportError as error:
        raise JudgeExtraMissing(error.name or "scikit-learn") from error
    return numpy, stats, metrics


class JudgePairAgreement(BaseModel):
    """Two judge models on one dimension."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge_a: str
    judge_b: str
    dimension: str
    scores: str
    """`scores` (the judges' medians) or `adjusted`."""
    n: int
    kappa: float | None
    kappa_ci: tuple[float, float] | None
    spearman: float | None
    spearman_p: float | None
    spearman_ci: tuple[float, float] | None
    note: str = ""


class EvidenceAgreement(BaseModel):
    """One judge model's dimension against its deterministic counterpart."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge_model: str
    dimension: str
    signal: str
    n: int
    positives: int
    auc: float | None
    auc_ci: tuple[float, float] | None
    point_biserial: float | None
    p_value: float | None
    note: str = ""


def rounded(score: float) -> int:
    """Half up, so 7.5 is 8 (Python's round would make it 8 but 6.5 would be 6)."""
    return math.floor(score + 0.5)


def quadratic_kappa(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Cohen's kappa with quadratic weights over the labels 0-10; None when undefined (both
    raters gave one and the same label throughout)."""
    _, _, metrics = _libraries()
    if len(set(map(rounded, a)) | set(map(rounded, b))) < 2:
        return None
    value = float(metrics.cohen_kappa_score([rounded(x) for x in a], [rounded(x) for x in b],
                                            labels=LABELS, weights="quadratic"))
    return value if math.isfinite(value) else None


def _finite(value: Any) -> float | None:
    number = float(value)
    return number if math.isfinite(number) else None


def _kappa_rows(a: Any, b: Any) -> Any:
    """Quadratic-weighted kappa of each row pair of two (resamples x n) label matrices, by
    its closed form 1 - mean((a - b)^2) / (var a + var b + (mean a - mean b)^2) (population
    variances; the weights' scale cancels), NaN where undefined. Equal to scikit-learn's
    `cohen_kappa_score(weights="quadratic")`, which takes one pair at a time."""
    numpy, _, _ = _libraries()
    disagreement = ((a - b) ** 2).mean(axis=1)
    chance = a.var(axis=1) + b.var(axis=1) + (a.mean(axis=1) - b.mean(axis=1)) ** 2
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return numpy.where(chance > 0, 1 - disagreement / numpy.where(chance > 0, chance, 1),
                           numpy.nan)


def _pearson_rows(x: Any, y: Any) -> Any:
    numpy, _, _ = _libraries()
    x = x - x.mean(axis=1, keepdims=True)
    y = y - y.mean(axis=1, keepdims=True)
    norm = numpy.sqrt((x ** 2).sum(axis=1) * (y ** 2).sum(axis=1))
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return numpy.where(norm > 0, (x * y).sum(axis=1) / numpy.where(norm > 0, norm, 1),
                           numpy.nan)


def _spearman_rows(a: Any, b: Any) -> Any:
    _, stats, _ = _libraries()
    return _pearson_rows(stats.rankdata(a, axis=1), stats.rankdata(b, axis=1))


def _auc_rows(labels: Any, values: Any) -> Any:
    """ROC AUC of each row (Mann-Whitney U over the average ranks), NaN without both classes."""
    numpy, stats, _ = _libraries()
    ranks = stats.rankdata(values, axis=1)
    positives = labels.sum(axis=1)
    negatives = labels.shape[1] - positives
    u = (ranks * labels).sum(axis=1) - positives * (positives + 1) / 2
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return numpy.where(positives * negatives > 0,
                           u / numpy.where(positives * negatives > 0, positives * negatives, 1),
                           numpy.nan)


def _bootstrap(samples: tuple[Sequence[float], Sequence[float]],
               statistic: Callable[[Any, Any], Any], seed: int,
               key: str) -> tuple[float, float] | None:
    """The percentile bootstrap interval of a paired statistic: the pairs resampled together,
    `N_RESAMPLES` times, from a generator seeded by `seed` and `key`. Resamples where the
    statistic is undefined (all one label) are left out; with fewer than half of them defined,
    or fewer than 3 pairs, there is no interval. (scipy's `bootstrap` turns the whole interval
    NaN on one undefined resample, which small rating sets always have.)"""
    numpy, _, _ = _libraries()
    size = len(samples[0])
    if size < 3:
        return None
    rng = numpy.random.default_rng([seed, zlib.crc32(key.encode())])
    first = numpy.asarray(samples[0], dtype=float)
    second = numpy.asarray(samples[1], dtype=float)
    chunk = max(1, min(N_RESAMPLES, CELLS // size))  # bounded memory on large sets
    found = []
    for start in range(0, N_RESAMPLES, chunk):
        rows = rng.integers(0, size, (min(chunk, N_RESAMPLES - start), size))
        found.append(statistic(first[rows], second[rows]))
    values = numpy.concatenate(found)
    values = values[numpy.isfinite(values)]
    if len(values) < N_RESAMPLES / 2:
        return None
    alpha = (1 - CONFIDENCE) / 2
    low, high = numpy.quantile(values, [alpha, 1 - alpha])
    return float(low), float(high)


def _spearman(a: Sequence[float], b: Sequence[float]) -> tuple[float | None, float | None]:
    _, stats, _ = _libraries()
    if len(set(a)) < 2 or len(set(b)) < 2:
        return None, None
    result = stats.spearmanr(a, b)
    return _finite(result.statistic), _finite(result.pvalue)


def between_judges(verdicts: Iterable[Verdict], *, use: str = "scores",
                   seed: int = 0) -> list[JudgePairAgreement]:
    """Every pair of judge models, every general dimension, on the predictions both judged."""
    by_judge: dict[str, dict[tuple[str, str], dict[str, float]]] = {}
    for verdict in verdicts:
        values = verdict.adjusted if use == "adjusted" else verdict.scores
        by_judge.setdefault(verdict.judge_model, {})[(verdict.instance_id, verdict.model)] = \
            values
    found = []
    for judge_a, judge_b in combinations(sorted(by_judge), 2):
        shared = sorted(by_judge[judge_a].keys() & by_judge[judge_b].keys())
        for dimension in GENERAL:
            pairs = [(by_judge[judge_a][key][dimension], by_judge[judge_b][key][dimension])
                     for key in shared if dimension in by_judge[judge_a][key]
                     and dimension in by_judge[judge_b][key]]
            a, b = [x for x, _ in pairs], [y for _, y in pairs]
            kappa = quadratic_kappa(a, b) if pairs else None
            rho, p_value = _spearman(a, b) if len(pairs) > 2 else (None, None)
            key = f"{judge_a}|{judge_b}|{dimension}|{use}"
            note = "" if len(pairs) > 2 else "fewer than 3 predictions judged by both"
            found.append(JudgePairAgreement(
                judge_a=judge_a, judge_b=judge_b, dimension=dimension, scores=use, n=len(pairs),
                kappa=kappa, kappa_ci=_bootstrap(
                    ([rounded(x) for x in a], [rounded(y) for y in b]), _kappa_rows, seed,
                    key + "k") if kappa is not None else None,
                spearman=rho, spearman_p=p_value,
                spearman_ci=_bootstrap((a, b), _spearman_rows, seed, key + "s")
                if rho is not None else None, note=note))
    return found


def _signal(dimension: str, score: Score) -> tuple[str, bool | None]:
    row = score.model_dump()
    if dimension == "smell_elimination":
        if score.residue is None:
            return "eliminated", None
        checks = score.checks_total is None or (score.checks_passed or 0) >= score.checks_total
        return "eliminated", score.residue == 0 and checks
    if dimension == "cross_file_coordination":
        if score.loc_recall is None:
            return "covered", None
        return "covered", score.loc_recall >= 1 and not score.red_herrings_touched
    if dimension == "structural_soundness":
        if not score.tests_total:
            return "sound", None
        return "sound", (score.tests_passed or 0) >= score.tests_total and \
            equivalence_of(row) != "not_equivalent"
    if score.gap_closed is None:
        return "improved", None
    return "improved", score.gap_closed > 0


def against_evidence(verdicts: Iterable[Verdict], scores: Iterable[Score], *,
                     seed: int = 0) -> list[EvidenceAgreement]:
    """Each judge model's dimensions against their 0/1 deterministic counterparts."""
    _, stats, metrics = _libraries()
    rows = {(score.instance_id, score.model): score for score in scores}
    by_judge: dict[str, list[tuple[Verdict, Score]]] = {}
    for verdict in verdicts:
        row = rows.get((verdict.instance_id, verdict.model))
        if row is not None:
            by_judge.setdefault(verdict.judge_model, []).append((verdict, row))
    found = []
    for judge_model in sorted(by_judge):
        for dimension in GENERAL:
            points = []
            name = ""
            for verdict, row in by_judge[judge_model]:
                name, label = _signal(dimension, row)
                if label is not None and dimension in verdict.scores:
                    points.append((verdict.scores[dimension], int(label)))
            x, y = [score for score, _ in points], [label for _, label in points]
            positives = sum(y)
            note = ""
            auc = biserial = p_value = None
            ci = None
            if not points or positives in (0, len(points)):
                note = f"every prediction is {'' if positives else 'not '}{name}" if points \
                    else "no prediction with this signal measured"
            else:
                auc = float(metrics.roc_auc_score(y, x))
                if len(set(x)) > 1:
                    result = stats.pointbiserialr(y, x)
                    biserial, p_value = _finite(result.statistic), _finite(result.pvalue)
                ci = _bootstrap((y, x), _auc_rows, seed, f"{judge_model}|{dimension}")
            found.append(EvidenceAgreement(
                judge_model=judge_model, dimension=dimension, signal=name, n=len(points),
                positives=positives, auc=auc, auc_ci=ci, point_biserial=biserial,
                p_value=p_value, note=note))
    return found
