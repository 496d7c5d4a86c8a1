"""Means per model x smell x difficulty x setting with seeded bootstrap intervals, error categories
per model, and paired comparisons of two models on the cases both were scored on.

Statistics, and why:

- A signal's mean in a group is over the rows where it was measured (None/NaN rows are left out,
  never counted as 0), so `n` can differ between signals of one group; a signal measured on no
  row of a group has no entry.
- Intervals: `scipy.stats.bootstrap`, percentile method, `N_RESAMPLES` resamples, 95%. Percentile
  rather than BCa because most signals are 0/1 or bounded shares in small groups, where BCa's
  jackknife acceleration is undefined (constant jackknife means) and its intervals turn NaN.
- A group's signals measured on the same rows are resampled together (one scipy call, shared
  indices), from a generator seeded by (`seed`, the group, those signals), so a group's intervals
  do not change when other models or rows are added, and equal input gives equal bytes.
- n = 1: no interval (None): one observation has no spread to resample. A constant sample: the
  interval is (mean, mean), which is what every resample would give, without resampling.
- Paired comparisons pair rows by (instance_id, setting), the first row of a pair key winning;
  the difference is B - A per pair, its interval the bootstrap of the mean difference (the paired
  bootstrap). Binary signals (`BINARY`) are tested with McNemar's exact test (a two-sided
  binomial test of the discordant pairs against 1/2), the others with the Wilcoxon signed-rank
  test (zero differences dropped, scipy's defaults). With no discordant pair, or every difference
  zero, there is nothing to test: p is None and `note` says why.
"""

from __future__ import annotations

import inspect
import zlib
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from smellkit.errors import UsageError
from smellkit.evaluate.reports.frame import ReportExtraMissing, frame
from smellkit.evaluate.score import ERROR_CATEGORIES, Score

try:
    import numpy as np
    import pandas as pd
    from scipy import stats
except ImportError as error:  # the `report` extra is not installed
    raise ReportExtraMissing(error.name or "pandas") from error

if TYPE_CHECKING:
    from numpy.typing import NDArray

    Floats = NDArray[np.float64]

ALL = "*"
"""The value of a dimension a marginal group is taken over (in every output: JSON, CSV, tables)."""
N_RESAMPLES = 2000
CONFIDENCE = 0.95
DIMENSIONS = ("model", "smell", "difficulty", "setting")
LEVELS: tuple[tuple[str, ...], ...] = (
    ("model",), ("model", "smell"), ("model", "difficulty"), ("model", "setting"), DIMENSIONS,
)
"""The groupings summarised: per model overall, per model x smell, x difficulty, x setting, and
the full model x smell x difficulty x setting cells."""
ORDER = {"difficulty": ("easy", "medium", "hard"), "setting": ("open", "guided", "targeted")}
"""Known values sort in this order (then the others by name), so tables read easy → hard."""

SIGNALS: dict[str, str] = {
    "resolved": "share of predictions resolved (each 0 or 1)",
    "applied": "share of patches that applied",
    "tpr": "test pass rate of the case's selected tests",
    "la": "localization accuracy (1: every target touched at its level)",
    "loc_precision": "share of touched definitions the case involves",
    "loc_recall": "share of the case's definitions touched",
    "residue": "findings of the smell left at its targets (fewer is better)",
    "checks_pass": "share of the case's structural checks that pass",
    "gt_f1": "F1 of the ground truth's definitions recovered",
    "gap_closed": "share of the smelly → original metric distance closed",
    "files_changed": "files the patch changed",
    "files_outside": "files changed outside those the case involves",
    "lines_outside": "changed lines outside the definitions the case involves",
    "equivalent": "share equivalent under differential testing (where it ran)",
    "judge_smell_elimination": "LLM judge: smell elimination, 0-10 (where judged)",
    "judge_cross_file_coordination": "LLM judge: cross-file coordination, 0-10",
    "judge_structural_soundness": "LLM judge: structural soundness, 0-10",
    "judge_code_quality": "LLM judge: code quality, 0-10",
    "adjusted_smell_elimination": "LLM judge's smell elimination after the cross-check",
    "adjusted_cross_file_coordination": "LLM judge's cross-file coordination after the "
                                        "cross-check",
    "adjusted_structural_soundness": "LLM judge's structural soundness after the cross-check",
    "adjusted_code_quality": "LLM judge's code quality after the cross-check",
    "judge_contradicted": "share of judge verdicts the evidence contradicts",
}
"""Every numeric signal summarised, in table order, with what its mean means."""
BINARY = frozenset({"resolved", "applied", "la", "equivalent"})
"""Signals that are 0 or 1 per prediction: paired with McNemar's test rather than Wilcoxon's."""


class Stat(BaseModel):
    """One signal's mean in one group, and its bootstrap interval (None when n = 1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    signal: str
    n: int
    mean: float
    ci_low: float | None
    ci_high: float | None


class Group(BaseModel):
    """The rows of one model x smell x difficulty x setting (`ALL` where taken over all)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    smell: str = ALL
    difficulty: str = ALL
    setting: str = ALL
    rows: int
    stats: tuple[Stat, ...]

    def stat(self, signal: str) -> Stat | None:
        return next((stat for stat in self.stats if stat.signal == signal), None)


class PairedStat(BaseModel):
    """B - A on one signal over the pairs where both measured it, and the paired test."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    signal: str
    n: int
    mean_a: float
    mean_b: float
    diff: float
    ci_low: float | None
    ci_high: float | None
    test: Literal["mcnemar_exact", "wilcoxon"]
    statistic: float | None
    """Wilcoxon's T, or for McNemar the smaller count of discordant pairs."""
    p_value: float | None
    discordant: tuple[int, int] | None = None
    """McNemar only: pairs where A was 1 and B 0, and where A was 0 and B 1."""
    note: str = ""
    """Why there is no test (p is None), when there is none."""


class Comparison(BaseModel):
    """Model B against model A on the cases both were scored on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model_a: str
    model_b: str
    pairs: int
    """(instance_id, setting) keys scored for both models."""
    stats: tuple[PairedStat, ...]


EQUIVALENCE_VERDICTS = ("equivalent", "not_equivalent", "inconclusive")
EQUIVALENCE_LEVELS: tuple[tuple[str, ...], ...] = (("model",), ("model", "smell"),
                                                   ("model", "difficulty"))


class VerdictCount(BaseModel):
    """How many predictions of one model (x smell, or x difficulty) got each equivalence
    verdict, and how many were scored without the check (`not_run`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    smell: str = ALL
    difficulty: str = ALL
    counts: dict[str, int]


class Summary(BaseModel):
    """Everything `summary.json` holds: how it was computed, the groups, errors, comparisons."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = 1
    rows: int
    models: tuple[str, ...]
    smells: tuple[str, ...]
    difficulties: tuple[str, ...]
    settings: tuple[str, ...]
    seed: int
    n_resamples: int
    confidence_level: float
    ci_method: Literal["percentile"] = "percentile"
    signals: dict[str, str]
    """Each summarised signal and what its mean means."""
    groups: tuple[Group, ...]
    errors: dict[str, dict[str, int]]
    """Per model: predictions in each error category (every category listed, in check order)."""
    comparisons: tuple[Comparison, ...]
    equivalence: tuple[VerdictCount, ...] = ()
    """Equivalence verdicts per model, per model x smell and per model x difficulty; empty
    when no prediction was checked (`smellkit evaluate --equivalence`)."""

    def group(self, model: str, smell: str = ALL, difficulty: str = ALL,
              setting: str = ALL) -> Group | None:
        key = (model, smell, difficulty, setting)
        return next((group for group in self.groups
                     if (group.model, group.smell, group.difficulty, group.setting) == key), None)

    def level(self, *dimensions: str) -> list[Group]:
        """The groups broken down by exactly `dimensions` (besides the model), in table order."""
        wanted = {"model", *dimensions}
        return [group for group in self.groups
                if {name for name in DIMENSIONS if getattr(group, name) != ALL} == wanted]


def _sort_key(dimension: str, value: str) -> tuple[int, int, str]:
    known = ORDER.get(dimension, ())
    return (value != ALL, known.index(value) if value in known else len(known), value)


def values_of(table: pd.DataFrame) -> Floats:
    """The signals as a rows x `SIGNALS` float matrix, NaN where not measured."""
    matrix = np.full((len(table), len(SIGNALS)), np.nan)
    for column, name in enumerate(SIGNALS):
        if name in table.columns:
            series = table[name]
            if str(series.dtype) == "boolean":
                series = series.astype("Float64")
            matrix[:, column] = series.to_numpy(dtype=np.float64, na_value=np.nan)
    return matrix


def _rng(seed: int, *key: str) -> np.random.Generator:
    """A generator for one interval: seeded by the run's seed and what the interval is of."""
    return np.random.default_rng([seed, zlib.crc32("\x1f".join(key).encode())])


_RNG_KEYWORD = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"
"""scipy 1.15 renamed `random_state` to `rng`; the extra allows 1.10."""


def interval(sample: Floats, rng: np.random.Generator, *, n_resamples: int = N_RESAMPLES,
             confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The percentile bootstrap interval of the mean; None for n < 2, (m, m) for a constant."""
    return intervals(sample[np.newaxis, :], rng, n_resamples=n_resamples,
                     confidence=confidence)[0]


def intervals(samples: Floats, rng: np.random.Generator, *, n_resamples: int = N_RESAMPLES,
              confidence: float = CONFIDENCE) -> list[tuple[float, float] | None]:
    """`interval` of each row of a signals x observations matrix, in one scipy call: the rows
    share the resampled indices, as signals measured on the same predictions should."""
    size = samples.shape[1]
    low, high = samples.min(axis=1), samples.max(axis=1)
    if size < 2:
        return [None] * len(samples)
    varied = low != high
    found: list[tuple[float, float] | None] = [(float(a), float(b)) for a, b in zip(low, high)]
    if varied.any():
        result = stats.bootstrap((samples[varied],), np.mean, n_resamples=n_resamples,
                                 confidence_level=confidence, method="percentile",
                                 vectorized=True, axis=-1, **{_RNG_KEYWORD: rng})
        bounds = result.confidence_interval
        for row, a, b in zip(np.flatnonzero(varied), np.atleast_1d(bounds.low),
                             np.atleast_1d(bounds.high)):
            found[row] = (float(a), float(b))
    return found


def _stats(values: Floats, key: tuple[str, ...], seed: int, n_resamples: int,
           confidence: float) -> tuple[Stat, ...]:
    """Each signal's n, mean and interval in one group; signals measured on the same rows are
    resampled together (seeded by the group and those signals' names)."""
    measured = ~np.isnan(values)
    batches: dict[bytes, list[int]] = {}
    for column in range(values.shape[1]):
        if measured[:, column].any():
            batches.setdefault(measured[:, column].tobytes(), []).append(column)
    found: dict[int, Stat] = {}
    names = list(SIGNALS)
    for columns in batches.values():
        samples = values[measured[:, columns[0]]][:, columns].T
        rng = _rng(seed, *key, *(names[column] for column in columns))
        for column, sample, bounds in zip(columns, samples, intervals(
                samples, rng, n_resamples=n_resamples, confidence=confidence)):
            found[column] = Stat(signal=names[column], n=len(sample), mean=float(sample.mean()),
                                 ci_low=bounds[0] if bounds else None,
                                 ci_high=bounds[1] if bounds else None)
    return tuple(found[column] for column in sorted(found))


def as_table(data: pd.DataFrame | Iterable[Score]) -> pd.DataFrame:
    """A DataFrame from `frame`/`load` as it is; Score rows made into one."""
    return data if isinstance(data, pd.DataFrame) else frame(data)


def _names(table: pd.DataFrame, dimension: str) -> tuple[str, ...]:
    return tuple(sorted({str(value) for value in table[dimension]},
                        key=lambda value: _sort_key(dimension, value)))


def summarise(data: pd.DataFrame | Iterable[Score], *,
              compare: tuple[str, str] | None = None, seed: int = 0,
              n_resamples: int = N_RESAMPLES, confidence: float = CONFIDENCE) -> Summary:
    """The summary of scored predictions: `compare` names the one pair of models to compare
    (B against A); without it every pair of models is compared, in name order."""
    table = as_table(data)
    values = values_of(table)
    keys = table[list(DIMENSIONS)].astype(str).to_numpy()
    groups: list[Group] = []
    for level in LEVELS:
        members: dict[tuple[str, ...], list[int]] = {}
        for row, names in enumerate(keys):
            key = tuple(name if dimension in level else ALL
                        for dimension, name in zip(DIMENSIONS, names))
            members.setdefault(key, []).append(row)
        for key in sorted(members, key=lambda key: [_sort_key(dimension, value) for
                                                     dimension, value in zip(DIMENSIONS, key)]):
            rows = members[key]
            groups.append(Group(model=key[0], smell=key[1], difficulty=key[2], setting=key[3],
                                rows=len(rows),
                                stats=_stats(values[rows], key, seed, n_resamples, confidence)))
    models = _names(table, "model")
    if compare is not None:
        missing = [name for name in compare if name not in models]
        if compare[0] == compare[1]:
            raise UsageError(f"cannot compare model {compare[0]!r} with itself",
                             hint="name two different models")
        if missing:
            raise UsageError(f"no scores of model {missing[0]!r} to compare",
                             hint=f"models scored: {', '.join(models) or 'none'}")
        pairs = [compare]
    else:
        pairs = list(combinations(models, 2))
    return Summary(
        rows=len(table), models=models, smells=_names(table, "smell"),
        difficulties=_names(table, "difficulty"), settings=_names(table, "setting"),
        seed=seed, n_resamples=n_resamples, confidence_level=confidence, signals=dict(SIGNALS),
        groups=tuple(groups), errors=error_counts(table), equivalence=verdict_counts(table),
        comparisons=tuple(_compare(table, values, a, b, seed, n_resamples, confidence)
                          for a, b in pairs))


def error_counts(data: pd.DataFrame | Iterable[Score]) -> dict[str, dict[str, int]]:
    """Per model (by name): how many predictions fell in each error category, all listed."""
    table = as_table(data)
    counts: dict[str, dict[str, int]] = {}
    for model, category in zip(table["model"].astype(str), table["error_category"].astype(str)):
        per_model = counts.setdefault(model, dict.fromkeys(ERROR_CATEGORIES, 0))
        per_model[category] = per_model.get(category, 0) + 1
    return {model: counts[model] for model in sorted(counts)}


def verdict_counts(data: pd.DataFrame | Iterable[Score]) -> tuple[VerdictCount, ...]:
    """The equivalence verdicts counted per model, model x smell and model x difficulty."""
    table = as_table(data)
    if "equivalence" not in table.columns or table["equivalence"].isna().all():
        return ()
    keys = table[list(DIMENSIONS)].astype(str).to_numpy()
    verdicts = [value if isinstance(value, str) else "not_run" for value in table["equivalence"]]
    found: list[VerdictCount] = []
    for level in EQUIVALENCE_LEVELS:
        counts: dict[tuple[str, ...], dict[str, int]] = {}
        for names, verdict in zip(keys, verdicts):
            key = tuple(name if dimension in level else ALL
                        for dimension, name in zip(DIMENSIONS[:3], names[:3]))
            per_key = counts.setdefault(key, dict.fromkeys((*EQUIVALENCE_VERDICTS, "not_run"),
                                                           0))
            per_key[verdict] = per_key.get(verdict, 0) + 1
        for key in sorted(counts, key=lambda key: [_sort_key(dimension, value) for
                                                    dimension, value in zip(DIMENSIONS, key)]):
            found.append(VerdictCount(model=key[0], smell=key[1], difficulty=key[2],
                                      counts=counts[key]))
    return tuple(found)


def _pair_rows(table: pd.DataFrame, a: str, b: str) -> tuple[list[int], list[int]]:
    """Row numbers of A and of B, aligned by (instance_id, setting), in key order."""
    first: dict[str, dict[tuple[str, str], int]] = {a: {}, b: {}}
    for row, (model, instance, setting) in enumerate(zip(
            table["model"].astype(str), table["instance_id"].astype(str),
            table["setting"].astype(str))):
        if model in first:
            first[model].setdefault((instance, setting), row)
    shared = sorted(first[a].keys() & first[b].keys())
    return [first[a][key] for key in shared], [first[b][key] for key in shared]


def mcnemar(a: Floats, b: Floats) -> tuple[float | None, tuple[int, int], str]:
    """McNemar's exact test of paired 0/1 outcomes: (p, (A-only, B-only), note)."""
    only_a = int(np.sum((a == 1) & (b == 0)))
    only_b = int(np.sum((a == 0) & (b == 1)))
    if only_a + only_b == 0:
        return None, (only_a, only_b), "no discordant pairs: the models agree on every case"
    return float(stats.binomtest(only_b, only_a + only_b, 0.5).pvalue), (only_a, only_b), ""


def wilcoxon(differences: Floats) -> tuple[float | None, float | None, str]:
    """The Wilcoxon signed-rank test of paired differences: (T, p, note)."""
    if not np.any(differences != 0):
        return None, None, "every difference is zero: nothing to test"
    result = stats.wilcoxon(differences)
    statistic, p_value = float(result.statistic), float(result.pvalue)
    if not np.isfinite(p_value):
        return None, None, "the test is undefined for these differences"
    return statistic, p_value, ""


def compare_models(data: pd.DataFrame | Iterable[Score], a: str, b: str, *, seed: int = 0,
                   n_resamples: int = N_RESAMPLES, confidence: float = CONFIDENCE) -> Comparison:
    """Model B against model A, signal by signal, on the cases both were scored on."""
    table = as_table(data)
    return _compare(table, values_of(table), a, b, seed, n_resamples, confidence)


def _compare(table: pd.DataFrame, matrix: Floats, a: str, b: str, seed: int, n_resamples: int,
             confidence: float) -> Comparison:
    rows_a, rows_b = _pair_rows(table, a, b)
    found = []
    for column, name in enumerate(SIGNALS):
        xa, xb = matrix[rows_a, column], matrix[rows_b, column]
        both = ~(np.isnan(xa) | np.isnan(xb))
        xa, xb = xa[both], xb[both]
        if not len(xa):
            continue
        differences = xb - xa
        bounds = interval(differences, _rng(seed, a, b, name), n_resamples=n_resamples,
                          confidence=confidence)
        binary = name in BINARY and bool(np.all(np.isin(np.concatenate([xa, xb]), (0.0, 1.0))))
        discordant: tuple[int, int] | None = None
        if binary:
            p_value, discordant, note = mcnemar(xa, xb)
            statistic: float | None = float(min(discordant)) if p_value is not None else None
        else:
            statistic, p_value, note = wilcoxon(differences)
        found.append(PairedStat(
            signal=name, n=len(xa), mean_a=float(xa.mean()), mean_b=float(xb.mean()),
            diff=float(differences.mean()), ci_low=bounds[0] if bounds else None,
            ci_high=bounds[1] if bounds else None,
            test="mcnemar_exact" if binary else "wilcoxon", statistic=statistic,
            p_value=p_value, discordant=discordant, note=note))
    return Comparison(model_a=a, model_b=b, pairs=len(rows_a), stats=tuple(found))


def csv_rows(summary: Summary) -> Sequence[dict[str, Any]]:
    """`summary.csv`'s rows: one per group x signal, in the summary's order."""
    return [{"model": group.model, "smell": group.smell, "difficulty": group.difficulty,
             "setting": group.setting, "signal": stat.signal, "n": stat.n, "mean": stat.mean,
             "ci_low": stat.ci_low, "ci_high": stat.ci_high}
            for group in summary.groups for stat in group.stats]
