"""`smellkit judge`: judge every prediction of a dataset with one or more judge models, hold each
verdict to the scorer's evidence, and write `OUT/verdicts.jsonl`.

Score rows: by default the judge runs the scoring itself (`smellkit.evaluate.scorer.evaluate`
into the same folder: `OUT/scores.jsonl`, resumable, rows already there are reused), so a
verdict is never cross-checked against scores of other predictions. With `scores=DIR` the rows
of an earlier `smellkit evaluate` are read instead (nothing is scored) and copied to
`OUT/scores.jsonl` when OUT is another folder, so OUT holds what its reports summarise.

Per prediction and judge model: the smell analysis (`analysis`), the guard (`guard`), the
prompt (`prompt`), N samples through the client (median per score, agreement), a second set of
samples on the guarded patch when the guard found text aimed at the judge, the cross-check
(`crosscheck`). Each verdict is appended to `verdicts.jsonl` (kill-safe) as soon as it is made;
a rerun judges only the (instance, model, judge model) triples without one. A triple whose
samples all failed (the server refused, every reply invalid) gets no row: it is listed in
`judge_errors.jsonl` and judged again by the next run. `judge_run.json` says what the run did;
`judge_summary.json`/`.md` summarise every verdict of the folder (`summary`).
"""

from __future__ import annotations

import fcntl
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from smellkit._internal.jsonl import JsonlLog, write_atomic, write_jsonl
from smellkit.errors import SmellkitError, UsageError
from smellkit.evaluate.inputs import gather_predictions
from smellkit.evaluate.inputs.dataset import EvalCase, match, read_dataset
from smellkit.evaluate.inputs.predictions import BASELINES, Prediction
from smellkit.evaluate.reports.frame import SCORES_FILE, read_scores
from smellkit.evaluate.score import Score
from smellkit.judge.analysis import (
    SmellAnalysis,
    case_analysis,
    involved_files,
    model_analysis,
    smelly_code,
)
from smellkit.judge.client import ClientOptions, JudgeClient, Usage
from smellkit.judge.crosscheck import Contradiction, CrossCheck, crosscheck
from smellkit.judge.errors import JudgeError
from smellkit.judge.evidence import Evidence
from smellkit.judge.guard import Guarded, guard
from smellkit.judge.prompt import Prompt, build_prompt
from smellkit.judge.reply import Combined, Parsed, ReplyError, combine, parse_reply
from smellkit.judge.rubric import GENERAL, VERSION
from smellkit.judge.summary import write_summary
from smellkit.judge.verdict import VERDICTS, Verdict, verdict_key

Progress = Callable[[str, int, "int | None"], None]
AnalysisKind = Literal["case", "model"]
JUDGE_ERRORS = "judge_errors.jsonl"
JUDGE_RUN = "judge_run.json"
MOVED_BY_TEXT = 2.0
"""A general score that moves this much when the text aimed at the judge is taken out makes
the verdict `contradicted`: the text worked on the judge."""


class JudgeReport(BaseModel):
    """What one `smellkit judge` run did (`OUT/judge_run.json`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    out_dir: str
    judge_models: tuple[str, ...]
    base_url: str | None
    samples: int
    rubric_version: str
    analysis: str
    scores_from: str
    """`evaluate` (scored by this run) or the folder the Score rows were read from."""
    predictions: int
    judged: int
    """Verdicts written by this run."""
    reused: int
    """Verdicts an earlier run had written."""
    failed: int
    """Triples left without a verdict (`judge_errors.jsonl`); a rerun tries them again."""
    trust: dict[str, int] = Field(default_factory=dict)
    """Verdicts of this folder by trust level."""
    flagged: int = 0
    """Verdicts whose prediction holds text aimed at the judge."""
    usage: Usage = Field(default_factory=Usage)
    """What this run spent (replies served from the cache are counted under `cached`)."""
    seconds: float = 0.0
    exit_code: int = 0


def smell_description(smell: str) -> str:
    from smellkit.detectors.registry import smells

    declared = smells().get(smell)
    return declared.description if declared is not None else smell.replace("_", " ")


@dataclass
class Judging:
    """What every verdict of a run shares."""

    client: JudgeClient
    samples: int
    analysis: AnalysisKind = "case"
    analysis_model: str | None = None
    _analyses: dict[str, SmellAnalysis] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def analysis_of(self, case: EvalCase) -> SmellAnalysis:
        with self._lock:
            known = self._analyses.get(case.instance_id)
        if known is not None:
            return known
        description = smell_description(case.smell)
        if self.analysis == "model":
            assert self.analysis_model is not None
            try:
                made = model_analysis(case, description, self.client, self.analysis_model)
            except ReplyError as error:
                raise JudgeError(f"{case.instance_id}: the smell analysis of "
                                 f"{self.analysis_model} is invalid after the repair request: "
                                 f"{error}", hint="try another --analysis-model, or "
                                                  "--analysis case") from error
        else:
            made = case_analysis(case, description)
        with self._lock:
            self._analyses[case.instance_id] = made
        return made

    def sample(self, prompt: Prompt, model: str, usage: Usage
               ) -> tuple[Combined, list[Parsed], list[str], str]:
        """N samples of one prompt: (combined, valid samples, errors, prompt hash)."""
        parsed: list[Parsed] = []
        errors: list[str] = []
        digest = ""
        for index in range(self.samples):
            try:
                outcome = self.client.ask(
                    prompt.messages, model=model, sample=index, schema=prompt.schema,
                    schema_name="verdict", validate=lambda text: parse_reply(text,
                                                                             prompt.expected))
            except ReplyError as error:
                errors.append(f"sample {index}: invalid reply after the repair request: {error}")
                continue
            usage.add(outcome.usage)
            digest = outcome.prompt_hash
            parsed.append(outcome.value)
        return combine(parsed, prompt.expected), parsed, errors, digest

    def verdict(self, prediction: Prediction, case: EvalCase, score: Score | None,
                judge_model: str) -> Verdict:
        """One prediction judged by one model and cross-checked. Raises JudgeError when no
        sample gave a valid reply."""
        analysis = self.analysis_of(case)
        guarded = guard(prediction.patch)
        description = smell_description(case.smell)

        def prompt_for(diff: str) -> Prompt:
            return build_prompt(smell=case.smell, description=description,
                                difficulty=case.difficulty, analysis=analysis, diff=diff,
                                code=smelly_code(case))

        usage = Usage()
        combined, parsed, errors, digest = self.sample(prompt_for(guarded.normal), judge_model,
                                                       usage)
        if not parsed:
            raise JudgeError(f"{case.instance_id} / {prediction.model} / {judge_model}: no "
                             "valid reply: " + "; ".join(errors))
        guarded_scores = None
        basis = combined.scores
        if guarded.findings:
            clean, clean_parsed, clean_errors, _ = self.sample(prompt_for(guarded.patch),
                                                               judge_model, usage)
            errors += [f"guarded patch: {error}" for error in clean_errors]
            if clean_parsed:
                guarded_scores = basis = clean.scores
        evidence = Evidence.from_score(score, involved=involved_files(case),
                                       patch=prediction.patch) if score is not None else None
        checked = crosscheck(basis, evidence)
        checked = _with_guard(checked, guarded, combined.scores, guarded_scores)
        return Verdict(
            instance_id=case.instance_id, model=prediction.model, judge_model=judge_model,
            smell=case.smell, difficulty=case.difficulty, scores=combined.scores,
            overall=combined.overall, adjusted=checked.adjusted, trust=checked.trust,
            contradictions=checked.contradictions, checked=checked.checked,
            agreement=combined.agreement, agreement_by_score=combined.agreement_by_key,
            samples=[sample.scores for sample in parsed], sample_errors=errors,
            missing=combined.missing, justifications=parsed[0].justifications,
            summary=parsed[0].summary, guard=guarded.findings, guarded_scores=guarded_scores,
            usage=usage, rubric_version=VERSION, prompt_hash=digest,
            analysis_source=analysis.source)


def _with_guard(checked: CrossCheck, guarded: Guarded, raw: dict[str, float],
                clean: dict[str, float] | None) -> CrossCheck:
    """Add the guard's finding to the cross-check: major when the text moved a general score
    by `MOVED_BY_TEXT` or more (it worked on the judge), minor otherwise."""
    if not guarded.findings:
        return checked
    moved = {key: raw[key] - clean[key] for key in GENERAL
             if clean is not None and key in raw and key in clean}
    worked = any(abs(delta) >= MOVED_BY_TEXT for delta in moved.values())
    where = "; ".join(f"{item.path}:{item.line} {item.text[:80]!r}"
                      for item in guarded.findings[:3])
    item = Contradiction(
        dimension="*", kind="judge_text", severity="major" if worked else "minor",
        reason=f"the prediction holds text addressed to the evaluator ({where})"
               + (f"; it moved the judge's scores by {moved}" if worked else ""),
        evidence={"findings": [finding.model_dump() for finding in guarded.findings],
                  "moved": moved})
    trust = "contradicted" if worked and checked.trust != "unverifiable" else checked.trust
    return checked.model_copy(update={"contradictions": (*checked.contradictions, item),
                                      "trust": trust})


def _scores(dataset: Path | str, predictions: Sequence[Path | str], out: Path,
            baselines: Sequence[str], scores: Path | str | None,
            evaluate_options: dict[str, Any], progress: Progress | None
            ) -> tuple[list[Score], str]:
    if scores is not None:
        rows = read_scores(scores)
        source = Path(scores).resolve()
        if source != out:
            out.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / SCORES_FILE, out / SCORES_FILE)
        return rows, str(source)
    from smellkit.evaluate.scorer import evaluate

    report = evaluate(dataset, predictions, out, baselines=baselines, progress=progress,
                      **evaluate_options)
    if report.exit_code and not (out / SCORES_FILE).is_file():
        raise JudgeError("scoring wrote no rows, so there is nothing to cross-check",
                         path=out / "input_errors.jsonl", hint="see why there")
    return read_scores(out), "evaluate"


def judge(dataset: Path | str, predictions: Sequence[Path | str] = (),
          out_dir: Path | str = "verdicts", *, judge_models: Sequence[str],
          baselines: Sequence[str] = (), scores: Path | str | None = None, samples: int = 3,
          client: ClientOptions | JudgeClient | None = None, analysis: AnalysisKind = "case",
          analysis_model: str | None = None, evaluate_options: dict[str, Any] | None = None,
          progress: Progress | None = None) -> JudgeReport:
    """Judge the predictions (`predictions` files, `baselines`) of `dataset` with each of
    `judge_models` into `out_dir`; see the module docstring. `evaluate_options` go to
    `smellkit.evaluate.scorer.evaluate` when this run scores."""
    started = time.perf_counter()
    if not judge_models:
        raise UsageError("no judge model", hint="give --model (or set SMELLKIT_JUDGE_MODEL)")
    if samples < 1:
        raise UsageError("--samples must be at least 1")
    if not (predictions or baselines):
        raise UsageError("nothing to judge", hint="give prediction files or --baseline")
    unknown = [kind for kind in baselines if kind not in BASELINES]
    if unknown:
        raise UsageError(f"unknown baseline {unknown[0]!r}", hint=f"one of {', '.join(BASELINES)}")
    if analysis == "model" and not analysis_model:
        analysis_model = judge_models[0]
    out = Path(out_dir).resolve()
    with _exclusive(out):
        return _judge(dataset, predictions, out, judge_models, baselines, scores, samples,
                      client, analysis, analysis_model, evaluate_options, progress, started)


@contextmanager
def _exclusive(out: Path) -> Iterator[None]:
    """One judge run per output folder: two would ask for and write the same verdicts."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".judge.lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            raise UsageError("another smellkit judge is writing to this folder", path=out,
                             hint="wait for it to end, or give another -o") from error
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _judge(dataset: Path | str, predictions: Sequence[Path | str], out: Path,
           judge_models: Sequence[str], baselines: Sequence[str], scores: Path | str | None,
           samples: int, client: ClientOptions | JudgeClient | None, analysis: AnalysisKind,
           analysis_model: str | None, evaluate_options: dict[str, Any] | None,
           progress: Progress | None, started: float) -> JudgeReport:
    notify = progress or (lambda description, done, total: None)
    rows, scores_from = _scores(dataset, predictions, out, baselines, scores,
                                evaluate_options or {}, progress)
    data = read_dataset(dataset)
    read = gather_predictions(data, predictions, baselines=baselines)
    matched = match(read, data)
    pairs = matched.pairs
    inputs = [{"kind": "input", **error.model_dump(mode="json")}
              for error in (*read.errors, *matched.errors)]
    by_key = {(row.instance_id, row.model): row for row in rows}
    log = JsonlLog(out / VERDICTS, key=verdict_key)
    owned = client if isinstance(client, JudgeClient) else JudgeClient(client)
    job = Judging(client=owned, samples=samples, analysis=analysis, analysis_model=analysis_model)
    todo = [(prediction, case, model) for prediction, case in pairs for model in judge_models
            if f"{case.instance_id}\0{prediction.model}\0{model}" not in log]
    failures: list[dict[str, Any]] = []
    lock = threading.Lock()
    done = judged = 0
    notify("judging", 0, len(todo))

    def one(prediction: Prediction, case: EvalCase, model: str) -> None:
        nonlocal done, judged
        try:
            verdict = job.verdict(prediction, case,
                                  by_key.get((case.instance_id, prediction.model)), model)
            log.append(verdict.model_dump(mode="json"))
            with lock:
                judged += 1
        except Exception as error:  # one triple's failure, never the run's
            problem = error if isinstance(error, SmellkitError) else SmellkitError(
                f"judging failed: {type(error).__name__}: {error}")
            with lock:
                failures.append({"instance_id": case.instance_id, "model": prediction.model,
                                 "judge_model": model, "message": str(problem),
                                 "exit_code": problem.exit_code})
        finally:
            with lock:
                done += 1
                notify("judging", done, len(todo))

    workers = max(1, owned.options.concurrency)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge")
    try:
        for future in [pool.submit(one, *item) for item in todo]:
            future.result()
    except BaseException:  # Ctrl-C: start nothing new; verdicts already written stay
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    write_jsonl(out / JUDGE_ERRORS, [*inputs, *failures])
    (out / VERDICTS).touch()  # an empty file when nothing could be judged yet
    verdicts = [Verdict.model_validate(row) for row in log]
    write_summary(out, verdicts, rows)
    trust: dict[str, int] = {}
    for verdict in verdicts:
        trust[verdict.trust] = trust.get(verdict.trust, 0) + 1
    report = JudgeReport(
        out_dir=str(out), judge_models=tuple(judge_models), base_url=owned.base_url,
        samples=samples, rubric_version=VERSION,
        analysis=analysis if analysis == "case" else f"model:{analysis_model}",
        scores_from=scores_from, predictions=len(pairs), judged=judged,
        reused=len(pairs) * len(judge_models) - len(todo), failed=len(failures), trust=trust,
        flagged=sum(1 for verdict in verdicts if verdict.guard), usage=owned.totals,
        seconds=round(time.perf_counter() - started, 2),
        exit_code=failures[0]["exit_code"] if failures else 0)
    write_atomic(out / JUDGE_RUN, report.model_dump_json(indent=2) + "\n")
    return report


def read_verdicts(directory: Path | str) -> list[Verdict]:
    """The verdicts of `DIR/verdicts.jsonl` (a partial last line left out)."""
    from smellkit._internal.jsonl import read_jsonl

    path = Path(directory) / VERDICTS
    if not path.is_file():
        raise JudgeError("no verdicts.jsonl here", path=directory,
                         hint="run `smellkit judge` or `smellkit crosscheck` to write it")
    return [Verdict.model_validate(row) for row in read_jsonl(path)]
