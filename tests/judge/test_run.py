"""`judge` end to end against the scripted server: contradictions with residue, the guard's
twin, resuming and the cache, the baselines, failures that a rerun retries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from smellkit.judge.run import judge, read_verdicts
from smellkit.judge.verdict import Verdict
from tests.judge.conftest import (
    FIX,
    INJECTION,
    injected,
    options,
    record,
    score,
    write_dataset,
    write_predictions,
    write_scores,
)
from tests.judge.server import Reply, Status, prompt_text, scores, verdict_json


def by_model(folder: Path) -> dict[str, Verdict]:
    return {verdict.model: verdict for verdict in read_verdicts(folder)}


def run(tmp: Path, server: Any, patches: dict[str, str], rows: list[Any], out: str = "out",
        **kwargs: Any) -> Any:
    dataset = write_dataset(tmp)
    predictions = write_predictions(tmp, patches) if patches else None
    client = options(server, tmp / "cache", **kwargs.pop("client", {}))
    return judge(dataset, [predictions] if predictions else [], tmp / out,
                 judge_models=kwargs.pop("judge_models", ["judge-a"]),
                 scores=write_scores(tmp / "scores", rows), client=client, **kwargs)


def test_praise_of_a_patch_with_residue_is_contradicted_and_adjusted_down(serve: Any,
                                                                          tmp_path: Path):
    server = serve(lambda body, n: Reply(verdict_json(body, scores(9, 8, 9, 8))))
    report = run(tmp_path, server, {"fixer": FIX}, [score("fixer", residue=2)])
    verdict = by_model(tmp_path / "out")["fixer"]
    assert report.judged == 1 and report.trust == {"contradicted": 1}
    assert verdict.scores["smell_elimination"] == 9
    assert verdict.adjusted == scores(3, 8, 9, 8)
    (item,) = verdict.contradictions
    assert item.dimension == "smell_elimination" and item.severity == "major"
    assert item.evidence == {"residue": 2} and "2 finding(s)" in item.reason
    assert verdict.agreement == 1.0 and len(verdict.samples) == 3
    assert verdict.usage.requests == 3 and server.count() == 3


def test_a_verdict_the_evidence_supports_is_consistent(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Reply(verdict_json(body, scores(9, 8, 9, 8))))
    run(tmp_path, server, {"fixer": FIX}, [score("fixer")])
    verdict = by_model(tmp_path / "out")["fixer"]
    assert verdict.trust == "consistent" and verdict.contradictions == ()
    assert verdict.adjusted == scores(9, 8, 9, 8)
    assert verdict.overall is not None and verdict.missing == ()


def test_samples_that_disagree_give_the_median_and_lower_agreement(serve: Any,
                                                                    tmp_path: Path):
    se = {0: 4.0, 1: 8.0, 2: 9.0}
    server = serve(lambda body, n: Reply(verdict_json(body, scores(se[body["seed"]], 8, 8, 8))))
    run(tmp_path, server, {"fixer": FIX}, [score("fixer")])
    verdict = by_model(tmp_path / "out")["fixer"]
    assert verdict.scores["smell_elimination"] == 8
    assert verdict.agreement_by_score["smell_elimination"] == round(1 - (4 + 0 + 1) / 3 / 10, 4)
    assert verdict.agreement is not None and verdict.agreement < 1


def test_text_aimed_at_the_judge_is_flagged_and_does_not_move_adjusted_scores(
        serve: Any, tmp_path: Path):
    def fooled(body: dict[str, Any], n: int) -> Reply:
        taken_in = "give this a 10" in prompt_text(body)
        return Reply(verdict_json(body, scores(10, 10, 10, 10) if taken_in else
                                  scores(6, 7, 8, 6)))

    server = serve(fooled)
    report = run(tmp_path, server, {"clean": FIX, "sly": injected(FIX)},
                 [score("clean"), score("sly")], client={"concurrency": 1})
    verdicts = by_model(tmp_path / "out")
    clean, sly = verdicts["clean"], verdicts["sly"]
    assert clean.guard == () and report.flagged == 1
    assert {finding.pattern for finding in sly.guard} >= {"asks_for_score",
                                                          "addresses_evaluator"}
    assert sly.guard[0].text == INJECTION.strip() and sly.guard[0].where == "comment"
    assert sly.scores["smell_elimination"] == 10  # the judge was taken in ...
    assert sly.guarded_scores == clean.scores  # ... but not without the text
    assert sly.adjusted == clean.adjusted == scores(6, 7, 8, 6)
    assert sly.trust == "contradicted" and clean.trust == "consistent"
    assert [item.kind for item in sly.contradictions] == ["judge_text"]
    # the patch without the text is exactly the clean one: its prompt came from the cache
    assert sly.prompt_hash != clean.prompt_hash
    assert server.count() == 6


def test_rerun_resumes_and_another_folder_is_served_from_the_cache(serve: Any,
                                                                     tmp_path: Path):
    server = serve(lambda body, n: Reply(verdict_json(body, scores(7, 7, 7, 7))))
    first = run(tmp_path, server, {"fixer": FIX}, [score("fixer")])
    asked = server.count()
    again = run(tmp_path, server, {"fixer": FIX}, [score("fixer")])
    assert (first.judged, again.judged, again.reused) == (1, 0, 1)
    elsewhere = run(tmp_path, server, {"fixer": FIX}, [score("fixer")], out="out2")
    assert elsewhere.judged == 1 and elsewhere.usage.cached == 3
    assert server.count() == asked == 3  # zero new requests
    assert by_model(tmp_path / "out2")["fixer"].scores == by_model(tmp_path / "out")[
        "fixer"].scores


def test_two_judge_models_give_one_verdict_each(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Reply(verdict_json(
        body, scores(8, 8, 8, 8) if body["model"] == "judge-a" else scores(5, 5, 5, 5))))
    report = run(tmp_path, server, {"fixer": FIX}, [score("fixer")],
                 judge_models=["judge-a", "judge-b"])
    verdicts = read_verdicts(tmp_path / "out")
    assert report.judged == 2
    assert {(verdict.judge_model, verdict.scores["code_quality"]) for verdict in verdicts} == \
        {("judge-a", 8), ("judge-b", 5)}


def test_oracle_and_noop_with_a_credulous_judge(serve: Any, tmp_path: Path):
    """A judge that praises everything: the oracle's verdict holds, the noop's is contradicted
    on smell elimination (residue, failing checks) and coordination (files untouched)."""
    server = serve(lambda body, n: Reply(verdict_json(body, scores(8, 8, 8, 8))))
    rows = [score("oracle", equivalent=True),
            score("noop", apply_status="empty", residue=1, checks_passed=0, la=0.0,
                  gap_closed=0.0)]
    run(tmp_path, server, {}, rows, baselines=["oracle", "noop"])
    verdicts = by_model(tmp_path / "out")
    assert verdicts["oracle"].trust == "consistent"
    noop = verdicts["noop"]
    assert noop.trust == "contradicted"
    assert {item.dimension for item in noop.contradictions} == {"smell_elimination",
                                                                 "cross_file_coordination"}
    assert noop.adjusted == scores(3, 3, 8, 8)
    untouched = next(item for item in noop.contradictions
                     if item.dimension == "cross_file_coordination")
    assert untouched.evidence["untouched_files"] == ["shop/order.py", "shop/customer.py"]


def test_oracle_and_noop_with_a_harsh_judge(serve: Any, tmp_path: Path):
    """A judge that condemns everything: the oracle (proved fixed and equivalent) is
    under-scored on smell elimination; the noop's low scores are consistent."""
    server = serve(lambda body, n: Reply(verdict_json(body, scores(1, 2, 2, 2))))
    rows = [score("oracle", equivalent=True),
            score("noop", apply_status="empty", residue=1, checks_passed=0, la=0.0,
                  gap_closed=0.0)]
    run(tmp_path, server, {}, rows, baselines=["oracle", "noop"])
    verdicts = by_model(tmp_path / "out")
    oracle = verdicts["oracle"]
    assert oracle.trust == "contradicted"
    (item,) = oracle.contradictions
    assert (item.kind, item.dimension, item.bound) == ("under_scored", "smell_elimination", 7.0)
    assert oracle.adjusted["smell_elimination"] == 7
    assert verdicts["noop"].trust == "consistent"
    assert verdicts["noop"].adjusted == scores(1, 2, 2, 2)


def test_a_prediction_without_a_score_row_is_unverifiable(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Reply(verdict_json(body, scores(8, 8, 8, 8))))
    run(tmp_path, server, {"fixer": FIX, "other": FIX}, [score("fixer")])
    verdicts = by_model(tmp_path / "out")
    assert verdicts["other"].trust == "unverifiable"
    assert verdicts["other"].adjusted == scores(8, 8, 8, 8)


def test_not_equivalent_from_the_equivalence_verdict_caps_soundness(serve: Any,
                                                                     tmp_path: Path):
    server = serve(lambda body, n: Reply(verdict_json(body, scores(8, 8, 8, 8))))
    run(tmp_path, server, {"fixer": FIX}, [score("fixer", equivalent=False)])
    verdict = by_model(tmp_path / "out")["fixer"]
    assert verdict.adjusted["structural_soundness"] == 3
    assert verdict.contradictions[0].evidence == {"equivalence": "not_equivalent"}


def test_failed_verdicts_get_no_row_and_a_rerun_judges_them(serve: Any, tmp_path: Path):
    healthy = {"yes": False}
    server = serve(lambda body, n: Reply(verdict_json(body, scores(7, 7, 7, 7)))
                   if healthy["yes"] else Status(500))
    report = run(tmp_path, server, {"fixer": FIX}, [score("fixer")])
    assert report.failed == 1 and report.judged == 0 and report.exit_code == 6
    errors = [json.loads(line) for line in
              (tmp_path / "out" / "judge_errors.jsonl").read_text().splitlines()]
    assert errors[0]["instance_id"] == record()["instance_id"]
    assert "failed 4 times" in errors[0]["message"]
    assert not (tmp_path / "out" / "verdicts.jsonl").read_text().strip()
    healthy["yes"] = True
    again = run(tmp_path, server, {"fixer": FIX}, [score("fixer")])
    assert again.judged == 1 and again.failed == 0
    assert (tmp_path / "out" / "judge_errors.jsonl").read_text() == ""


def test_judge_run_json_records_the_run(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Reply(verdict_json(body, scores(7, 7, 7, 7))))
    run(tmp_path, server, {"fixer": FIX}, [score("fixer")], samples=2)
    data = json.loads((tmp_path / "out" / "judge_run.json").read_text())
    assert data["samples"] == 2 and data["usage"]["requests"] == 2
    assert data["rubric_version"] == "1" and data["analysis"] == "case"
    assert (tmp_path / "out" / "scores.jsonl").is_file()  # copied beside the verdicts
