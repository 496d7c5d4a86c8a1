"""`smellkit evaluate`: score every prediction of a dataset into `OUT/scores.jsonl`.

Per repository, once: its spec (`workspace.find_specs`), the checkout and environment from the
build's cache, the runner, the original code's analysis. Per case, once, when its first
prediction is scored: the smelly tree, its analysis and the signals' per-case work; let go when
its last prediction is done. Per prediction: `scoring.score_prediction`. Predictions are scored by
a bounded pool of threads (tests run in subprocesses) in case order, so about `jobs` cases are
held in memory at a time.

`OUT/scores.jsonl` gets one row per prediction as soon as it is scored, through the kill-safe
`JsonlLog`: a run killed at any moment loses no finished row, and a rerun scores only the
(instance_id, model) pairs without one. Inputs that cannot be scored (a malformed line, an
unknown instance id, a duplicate) are listed in `OUT/input_errors.jsonl` and the rest is scored;
predictions whose repository or case cannot be prepared are listed there too (`not_scored`) and
get no row, so a rerun after the fix scores them. `OUT/run.json` says what the run did.
"""

from __future__ import annotations

import fcntl
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from smellkit._internal.jsonl import JsonlLog, write_atomic, write_jsonl
from smellkit.errors import SmellkitError, UsageError
from smellkit.evaluate.inputs import gather_predictions, repos_instances
from smellkit.evaluate.inputs.dataset import DatasetRead, EvalCase, match, read_dataset
from smellkit.evaluate.inputs.predictions import BASELINES, Prediction
from smellkit.evaluate.scoring import ScoreOptions, score_prediction
from smellkit.evaluate.workspace import (
    CaseStore,
    Repository,
    Signals,
    SpecSource,
    find_specs,
    load_signals,
    missing_spec,
    prepare_repository,
    revision_problem,
)
from smellkit.sandbox.runners import RunnerName

if TYPE_CHECKING:
    from smellkit.evaluate.equivalence import EquivalenceOptions

Progress = Callable[[str, int, "int | None"], None]
"""Called as `progress(description, done, total)` (the build's callback, `StageBars`)."""
SCORES = "scores.jsonl"
INPUT_ERRORS = "input_errors.jsonl"
RUN = "run.json"
Pair = tuple[Prediction, EvalCase]


def pair_key(instance_id: str, model: str) -> str:
    return f"{instance_id}\0{model}"


def row_key(row: dict[str, Any]) -> str | None:
    """A scores.jsonl row's identity: (instance_id, model)."""
    instance_id, model = row.get("instance_id"), row.get("model")
    if isinstance(instance_id, str) and isinstance(model, str):
        return pair_key(instance_id, model)
    return None


class EvaluateReport(BaseModel):
    """What one `smellkit evaluate` run did (`OUT/run.json`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    out_dir: str
    dataset: str
    cases: int
    models: tuple[str, ...] = ()
    predictions: int = 0
    """Predictions read and matched to a case (baselines included)."""
    scored: int = 0
    """Rows written by this run."""
    reused: int = 0
    """Predictions that had a row from an earlier run (not scored again)."""
    not_scored: int = 0
    """Predictions left without a row: their repository or case could not be prepared."""
    input_errors: int = 0
    """Dataset rows and prediction records that could not be used (`input_errors.jsonl`)."""
    problems: dict[str, str] = Field(default_factory=dict)
    """Repository or instance id -> why its predictions were not scored."""
    missing: dict[str, int] = Field(default_factory=dict)
    """Model -> cases of the dataset it has no prediction for."""
    signals: bool = True
    """Whether the signals module was there (without it: apply and test signals only)."""
    timings: dict[str, float] = Field(default_factory=dict)
    """Seconds: `repositories` (checkouts, environments, runners), `original_code` (its
    analysis), `scoring` (wall time), `prepare_case_median` (one case's smelly code analysis
    and the signals' preparation)."""
    seconds: float = 0.0
    exit_code: int = 0
    """0 when every prediction read has a row; else the exit code of the first problem."""


@contextmanager
def _exclusive(out: Path) -> Iterator[None]:
    """One run per output folder: two would score the same predictions twice."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".evaluate.lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            raise UsageError("another smellkit evaluate is writing to this folder",
                             path=out, hint="wait for it to end, or give another -o") from error
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def evaluate(dataset: Path | str, predictions: Sequence[Path | str] = (),
             out_dir: Path | str = "scores", *, baselines: Sequence[str] = (),
             repos: Path | str | None = None, harbor_jobs: Path | str | None = None,
             jobs: int = 2, runner: RunnerName | None = None, full_suite: bool = False,
             tests: bool = True, specs: Sequence[Path | str] = (),
             cache_dir: Path | str | None = None, signals: Signals | None = None,
             progress: Progress | None = None,
             equivalence: EquivalenceOptions | None = None) -> EvaluateReport:
    """Score the predictions (files, `repos`, `harbor_jobs`, `baselines`) of `dataset` (a
    build's output folder or a dataset file) into `out_dir`; returns the run's report.

    `specs` are repo spec files replacing those the build recorded; `cache_dir` is where
    checkouts and environments are (default: the cache the build recorded, else
    `DATASET_DIR/cache`). `tests=False` runs no test (static signals only); `signals` replaces
    the signals module. `equivalence` turns differential testing on (it needs the tests'
    environment: `tests` must be on). Raises SmellkitError only when the inputs as a whole are
    unusable (no dataset, an unreadable `--spec`, bad arguments).
    """
    started = time.perf_counter()
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if not (predictions or baselines or repos is not None or harbor_jobs is not None):
        raise UsageError("nothing to score", hint="give prediction files, --repos, "
                                                  "--harbor-jobs or --baseline oracle|noop")
    unknown = [kind for kind in baselines if kind not in BASELINES]
    if unknown:
        raise UsageError(f"unknown baseline {unknown[0]!r}", hint=f"one of {', '.join(BASELINES)}")
    if equivalence is not None and not tests:
        raise UsageError("--equivalence runs the code: it cannot be combined with --no-tests")
    if not Path(dataset).exists():
        raise UsageError("no such dataset", path=dataset, hint="give the output folder of "
                         "`smellkit build`, which holds dataset.jsonl, or a dataset file")
    out = Path(out_dir).resolve()
    with _exclusive(out):
        data = read_dataset(dataset)
        folder = Path(dataset) if Path(dataset).is_dir() else Path(dataset).parent
        sources, broken = find_specs(folder.resolve(), specs)
        run = _Run(out=out, data=data, dataset_dir=folder.resolve(), sources=sources,
                   broken=broken, notify=progress or (lambda description, done, total: None),
                   tests=tests, runner=runner, cache_dir=cache_dir,
                   store=CaseStore(out / "work"))
        shutil.rmtree(out / "work", ignore_errors=True)  # left by a killed run
        trees = run.smelly_trees(repos_instances(repos))
        read = gather_predictions(data, predictions, baselines=baselines, repos=repos,
                                  harbor_jobs=harbor_jobs, smelly_trees=trees)
        matched = match(read, data)
        run.input_rows = [{"kind": "dataset", **error.model_dump(mode="json")}
                          for error in data.errors]
        run.input_rows += [{"kind": "predictions", **error.model_dump(mode="json")}
                           for error in (*read.errors, *matched.errors)]
        run.write_errors()
        scores = JsonlLog(out / SCORES, key=row_key)
        order = {case.instance_id: number for number, case in enumerate(data.cases)}
        if equivalence is not None:
            _refuse_rows_without_equivalence(scores, out)
        pending = sorted((pair for pair in matched.pairs
                          if pair_key(pair[0].instance_id, pair[0].model) not in scores),
                         key=lambda pair: order[pair[1].instance_id])
        if equivalence is not None and equivalence.cache is None:
            # what no prediction changes is kept per case, for the next run too
            equivalence = replace(equivalence, cache=out / "cache" / "equivalence")
        chosen = signals if signals is not None else load_signals()
        run.store.signals = chosen
        run.score(run.scorable(pending), scores, jobs,
                  ScoreOptions(tests=tests, full_suite=full_suite, scratch=out / "work",
                               equivalence=equivalence),
                  chosen)
        shutil.rmtree(out / "work", ignore_errors=True)
        run.write_errors()
        codes = [error.exit_code for error in run.problems.values()]
        report = EvaluateReport(
            out_dir=str(out), dataset=data.path, cases=len(data.cases), models=read.models,
            predictions=len(matched.pairs), scored=run.scored,
            reused=len(matched.pairs) - len(pending), not_scored=run.not_scored,
            input_errors=len(run.input_rows),
            problems={key: str(error) for key, error in run.problems.items()},
            missing={model: len(ids) for model, ids in matched.missing.items() if ids},
            signals=chosen is not None, timings=run.timings,
            seconds=round(time.perf_counter() - started, 2),
            exit_code=codes[0] if codes else 0)
        write_atomic(out / RUN, report.model_dump_json(indent=2) + "\n")
        return report


def _refuse_rows_without_equivalence(scores: JsonlLog, out: Path) -> None:
    """A rerun reuses finished rows: rows scored without equivalence would stay without it."""
    if any(row.get("equivalence") is None for row in scores):
        raise UsageError("the rows already in this folder were scored without --equivalence, "
                         "and a rerun keeps finished rows", path=out / SCORES,
                         hint="give another -o folder to score with --equivalence")


@dataclass
class _Run:
    """One evaluation's state between its steps."""

    out: Path
    data: DatasetRead
    dataset_dir: Path
    sources: dict[str, SpecSource]
    broken: dict[str, str]
    notify: Progress
    tests: bool
    runner: RunnerName | None
    cache_dir: Path | str | None
    store: CaseStore
    problems: dict[str, SmellkitError] = field(default_factory=dict)
    """Repository or instance id -> why its predictions cannot be scored."""
    input_rows: list[dict[str, Any]] = field(default_factory=list)
    not_scored: int = 0
    scored: int = 0
    timings: dict[str, float] = field(default_factory=dict)

    def _time(self, stage: str, since: float) -> None:
        self.timings[stage] = round(self.timings.get(stage, 0.0) + time.perf_counter() - since,
                                    3)

    def repository(self, name: str) -> Repository | None:
        """The repository its cases name, prepared on first use (checkout, environment, runner,
        the original code); None, with the problem kept, when it cannot be."""
        if name in self.store.repositories or name in self.problems:
            return self.store.repositories.get(name)
        source = self.sources.get(name)
        if source is None:
            self.problems[name] = missing_spec(name, self.dataset_dir, self.broken)
            return None
        cache = Path(self.cache_dir) if self.cache_dir is not None else \
            source.cache if source.cache is not None and source.cache.is_dir() else \
            self.dataset_dir / "cache"
        started = time.perf_counter()
        self.notify(f"{name}: preparing the repository", 0, None)
        try:
            repository = prepare_repository(source, cache.resolve(), self.out / "cache" / "facts",
                                            runner=self.runner, tests=self.tests)
        except SmellkitError as error:
            problem = SmellkitError(f"repository {name!r}: {error}")
            problem.exit_code = error.exit_code
            self.problems[name] = problem
            return None
        finally:
            self._time("repositories", started)
        self.store.repositories[name] = repository
        return repository

    def usable(self, case: EvalCase) -> bool:
        """Whether `case` can be scored: its repository is prepared and the spec names the code
        the case was built from."""
        if case.instance_id in self.problems or self.repository(case.repo) is None:
            return False
        spec = self.store.repositories[case.repo].spec
        problem = revision_problem(case, spec)
        if problem is not None:
            self.problems[case.instance_id] = SmellkitError(
                problem, path=self.sources[case.repo].origin)
        return problem is None

    def smelly_trees(self, instance_ids: set[str]) -> dict[str, Path]:
        """Smelly trees of the cases a `--repos` folder has final repositories for."""
        trees = {}
        for case in self.data.cases:
            if case.instance_id in instance_ids and self.usable(case):
                try:
                    trees[case.instance_id] = self.store.smelly_tree(case)
                except SmellkitError as error:
                    self.problems[case.instance_id] = error
        return trees

    def scorable(self, pending: list[Pair]) -> list[Pair]:
        """The pending predictions whose case can be scored; the original code of each
        repository is loaded here, before the pool starts."""
        found = []
        for prediction, case in pending:
            if not self.usable(case):
                self.not_scored += 1
                continue
            repository = self.store.repositories[case.repo]
            if case.source_path not in repository.originals:
                started = time.perf_counter()
                self.notify(f"{case.repo}: loading the original code", 0, None)
                repository.original(case.source_path)
                self._time("original_code", started)
            found.append((prediction, case))
        return found

    def score(self, pairs: list[Pair], scores: JsonlLog, jobs: int, options: ScoreOptions,
              signals: Signals | None) -> None:
        """Score `pairs` with `jobs` threads, each row written as soon as it is made."""
        self.store.expect(case for _, case in pairs)
        (self.out / "work").mkdir(parents=True, exist_ok=True)
        lock = threading.Lock()
        done = 0
        started = time.perf_counter()
        self.notify("scoring", 0, len(pairs))

        def one(prediction: Prediction, case: EvalCase) -> None:
            nonlocal done
            try:
                try:
                    prepared = self.store.get(case)
                except Exception as error:  # the smelly patch does not apply, a disk is full
                    problem = error if isinstance(error, SmellkitError) else SmellkitError(
                        f"{case.instance_id}: preparing the case failed: "
                        f"{type(error).__name__}: {error}")
                    with lock:
                        self.problems.setdefault(case.instance_id, problem)
                        self.not_scored += 1
                    return
                row = score_prediction(prepared, prediction, signals, options)
                scores.append(row.model_dump(mode="json"))
                with lock:
                    self.scored += 1
            finally:
                self.store.done(case)
                with lock:
                    done += 1
                    self.notify("scoring", done, len(pairs))

        pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="score")
        try:
            for future in [pool.submit(one, prediction, case) for prediction, case in pairs]:
                future.result()
        except BaseException:  # Ctrl-C: start nothing new; rows already written stay
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        self._time("scoring", started)
        if self.store.preparing:
            times = sorted(self.store.preparing)
            self.timings["prepare_case_median"] = round(times[len(times) // 2], 3)

    def write_errors(self) -> None:
        """`input_errors.jsonl`: the inputs that could not be used, then what was not scored."""
        problems = [{"kind": "not_scored", "key": key, "message": str(error)}
                    for key, error in self.problems.items()]
        write_jsonl(self.out / INPUT_ERRORS, [*self.input_rows, *problems])
