"""The evaluate reports with the judge's columns, when verdicts.jsonl sits beside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.judge.conftest import score, write_scores

pytest.importorskip("pandas")


def test_load_adds_the_judge_columns_averaged_over_judge_models(tmp_path: Path):
    from smellkit.evaluate.reports.frame import JUDGE_COLUMNS, load

    folder = write_scores(tmp_path, [score("a"), score("b"), score("c")])
    rows = [{"instance_id": score("a").instance_id, "model": "a", "judge_model": judge,
             "scores": {"smell_elimination": se}, "adjusted": {"smell_elimination": adj},
             "trust": trust, "overall": 5.0, "agreement": 1.0}
            for judge, se, adj, trust in (("j1", 9, 3, "contradicted"),
                                          ("j2", 7, 7, "consistent"))]
    rows.append({"instance_id": score("b").instance_id, "model": "b", "judge_model": "j1",
                 "scores": {"smell_elimination": 4}, "adjusted": {}, "trust": "unverifiable"})
    (folder / "verdicts.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    table = load(folder).set_index("model")
    assert set(JUDGE_COLUMNS) <= set(table.columns)
    assert table.loc["a", "judge_smell_elimination"] == 8
    assert table.loc["a", "adjusted_smell_elimination"] == 5
    assert table.loc["a", "judge_contradicted"] == 0.5
    assert table.loc["b", "judge_smell_elimination"] == 4
    assert table[["judge_contradicted"]].loc["b"].isna().all()  # unverifiable: not counted
    assert table.loc[["c"], JUDGE_COLUMNS].isna().all(axis=None)  # not judged


def test_without_verdicts_the_frame_is_unchanged(tmp_path: Path):
    from smellkit.evaluate.reports.frame import columns, load

    folder = write_scores(tmp_path, [score("a")])
    assert list(load(folder).columns) == columns()
