"""One scored prediction: the deterministic signals, the error category derived from them, and
`resolved`. A row of `scores.jsonl`; every field is documented because papers quote them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ErrorCategory = Literal[
    "no_patch", "apply_failed", "tampered", "broke_tests", "wrong_location", "incomplete_fix",
    "not_equivalent", "resolved",
]
"""Why a prediction is not resolved, in the order the checks are made (the first that holds)."""

ERROR_CATEGORIES: tuple[ErrorCategory, ...] = (
    "no_patch", "apply_failed", "tampered", "broke_tests", "wrong_location", "incomplete_fix",
    "not_equivalent", "resolved",
)


class MetricDelta(BaseModel):
    """One metric of the touched code in the three versions (None where it does not apply)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    original: float | None = None
    smelly: float | None = None
    result: float | None = None


class Score(BaseModel):
    """The signals of one prediction on one case. Fields that could not be measured (no patch
    applied, no ground truth in a SmellBench record) are None, never a made-up number."""

    model_config = ConfigDict(extra="forbid")

    instance_id: str
    model: str
    """The predictions' model (`model_name_or_path`), or `oracle` / `noop`."""
    smell: str
    difficulty: str = ""
    repo: str = ""
    setting: str = ""
    """The instruction setting the agent was given (`open`, `guided`, `targeted`), if known."""

    # -- the run that made the prediction, when its source records it -------------------------
    agent: str | None = None
    exit_reason: str | None = None
    """How the agent's run ended (`smellkit run`'s `finished`, `timeout`, ...; a Harbor trial's
    exception type)."""
    usage: dict[str, Any] = Field(default_factory=dict)
    """What the run cost, as its source reports it: `input_tokens`, `cached_input_tokens`,
    `output_tokens`, `cost_usd`, ..."""
    duration_s: float | None = None
    """The agent's wall-clock time."""

    # -- applying ---------------------------------------------------------------------------
    applied: bool = False
    """The patch applied to a copy of the smelly repository (an empty patch applies: noop)."""
    apply_status: str = ""
    """`applied`, `empty`, `apply_failed`, `refused` or `tampered` (the apply step's verdict)."""
    apply_reason: str = ""
    """Why the patch was refused or did not apply, in a sentence naming the file."""

    # -- tests ------------------------------------------------------------------------------
    tests_passed: int | None = None
    tests_total: int | None = None
    """The case's selected tests, run on the result with the build's runner and environment."""
    tpr: float | None = None
    """tests_passed / tests_total (SmellBench's test pass rate, per case)."""
    tests_timed_out: bool = False
    full_suite_passed: int | None = None
    full_suite_total: int | None = None
    """Only with `--full-suite`: the whole suite on the result."""

    # -- localization -----------------------------------------------------------------------
    la: float | None = None
    """1 when every target is touched at its level (class level for god_class and
    interface_segregation: the class or one of its members; method level otherwise), else 0."""
    loc_precision: float | None = None
    """Of the definitions the patch touched, the share that the case involves."""
    loc_recall: float | None = None
    """Of the definitions the case involves, the share the patch touched."""
    red_herrings_touched: int | None = None
    touched: tuple[str, ...] = ()
    """Qualified names the patch changed or deleted (smelly side) or added (result side)."""

    # -- smell residue and structure --------------------------------------------------------
    residue: int | None = None
    """Findings of the case's smell left at its targets and locations on the result, minus those
    the original code already had."""
    checks_passed: int | None = None
    checks_total: int | None = None
    failed_checks: tuple[str, ...] = ()
    """The descriptions of the structural checks that fail on the result, with their detail."""

    # -- ground-truth recovery --------------------------------------------------------------
    gt_precision: float | None = None
    gt_recall: float | None = None
    gt_f1: float | None = None
    """The original's definitions the smelly version lacks, matched one-to-one to definitions the
    result adds or changes by normalised-AST similarity (`recovery.THRESHOLD`)."""

    # -- metrics ----------------------------------------------------------------------------
    metrics: dict[str, MetricDelta] = Field(default_factory=dict)
    """CC, MI, WMC, LCOM4, CBO, SLOC, fan-out (imported names), call sites and code tokens of
    the involved code in the original, smelly and result versions (`signals.deltas`)."""
    gap_closed: float | None = None
    """The share of the smelly -> original distance (over the metrics above, each normalised)
    that the result closed: 1 back to the original's figures, 0 no better than the smelly code,
    negative when worse."""

    # -- scope ------------------------------------------------------------------------------
    files_changed: int | None = None
    files_involved: int = 0
    """Files the smelly patch touched: the files a fix may need to change."""
    files_outside: int | None = None
    lines_outside: int | None = None
    """Files and changed lines of the patch outside the files and definitions the case involves."""

    # -- equivalence (filled when differential testing runs) --------------------------------
    equivalent: bool | None = None
    """True for an `equivalent` verdict, False for `not_equivalent`, None otherwise."""
    equivalence: Literal["equivalent", "not_equivalent", "inconclusive"] | None = None
    """The differential-testing verdict (`smellkit evaluate --equivalence`), None when not run."""
    equivalence_detail: dict[str, Any] | None = None
    """`smellkit.evaluate.equivalence.Equivalence` as a dict: entry points and inputs compared,
    what could not be compared and why, the counterexample, the reason of an inconclusive."""

    # -- verdict ----------------------------------------------------------------------------
    error_category: ErrorCategory = "no_patch"
    resolved: bool = False
    """Applied, every selected test passes, la = 1, no residue and every structural check
    passes (and equivalent, when that was measured)."""
    seconds: float = 0.0
    """Time to score it, tests included."""
    test_seconds: float = 0.0
    errors: tuple[str, ...] = ()
    """Problems met while scoring (a detector that crashed, a file that did not parse)."""


def categorise(score: Score) -> Score:
    """Set `error_category` and `resolved` from the signals, never from a model's opinion."""
    status = score.apply_status
    if status == "tampered":
        category: ErrorCategory = "tampered"
    elif status == "empty":
        category = "no_patch"
    elif not score.applied:
        category = "apply_failed"
    elif score.tests_total and (score.tests_passed or 0) < score.tests_total:
        category = "broke_tests"
    elif score.la != 1:
        category = "wrong_location"
    elif (score.residue or 0) > 0 or (score.checks_total or 0) > (score.checks_passed or 0):
        category = "incomplete_fix"
    elif score.equivalent is False:
        category = "not_equivalent"
    else:
        category = "resolved"
    score.error_category = category
    score.resolved = category == "resolved"
    return score
