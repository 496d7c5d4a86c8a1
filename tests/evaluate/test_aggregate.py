"""Aggregation: exact means, bootstrap intervals that behave (contain the mean, narrow with n,
are stable for a seed, survive n = 1 and constant samples), paired comparisons on constructed
pairs with a known answer, and the clear error when the `report` extra is missing."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
from collections.abc import Callable

import pytest

pytest.importorskip("pandas")
pytest.importorskip("scipy")

from scipy import stats

from smellkit.errors import UsageError
from smellkit.evaluate.reports.aggregate import (
    ALL,
    BINARY,
    SIGNALS,
    Summary,
    compare_models,
    error_counts,
    summarise,
)
from smellkit.evaluate.reports.frame import INSTALL_HINT, ReportExtraMissing, frame
from smellkit.evaluate.score import ERROR_CATEGORIES, Score, categorise
from tests.evaluate.synthetic_scores import MODELS, SMELLS, synthetic_scores


@pytest.fixture(scope="module")
def rows() -> list[Score]:
    return synthetic_scores(cases=3)


@pytest.fixture(scope="module")
def summary(rows: list[Score]) -> Summary:
    return summarise(rows)


def _signal(score: Score, name: str) -> float | None:
    if name == "checks_pass":
        return score.checks_passed / score.checks_total if score.checks_total and \
            score.checks_passed is not None else None
    value = getattr(score, name)
    return None if value is None else float(value)


def _mean_of(rows: list[Score], keep: Callable[[Score], bool], name: str) -> tuple[int, float]:
    values = [v for row in rows if keep(row) and (v := _signal(row, name)) is not None]
    return len(values), sum(values) / len(values)


def test_groups_cover_every_level(summary: Summary) -> None:
    assert summary.models == MODELS
    assert summary.smells == SMELLS
    assert summary.difficulties == ("easy", "medium", "hard")  # known order, not by name
    assert [group.model for group in summary.level()] == list(MODELS)
    assert len(summary.level("smell")) == len(MODELS) * len(SMELLS)
    assert len(summary.level("difficulty")) == len(MODELS) * 3
    assert len(summary.level("setting")) == len(MODELS) * 2
    assert len(summary.level("smell", "difficulty", "setting")) == len(MODELS) * len(SMELLS) * 6
    cell = summary.group("beta", "god_class", "hard", "targeted")
    assert cell is not None and cell.rows == 3


@pytest.mark.parametrize("signal", [name for name in SIGNALS  # the judge's: tests/judge
                                    if not name.startswith(("judge_", "adjusted_"))])
def test_means_and_counts_are_exact(rows: list[Score], summary: Summary, signal: str) -> None:
    checked = 0
    for model in MODELS:
        for smell in (ALL, "feature_envy", "dead_code"):
            for difficulty in (ALL, "medium"):
                def keep(row: Score, model: str = model, smell: str = smell,
                         difficulty: str = difficulty) -> bool:
                    return row.model == model and smell in (ALL, row.smell) and \
                        difficulty in (ALL, row.difficulty)

                group = summary.group(model, smell, difficulty)
                if smell != ALL and difficulty != ALL:
                    continue  # not a level of its own: covered by the full cells
                assert group is not None
                stat = group.stat(signal)
                if not any(keep(row) and _signal(row, signal) is not None for row in rows):
                    assert stat is None  # never measured: no entry, not a made-up 0
                    continue
                assert stat is not None
                n, mean = _mean_of(rows, keep, signal)
                assert (stat.n, stat.mean) == (n, pytest.approx(mean, rel=1e-12, abs=1e-12))
                checked += 1
    assert checked or signal == "equivalent"


def test_unmeasured_rows_are_left_out_of_a_signal(summary: Summary, rows: list[Score]) -> None:
    group = summary.group("alpha")
    assert group is not None
    resolved, tpr = group.stat("resolved"), group.stat("tpr")
    assert resolved is not None and tpr is not None
    assert resolved.n == group.rows == sum(row.model == "alpha" for row in rows)
    assert tpr.n == sum(row.model == "alpha" and row.tpr is not None for row in rows) < resolved.n


def test_every_interval_contains_its_mean(summary: Summary) -> None:
    for group in summary.groups:
        for stat in group.stats:
            if stat.n >= 2:
                assert stat.ci_low is not None and stat.ci_high is not None
                assert stat.ci_low - 1e-9 <= stat.mean <= stat.ci_high + 1e-9, (group, stat)


def test_intervals_narrow_as_n_grows() -> None:
    overall = {}
    for cases in (1, 4, 16):
        rows = synthetic_scores(cases=cases, models=("alpha",), settings=("guided",))
        overall[cases] = summarise(rows).group("alpha")

    def width(cases: int, signal: str) -> float:
        group = overall[cases]
        stat = group.stat(signal) if group else None
        assert stat is not None and stat.ci_low is not None and stat.ci_high is not None
        return stat.ci_high - stat.ci_low

    for signal in ("resolved", "tpr", "gap_closed"):
        assert width(1, signal) > width(4, signal) > width(16, signal)


def test_seeded_output_is_stable(rows: list[Score], summary: Summary) -> None:
    assert summarise(rows) == summary
    assert summarise(rows, seed=0).model_dump_json() == summary.model_dump_json()
    other = summarise(rows, seed=1)
    assert [stat.mean for group in other.groups for stat in group.stats] == \
        [stat.mean for group in summary.groups for stat in group.stats]
    assert [stat.ci_low for group in other.groups for stat in group.stats] != \
        [stat.ci_low for group in summary.groups for stat in group.stats]


def test_a_groups_interval_does_not_depend_on_other_rows(rows: list[Score],
                                                          summary: Summary) -> None:
    alone = summarise([row for row in rows if row.model == "beta"])
    for group in alone.groups:
        assert summary.group(group.model, group.smell, group.difficulty,
                             group.setting) == group


def test_one_row_has_no_interval_and_a_constant_sample_a_point() -> None:
    one = categorise(Score(instance_id="x-1", model="m", smell="god_class", difficulty="easy",
                           applied=True, apply_status="applied", tests_passed=3, tests_total=4,
                           tpr=0.75, la=1.0, residue=0))
    summary = summarise([one])
    stat = summary.groups[0].stat("tpr")
    assert stat is not None and (stat.n, stat.mean, stat.ci_low, stat.ci_high) == \
        (1, 0.75, None, None)

    same = [one.model_copy(update={"instance_id": f"x-{i}"}) for i in range(6)]
    group = summarise(same).group("m")
    assert group is not None
    for name in ("tpr", "resolved", "residue"):
        stat = group.stat(name)
        assert stat is not None and stat.n == 6 and stat.ci_low == stat.ci_high == stat.mean


def test_a_dataframe_gives_the_same_summary(rows: list[Score], summary: Summary) -> None:
    assert summarise(frame(rows)) == summary


def test_summary_round_trips_through_json(summary: Summary) -> None:
    assert Summary.model_validate_json(summary.model_dump_json()) == summary


def test_error_counts_list_every_category(rows: list[Score], summary: Summary) -> None:
    assert list(summary.errors) == list(MODELS)
    for model, counts in summary.errors.items():
        assert tuple(counts) == ERROR_CATEGORIES
        assert sum(counts.values()) == sum(row.model == model for row in rows)
        assert counts["resolved"] == sum(row.model == model and row.resolved for row in rows)
    assert error_counts(rows) == summary.errors


def test_every_pair_is_compared_unless_one_is_named(rows: list[Score],
                                                    summary: Summary) -> None:
    assert [(c.model_a, c.model_b) for c in summary.comparisons] == \
        [("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma")]
    named = summarise(rows, compare=("gamma", "alpha"))
    assert [(c.model_a, c.model_b) for c in named.comparisons] == [("gamma", "alpha")]
    with pytest.raises(UsageError, match="no scores of model 'delta'"):
        summarise(rows, compare=("alpha", "delta"))
    with pytest.raises(UsageError, match="with itself"):
        summarise(rows, compare=("alpha", "alpha"))


# -- paired comparisons on constructed pairs ---------------------------------------------------

def _pair(n: int, shift: float, *, seed: int = 3) -> list[Score]:
    """Model A with random signals; model B the same on every case, gap_closed and tpr + shift."""
    rng = random.Random(seed)
    rows = []
    for case in range(n):
        gap, tpr = rng.uniform(-0.2, 0.6), rng.uniform(0.0, 0.7)
        common = {"instance_id": f"case-{case}", "smell": "dead_code", "difficulty": "easy",
                  "setting": "guided", "applied": True, "apply_status": "applied",
                  "la": 1.0, "residue": case % 2, "files_changed": 2, "files_involved": 2}
        rows.append(categorise(Score(model="a", gap_closed=gap, tpr=tpr, **common)))
        rows.append(categorise(Score(model="b", gap_closed=gap + shift, tpr=tpr + shift,
                                     **common)))
    return rows


def test_a_known_difference_is_found() -> None:
    comparison = compare_models(_pair(30, 0.2), "a", "b")
    assert comparison.pairs == 30
    for name in ("gap_closed", "tpr"):
        stat = next(stat for stat in comparison.stats if stat.signal == name)
        assert stat.n == 30 and stat.test == "wilcoxon"
        assert stat.diff == pytest.approx(0.2)
        assert stat.mean_b - stat.mean_a == pytest.approx(0.2)
        assert stat.ci_low is not None and stat.ci_low > 0
        assert stat.ci_low == pytest.approx(0.2) and stat.ci_high == pytest.approx(0.2)
        assert stat.p_value is not None and stat.p_value < 1e-4


def test_identical_models_differ_by_nothing_and_are_not_tested() -> None:
    comparison = compare_models(_pair(12, 0.0), "a", "b")
    assert comparison.stats
    for stat in comparison.stats:
        assert stat.diff == 0 and stat.ci_low == stat.ci_high == 0
        assert stat.p_value is None and stat.note
    resolved = next(stat for stat in comparison.stats if stat.signal == "resolved")
    assert resolved.test == "mcnemar_exact" and resolved.discordant == (0, 0)
    assert "no discordant pairs" in resolved.note


def test_mcnemar_on_a_constructed_table() -> None:
    """2 pairs only A resolved, 8 only B, 5 both, 5 neither: exact p = P(X <= 2 | 10, 1/2) x 2."""
    table = [(1, 0)] * 2 + [(0, 1)] * 8 + [(1, 1)] * 5 + [(0, 0)] * 5
    rows = []
    for case, outcomes in enumerate(table):
        for model, outcome in zip("ab", outcomes):
            rows.append(Score(instance_id=f"c{case}", model=model, smell="god_class",
                              resolved=bool(outcome), applied=True,
                              error_category="resolved" if outcome else "incomplete_fix"))
    stat = next(stat for stat in compare_models(rows, "a", "b").stats
                if stat.signal == "resolved")
    assert stat.test == "mcnemar_exact" and stat.discordant == (2, 8) and stat.n == 20
    assert stat.p_value == pytest.approx(2 * (1 + 10 + 45) / 1024)
    assert stat.p_value == pytest.approx(stats.binomtest(8, 10, 0.5).pvalue)
    assert stat.diff == pytest.approx((13 - 7) / 20)
    assert stat.statistic == 2


def test_wilcoxon_matches_scipy_on_the_paired_differences() -> None:
    rng = random.Random(11)
    rows = []
    for case in range(25):
        for model in "ab":
            rows.append(Score(instance_id=f"c{case}", model=model, smell="god_class",
                              gt_f1=round(rng.random(), 4)))
    stat = next(stat for stat in compare_models(rows, "a", "b").stats if stat.signal == "gt_f1")
    a = [row.gt_f1 for row in rows if row.model == "a"]
    b = [row.gt_f1 for row in rows if row.model == "b"]
    expected = stats.wilcoxon([y - x for x, y in zip(a, b) if x is not None and y is not None])
    assert (stat.statistic, stat.p_value) == (pytest.approx(expected.statistic),
                                              pytest.approx(expected.pvalue))


def test_pairs_are_the_cases_both_models_were_scored_on() -> None:
    rows = _pair(10, 0.1)
    rows = [row for row in rows if not (row.model == "a" and row.instance_id == "case-0")]
    rows.append(Score(instance_id="case-3", model="b", smell="dead_code", setting="targeted",
                      tpr=0.0))  # another setting: no partner
    rows.append(rows[1].model_copy(update={"tpr": 0.99}))  # a duplicate: the first row wins
    comparison = compare_models(rows, "a", "b")
    assert comparison.pairs == 9
    tpr = next(stat for stat in comparison.stats if stat.signal == "tpr")
    assert tpr.diff == pytest.approx(0.1)


def test_binary_signals_are_the_zero_one_ones() -> None:
    assert {"resolved", "applied", "la", "equivalent"} == BINARY
    assert set(SIGNALS) >= BINARY


# -- the optional extra ------------------------------------------------------------------------

@pytest.mark.parametrize("blocked", ["scipy", "pandas", "numpy"])
def test_a_missing_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch,
                                                blocked: str) -> None:
    monkeypatch.setitem(sys.modules, blocked, None)  # `import blocked` now raises ImportError
    for name in ("smellkit.evaluate.reports.aggregate", "smellkit.evaluate.reports.plots",
                 "smellkit.evaluate.reports"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.raises(ReportExtraMissing) as caught:
        importlib.import_module("smellkit.evaluate.reports")
    assert INSTALL_HINT in str(caught.value)
    assert INSTALL_HINT == "install smellkit[report] for summaries and plots"


def test_load_without_pandas_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: object) -> None:
    import smellkit.evaluate

    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ReportExtraMissing, match=r"pandas is not installed \(install "
                                                 r"smellkit\[report\]"):
        smellkit.evaluate.load(str(tmp_path))


def test_importing_evaluate_imports_none_of_the_extra() -> None:
    code = ("import sys, smellkit.evaluate, smellkit.evaluate.score; "
            "print(sorted(m for m in ('pandas', 'matplotlib', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
