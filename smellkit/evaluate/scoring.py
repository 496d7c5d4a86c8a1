"""Scoring one prediction: apply it to a fresh copy of its case's smelly tree, run the case's
selected tests on the result, measure the signals, derive the category.

Tampered and refused patches are never run. An empty patch is scored as the unchanged smelly
code. Every problem met on the way (a test run that could not start, a signal that crashed) is
written into the row's `errors` and the rest is still scored; nothing here raises for a bad
prediction. A test run that could not be made counts as every selected test failing, so a row
can never be resolved on tests nobody ran.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from smellkit.evaluate.inputs.predictions import Prediction
from smellkit.evaluate.patches.apply import ApplyOutcome, apply_prediction, rooted
from smellkit.evaluate.score import Score, categorise
from smellkit.evaluate.workspace import PreparedCase, Signals, load_project
from smellkit.project import Project
from smellkit.sandbox.testrun import TestRun, run_tests

if TYPE_CHECKING:
    from smellkit.evaluate.equivalence import EquivalenceOptions


@dataclass(frozen=True)
class ScoreOptions:
    """How each prediction is scored."""

    tests: bool = True
    """Run the case's selected tests (off: static signals only, as the speed benchmark does)."""
    full_suite: bool = False
    """Also run every test that passes on the original code."""
    scratch: Path | None = None
    """Where result copies are made (one folder per prediction, removed afterwards)."""
    equivalence: EquivalenceOptions | None = None
    """Differential testing against the smelly code (`smellkit.evaluate.equivalence`); off when
    None."""


def new_score(prepared: PreparedCase, prediction: Prediction) -> Score:
    case = prepared.case
    return Score(instance_id=case.instance_id, model=prediction.model, smell=case.smell,
                 difficulty=case.difficulty, repo=case.repo, setting=prediction.setting or "",
                 agent=prediction.agent, exit_reason=prediction.exit_reason,
                 usage=dict(prediction.usage), duration_s=prediction.duration_s)


def score_prediction(prepared: PreparedCase, prediction: Prediction, signals: Signals | None,
                     options: ScoreOptions) -> Score:
    """The row of one prediction; never raises for the prediction's sake."""
    started = time.perf_counter()
    score = new_score(prepared, prediction)
    scratch = Path(tempfile.mkdtemp(prefix="predict-", dir=options.scratch))
    try:
        score = _score(prepared, prediction, signals, options, score, scratch)
    except Exception as error:  # an unexpected failure is this row's error, not the run's
        score.errors = (*score.errors, f"scoring failed: {type(error).__name__}: {error}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if options.equivalence is not None and score.equivalence is None:
        _not_checked(score)
    score.seconds = round(time.perf_counter() - started, 3)
    return categorise(score)


def _score(prepared: PreparedCase, prediction: Prediction, signals: Signals | None,
           options: ScoreOptions, score: Score, scratch: Path) -> Score:
    case = prepared.case
    prediction = rooted(prediction, case, prepared.smelly_tree)
    outcome = apply_prediction(prediction, case, prepared.smelly_tree, scratch)
    _record_apply(score, outcome)
    if not outcome.usable or outcome.root is None:
        return score  # tampered, refused, apply_failed: never run
    root = Path(outcome.root)
    if options.tests:
        _restore_hidden_tests(prepared, root)
        _test(prepared, root, score, options.full_suite)
    score.errors = (*score.errors, *prepared.errors)
    if signals is None or prepared.analysis is None:
        return score
    result = prepared.smelly if outcome.status == "empty" else \
        load_project(root / case.source_path, prepared.repository.facts)
    assert result is not None  # analysis is only made from a loaded smelly Project
    # A copy: a signal that crashes halfway leaves no half-measured row to be categorised.
    score = signals.measure(prepared.analysis, result, prediction.patch,
                            score.model_copy(deep=True))
    if options.equivalence is not None:
        _equivalence(prepared, root, result, prediction, options.equivalence, scratch, score)
    return score


def _not_checked(score: Score) -> None:
    """Every row of a run with equivalence has a verdict (a rerun tells rows scored without it
    by its absence): inconclusive, with why the check did not run."""
    if not score.applied:
        reason = f"the patch was not run ({score.apply_status or 'not applied'})"
    else:
        reason = "the check did not run: " + ("; ".join(score.errors) or "no analysis")
    from smellkit.evaluate.equivalence import Equivalence

    score.equivalence = "inconclusive"
    score.equivalence_detail = Equivalence(verdict="inconclusive",
                                           reason=reason[:500]).model_dump(mode="json")


def _equivalence(prepared: PreparedCase, root: Path, result: Project, prediction: Prediction,
                 options: EquivalenceOptions, scratch: Path, score: Score) -> None:
    """Differential testing of the result against the smelly code; a check that cannot be made
    is an inconclusive verdict with its reason, never a crash of the row. Imported here: the
    check needs the signals module, which scoring without it does not."""
    from smellkit.evaluate.equivalence import Equivalence, Versions, check
    from smellkit.evaluate.signals import CaseAnalysis

    repository = prepared.repository
    if not isinstance(prepared.analysis, CaseAnalysis):
        verdict = Equivalence(verdict="inconclusive", reason="the smelly code's analysis is "
                              "missing (see errors)")
    elif repository.env is None or repository.runner is None:
        verdict = Equivalence(verdict="inconclusive", reason="equivalence needs the "
                              "repository's environment: score with tests on")
    else:
        case = prepared.case
        versions = Versions(smelly_tree=prepared.smelly_tree, result_tree=root,
                            spec=repository.spec, env=repository.env, runner=repository.runner,
                            tests=case.tests, seed=_seed(prepared),
                            cache=options.case_folder(
                                case.instance_id, case.repo, case.revision, case.smelly_patch,
                                case.source_path, case.tests, case.test_cmd,
                                str(repository.env.python), repository.env.env, _seed(prepared)))
        work = scratch / "equivalence"
        work.mkdir(exist_ok=True)
        try:
            verdict = check(prepared.analysis, result, prediction.patch, versions, work, options)
        except Exception as error:
            verdict = Equivalence(verdict="inconclusive",
                                  reason=f"the check failed: {type(error).__name__}: {error}")
            score.errors = (*score.errors, f"equivalence: {type(error).__name__}: {error}")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    score.equivalence = verdict.verdict
    score.equivalent = {"equivalent": True, "not_equivalent": False}.get(verdict.verdict)
    score.equivalence_detail = verdict.model_dump(mode="json")


def _record_apply(score: Score, outcome: ApplyOutcome) -> None:
    score.applied = outcome.usable
    score.apply_status = outcome.status
    reason = outcome.reason
    if outcome.status == "apply_failed" and outcome.attempts:
        reason = f"{reason}: " + "; ".join(outcome.attempts)
    score.apply_reason = reason


def _restore_hidden_tests(prepared: PreparedCase, root: Path) -> None:
    """The tests folder of the original checkout, copied over the result's, as the build's
    validation has it: what is run is the repository's own tests, whatever the patch did."""
    tests_path = prepared.case.tests_path.strip("/")
    source = prepared.repository.checkout / tests_path
    if not tests_path or not source.is_dir():
        return
    target = root / tests_path
    if target.is_symlink() or target.is_file():
        target.unlink()
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def _seed(prepared: PreparedCase) -> int:
    """PYTHONHASHSEED as when the case was validated."""
    return prepared.case.case.seed if prepared.case.case is not None else 0


def _run(prepared: PreparedCase, root: Path, tests: tuple[str, ...],
         whole_suite: bool) -> TestRun:
    repository = prepared.repository
    assert repository.env is not None and repository.runner is not None
    spec = repository.spec
    if whole_suite:  # the whole suite has the test map's time limit, not a selection's
        spec = spec.model_copy(update={"timeouts": spec.timeouts.model_copy(
            update={"test": spec.timeouts.map})})
    return run_tests(repository.env, root, spec, tests, repository.runner, seed=_seed(prepared))


def _test(prepared: PreparedCase, root: Path, score: Score, full_suite: bool) -> None:
    """Selected tests (and the whole suite when asked); a hang is cut off by the per-test limit
    and counts as a failure. A run that cannot be made fails every test, with the reason."""
    started = time.perf_counter()
    tests = prepared.case.tests
    if tests:
        try:
            run = _run(prepared, root, tests, whole_suite=False)
            score.tests_passed, score.tests_total = len(run.passed), len(run.requested)
            score.tests_timed_out = run.timed_out or bool(run.hung)
            if run.hung:
                score.errors = (*score.errors, "tests cut off after "
                                f"{prepared.repository.spec.timeouts.per_test:g}s: "
                                + ", ".join(run.hung[:5]))
        except Exception as error:
            score.tests_passed, score.tests_total = 0, len(tests)
            score.errors = (*score.errors, f"the selected tests could not run: "
                                           f"{type(error).__name__}: {error}")
        score.tpr = round(score.tests_passed / score.tests_total, 4)
    else:
        score.errors = (*score.errors, "the case selects no tests: tests not run")
    if full_suite:
        try:
            healthy = prepared.repository.healthy_tests(_seed(prepared))
            whole = _run(prepared, root, healthy, whole_suite=True)
            score.full_suite_passed, score.full_suite_total = len(whole.passed), len(healthy)
        except Exception as error:
            score.errors = (*score.errors, f"the full suite could not run: "
                                           f"{type(error).__name__}: {error}")
    score.test_seconds = round(time.perf_counter() - started, 3)
