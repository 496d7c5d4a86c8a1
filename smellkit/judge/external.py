"""`smellkit crosscheck`: verdicts of any judge (`foreign`), held to the scores of the same
predictions without calling a model, written as `OUT/verdicts.jsonl` in the judge's own row
format (`source` says whose verdict it was).

A verdict names its prediction by instance id and, when the file says so, the predictions'
model; otherwise `model` (the option) is used, else the one model scored on that instance. A
verdict that cannot be matched (an unknown instance, no Score row to say which model, two
models to choose from) is listed in `OUT/crosscheck_errors.jsonl` with the fix. Given the
predictions too, the cross-check also knows which involved files each patch left untouched.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from smellkit._internal.jsonl import write_atomic, write_jsonl
from smellkit.evaluate.inputs import gather_predictions
from smellkit.evaluate.inputs.dataset import read_dataset
from smellkit.evaluate.reports.frame import SCORES_FILE, read_scores
from smellkit.judge.analysis import involved_files
from smellkit.judge.crosscheck import crosscheck
from smellkit.judge.evidence import Evidence
from smellkit.judge.foreign import ForeignVerdict, read_foreign
from smellkit.judge.rubric import VERSION
from smellkit.judge.summary import write_summary
from smellkit.judge.verdict import VERDICTS, Verdict

CROSSCHECK_ERRORS = "crosscheck_errors.jsonl"
CROSSCHECK_RUN = "crosscheck_run.json"


class CrosscheckReport(BaseModel):
    """What one `smellkit crosscheck` did (`OUT/crosscheck_run.json`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    out_dir: str
    verdicts_file: str
    read: int
    """Verdicts read from the file."""
    checked: int
    """Verdicts matched to a prediction and written."""
    errors: int
    trust: dict[str, int] = Field(default_factory=dict)
    sources: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0
    exit_code: int = 0


def crosscheck_verdicts(dataset: Path | str, scores_dir: Path | str, verdicts: Path | str,
                        out_dir: Path | str, *, model: str | None = None,
                        judge_model: str | None = None,
                        predictions: Sequence[Path | str] = ()) -> CrosscheckReport:
    """Cross-check the verdicts in the file `verdicts` against `scores_dir/scores.jsonl`."""
    started = time.perf_counter()
    out = Path(out_dir)
    data = read_dataset(dataset)
    cases = data.by_id()
    rows = read_scores(scores_dir)
    by_key = {(row.instance_id, row.model): row for row in rows}
    models_of: dict[str, list[str]] = {}
    for row in rows:
        models_of.setdefault(row.instance_id, []).append(row.model)
    patches = {(item.instance_id, item.model): item.patch
               for item in gather_predictions(data, predictions).predictions} \
        if predictions else {}
    read, problems = read_foreign(verdicts, judge_model=judge_model)
    errors = [{"kind": "verdict", **problem.model_dump()} for problem in problems]
    found: list[Verdict] = []

    def fail(item: ForeignVerdict, message: str) -> None:
        errors.append({"kind": "unmatched", "path": str(verdicts), "line": item.line,
                       "instance_id": item.instance_id, "message": message})

    for item in read:
        case = cases.get(item.instance_id)
        if case is None:
            fail(item, f"unknown instance id (not in {data.path})")
            continue
        name = item.model or model
        if name is None:
            scored = models_of.get(item.instance_id, [])
            if len(scored) != 1:
                fail(item, "the verdict does not say which predictions it judged and "
                     + ("no model was scored on this instance" if not scored else
                        f"{len(scored)} models were ({', '.join(scored)})")
                     + "; name the model with --model")
                continue
            name = scored[0]
        score = by_key.get((item.instance_id, name))
        evidence = None if score is None else Evidence.from_score(
            score, involved=involved_files(case), patch=patches.get((item.instance_id, name)))
        checked = crosscheck(item.scores, evidence)
        found.append(Verdict(
            instance_id=item.instance_id, model=name, judge_model=item.judge_model,
            smell=case.smell, difficulty=case.difficulty, scores=item.scores,
            adjusted=checked.adjusted, trust=checked.trust,
            contradictions=checked.contradictions, checked=checked.checked,
            justifications=item.justifications, summary=item.summary,
            rubric_version=VERSION, source=item.source, weighted_score=item.weighted_score))
    write_jsonl(out / VERDICTS, [verdict.model_dump(mode="json") for verdict in found])
    write_jsonl(out / CROSSCHECK_ERRORS, errors)
    if Path(scores_dir).resolve() != out.resolve():
        write_atomic(out / SCORES_FILE, (Path(scores_dir) / SCORES_FILE).read_text())
    write_summary(out, found, rows)
    trust: dict[str, int] = {}
    sources: dict[str, int] = {}
    for verdict in found:
        trust[verdict.trust] = trust.get(verdict.trust, 0) + 1
        sources[verdict.source] = sources.get(verdict.source, 0) + 1
    report = CrosscheckReport(
        out_dir=str(out.resolve()), verdicts_file=str(verdicts), read=len(read),
        checked=len(found), errors=len(errors), trust=trust, sources=sources,
        seconds=round(time.perf_counter() - started, 2), exit_code=1 if errors else 0)
    write_atomic(out / CROSSCHECK_RUN, report.model_dump_json(indent=2) + "\n")
    return report
