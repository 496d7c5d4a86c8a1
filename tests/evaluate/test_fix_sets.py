"""Fix sets on click: for one case per smell, a partial fix and an alternative correct fix, scored
through the public path (SWE-bench JSONL files of the models `partial` and `alternative`,
`smellkit.evaluate.scorer.evaluate` on a dataset file of those cases with the click spec, the oracle
and noop baselines beside them).

The eight cases are kept in `fixtures/click_fix_sets.jsonl`: rows of a click 8.1.7 build (spec
`examples/specs/click.toml`, seed 0, two cases per cell) made by the injectors as they were before
the cases' names, spans and test adequacy were reworked. The fixes below are written against those
exact smelly versions, and scoring, which this file tests, takes any valid dataset row; freezing the
rows keeps the fixes true while the injectors change.

- A *partial* fix is the ground-truth patch restricted to the target: its file's part of the
  patch (split per file with unidiff), or, where that file holds the whole fix, the target's
  definition or hunk of it; the related files and places are left smelly. The selected tests
  must pass on it, and its `checks_passed` and `gap_closed` must land strictly between noop's
  and the oracle's.
- An *alternative* fix (`alternative_fixes.py`) removes the smell by another sound refactoring
  than the ground truth's (other names, another placement, another decomposition). It must be
  resolved: applied, every selected test passing, la 1, no residue, every check passing.

The scores are kept under pytest's temporary folder (the path is printed at the end).
"""

from __future__ import annotations

import ast
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from unidiff.patch import Hunk, PatchedFile, PatchSet

from smellkit._internal.jsonl import read_jsonl
from smellkit.bench import load_dataset
from smellkit.config import load_repo_spec
from smellkit.evaluate.score import Score
from smellkit.evaluate.scorer import EvaluateReport, evaluate
from smellkit.injectors.patches import apply_patch, make_patch
from smellkit.injectors.registry import injectors
from smellkit.models import Case
from smellkit.sandbox.checkout import fetch
from tests.evaluate.alternative_fixes import FIXES, Files, Source, changed
from tests.evaluate.conftest import CLICK_SPEC

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Partial:
    """Which part of the ground truth a partial fix applies, and why that part."""

    files: tuple[str, ...] = ()
    """Files whose whole part of the ground-truth patch is applied."""
    definitions: tuple[tuple[str, str], ...] = ()
    """(file, `Class.method` in it): that definition as the ground truth leaves it (removed
    when the ground truth removes it), the rest of the file smelly."""
    hunks: tuple[tuple[str, str], ...] = ()
    """(file, text): the hunks of the file's part of the patch that add a line holding text."""
    why: str = ""


@dataclass(frozen=True)
class Chosen:
    instance_id: str
    partial: Partial
    why: str
    checks_between: bool = True
    """False where the smell's checks cannot land strictly between for any sound partial fix."""


CASES: dict[str, Chosen] = {
    "feature_envy": Chosen(
        "click__feature_envy-medium-2e8220d68b71",
        Partial(files=("click/core.py",), why=(
            "core.py's part: Option drops the envious mixin and asks its range type for the "
            "description; the mixin module (the target's file) stays, since deleting it alone "
            "breaks core.py's import")),
        "the first medium case: the envious method sits in a mixin module of its own",
        checks_between=False),
    "god_class": Chosen(
        "click__god_class-medium-922ad77a9dd3",
        Partial(files=("click/termui.py",), definitions=(("click/parser.py",
                                                          "OptionParser.style"),), why=(
            "one of the two absorbed functions moved back: termui.style gets its body and "
            "OptionParser.style goes; open_stream stays absorbed (parser.py's part alone "
            "breaks termui and _compat, which delegate to the class)")),
        "the first medium case: two functions of two modules absorbed"),
    "data_clumps": Chosen(
        "click__data_clumps-medium-6fe830ef3541",
        Partial(files=("click/exceptions.py",), why=(
            "exceptions.py's part: its forwarding wrapper goes and it calls echo; the "
            "forwarding module stays (deleting it alone, the first target's file, breaks "
            "exceptions.py's import)")),
        "the first medium case: the clump flows through a forwarding module"),
    "shotgun_surgery": Chosen(
        "click__shotgun_surgery-medium-a9457f56ee66",
        Partial(files=("click/formatting.py",), why=(
            "formatting.py's part (every target is there): its copies call term_len; the "
            "copies in _termui_impl.py stay")),
        "the first medium case: copies in two modules"),
    "dead_code": Chosen(
        "click__dead_code-easy-b2b4e1c496c1",
        Partial(files=("click/_termui_impl.py",), why=(
            "the target's file: the unreachable statement goes; the wrapper only it called "
            "stays in _compat.py, now unused")),
        "the first easy case: its unreachable statement admits another sound fix; the "
        "medium and hard cases are chains of unused functions whose one sound fix is to "
        "delete them, as the ground truth does"),
    "interface_segregation": Chosen(
        "click__interface_segregation-medium-d6108058cc29",
        Partial(definitions=(("click/core.py", "MultiCommand"),), why=(
            "the target class only: MultiCommand no longer declares add_source and "
            "add_command; Group and CommandCollection keep their stub mixins (core.py's whole "
            "part is the full fix: the mixin modules are then only dead code)")),
        "the medium case: two stub mixins in two modules"),
    "deep_inlining": Chosen(
        "click__deep_inlining-medium-cf3e3a120214",
        Partial(hunks=(("click/parser.py", "self._match_short_opt(arg, state)"),), why=(
            "one of the two inlined helpers called again in the target: the short-option "
            "loop; normalize_opt stays inlined and the step modules stay (parser.py's whole "
            "part calls both helpers, which passes every check)")),
        "the second medium case: in the first one, types.py's part calls both helpers again "
        "(every check passes) and its hunks mix the two, so no part of the ground truth "
        "restores one helper alone"),
    "duplicated_code": Chosen(
        "click__duplicated_code-medium-6b7baecfd65b",
        Partial(files=("click/types.py",), why=(
            "the first target's file: its clone goes and it calls open_stream; the clone in "
            "utils.py stays")),
        "the first medium case: two clones in two modules"),
}
"""One case per smell of the click build (every smell has cases there), its partial fix, and why
that case."""

FROZEN = Path(__file__).parent / "fixtures" / "click_fix_sets.jsonl"
SOURCE = "src"
MODELS = ("oracle", "noop", "partial", "alternative")


# -- the partial fixes ------------------------------------------------------------------------

def _apply(text: str | None, hunks: list[Hunk], removed: bool) -> str | None:
    """`text` with unidiff hunks applied (in memory; their source lines must match)."""
    if removed:
        return None
    lines = (text or "").splitlines(keepends=True)
    for hunk in sorted(hunks, key=lambda item: -item.source_start):
        source = [line.value for line in hunk if line.is_context or line.is_removed]
        target = [line.value for line in hunk if line.is_context or line.is_added]
        start = hunk.source_start - 1 if hunk.source_length else hunk.source_start
        assert lines[start:start + len(source)] == source, f"hunk at {start + 1} does not fit"
        lines[start:start + len(source)] = target
    return "".join(lines)


def _span(text: str, name: str) -> tuple[int, int] | None:
    """The lines (decorators included) of `Class.method` in a module's text, if defined."""
    body: list[ast.stmt] = ast.parse(text).body
    node: ast.stmt | None = None
    for part in name.split("."):
        node = next((item for item in body if isinstance(
            item, (ast.FunctionDef, ast.ClassDef)) and item.name == part), None)
        if node is None:
            return None
        body = node.body
    assert node is not None and node.end_lineno is not None
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(item.lineno for item in decorators)]), node.end_lineno


def _restore(smelly: str, fixed: str, name: str) -> str:
    """The smelly text with one definition as the fixed text has it (removed if absent)."""
    lines = smelly.splitlines(keepends=True)
    span = _span(smelly, name)
    assert span is not None, f"{name} is not in the smelly file"
    first, last = span
    found = _span(fixed, name)
    if found is None:
        while last < len(lines) and not lines[last].strip():
            last += 1  # the blank lines after a removed definition go too
        lines[first - 1:last] = []
    else:
        lines[first - 1:last] = fixed.splitlines(keepends=True)[found[0] - 1:found[1]]
    return "".join(lines)


def partial_files(case: Case, source: Source, partial: Partial) -> Files:
    """The new text of each file the partial fix changes, made from the ground-truth patch."""
    parts: dict[str, PatchedFile] = {item.path: item for item in PatchSet(case.ground_truth_patch)}

    def read(path: str) -> str | None:
        return source.read(path) if (source.root / path).exists() else None

    files: Files = {}
    for path in partial.files:
        part = parts[path]
        files[path] = _apply(read(path), list(part), part.is_removed_file)
    for path, needle in partial.hunks:
        chosen = [hunk for hunk in parts[path]
                  if any(line.is_added and needle in line.value for line in hunk)]
        assert len(chosen) == 1, (path, needle)
        files[path] = _apply(read(path), chosen, False)
    for path, name in partial.definitions:
        smelly = files.get(path) or read(path)
        fixed = _apply(read(path), list(parts[path]), parts[path].is_removed_file)
        assert smelly is not None and fixed is not None
        files[path] = _restore(smelly, fixed, name)
    return files


# -- building and scoring the fix sets --------------------------------------------------------

def _patch(files: Files, source: Source) -> str:
    """A prediction's patch (relative to the repository root) writing `files`."""
    items = list(changed(files, source))
    assert items, "the fix changes nothing"
    return make_patch({f"{SOURCE}/{path}": old for path, old, _ in items},
                      {f"{SOURCE}/{path}": new for path, _, new in items})


@dataclass
class FixSets:
    report: EvaluateReport
    scores: dict[tuple[str, str], Score]
    fixes: dict[tuple[str, str], Files]
    """(instance id, model) -> the new text of each file the fix writes."""
    checkout: Path


def _line(instance_id: str, model: str, patch: str) -> str:
    return json.dumps({"instance_id": instance_id, "model_name_or_path": model,
                       "model_patch": patch}) + "\n"


@pytest.fixture(scope="module")
def fix_sets(tmp_path_factory: pytest.TempPathFactory,
             terminal_report: Callable[[str, list[str]], None]) -> FixSets:
    from tests.support.pypi import data_dir

    out = tmp_path_factory.mktemp("fix-sets")
    rows = {row["instance_id"]: row for row in read_jsonl(FROZEN)}
    cases = {case.instance_id: case for case in load_dataset(FROZEN)}
    cache = data_dir() / "sandbox"
    checkout = fetch(load_repo_spec(CLICK_SPEC), cache)
    fixes: dict[tuple[str, str], Files] = {}
    patches: dict[tuple[str, str], str] = {}
    for smell, chosen in CASES.items():
        case = cases[chosen.instance_id]
        assert case.source_path == SOURCE
        tree = out / "smelly" / chosen.instance_id
        shutil.copytree(checkout / SOURCE, tree,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        apply_patch(tree, case.smelly_patch)
        source = Source(tree)
        fixes[chosen.instance_id, "partial"] = partial_files(case, source, chosen.partial)
        fixes[chosen.instance_id, "alternative"] = FIXES[smell](case, source)
        for model in ("partial", "alternative"):
            patches[chosen.instance_id, model] = _patch(fixes[chosen.instance_id, model],
                                                        source)
    subset = out / "dataset.jsonl"
    subset.write_text("".join(json.dumps(rows[chosen.instance_id]) + "\n"
                              for chosen in CASES.values()))
    predictions = []
    for model in ("partial", "alternative"):
        path = out / f"{model}.jsonl"
        path.write_text("".join(_line(instance_id, name, patch)
                                for (instance_id, name), patch in patches.items()
                                if name == model))
        predictions.append(path)
    report = evaluate(subset, predictions, out / "scores", baselines=("oracle", "noop"),
                      specs=[CLICK_SPEC], cache_dir=cache, jobs=2)
    scores = {(row["instance_id"], row["model"]): Score.model_validate(row)
              for row in read_jsonl(out / "scores" / "scores.jsonl")}
    lines = [f"{report.scored} predictions in {report.seconds:.0f}s; scores in "
             f"{out / 'scores' / 'scores.jsonl'}",
             f"{'smell':22} {'case':14} " + " ".join(
                 f"{model + ' checks/gap':>22}" for model in MODELS) + "  alternative"]
    for smell, chosen in CASES.items():
        cells = []
        for model in MODELS:
            row = scores.get((chosen.instance_id, model))
            gap = "-" if row is None or row.gap_closed is None else f"{row.gap_closed:.2f}"
            checks = "-" if row is None else f"{row.checks_passed}/{row.checks_total}"
            cells.append(f"{checks + ' ' + gap:>22}")
        alternative = scores.get((chosen.instance_id, "alternative"))
        lines.append(f"{smell:22} {chosen.instance_id.rpartition('-')[2]:14} "
                     + " ".join(cells) + "  "
                     + (alternative.error_category if alternative else "not scored"))
    terminal_report("fix sets on click 8.1.7 (partial and alternative fixes)", lines)
    return FixSets(report, scores, fixes, checkout)


def _row(fix_sets: FixSets, smell: str, model: str) -> Score:
    row = fix_sets.scores.get((CASES[smell].instance_id, model))
    assert row is not None, (smell, model, fix_sets.report.problems)
    return row


# -- the tests --------------------------------------------------------------------------------

def test_one_case_per_smell() -> None:
    """Every smell has its case among the frozen rows (none is left out for want of one)."""
    smells = {case.instance_id: case.smell for case in load_dataset(FROZEN)}
    assert sorted(CASES) == sorted(injectors())
    for smell, chosen in CASES.items():
        assert smells.get(chosen.instance_id) == smell, (chosen.instance_id, smell)


def test_the_fix_sets_are_scored_through_the_public_path(fix_sets: FixSets) -> None:
    report = fix_sets.report
    assert report.exit_code == 0 and not report.problems and report.input_errors == 0, report
    assert report.scored == len(MODELS) * len(CASES) == len(fix_sets.scores)
    assert set(report.models) >= {"partial", "alternative"}


@pytest.mark.parametrize("smell", sorted(CASES))
def test_a_partial_fix_lands_between_noop_and_the_oracle(fix_sets: FixSets, smell: str) -> None:
    oracle, noop = _row(fix_sets, smell, "oracle"), _row(fix_sets, smell, "noop")
    partial = _row(fix_sets, smell, "partial")
    assert partial.applied and partial.apply_status == "applied", partial.apply_reason
    assert partial.tpr == 1.0, ("the partial fix must keep the code running", partial.errors)
    assert oracle.resolved and not noop.resolved and not partial.resolved
    assert noop.gap_closed is not None and oracle.gap_closed is not None
    assert partial.gap_closed is not None
    assert noop.gap_closed < partial.gap_closed < oracle.gap_closed, partial.metrics
    assert noop.checks_passed is not None and oracle.checks_passed is not None
    assert partial.checks_passed is not None
    if CASES[smell].checks_between:
        assert noop.checks_passed < partial.checks_passed < oracle.checks_passed, \
            partial.failed_checks
    else:
        # Feature envy is one method envying one class; both checks ask whether that method
        # still envies. A partial fix either leaves the envious method (as here) or removes it
        # (and passes both): partial credit is in gap_closed alone.
        assert partial.checks_passed == noop.checks_passed, partial.failed_checks


@pytest.mark.parametrize("smell", sorted(CASES))
def test_an_alternative_fix_is_resolved(fix_sets: FixSets, smell: str) -> None:
    row = _row(fix_sets, smell, "alternative")
    assert row.applied and row.apply_status == "applied", row.apply_reason
    assert row.tpr == 1.0, row.errors
    assert row.la == 1.0, (row.touched, row.errors)
    assert row.residue == 0, row.errors
    assert row.checks_total and row.checks_passed == row.checks_total, row.failed_checks
    assert row.resolved and row.error_category == "resolved", row.errors


@pytest.mark.parametrize("smell", sorted(CASES))
def test_an_alternative_fix_is_not_the_ground_truth(fix_sets: FixSets, smell: str) -> None:
    """It leaves some file otherwise than the original code (which the ground truth restores
    byte for byte) has it."""
    files = fix_sets.fixes[CASES[smell].instance_id, "alternative"]
    original = fix_sets.checkout / SOURCE

    def before(path: str) -> str | None:
        return (original / path).read_text() if (original / path).exists() else None

    assert [path for path, new in files.items() if new != before(path)], \
        "the alternative fix rewrote the original code"
