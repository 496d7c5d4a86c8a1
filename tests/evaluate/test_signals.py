"""The signals of one prediction, end to end on cases smellkit injects into its own fixture
repositories: the oracle scores as solved, an empty patch as untouched, a partial fix in between;
and the edge cases (no original, a SmellBench record, non-Python changes, a result that does not
parse, a detector that crashes, edits outside the case)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smellkit.evaluate import signals
from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.patches.parse import prefix_paths
from smellkit.evaluate.score import Score
from smellkit.evaluate.signals import measure, prepare
from smellkit.project import Project
from tests.evaluate.signals_support import (
    ONE_PER_SMELL,
    SOURCE,
    Built,
    build,
    edit,
    load,
    partial_patch,
)

SMELLS = sorted(ONE_PER_SMELL)


class Cases:
    """One case per smell, built on first use and shared by this module's tests."""

    def __init__(self, factory: pytest.TempPathFactory):
        self.factory = factory
        self.built: dict[str, Built] = {}

    def __call__(self, smell: str) -> Built:
        if smell not in self.built:
            fixture, difficulty = ONE_PER_SMELL[smell]
            self.built[smell] = build(smell, fixture, difficulty, self.factory.mktemp(smell))
        return self.built[smell]


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Cases:
    return Cases(tmp_path_factory)


def _has_gap(case: Built) -> bool:
    original, smelly = case.analysis.original_metrics, case.analysis.smelly_metrics
    assert original is not None and smelly is not None
    return any(original[name] != smelly[name] for name in original)


@pytest.mark.parametrize("smell", SMELLS)
def test_the_oracle_scores_as_solved(smell: str, cases: Cases) -> None:
    case = cases(smell)
    assert case.analysis.errors == ()
    score = case.score("oracle", case.oracle_patch)
    assert score.errors == ()
    assert score.la == 1.0
    assert (score.loc_precision, score.loc_recall, score.red_herrings_touched) == (1.0, 1.0, 0)
    assert score.residue == 0
    assert score.checks_total and score.checks_passed == score.checks_total, score.failed_checks
    assert score.gap_closed == (1.0 if _has_gap(case) else None)
    assert all(delta.result == delta.original for delta in score.metrics.values())
    if case.analysis.missing:
        assert (score.gt_precision, score.gt_recall, score.gt_f1) == (1.0, 1.0, 1.0)
    else:
        assert (score.gt_precision, score.gt_recall, score.gt_f1) == (None, None, None)
    assert case.case.case is not None
    assert score.files_changed == score.files_involved == len(case.case.case.files)
    assert (score.files_outside, score.lines_outside) == (0, 0)


def test_most_oracles_close_a_metric_gap_and_some_recover_definitions(cases: Cases) -> None:
    """The oracle test above is not vacuous: gaps and missing definitions do occur."""
    every = [cases(smell) for smell in SMELLS]
    assert sum(map(_has_gap, every)) >= 6
    assert sum(bool(case.analysis.missing) for case in every) >= 2


@pytest.mark.parametrize("smell", SMELLS)
def test_an_empty_patch_scores_as_untouched(smell: str, cases: Cases) -> None:
    case = cases(smell)
    score = case.score("noop")
    assert score.errors == ()
    assert (score.la, score.touched, score.loc_precision, score.loc_recall) == \
        (0.0, (), None, 0.0)
    assert score.residue is not None and score.residue >= 1
    assert score.checks_passed == 0 and score.checks_total, "every check fails on the smell"
    assert score.gap_closed == (0.0 if _has_gap(case) else None)
    assert all(delta.result == delta.smelly for delta in score.metrics.values())
    if case.analysis.missing:
        assert (score.gt_precision, score.gt_recall, score.gt_f1) == (None, 0.0, 0.0)
    assert (score.files_changed, score.files_outside, score.lines_outside) == (0, 0, 0)


@pytest.mark.parametrize("smell", ["dead_code", "duplicated_code", "interface_segregation",
                                   "deep_inlining"])
def test_a_partial_fix_lands_in_between(smell: str, cases: Cases) -> None:
    """The ground truth applied to one file only."""
    case = cases(smell)
    oracle, noop = case.score("oracle", case.oracle_patch), case.score("noop")
    partial = case.score("partial", partial_patch(case))
    assert partial.files_changed == 1 and partial.errors == ()
    assert noop.gap_closed is not None and oracle.gap_closed is not None
    assert noop.gap_closed < (partial.gap_closed or 0.0) < oracle.gap_closed
    assert noop.checks_passed is not None and oracle.checks_passed is not None
    assert noop.checks_passed <= (partial.checks_passed or 0) <= oracle.checks_passed
    if smell != "deep_inlining":  # there, one file restores every helper: all checks pass
        assert noop.checks_passed < (partial.checks_passed or 0) < oracle.checks_passed
    assert 0.0 < (partial.loc_recall or 0.0) < 1.0


def test_code_the_injection_edited_outside_the_locations_is_measured(cases: Cases) -> None:
    """A case whose locations leave out a definition the injection edited (click's shotgun
    surgery writes `term_len`'s expression out in `ProgressBar.render_progress` too): the
    definitions the ground truth changes are involved code, so a fix that leaves that copy
    does not close the whole gap."""
    built = cases("shotgun_surgery")
    case = built.case.case
    assert case is not None
    left_out = "orders.export.header"
    narrowed = case.model_copy(update={
        "targets": tuple(item for item in case.targets if item.location.qualname != left_out),
        "locations": tuple(item for item in case.locations if item.qualname != left_out)})
    analysis = prepare(EvalCase.from_case(narrowed), load(built.original / SOURCE),
                       load(built.smelly / SOURCE))
    assert left_out not in {item.qualname for item in analysis.involvement.locations}
    assert left_out in analysis.base_units
    assert analysis.errors == ()


def test_a_helper_restored_under_another_name_is_the_helper_a_check_names(
        cases: Cases) -> None:
    """The ground truth with `_record` brought back as `_write_entry`: the check that `post`
    calls `_record` (where the original or the injection put it) follows the rename. The
    other files the ground truth restores (callers in other modules the chain was pasted
    into) are restored as they are."""
    case = cases("deep_inlining")
    oracle = case.result_tree("renamed-oracle", case.oracle_patch)
    path = f"{SOURCE}/ledger/book.py"
    text = (oracle / path).read_text()
    assert text.count("_record(") == 2
    restored = {f"{SOURCE}/{item}": (oracle / SOURCE / item).read_text()
                for item in case.case.case.files} if case.case.case else {}
    patch, tree = edit(case, "renamed", {
        **restored, path: text.replace("_record(", "_write_entry(")})
    score = case.score("renamed", patch, tree)
    assert score.checks_total and score.checks_passed == score.checks_total, score.failed_checks
    assert (score.la, score.residue, score.errors) == (1.0, 0, ())


def test_renaming_a_dead_function_does_not_pass_its_check(cases: Cases) -> None:
    """A rename is followed both ways: the dead head of the chain renamed, still unused, is
    still dead."""
    case = cases("dead_code")
    path = f"{SOURCE}/shop/cli.py"
    record = case.case.case
    assert record is not None
    (head,) = [item.qualname for item in record.locations if item.path == "shop/cli.py"]
    name = head.rpartition(".")[2]
    text = (case.smelly / path).read_text()
    patch, tree = edit(case, "dead-renamed", {
        path: text.replace(f"def {name}(", f"def {name}_entry(")})
    score = case.score("dead-renamed", patch, tree)
    assert score.checks_passed == 0, "the renamed head of the chain is not 'not defined'"
    assert any(f"{head}_entry is defined but only unreachable or unused code" in item
               for item in score.failed_checks), score.failed_checks
    assert score.residue is not None and score.residue >= 1


def test_the_analysis_serves_many_predictions_unchanged(cases: Cases) -> None:
    case = cases("feature_envy")
    first = case.score("again-1", case.oracle_patch)
    case.score("again-noop")
    assert case.score("again-2", case.oracle_patch).model_dump(exclude={"model"}) == \
        first.model_dump(exclude={"model"})


def test_without_the_original_recovery_and_the_gap_are_unknown(tmp_path: Path) -> None:
    case = build("feature_envy", "ledger", "easy", tmp_path, with_original=False)
    score = case.score("oracle", case.oracle_patch)
    assert (score.gt_precision, score.gt_recall, score.gt_f1, score.gap_closed) == \
        (None, None, None, None)
    assert all(delta.original is None and delta.smelly is not None
               for delta in score.metrics.values())
    assert (score.la, score.residue, score.errors) == (1.0, 0, ())
    assert score.checks_passed == score.checks_total
    assert case.score("noop").residue == 1


def test_a_smellbench_record_is_scored_from_its_target_strings(tmp_path: Path) -> None:
    case = build("god_class", "console", "hard", tmp_path)
    assert case.case.case is not None
    target = case.case.case.targets[0].location
    module = target.qualname.rpartition(".")[0]
    record = EvalCase(
        instance_id="console-1", repo="console", smell="god_class", format="smellbench",
        smelly_patch=prefix_paths(case.case.smelly_patch, SOURCE),
        ground_truth_patch=prefix_paths(case.case.ground_truth_patch, SOURCE),
        source_path=SOURCE,
        targets=(f"{SOURCE}/{target.path}::{target.qualname.removeprefix(module + '.')}",))
    analysis = prepare(record, load(case.original / SOURCE), load(case.smelly / SOURCE))
    assert analysis.errors == ()
    tree = case.result_tree("smellbench-oracle", case.oracle_patch)
    score = measure(analysis, load(tree / SOURCE), case.oracle_patch,
                    Score(instance_id=record.instance_id, model="oracle", smell="god_class"))
    assert (score.la, score.residue, score.gap_closed, score.errors) == (1.0, 0, 1.0, ())
    assert (score.checks_passed, score.checks_total) == (None, None), "a record has no checks"
    assert score.files_involved == len(case.case.case.files)
    noop = measure(analysis, load(case.smelly / SOURCE), "",
                   Score(instance_id=record.instance_id, model="noop", smell="god_class"))
    assert (noop.la, noop.residue) == (0.0, 1)


def test_a_patch_touching_only_non_python_files(cases: Cases) -> None:
    case = cases("feature_envy")
    patch, tree = edit(case, "readme", {"README.md": "# fixture\n\nChanged.\nAdded.\n"})
    score = case.score("readme", patch, tree)
    assert (score.touched, score.la, score.loc_precision, score.errors) == ((), 0.0, None, ())
    assert (score.files_changed, score.files_outside, score.lines_outside) == (1, 1, 3)
    assert score.residue == 1 and score.checks_passed == 0


def test_a_result_file_that_does_not_parse(cases: Cases) -> None:
    """The error is recorded; localization, residue, checks and metrics are still filled."""
    case = cases("feature_envy")
    path = f"{SOURCE}/bank/ledger.py"
    text = (case.smelly / path).read_text()
    patch, tree = edit(case, "broken", {path: text.replace("charged = ", "charged = (", 1)})
    score = case.score("broken", patch, tree)
    assert any("localization" in error and "bank/ledger.py" in error for error in score.errors)
    assert score.touched == ("bank.ledger", "bank.ledger.Ledger.close_period"), \
        "the smelly side is mapped; the broken side counts at module level"
    assert score.la == 0.0
    assert score.residue is not None and score.checks_total == 2
    assert score.metrics and score.gap_closed is not None
    assert (score.files_changed, score.files_outside) == (1, 0)


def test_a_crashing_detector_leaves_the_other_signals(cases: Cases,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    case = cases("feature_envy")

    def crash(*args: object, **kwargs: object) -> None:
        raise RuntimeError("detector exploded")

    monkeypatch.setattr(signals, "residue", crash)
    score = case.score("crash", case.oracle_patch)
    assert score.residue is None
    assert score.errors == ("residue: RuntimeError: detector exploded",)
    assert (score.la, score.checks_passed, score.gap_closed, score.gt_recall) == (1.0, 2, 1.0, 1.0)


def test_a_crashing_check_says_why_among_the_failed_checks(
        cases: Cases, monkeypatch: pytest.MonkeyPatch) -> None:
    case = cases("feature_envy")

    def crash(*args: object, **kwargs: object) -> None:
        raise KeyError("smell")

    monkeypatch.setattr(signals, "_check", crash)
    score = case.score("crash", case.oracle_patch)
    assert score.checks_total == 2 and score.checks_passed == 0
    assert all(item.endswith("the check crashed (KeyError: 'smell')")
               for item in score.failed_checks), score.failed_checks
    assert any(item.startswith("check ") for item in score.errors), score.errors


def test_edits_outside_the_case_count_as_outside(tmp_path: Path) -> None:
    """The oracle plus a red herring edited and a new file, in and outside the source folder
    (a feature envy case with a red herring: the hard one, whose subclasses' calls moved)."""
    case = build("feature_envy", "handed", "hard", tmp_path)
    assert [item.qualname for item in case.analysis.involvement.red_herrings] == \
        ["books.ledger.Ledger.summary"]
    oracle = case.result_tree("stray-oracle", case.oracle_patch)
    ledger = (oracle / SOURCE / "books/ledger.py").read_text()
    marker = "    def summary(self):\n"
    assert marker in ledger
    patch, tree = edit(case, "stray", {
        f"{SOURCE}/books/ledger.py": ledger.replace(marker, marker + "        # stray\n"),
        **{f"{SOURCE}/books/{name}": (oracle / SOURCE / "books" / name).read_text()
           for name in ("layout.py", "credit.py", "savings.py")},
        f"{SOURCE}/books/audit.py": "def audit(entries):\n    return len(entries)\n",
        "tools/release.py": "print('release')\n"})
    score = case.score("stray", patch, tree)
    assert score.errors == () and score.la == 1.0 and score.residue == 0
    assert score.red_herrings_touched == 1
    assert "books.audit.audit" in score.touched
    assert score.loc_precision is not None and score.loc_precision < 1.0
    assert score.files_changed == 6 and score.files_outside == 2  # audit.py, tools/release.py
    assert score.lines_outside == 1 + 2 + 1, \
        "the comment (a red herring is not involved, though inside an involved class), " \
        "audit.py, release.py"


def test_a_result_the_detectors_cannot_read_still_gets_localization_and_scope(
        cases: Cases) -> None:
    """Facts loaded without detail serve no detector: that is recorded, not raised."""
    case = cases("feature_envy")
    tree = case.result_tree("undetailed", case.oracle_patch)
    result = Project.load(tree / SOURCE, use_cache=False, jobs=1, detailed=False)
    score = measure(case.analysis, result, case.oracle_patch,
                    Score(instance_id=case.case.instance_id, model="undetailed",
                          smell="feature_envy"))
    assert len(score.errors) == 1 and score.errors[0].startswith("analysis: ValueError")
    assert (score.residue, score.checks_total, score.gap_closed) == (None, None, None)
    assert (score.la, score.loc_recall, score.gt_recall, score.files_outside) == (1.0, 1.0, 1.0, 0)


def test_residue_leaves_out_the_findings_the_build_recorded_on_the_case(cases: Cases) -> None:
    """A case's `preexisting` (recorded by the build) is what residue leaves out: recorded at
    the names the untouched smell is found at, the noop leaves no residue; recorded empty, the
    noop's residue stands; and without the original the recorded names are still known."""
    import dataclasses

    from smellkit.analysis.context import Context
    from smellkit.detectors.runner import run_detectors
    from smellkit.models import Preexisting

    built = cases("dead_code")
    case = built.case.case
    assert case is not None
    smelly = load(built.smelly / SOURCE)
    found = run_detectors(Context(smelly), ["dead_code"], respect_suppressions=False)
    assert built.score("noop").residue == len(
        [item for item in found if item.location.qualname not in
         (built.analysis.preexisting or frozenset())]) >= 1

    def noop_with(recorded: Preexisting, original: bool = True) -> tuple[int | None, Any]:
        with_record = EvalCase.from_case(case.model_copy(update={"preexisting": recorded}))
        analysis = prepare(with_record, load(built.original / SOURCE) if original else None,
                           smelly)
        again = dataclasses.replace(built, analysis=analysis)
        return again.score("noop").residue, analysis

    everywhere = Preexisting(count=len(found), locations=tuple(item.location for item in found))
    assert noop_with(everywhere)[0] == 0
    nothing, analysis = noop_with(Preexisting(count=0))
    assert analysis.preexisting == frozenset() and nothing is not None and nothing >= 1
    _, blind = noop_with(everywhere, original=False)
    assert blind.preexisting == everywhere.qualnames
