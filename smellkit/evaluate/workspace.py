"""What scoring prepares once and reuses: per repository its spec, checkout, environment, runner
and the original code's analysis; per case its smelly tree, the smelly code's analysis and the
signals' per-case work (`signals.prepare`).

A repository is found by the name its cases carry (`repo`): first in the specs given with
`--spec`, then in the `specs/<repo>.json` a build records next to its dataset. The checkout and
the environment come from the same cache folder the build used, so nothing is fetched or
installed again. The smelly tree of a case is the original checkout plus the case's smelly patch,
made in the run's work folder; it is only ever copied from (each prediction gets its own copy),
never handed to a solver or changed. `CaseStore` prepares each case on first use, shares it
between the threads scoring its predictions, and lets it (and its tree) go after the last one,
so a run holds only the cases being scored, whatever the dataset's size.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import shutil
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

from smellkit.config import BUILT_SPECS, RepoSpec, load_repo_spec, load_spec_record
from smellkit.errors import ConfigError, SmellkitError
from smellkit.evaluate.errors import EvaluateError
from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.patches.apply import apply_patch_to_copy
from smellkit.evaluate.patches.parse import prefix_paths
from smellkit.evaluate.score import Score
from smellkit.project import Project
from smellkit.sandbox.checkout import fetch
from smellkit.sandbox.environment import Environment, prepare
from smellkit.sandbox.runner import LocalRunner, Runner
from smellkit.sandbox.runners import make_runner
from smellkit.sandbox.testmap import TestMap, build_test_map


class Signals(Protocol):
    """The signals module's interface (`smellkit.evaluate.signals`): per-case work done once,
    then every prediction's result measured against it."""

    def prepare(self, case: EvalCase, original: Project | None, smelly: Project) -> Any: ...

    def measure(self, analysis: Any, result: Project, patch: str, score: Score) -> Score: ...


SIGNALS_MODULE = "smellkit.evaluate.signals"


def load_signals() -> Signals | None:
    """The signals module, imported on first use (it pulls in detectors, checks and metrics);
    None when this installation has none, so tests and apply outcomes are still scored."""
    try:
        return cast(Signals, importlib.import_module(SIGNALS_MODULE))
    except ModuleNotFoundError as error:
        if error.name != SIGNALS_MODULE:
            raise
        return None


@dataclass(frozen=True)
class SpecSource:
    """Where a repository's spec came from, and the cache folder its build used."""

    spec: RepoSpec
    cache: Path | None
    origin: str


def find_specs(dataset_dir: Path, spec_files: Sequence[Path | str] = ()
               ) -> tuple[dict[str, SpecSource], dict[str, str]]:
    """Specs by repository name: those recorded by the build in `dataset_dir/specs/`, replaced
    by the `--spec` files given. A `--spec` file that cannot be read raises ConfigError (it was
    asked for); a broken record is returned as an error, which matters only if a case needs it."""
    found: dict[str, SpecSource] = {}
    broken: dict[str, str] = {}
    recorded = dataset_dir / BUILT_SPECS
    for path in sorted(recorded.glob("*.json")) if recorded.is_dir() else ():
        try:
            spec, cache = load_spec_record(path)
        except ConfigError as error:
            broken[path.stem] = str(error)
            continue
        found[spec.name] = SpecSource(spec, cache, str(path))
    given: dict[str, Path] = {}
    for item in spec_files:
        spec = load_repo_spec(item)
        if spec.name in given:
            raise ConfigError(f"a second spec for repository {spec.name!r} (the first is "
                              f"{given[spec.name]})", path=item, field="name",
                              hint="give one --spec per repository")
        given[spec.name] = Path(item)
        previous = found.get(spec.name)
        found[spec.name] = SpecSource(spec, previous.cache if previous else None, str(item))
        broken.pop(spec.name, None)
    return found, broken


def missing_spec(repo: str, dataset_dir: Path, broken: Mapping[str, str]) -> ConfigError:
    """The error for cases whose repository has no usable spec: what to pass instead."""
    if repo in broken:
        return ConfigError(f"the recorded spec of repository {repo!r} is unusable: "
                           f"{broken[repo]}", hint=f"pass the repository's spec with --spec "
                                                   f"FILE (its name must be {repo!r})")
    return ConfigError(f"no repo spec for repository {repo!r}",
                       path=dataset_dir / BUILT_SPECS / f"{repo}.json",
                       hint=f"pass it with --spec FILE (a spec whose name is {repo!r}), or score "
                            "the output folder of `smellkit build`, which records it")


@dataclass
class Repository:
    """One repository's shared state: checkout, environment, runner, the original's analyses."""

    spec: RepoSpec
    cache: Path
    checkout: Path
    facts: Path
    """The fact cache of the run: unchanged files are parsed once for every tree."""
    env: Environment | None = None
    runner: Runner | None = None
    originals: dict[str, Project | None] = field(default_factory=dict)
    original_errors: dict[str, str] = field(default_factory=dict)
    _test_map: TestMap | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def original(self, source_path: str) -> Project | None:
        """The original code's Project at `source_path` (None, with the reason kept, if it
        cannot be loaded); loaded once per repository and folder."""
        with self._lock:
            if source_path not in self.originals:
                try:
                    self.originals[source_path] = load_project(self.checkout / source_path,
                                                               self.facts)
                except SmellkitError as error:
                    self.originals[source_path] = None
                    self.original_errors[source_path] = f"the original code: {error}"
            return self.originals[source_path]

    def healthy_tests(self, seed: int) -> tuple[str, ...]:
        """The whole suite as the build's test map knows it: every test that passes on the
        original code (built, and cached, on first use if the build left none)."""
        assert self.env is not None and self.runner is not None
        with self._lock:
            if self._test_map is None:
                self._test_map = build_test_map(self.spec, self.env, self.checkout, self.runner,
                                                seed=seed)
            return self._test_map.tests


def load_project(root: Path, facts: Path) -> Project:
    """One tree's Project; facts come from the run's cache, so a result tree parses only the
    files its patch changed. One process: this runs in worker threads, which must not fork."""
    return Project.load(root, cache_dir=facts, jobs=1)


def prepare_repository(source: SpecSource, cache: Path, facts: Path, *, runner: str | None,
                       tests: bool) -> Repository:
    """Fetch (or find cached) the checkout and, when tests run, the environment and runner;
    raises SmellkitError naming the step that failed."""
    spec = source.spec
    checkout = fetch(spec, cache)
    repository = Repository(spec=spec, cache=cache, checkout=checkout, facts=facts)
    if tests:
        repository.env = prepare(spec, checkout, cache, LocalRunner())  # installs need network
        repository.runner = make_runner(runner or spec.runner or "local", cache)
    return repository


def revision_problem(case: EvalCase, spec: RepoSpec) -> str | None:
    """Why a case cannot be scored with this spec: it was built from other code."""
    wanted, given = case.revision, spec.revision
    if not wanted or wanted == given or (given.startswith(wanted) and len(wanted) >= 7) or \
            (wanted.startswith(given) and len(given) >= 7):
        return None
    return (f"{case.instance_id}: built from {wanted}, but the spec of {spec.name!r} gives "
            f"{given}; pass the spec the dataset was built with (--spec)")


def folder_name(instance_id: str) -> str:
    """A folder name for an instance id (ids are free text in SmellBench records)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", instance_id).strip("._")[:80] or "case"
    if safe == instance_id:
        return safe
    return f"{safe}-{hashlib.blake2b(instance_id.encode(), digest_size=4).hexdigest()}"


def make_smelly_tree(repository: Repository, case: EvalCase, folder: Path) -> Path:
    """The original checkout plus the case's smelly patch, at `folder/smelly` (remade each run:
    a tree left by a killed run is never trusted). Raises EvaluateError if the patch does not
    apply, which means the dataset and the spec name different code."""
    shutil.rmtree(folder, ignore_errors=True)
    patch = prefix_paths(case.smelly_patch, case.source_path)
    outcome = apply_patch_to_copy(patch, repository.checkout, folder, name="smelly")
    if outcome.status not in ("applied", "empty") or outcome.root is None:
        why = "; ".join((*outcome.problems, *outcome.attempts)) or outcome.reason
        raise EvaluateError(f"{case.instance_id}: the case's smelly patch does not apply to "
                            f"the checkout of {case.repo} ({why})", path=repository.checkout,
                            hint=f"the dataset was built from {case.revision or 'other code'}; "
                                 f"the spec gives {repository.spec.revision}")
    return Path(outcome.root)


@dataclass
class PreparedCase:
    """Everything about one case that every prediction of it reuses."""

    case: EvalCase
    repository: Repository
    smelly_tree: Path
    smelly: Project | None = None
    analysis: Any = None
    errors: tuple[str, ...] = ()
    """Why signals cannot be measured for this case (the rows carry it)."""
    seconds: float = 0.0


def prepare_case(repository: Repository, case: EvalCase, smelly_tree: Path,
                 signals: Signals | None) -> PreparedCase:
    """Load the smelly code and let the signals do their per-case work; a failure here is kept
    as the case's error (its predictions are still applied and tested)."""
    prepared = PreparedCase(case=case, repository=repository, smelly_tree=smelly_tree)
    errors: list[str] = []
    original = repository.original(case.source_path)
    if case.source_path in repository.original_errors:
        errors.append(repository.original_errors[case.source_path])
    try:
        prepared.smelly = load_project(smelly_tree / case.source_path, repository.facts)
    except SmellkitError as error:
        errors.append(f"the smelly code: {error}")
    if signals is None:
        errors.append(f"signals not measured: {SIGNALS_MODULE} is not installed")
    elif prepared.smelly is not None:
        try:
            prepared.analysis = signals.prepare(case, original, prepared.smelly)
        except Exception as error:  # one case's analysis must not stop the run
            errors.append(f"preparing the signals failed: {type(error).__name__}: {error}")
    prepared.errors = tuple(errors)
    return prepared


@dataclass
class CaseStore:
    """Smelly trees and prepared cases by instance id; each made once, under the case's lock."""

    work: Path
    signals: Signals | None = None
    repositories: dict[str, Repository] = field(default_factory=dict)
    preparing: list[float] = field(default_factory=list)
    """Seconds each case took to prepare: its smelly tree, analyses and the signals' work."""
    _tree_seconds: dict[str, float] = field(default_factory=dict)
    _remaining: dict[str, int] = field(default_factory=dict)
    _trees: dict[str, Path] = field(default_factory=dict)
    _ready: dict[str, PreparedCase] = field(default_factory=dict)
    _locks: dict[str, threading.Lock] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _case_lock(self, instance_id: str) -> threading.Lock:
        with self._lock:
            return self._locks.setdefault(instance_id, threading.Lock())

    def smelly_tree(self, case: EvalCase) -> Path:
        """The case's smelly tree in the work folder (made on first use). Raises EvaluateError
        when the smelly patch does not apply to the checkout."""
        with self._case_lock(case.instance_id):
            if case.instance_id not in self._trees:
                started = time.perf_counter()
                folder = self.work / "cases" / folder_name(case.instance_id)
                self._trees[case.instance_id] = make_smelly_tree(
                    self.repositories[case.repo], case, folder)
                self._tree_seconds[case.instance_id] = time.perf_counter() - started
            return self._trees[case.instance_id]

    def get(self, case: EvalCase) -> PreparedCase:
        """The prepared case (smelly tree, analyses, the signals' per-case work)."""
        tree = self.smelly_tree(case)
        with self._case_lock(case.instance_id):
            prepared = self._ready.get(case.instance_id)
            if prepared is None:
                started = time.perf_counter()
                prepared = prepare_case(self.repositories[case.repo], case, tree, self.signals)
                prepared.seconds = time.perf_counter() - started + \
                    self._tree_seconds.get(case.instance_id, 0.0)
                self._ready[case.instance_id] = prepared
                with self._lock:
                    self.preparing.append(prepared.seconds)
            return prepared

    def expect(self, cases: Iterable[EvalCase]) -> None:
        """Count the predictions each case will be asked for, so `done` knows the last."""
        with self._lock:
            for case in cases:
                self._remaining[case.instance_id] = self._remaining.get(case.instance_id, 0) + 1

    def done(self, case: EvalCase) -> None:
        """One prediction of `case` is scored; after its last, free the case and its tree."""
        with self._lock:
            self._remaining[case.instance_id] = self._remaining.get(case.instance_id, 1) - 1
            last = self._remaining[case.instance_id] <= 0
        if not last:
            return
        with self._case_lock(case.instance_id):
            self._ready.pop(case.instance_id, None)
            tree = self._trees.pop(case.instance_id, None)
        if tree is not None:
            shutil.rmtree(tree.parent, ignore_errors=True)
