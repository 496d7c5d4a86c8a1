"""The deterministic signals of one prediction: localization, smell residue and structural checks,
ground-truth recovery, metric deltas and scope.

`prepare` does everything that depends only on the case (the original's findings, what the
injection added and removed, the ground truth's own footprint, the original and smelly metrics),
once per case; `measure` does the result's side, once per prediction. A signal that cannot be
computed (a detector that crashes, a result file that does not parse) is left None and named in
`Score.errors`; the others are still filled.

The graphs behind detectors, checks and metrics are built with `inference_budget` astroid
queries (`INFERENCE_BUDGET` unless `prepare` is told otherwise, the same for all three versions):
astroid's time limits make inference depend on the machine's speed, and it is most of the cost
of a result (about 1 s of 1.1 s on click). Without it scoring is repeatable and fast.

The signals (see `involvement` for the sets they are counted over, `Score` for the fields):

- `touched`: the names the patch touched on either side (`localize`).
- `la`: 1 when each required target holds a touched name or is no longer defined in the result
  (its file still parsing), else 0; None when no target is known. A method-level target holds
  itself and its nested definitions; a class-level one its class and everything in it.
- `loc_precision`: involved touched names / touched names (None when nothing was touched).
- `loc_recall`: of the expected locations, the share holding a touched name.
- `red_herrings_touched`: red herrings holding a touched name.
- `residue`: findings of the case's smell on the result at, inside or related to the involved
  locations that still exist there (`detectors.runner.residue`), leaving out findings at a
  qualified name where the original already had a finding of this smell. By name, not by
  `Finding.fingerprint()`: the fingerprint holds the related names, which a fix is free to
  change, and the injected smell never sits where the original had one (the build's round trip
  checks that the original is not flagged at the targets). The case's `preexisting` (recorded
  by the build, once per repository and smell) is used when present; otherwise they are found
  on the original, and without either nothing is left out.
- `checks_*`: `smellkit.checks.evaluate` of the case's checks on the result, one check at a time
  (a check that crashes fails, with the error recorded). Checks and residue follow renames: a
  definition a check (or a location) names that the result no longer has, matched one to one
  by `recovery.match` to a definition the result added, is checked under its new name. So a
  helper restored under another name is the helper the check asks for, and renaming a dead,
  cloned or envious definition does not make its check pass.
- `gt_*`: `recovery.recovery` of the missing definitions among the result's added definitions
  and the smelly definitions it changed.
- `metrics`, `gap_closed`: `deltas.measure` of the involved code in each version and
  `deltas.gap_closed`.
- `files_changed`: files the patch names; `files_involved`: see `involvement`; `files_outside`:
  changed files that are not involved files; `lines_outside`: changed lines (added and deleted)
  not belonging to an involved name, plus every line of a file outside the source folder and of
  a non-Python file that is not involved.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import TypeVar

from smellkit.analysis.context import Context
from smellkit.checks import evaluate
from smellkit.config import REPEATABLE_INFERENCE_BUDGET
from smellkit.detectors.runner import residue, run_detectors
from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.patches.parse import FileChange, parse_patch
from smellkit.evaluate.score import MetricDelta, Score
from smellkit.evaluate.signals import deltas
from smellkit.evaluate.signals.involvement import Involvement, involvement
from smellkit.evaluate.signals.localize import Side, Touched, changed_files, touched
from smellkit.evaluate.signals.recovery import Shape, match, recovery, shapes
from smellkit.models import CheckResult, StructuralCheck
from smellkit.project import Project

INFERENCE_BUDGET = REPEATABLE_INFERENCE_BUDGET
"""Astroid queries per call graph when scoring (see the module docstring); the builds use the
same, so that what a case was verified with is what it is scored with."""

T = TypeVar("T")


@dataclass
class CaseAnalysis:
    """What scoring every prediction of one case needs and no prediction changes."""

    case: EvalCase
    prefix: str
    """The source folder with a trailing slash ("" at the repository root)."""
    smelly: Side
    """The smelly version; its tree must stay on disk while predictions are measured (the old
    side of each changed file is read from it)."""
    smelly_names: frozenset[str]
    fix: Touched | None
    """What the ground-truth patch touches (None without the original)."""
    involvement: Involvement
    preexisting: frozenset[str] | None
    """Qualified names where the original has a finding of the case's smell."""
    missing: dict[str, Shape] | None
    """The original's definitions the smelly version lacks, for recovery."""
    base_units: tuple[str, ...]
    """The smelly version's involved code (see `deltas`)."""
    original_metrics: deltas.Values | None
    smelly_metrics: deltas.Values | None
    inference_budget: int | None
    errors: tuple[str, ...]


def _attempt(errors: list[str], signal: str, work: Callable[[], T]) -> T | None:
    """`work()`, or None with the error recorded: one signal failing leaves the others."""
    try:
        return work()
    except Exception as error:
        errors.append(f"{signal}: {type(error).__name__}: {error}")
        return None


def _analysed(project: Project, budget: int | None) -> Project:
    """The project with the scoring's inference budget (the same files, its own index)."""
    if budget is None or project.config.inference_budget == budget:
        return project
    return dataclasses.replace(
        project, config=project.config.model_copy(update={"inference_budget": budget}))


def _names(side: Side) -> set[str]:
    """Every module and definition (lambdas aside) of a version."""
    return {name for name, item in side.project.index.definitions.items()
            if item.kind != "lambda"} | side.modules


def _shapes(side: Side, names: Iterable[str]) -> dict[str, Shape]:
    """The recovery shapes of some definitions of one version, each file parsed once."""
    index = side.project.index
    by_path: dict[str, list[str]] = {}
    for name in names:
        definition = index.definitions.get(name)
        path = side.path_of(index.module_of.get(name, ""))
        if definition is not None and definition.kind != "lambda" and path is not None:
            by_path.setdefault(path, []).append(name)
    found: dict[str, Shape] = {}
    for path, wanted in by_path.items():
        found.update(shapes(side.text(path) or "",
                            [index.definitions[name] for name in wanted]))
    return found


def prepare(case: EvalCase, original: Project | None, smelly: Project, *,
            inference_budget: int | None = INFERENCE_BUDGET) -> CaseAnalysis:
    """Everything about `case` that no prediction changes (see the module docstring). Without
    `original` (a SmellBench record without ground truth), recovery, the gap and the pre-existing
    findings stay unknown. `inference_budget` None keeps each project's own configuration."""
    errors: list[str] = []
    source = case.source_path.strip("/")
    prefix = source + "/" if source else ""
    smelly = _analysed(smelly, inference_budget)
    smelly_side = Side(smelly)
    original_side = Side(_analysed(original, inference_budget)) if original is not None \
        else None
    fix = None
    if original_side is not None and case.ground_truth_patch.strip():
        old, new = smelly_side, original_side
        fix = _attempt(errors, "ground truth", lambda: touched(changed_files(
            parse_patch(case.ground_truth_patch), old.root, new.root, old, new), old, new))
    involved = involvement(case, prefix, smelly_side, original_side, fix, errors)
    base = [item.qualname for item in involved.locations]
    missing = original_metrics = None
    recorded = case.case.preexisting if case.case is not None else None
    preexisting = recorded.qualnames if recorded is not None else None
    if original_side is not None:
        context = Context(original_side.project)
        if recorded is None:  # a case built before the build recorded them: find them here
            found = _attempt(errors, "residue", lambda: run_detectors(
                context, [case.smell], respect_suppressions=False, hedged=True))
            if found is not None:
                preexisting = frozenset(item.location.qualname for item in found)
        before, after = _names(original_side), _names(smelly_side)
        lost = sorted(before - after)
        base.extend(sorted(after - before))  # what the injection added is involved code too
        # and what it edited outside the locations (copies written out, calls redirected),
        # which is what the ground truth changes in both versions
        edited = set(fix.names) & before & after - smelly_side.modules - original_side.modules \
            if fix is not None else set()
        base.extend(sorted(edited - set(base)))
        missing = _attempt(errors, "recovery", lambda: _shapes(original_side, lost))
        units = [name for name in base if name in before] + lost
        original_metrics = _attempt(errors, "metrics", lambda: deltas.measure(context, units))
    smelly_metrics = _attempt(errors, "metrics",
                              lambda: deltas.measure(Context(smelly), base))
    return CaseAnalysis(
        case=case, prefix=prefix, smelly=smelly_side, smelly_names=frozenset(_names(smelly_side)),
        fix=fix, involvement=involved, preexisting=preexisting, missing=missing,
        base_units=tuple(base),
        original_metrics=original_metrics, smelly_metrics=smelly_metrics,
        inference_budget=inference_budget, errors=tuple(errors))


def measure(analysis: CaseAnalysis, result: Project, patch: str, score: Score) -> Score:
    """Fill `score`'s deterministic signals for one prediction whose patch (relative to the
    repository root) made `result` out of the smelly code."""
    errors = list(analysis.errors)
    side = Side(_analysed(result, analysis.inference_budget))
    changes = _attempt(errors, "scope",
                       lambda: parse_patch(patch) if patch.strip() else ())
    lines = None
    if changes is not None:
        inside = [item for item in (relative_change(change, analysis.prefix)
                                    for change in changes) if item is not None]
        lines = _attempt(errors, "localization", lambda: touched(changed_files(
            inside, analysis.smelly.root, side.root, analysis.smelly, side),
            analysis.smelly, side))
    if lines is not None:
        errors.extend(lines.errors)
        _localization(analysis.involvement, side, lines, score)
    context = _attempt(errors, "analysis", lambda: Context(side.project))
    if context is not None:
        _smell(analysis, side, context, score, errors)
    if analysis.missing is not None and lines is not None:
        missing, changed = analysis.missing, lines
        found = _attempt(errors, "recovery", lambda: _recovery(analysis, side, changed, missing))
        if found is not None:
            score.gt_precision, score.gt_recall, score.gt_f1 = found
    if context is not None:
        _metrics(analysis, side, context, score, errors)
    score.files_involved = analysis.involvement.files_involved
    if changes is not None and lines is not None:
        outside = [change for change in changes
                   if relative_change(change, analysis.prefix) is None]
        _scope(analysis, changes, outside, side, lines, score, errors)
    score.errors = (*score.errors, *errors)
    return score


def relative_change(change: FileChange, prefix: str) -> FileChange | None:
    """The change with paths relative to the source folder; None when it is outside it."""
    if not all(path.startswith(prefix) for path in change.paths):
        return None
    return change.model_copy(update={
        "old_path": change.old_path.removeprefix(prefix) if change.old_path else None,
        "new_path": change.new_path.removeprefix(prefix) if change.new_path else None})


def _localization(involved: Involvement, side: Side, lines: Touched, score: Score) -> None:
    names = lines.names
    present = side.project.index.definitions
    score.touched = tuple(sorted(names))
    score.la = float(all(
        item.hit(names) or (not item.is_module and item.qualname not in present
                            and side.problem(item.path) is None)
        for item in involved.targets)) if involved.targets else None
    score.loc_precision = (sum(involved.involved(name, module) for name, module in names.items())
                           / len(names)) if names else None
    score.loc_recall = (sum(item.hit(names) for item in involved.expected)
                        / len(involved.expected)) if involved.expected else None
    score.red_herrings_touched = sum(item.hit(names) for item in involved.red_herrings)


def _check(context: Context, check: StructuralCheck) -> CheckResult:
    return evaluate(context, [check])[0]


def _named(checks: tuple[StructuralCheck, ...]) -> set[str]:
    """The strings of the checks' parameters (qualified names among them), lists included."""
    found: set[str] = set()
    for check in checks:
        for value in check.params.values():
            values = value if isinstance(value, (list, tuple)) else [value]
            found.update(item for item in values if isinstance(item, str))
    return found


def renamed_definitions(analysis: CaseAnalysis, side: Side,
                        names: Iterable[str]) -> dict[str, str]:
    """Definitions of the smelly version (or the original's that it lacks) among `names` that
    the result no longer has -> the definition the result added in their place, matched by
    shape (`recovery.match`, one to one)."""
    present = side.project.index.definitions
    before = analysis.smelly.project.index.definitions
    gone = [name for name in sorted(set(names))
            if name not in present and name not in side.modules
            and (name in before or name in (analysis.missing or {}))]
    if not gone:
        return {}
    lost = _shapes(analysis.smelly, [name for name in gone if name in before])
    lost.update({name: (analysis.missing or {})[name] for name in gone if name not in before
                 and name in (analysis.missing or {})})
    added = [name for name, item in present.items()
             if name not in before and item.kind != "lambda"]
    if not lost or not added:
        return {}
    return {old: new for old, new, _ in match(lost, _shapes(side, added))}


def _renamed(check: StructuralCheck, renames: Mapping[str, str]) -> StructuralCheck:
    def follow(value: object) -> object:
        if isinstance(value, str):
            return renames.get(value, value)
        if isinstance(value, (list, tuple)):
            return [follow(item) for item in value]
        return value

    if not renames:
        return check
    return check.model_copy(update={
        "params": {key: follow(value) for key, value in check.params.items()}})


def _smell(analysis: CaseAnalysis, side: Side, context: Context, score: Score,
           errors: list[str]) -> None:
    """Residue and structural checks on the result, following renamed definitions."""
    checks = analysis.case.case.checks if analysis.case.case is not None else None
    locations = [item.qualname for item in analysis.involvement.locations]
    renames = _attempt(errors, "renames", lambda: renamed_definitions(
        analysis, side, [*locations, *_named(checks or ())])) or {}

    def left() -> int:
        places = [context.location(renames.get(name, name)) for name in locations]
        found = residue(context, analysis.case.smell,
                        [place for place in places if place is not None])
        known = analysis.preexisting or frozenset()
        return sum(item.location.qualname not in known for item in found)

    score.residue = _attempt(errors, "residue", left)
    if checks is None:
        return
    failed: list[str] = []
    for check in checks:
        followed = _renamed(check, renames)
        outcome = _attempt(errors, f"check {check.kind}", partial(_check, context, followed))
        if outcome is None or not outcome.passed:
            detail = outcome.detail if outcome is not None else \
                f"the check crashed ({errors[-1].partition(': ')[2]})"
            failed.append(f"{check.description}: {detail}" if detail else check.description)
    score.checks_total = len(checks)
    score.checks_passed = len(checks) - len(failed)
    score.failed_checks = tuple(failed)


def _recovery(analysis: CaseAnalysis, side: Side, lines: Touched,
              missing: Mapping[str, Shape]) -> tuple[float | None, float | None, float | None]:
    before = analysis.smelly.project.index.definitions
    now = side.project.index.definitions
    added = [name for name, item in now.items() if name not in before and item.kind != "lambda"]
    changed = [name for name in lines.new if name in before and name in now]
    shaped = _shapes(side, [*added, *changed])
    found = recovery(missing, {name: shaped[name] for name in added if name in shaped},
                     {name: shaped[name] for name in changed if name in shaped})
    return found.precision, found.recall, found.f1


def _metrics(analysis: CaseAnalysis, side: Side, context: Context, score: Score,
             errors: list[str]) -> None:
    known = _names(side)
    added = sorted(known - analysis.smelly_names)
    units = [name for name in analysis.base_units if name in known] + added
    values = _attempt(errors, "metrics", lambda: deltas.measure(context, units))
    if values is None or analysis.smelly_metrics is None:
        return
    original, smelly = analysis.original_metrics or {}, analysis.smelly_metrics
    score.metrics = {metric: MetricDelta(original=original.get(metric),
                                         smelly=smelly.get(metric), result=values.get(metric))
                     for metric in deltas.METRICS}
    if analysis.original_metrics is not None:
        score.gap_closed = deltas.gap_closed(original, smelly, values)


def _tree(root: Path, source_path: str) -> Path:
    """The repository root of a project loaded at `root` = tree / source_path."""
    for _ in PurePosixPath(source_path.strip("/")).parts:
        root = root.parent
    return root


def _scope(analysis: CaseAnalysis, changes: tuple[FileChange, ...],
           outside: list[FileChange], side: Side, lines: Touched, score: Score,
           errors: list[str]) -> None:
    prefix, involved = analysis.prefix, analysis.involvement

    def is_involved(path: str) -> bool:
        return path.startswith(prefix) and path.removeprefix(prefix) in involved.files

    score.files_changed = len(changes)
    score.files_outside = sum(not any(map(is_involved, change.paths)) for change in changes)
    count = sum(path not in involved.files if name is None
                else not involved.involved(name, module) for path, name, module in lines.lines)
    trees = (_tree(analysis.smelly.root, analysis.case.source_path),
             _tree(side.root, analysis.case.source_path))
    far = _attempt(errors, "scope", lambda: changed_files(outside, *trees))
    score.lines_outside = count + sum(item.lines for item in far or ())
