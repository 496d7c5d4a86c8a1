"""The reports count the equivalence verdicts per model, smell and difficulty."""

from __future__ import annotations

from typing import Any

from smellkit.evaluate.reports import summary_tables
from smellkit.evaluate.reports.aggregate import ALL, summarise
from smellkit.evaluate.score import Score


def _score(smell: str, difficulty: str, verdict: Any) -> Score:
    return Score(instance_id=f"{smell}-{difficulty}-{verdict}", model="m", smell=smell,
                 difficulty=difficulty, equivalence=verdict,
                 equivalent={"equivalent": True, "not_equivalent": False}.get(verdict))


def test_verdicts_are_counted_per_smell_and_difficulty() -> None:
    scores = [_score("dead_code", "easy", "equivalent"),
              _score("dead_code", "hard", "not_equivalent"),
              _score("god_class", "easy", "inconclusive"),
              _score("god_class", "easy", None)]
    summary = summarise(scores, n_resamples=50)
    counts = {(item.smell, item.difficulty): item.counts for item in summary.equivalence}
    assert counts[ALL, ALL] == {"equivalent": 1, "not_equivalent": 1, "inconclusive": 1,
                                "not_run": 1}
    assert counts["dead_code", ALL]["not_equivalent"] == 1
    assert counts[ALL, "easy"] == {"equivalent": 1, "not_equivalent": 0, "inconclusive": 1,
                                   "not_run": 1}
    (table,) = [table for table in summary_tables(summary)
                if table.title == "Equivalence verdicts"]
    assert len(table.rows) == len(summary.equivalence) == 1 + 2 + 2


def test_no_table_without_equivalence() -> None:
    summary = summarise([_score("dead_code", "easy", None)], n_resamples=50)
    assert summary.equivalence == ()
    assert "Equivalence verdicts" not in [table.title for table in summary_tables(summary)]
