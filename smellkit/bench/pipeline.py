"""`smellkit build SPEC`: discover → inject → validate → sample → export.

For each repository: fetch its source, prepare its environment, build its test map (all cached
and reused), then for every smell x difficulty inject at seeded candidates and validate the
injections in parallel, in rounds, until each cell has `per_cell + spare` validated cases or runs
out of candidates. Every outcome is appended durably to `OUT/work/outcomes.jsonl` as soon as it is
known, so a re-run (or a run after a kill) reuses them and only does what is left. The dataset,
the rejections, the Harbor tasks and the report are then written from those outcomes; they depend
only on the spec, the seed and the options, never on timing or on where a previous run stopped.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smellkit._internal.jsonl import JsonlLog, write_atomic, write_jsonl
from smellkit.bench import backend as backends
from smellkit.bench.harbor import HarborExport, HarborOptions
from smellkit.bench.sample import cell_order, sample, target_key
from smellkit.bench.validate import Validator
from smellkit.config import BUILT_SPECS, RepoSpec, load_repo_spec, spec_record
from smellkit.errors import SmellkitError, UsageError
from smellkit.formats.smellbench import from_row, to_row
from smellkit.models import (
    DIFFICULTIES,
    BuildReport,
    Candidate,
    CandidateReport,
    Case,
    Difficulty,
    Injection,
    InjectionFailure,
    InjectionSkip,
    Preexisting,
    Rejection,
)
from smellkit.sandbox.runners import RunnerName

if TYPE_CHECKING:
    from smellkit.graphs.index import Index

Progress = Callable[[str, int, "int | None"], None]
"""Called as `progress(description, done, total)`; total None while a stage has no count."""
SpecInput = Path | str | RepoSpec
"""A repo spec: its file, or the loaded model."""


def _quiet(description: str, done: int, total: int | None) -> None:
    """The default progress callback: says nothing."""


@dataclass
class _Cell:
    """One (smell, difficulty) of one repository: its injections, in seeded candidate order."""

    smell: str
    difficulty: Difficulty
    injections: Iterator[Injection]
    cases: list[Case] = field(default_factory=list)
    tried: int = 0
    exhausted: bool = False


@dataclass
class _Taken:
    """The targets one smell of one repository has injected at, so its difficulties use
    different ones. A target is held from its injection until validation rejects it (then
    another difficulty may try it). A held target is used again only once every fresh one has
    been tried: when the repository has fewer candidates that accept the difficulty than the
    smell has cells."""

    held: Counter[str] = field(default_factory=Counter)

    def holds(self, target: str) -> bool:
        return self.held[target] > 0

    def release(self, target: str) -> None:
        if self.held[target] > 0:
            self.held[target] -= 1


@dataclass
class _Run:
    """What one build accumulates across repositories."""

    out_dir: Path
    seed: int
    outcomes: JsonlLog
    progress: Progress
    backend: backends.Backend
    timings: dict[str, float] = field(default_factory=dict)
    cases: list[Case] = field(default_factory=list)
    rejections: dict[str, Rejection] = field(default_factory=dict)
    repo_errors: dict[str, str] = field(default_factory=dict)
    specs: dict[str, tuple[RepoSpec, Path]] = field(default_factory=dict)
    reused: int = 0
    candidates: dict[tuple[str, str], list[Candidate]] = field(default_factory=dict)
    """Candidates by (repository, smell): found once, shared by the smell's difficulties."""
    reports: dict[tuple[str, str], CandidateReport] = field(default_factory=dict)
    """How discovery went, by (repository, smell): the reason when no candidate is left."""
    preexisting: dict[tuple[str, str], Preexisting] = field(default_factory=dict)
    """The original's findings by (repository, smell), found once."""
    taken: dict[tuple[str, str], _Taken] = field(default_factory=dict)
    """Targets each (repository, smell) has injected at, across its difficulties."""

    def reject(self, rejection: Rejection, *, persist: bool = True) -> None:
        self.rejections[rejection.key] = rejection
        if persist:
            self.outcomes.append({"key": rejection.key, "kind": "rejection",
                                  "record": rejection.model_dump(mode="json")})

    def time(self, stage: str, started: float) -> None:
        self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - started


def build(spec: SpecInput | Sequence[SpecInput], out_dir: Path | str, *,
          seed: int = 0, jobs: int = 2, per_cell: int = 3, spare: int = 1,
          max_tries: int = 12, runner: RunnerName | None = None,
          smells: Sequence[str] | None = None, difficulties: Sequence[str] | None = None,
          progress: Progress | None = None, cache_dir: Path | str | None = None,
          test_limit: int = 10, options: Mapping[str, Mapping[str, Any]] | None = None,
          min_file_lines: int | None = None,
          exclude_from_injection: Sequence[str] | None = None,
          harbor: bool = True, harbor_options: HarborOptions | None = None,
          backend: backends.Backend | None = None) -> BuildReport:
    """Build a benchmark from one or more repo specs into `out_dir`; returns the report.

    `per_cell` cases are exported per smell x difficulty of each repository, chosen among up to
    `per_cell + spare` validated ones (at most `max_tries` injections validated per cell).
    `runner` is `local` or `docker` (tests run in a container without network); when None, the
    spec's `runner` if it has one, else `local`.
    `options` are injector options by smell (e.g. `{"dead_code": {"min-file-lines": 0}}`);
    they override the spec's `[injectors.<smell>]` tables, which override the defaults.
    `min_file_lines` sets that option of every smell (a smell's own `options` entry wins).
    `exclude_from_injection`: globs of code never injected into, instead of the spec's
    `exclude-from-injection` (None: the spec's, else the layout's defaults; `()`: none).
    `harbor_options` say how Harbor tasks are exported (base image, the agent's allowed hosts).
    A spec or repository that cannot be built is reported and the others still are.
    """
    started = time.perf_counter()
    if jobs < 1 or per_cell < 1 or spare < 0 or max_tries < 1:
        raise UsageError("jobs, per-cell and max-tries must be at least 1, spare at least 0")
    if min_file_lines is not None and min_file_lines < 0:
        raise UsageError("min-file-lines must be at least 0")
    backend = backend or backends.default_backend()
    backend.check_options(options or {}, None)
    known = backend.smells()
    chosen_smells = list(smells) if smells else list(known)
    for name in chosen_smells:
        if name not in known:
            raise UsageError(f"unknown smell {name!r}", hint=f"known: {', '.join(known)}")
    chosen_difficulties = [item for item in DIFFICULTIES
                           if difficulties is None or item in difficulties]
    for name in difficulties or ():
        if name not in DIFFICULTIES:
            raise UsageError(f"unknown difficulty {name!r}",
                             hint=f"known: {', '.join(DIFFICULTIES)}")
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cache = Path(cache_dir).resolve() if cache_dir is not None else out / "cache"
    run = _Run(out_dir=out, seed=seed, outcomes=JsonlLog(out / "work" / "outcomes.jsonl"),
               progress=progress or _quiet, backend=backend)
    specs = [spec] if isinstance(spec, (str, Path, RepoSpec)) else list(spec)
    for item in specs:
        _build_repo(run, item, cache, chosen_smells, chosen_difficulties, jobs=jobs,
                    per_cell=per_cell, spare=spare, max_tries=max_tries, runner=runner,
                    test_limit=test_limit, options=options or {},
                    min_file_lines=min_file_lines, exclude=exclude_from_injection)
    exporter = HarborExport(harbor_options, cache) if harbor else None
    return _export(run, chosen_smells, per_cell=per_cell, harbor=exporter, started=started)


def _load(run: _Run, item: SpecInput) -> RepoSpec | None:
    if isinstance(item, RepoSpec):
        return item
    try:
        return load_repo_spec(Path(item))
    except SmellkitError as error:
        run.repo_errors[str(item)] = f"broken spec: {error}"
        run.reject(Rejection(key=f"spec:{item}", repo=Path(item).stem, stage="spec",
                             reason=str(error)), persist=False)
        return None


def layered_options(smells: Sequence[str], spec: Mapping[str, Mapping[str, Any]],
                    min_file_lines: int | None, options: Mapping[str, Mapping[str, Any]],
                    spec_min_file_lines: int | None = None) -> dict[str, dict[str, Any]]:
    """The options of each smell, later layers winning: the spec's `min-file-lines`, the
    spec's table, then `min_file_lines` for every smell, then the caller's options."""
    def kebab(values: Mapping[str, Any]) -> dict[str, Any]:
        return {key.replace("_", "-"): value for key, value in values.items()}

    layered: dict[str, dict[str, Any]] = {}
    for smell in smells:
        values = {} if spec_min_file_lines is None else {"min-file-lines": spec_min_file_lines}
        values.update(kebab(spec.get(smell, {})))
        if min_file_lines is not None:
            values["min-file-lines"] = min_file_lines
        values.update(kebab(options.get(smell, {})))
        if values:
            layered[smell] = values
    return layered


def _exclusion(spec: RepoSpec, given: Sequence[str] | None) -> Sequence[str] | None:
    """Where injections may not go: the caller's globs, else the spec's; else nothing extra
    when the spec's `source-path` names the library's folder (all of it is library source),
    and None (the engine's default for the layout) when it analyses the whole checkout."""
    if given is not None:
        return given
    if spec.exclude_from_injection is not None:
        return spec.exclude_from_injection
    return () if spec.source_path.strip("./") else None


def _build_repo(run: _Run, item: SpecInput, cache: Path, smells: Sequence[str],
                difficulties: Sequence[Difficulty], *, jobs: int, per_cell: int, spare: int,
                max_tries: int, runner: RunnerName | None, test_limit: int,
                options: Mapping[str, Mapping[str, Any]], min_file_lines: int | None,
                exclude: Sequence[str] | None) -> None:
    spec = _load(run, item)
    if spec is None:
        return
    name = spec.name
    try:  # a bad table fails this repository before anything is fetched
        run.backend.check_options(spec.injectors, spec.spec_path)
    except SmellkitError as error:
        run.repo_errors[name] = f"broken spec: {error}"
        run.reject(Rejection(key=f"spec:{spec.spec_path or name}", repo=name, stage="spec",
                             reason=str(error)), persist=False)
        return
    smell_options = layered_options(smells, spec.injectors, min_file_lines, options,
                                    spec.min_file_lines)
    exclude = _exclusion(spec, exclude)
    backend = run.backend
    step = "fetching the source"
    try:
        started = time.perf_counter()
        run.progress(f"{name}: fetching", 0, None)
        checkout = backend.fetch(spec, cache)
        run.time("fetch", started)
        step = "preparing the environment"
        started = time.perf_counter()
        run.progress(f"{name}: preparing the environment", 0, None)
        env = backend.prepare(spec, checkout, cache)
        run.time("environment", started)
        step = "starting the runner"
        chosen_runner = backend.runner(runner or spec.runner or "local",
                                       spec, env, cache)
        step = "mapping tests to code on the clean version"
        started = time.perf_counter()
        run.progress(f"{name}: mapping tests to code", 0, None)
        test_map = backend.test_map(spec, env, checkout, chosen_runner, run.seed)
        run.time("test_map", started)
        if not test_map.tests:
            dropped = "; ".join(f"{test}: {why}" for test, why in
                                sorted(test_map.dropped.items())[:3])
            raise SmellkitError(f"no test passes on the clean version ({len(test_map.dropped)} "
                                f"dropped{': ' + dropped if dropped else ''})", path=checkout,
                                hint="fix the spec's install or test command")
        step = "loading the code"
        started = time.perf_counter()
        run.progress(f"{name}: loading the code", 0, None)
        project = backend.load_project(checkout / spec.source_path)
        run.time("load", started)
    except SmellkitError as error:
        run.repo_errors[name] = f"{step}: {error}"
        run.reject(Rejection(key=f"repository:{name}", repo=name, stage="repository",
                             reason=f"{step}: {error}"), persist=False)
        return
    run.specs[name] = (spec, checkout)
    write_atomic(run.out_dir / BUILT_SPECS / f"{name}.json",
                 json.dumps(spec_record(spec, cache), indent=2) + "\n")
    validator = Validator(spec=spec, env=env, checkout=checkout, test_map=test_map,
                          runner=chosen_runner, work_dir=run.out_dir / "work" / name,
                          seed=run.seed, limit=test_limit, run_tests=backend.run_tests,
                          apply_patch=backend.apply_patch, copy_tree=backend.copy_tree,
                          run_covered=backend.run_covered,
                          run_until_failure=backend.run_until_failure,
                          project=project)
    coverage = _Coverage(covered_with_owners(test_map.covered(), project.index),
                         test_map.line_coverage())
    cells = []
    for smell, difficulty in cell_order(smells):
        if difficulty in difficulties:  # cell_order yields DIFFICULTIES only
            cells.append(_Cell(smell, difficulty, _injections(
                run, spec, project, smell, difficulty, coverage, smell_options.get(smell),
                exclude)))
    _validate_cells(run, validator, cells, jobs=jobs, target=per_cell + spare,
                    max_tries=max_tries, project=project)
    for cell in cells:
        run.cases.extend(cell.cases)


def covered_with_owners(covered: frozenset[str], index: Index | None = None) -> frozenset[str]:
    """The test map covers functions and methods; a class (or module) counts as covered when
    code inside it is, so class-level candidates (god_class, interface_segregation) survive
    the engine's coverage filter. With the index, a class also counts when one of its
    subclasses does: an abstract interface runs no code of its own, its implementers do."""
    found = set(covered)
    for qualname in covered:
        found.update(_owners(qualname))
    if index is not None:
        for cls in index.classes:
            if cls not in found and any(item in found for item in index.descendants(cls)):
                found.add(cls)
                found.update(_owners(cls))
    return frozenset(found)


def _owners(qualname: str) -> list[str]:
    parts = qualname.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]


@dataclass(frozen=True)
class _Coverage:
    """What the test map says about the original, as candidate discovery uses it."""

    covered: frozenset[str]
    """Qualnames some healthy test runs, their owners included (`covered_with_owners`)."""
    lines: Mapping[str, float]
    """The share of each definition's statements the healthy tests run."""


def _digest(candidate: Candidate, options: Mapping[str, Any] | None) -> str:
    """The candidate, the injector options and the code that injects: an injection logged by
    other options or an older smellkit is made again on resume, never reused."""
    digest = hashlib.blake2b(candidate.model_dump_json().encode(), digest_size=6)
    digest.update(json.dumps(options or {}, sort_keys=True, default=str).encode())
    digest.update(_source_digest().encode())
    return digest.hexdigest()


@functools.cache
def _source_digest() -> str:
    """smellkit's own source (injectors, the analyses and detectors they consult, the models):
    any change to it may change what an injection produces."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _fresh_first(candidates: Sequence[Candidate], taken: _Taken) -> Iterator[Candidate]:
    """The candidates whose target no cell of the smell holds, in order (checked as they are
    reached, since the smell's cells advance in turn); then the ones passed over whose target
    was released since, then the held ones (the fresh ones did not fill the cell)."""
    passed: list[Candidate] = []
    for candidate in candidates:
        if taken.holds(candidate.target.qualname):
            passed.append(candidate)
        else:
            yield candidate
    released = [item for item in passed if not taken.holds(item.target.qualname)]
    yield from released  # rejected elsewhere since
    yield from (item for item in passed if item not in released)


def _injections(run: _Run, spec: RepoSpec, project: Any, smell: str, difficulty: Difficulty,
                coverage: _Coverage, options: Mapping[str, Any] | None,
                exclude: Sequence[str] | None) -> Iterator[Injection]:
    """Injections at the seeded candidates of one cell, made lazily and cached in the work log
    (so a resumed run does not redo them); refusals become `inject` rejections. A target used
    by another difficulty of the smell is passed over while fresh ones remain (`_Taken`): the
    order depends only on outcomes, so a resumed run takes the same targets."""
    backend = run.backend
    started = time.perf_counter()
    try:
        cache_key = (spec.name, smell)
        if cache_key not in run.candidates:
            found, report = backend.find_candidates(project, smell, coverage.covered,
                                                    coverage.lines, run.seed, options, exclude)
            run.candidates[cache_key] = found
            run.reports[cache_key] = report
            run.taken[cache_key] = _Taken()
        candidates = run.candidates[cache_key]
        taken = run.taken[cache_key]
    except SmellkitError as error:  # said on purpose (bad options, ...)
        run.reject(Rejection(key=f"{spec.name}|{smell}|{difficulty}|candidates", repo=spec.name,
                             stage="inject", smell=smell, difficulty=difficulty,
                             reason=f"candidate discovery failed: {error}"), persist=False)
        return
    except Exception as error:  # a crash: a bug, never a refusal
        crash = InjectionFailure.of(error, smell=smell, difficulty=difficulty, candidate=None)
        run.reject(Rejection(key=f"{spec.name}|{smell}|{difficulty}|candidates", repo=spec.name,
                             stage="internal", smell=smell, difficulty=difficulty,
                             reason=f"{crash.reason} (in candidate discovery)",
                             traceback=crash.traceback), persist=False)
        return
    finally:
        run.time("candidates", started)
    if not candidates:
        run.reject(Rejection(key=f"{spec.name}|{smell}|{difficulty}|candidates", repo=spec.name,
                             stage="inject", smell=smell, difficulty=difficulty,
                             reason=run.reports[cache_key].reason), persist=False)
        return
    seen: set[str] = set()
    for candidate in _fresh_first(candidates, taken):
        key = f"inject|{spec.name}|{smell}|{difficulty}|{run.seed}|{_digest(candidate, options)}"
        cached = run.outcomes.get(key)
        outcome: Injection | InjectionSkip | InjectionFailure | None = None
        if cached is not None:
            data = cached["record"]
            outcome = _OUTCOMES[cached["kind"]].model_validate(data)
        else:
            started = time.perf_counter()
            try:
                outcome = backend.inject(project, smell, difficulty, candidate,
                                         coverage.covered, coverage.lines, run.seed, options)
            except Exception as error:  # the engine returns crashes as values; a backend may not
                outcome = InjectionFailure.of(error, smell=smell, difficulty=difficulty,
                                              candidate=candidate)
            run.time("inject", started)
            kind = next(name for name, cls in _OUTCOMES.items() if isinstance(outcome, cls))
            run.outcomes.append({"key": key, "kind": kind,
                                 "record": outcome.model_dump(mode="json")})
        if isinstance(outcome, InjectionFailure):
            run.reject(Rejection(key=key, repo=spec.name, stage="internal", smell=smell,
                                 difficulty=difficulty, candidate=candidate.target.qualname,
                                 reason=outcome.reason, traceback=outcome.traceback),
                       persist=False)
            continue
        if isinstance(outcome, InjectionSkip):
            run.reject(Rejection(key=key, repo=spec.name, stage="inject", smell=smell,
                                 difficulty=difficulty, candidate=candidate.target.qualname,
                                 reason=outcome.reason), persist=False)
            continue
        if outcome.id in seen:
            continue
        seen.add(outcome.id)
        taken.held[candidate.target.qualname] += 1
        yield outcome


_OUTCOMES: dict[str, type[Injection | InjectionSkip | InjectionFailure]] = {
    "injection": Injection, "skip": InjectionSkip, "failure": InjectionFailure}
"""The kinds of injection outcome in the work log."""


def _preexisting(run: _Run, repo: str, smell: str, project: Any) -> Preexisting:
    """The findings of `smell` on the original repository, found once per repository and smell
    and recorded on each of its cases (not kept in the work log: they follow from the code)."""
    key = (repo, smell)
    if key not in run.preexisting:
        started = time.perf_counter()
        found = run.backend.findings(project, smell)
        run.preexisting[key] = Preexisting(count=len(found), locations=tuple(sorted(
            (item.location for item in found),
            key=lambda place: (place.path, place.start_line, place.qualname))))
        run.time("preexisting", started)
    return run.preexisting[key]


def _validate_cells(run: _Run, validator: Validator, cells: list[_Cell], *, jobs: int,
                    target: int, max_tries: int, project: Any) -> None:
    """Validate in rounds: each round asks every unfinished cell for as many injections as it
    still lacks. Injections are made in this thread while earlier ones are validated by the
    workers. The cases a cell ends with depend only on outcomes, never on timing."""
    name = validator.spec.name
    total = reused = 0
    submitted: list[Future[Case | Rejection]] = []

    def report() -> None:
        run.progress(f"{name}: validating",
                     reused + sum(1 for item in submitted if item.done()), total)

    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="validate") as pool:
        while True:
            batch: list[tuple[_Cell, Injection, Future[Case | Rejection] | None]] = []
            for cell in cells:
                want = min(target - len(cell.cases), max_tries - cell.tried)
                while want > 0 and not cell.exhausted:
                    injection = next(cell.injections, None)
                    if injection is None:
                        cell.exhausted = True
                        break
                    cell.tried += 1
                    want -= 1
                    total += 1
                    future = None
                    if _known(run, validator, injection) is None:
                        future = pool.submit(_validate_one, run, validator, injection)
                        submitted.append(future)
                    else:
                        run.reused += 1
                        reused += 1
                    batch.append((cell, injection, future))
                    report()
            if not batch:
                return
            for cell, injection, future in batch:  # in batch order: deterministic
                if future is None:
                    outcome = _known(run, validator, injection)
                    assert outcome is not None
                else:
                    outcome = future.result()
                    for stage, seconds in outcome.timings.items():
                        run.timings[stage] = run.timings.get(stage, 0.0) + seconds
                    report()
                if isinstance(outcome, Case):
                    cell.cases.append(outcome.model_copy(update={
                        "preexisting": _preexisting(run, name, cell.smell, project)}))
                else:
                    run.reject(outcome, persist=False)
                    run.taken[(name, cell.smell)].release(injection.candidate.target.qualname)


def _validate_one(run: _Run, validator: Validator, injection: Injection) -> Case | Rejection:
    """Validate and record durably at once (in the worker), so an interrupt of the main thread
    loses no finished case."""
    outcome: Case | Rejection
    try:
        outcome = validator.validate(injection)
    except Exception as error:  # a crash: a bug, never a verdict on the case
        crash = InjectionFailure.of(error, smell=injection.smell,
                                    difficulty=injection.difficulty,
                                    candidate=injection.candidate)
        outcome = Rejection(key=injection.id, repo=validator.spec.name, stage="internal",
                            smell=injection.smell, difficulty=injection.difficulty,
                            injection_id=injection.id,
                            candidate=injection.candidate.target.qualname,
                            reason=f"{crash.reason} (in validation)",
                            traceback=crash.traceback)
    kind = "case" if isinstance(outcome, Case) else "rejection"
    run.outcomes.append({"key": validator.outcome_key(injection), "kind": kind,
                         "record": outcome.model_dump(mode="json")})
    return outcome


def _known(run: _Run, validator: Validator, injection: Injection) -> Case | Rejection | None:
    record = run.outcomes.get(validator.outcome_key(injection))
    if record is None:
        return None
    if record["kind"] == "case":
        return Case.model_validate(record["record"])
    return Rejection.model_validate(record["record"])


def _export(run: _Run, smells: Sequence[str], *, per_cell: int, harbor: HarborExport | None,
            started: float) -> BuildReport:
    """Sample, then write the dataset, rejections, Harbor tasks and the report (all atomically)."""
    out = run.out_dir
    chosen = sample(run.cases, per_cell, run.seed, smells,
                    {key: len(found) for key, found in run.candidates.items()})
    run.progress("exporting", 0, len(chosen))
    write_jsonl(out / "dataset.jsonl", [to_row(case) for case in chosen])
    rejections = sorted(run.rejections.values(), key=lambda item: (item.repo, item.key))
    write_jsonl(out / "rejections.jsonl", [item.model_dump(mode="json") for item in rejections])
    tasks = 0
    if harbor is not None:
        export_started = time.perf_counter()
        harbor_dir = out / "harbor"
        wanted = {case.instance_id for case in chosen}
        if harbor_dir.is_dir():  # tasks of an earlier build with other options
            for stale in harbor_dir.iterdir():
                if stale.is_dir() and stale.name not in wanted and \
                        (stale / "task.toml").is_file():
                    shutil.rmtree(stale)
        for number, case in enumerate(chosen, start=1):
            spec, checkout = run.specs[case.repo]
            harbor.write_task(case, spec, checkout, harbor_dir)
            tasks += 1
            run.progress("exporting", number, len(chosen))
        run.time("export", export_started)
    by_cell: dict[str, dict[str, int]] = {}
    targets: dict[str, set[tuple[str, str, str]]] = {}
    files: dict[str, set[str]] = {}
    for case in chosen:
        by_cell.setdefault(case.smell, {}).setdefault(case.difficulty, 0)
        by_cell[case.smell][case.difficulty] += 1
        targets.setdefault(case.smell, set()).add(target_key(case))
        files.setdefault(case.smell, set()).update(f"{case.repo}:{path}" for path in case.files)
    distinct = {smell: {"targets": len(targets[smell]), "files": len(files[smell])}
                for smell in sorted(targets)}
    report = BuildReport(
        out_dir=str(out), seed=run.seed, repos=tuple(run.specs), cases=len(chosen),
        validated=len(run.cases), reused=run.reused, rejected=len(run.rejections),
        by_cell=by_cell, distinct=distinct, rejections_by_stage=dict(sorted(Counter(
            item.stage for item in rejections).items())),
        internal_errors=sum(1 for item in rejections if item.stage == "internal"),
        repo_errors=run.repo_errors, harbor_tasks=tasks,
        timings={key: round(value, 2) for key, value in sorted(run.timings.items())},
        seconds=round(time.perf_counter() - started, 2))
    write_atomic(out / "report.json", report.model_dump_json(indent=2) + "\n")
    return report


def load_dataset(path: Path | str) -> list[Case]:
    """The cases of a dataset.jsonl written by `build`."""
    from smellkit._internal.jsonl import read_jsonl

    return [from_row(row) for row in read_jsonl(Path(path))]
