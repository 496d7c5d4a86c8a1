"""Pydantic models for everything that leaves the process: CLI JSON, reports, datasets."""

from __future__ import annotations

import hashlib
import traceback
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

LocationKind = Literal[
    "module", "class", "function", "method", "nested_function", "lambda", "attribute", "statement",
]
Severity = Literal["error", "warning", "info"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Location(_Frozen):
    """A place in the analysed repository; `path` is relative to the scanned folder, POSIX."""

    path: str
    qualname: str
    kind: LocationKind
    start_line: int
    end_line: int


class Diagnostic(_Frozen):
    """A problem with the input that did not stop the analysis (an unreadable file, ...)."""

    path: str
    line: int | None = None
    severity: Severity = "warning"
    code: str
    message: str


class Finding(_Frozen):
    """One smell at one location, with the evidence that made the detector report it."""

    smell: str
    location: Location
    severity: Severity = "warning"
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    message: str = ""
    evidence: dict[str, Any] = Field(default_factory=dict)
    related: tuple[Location, ...] = ()

    def fingerprint(self) -> str:
        """Stable identity across runs: the smell and the qualified names involved, no lines,
        so edits elsewhere in a file do not turn a known finding into a new one."""
        related = ",".join(sorted({item.qualname for item in self.related}))
        text = f"{self.smell}|{self.location.qualname}|{related}"
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


class MetricRow(_Frozen):
    """The metrics of one module, class or function, by metric name."""

    location: Location
    values: dict[str, float | int | None]


class ScanMetrics(_Frozen):
    modules: tuple[MetricRow, ...] = ()
    classes: tuple[MetricRow, ...] = ()
    functions: tuple[MetricRow, ...] = ()


class ScanSummary(_Frozen):
    root: str
    files: int
    files_parsed: int
    files_from_cache: int
    files_with_errors: int
    modules: int
    classes: int
    functions: int
    lines: int
    call_edges: int
    call_sites: int
    call_sites_unresolved: int
    import_cycles: int
    findings: int
    seconds: float


class ScanResult(_Frozen):
    """What `smellkit scan --format json` prints."""

    version: str
    summary: ScanSummary
    findings: tuple[Finding, ...] = ()
    metrics: ScanMetrics = ScanMetrics()
    diagnostics: tuple[Diagnostic, ...] = ()
    import_cycles: tuple[tuple[str, ...], ...] = ()


# ---------------------------------------------------------------------------------------------
# Injection: the building blocks of benchmark cases.

Difficulty = Literal["easy", "medium", "hard"]
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "medium", "hard")
SPANS: dict[Difficulty, tuple[int, int | None]] = {"easy": (2, 2), "medium": (3, None),
                                                   "hard": (4, None)}
"""How many files a smell spans at each difficulty (SmellBench's definition): (least, most)."""
InstructionSetting = Literal["open", "guided", "targeted"]
TargetLevel = Literal["class", "method"]


class Candidate(_Frozen):
    """A place where one smell can be injected, and why it is eligible."""

    smell: str
    target: Location
    """The class or method the smell is centred on, in the original code."""
    reason: str
    """Why the structure qualifies, in a sentence a reviewer can check."""
    files: tuple[str, ...] = ()
    """Every file the candidate involves (relative POSIX paths)."""
    data: dict[str, Any] = Field(default_factory=dict)
    """Injector-specific details (JSON values only) that `inject` needs."""


class CandidateReport(_Frozen):
    """How discovery of one smell went: what the injector turned away, what the engine's rules
    removed, and how many candidates remain (`smellkit candidates --explain`)."""

    smell: str
    discarded: dict[str, int] = Field(default_factory=dict)
    """Definitions the injector's own discovery turned away, by rule (`context.discard`)."""
    proposed: int = 0
    """Candidates the injector proposed (duplicates counted once)."""
    removed: dict[str, int] = Field(default_factory=dict)
    """Proposed candidates the engine's rules removed, by rule, in the order they apply."""
    eligible: int = 0
    """Candidates left after every rule."""

    @property
    def reason(self) -> str:
        """Why no candidate is left, telling "none at all" from "none covered by the tests" and
        from "all in short files", with the counts."""
        if self.proposed == 0:
            turned = ", ".join(f"{rule}: {count}" for rule, count in self.discarded.items())
            total = sum(self.discarded.values())
            return "no candidate at all" + (
                f" (discovery turned away {total} definition{'s' if total != 1 else ''}; "
                f"{turned})"
                if turned else " (the repository has no definition of the kind this smell needs)")
        counts = "; ".join(f"{count} {rule}" for rule, count in self.removed.items())
        rules = set(self.removed)
        if rules == {UNCOVERED}:
            head = "no candidate covered by the tests"
        elif rules and rules <= {UNCOVERED, POORLY_COVERED}:
            head = "no candidate the tests run well enough"
        elif len(rules) == 1 and next(iter(rules)).startswith(SHORT_FILE):
            head = "every candidate is in a file under min-file-lines"
        else:
            head = "no eligible candidate"
        hint = " (lower min-file-lines for small repositories)" if any(
            rule.startswith(SHORT_FILE) for rule in rules) else ""
        return f"{head}: {self.proposed} found, {counts}{hint}"


UNCOVERED = "not covered by the tests"
"""The engine's rule name for candidates no test runs (when a test map is given)."""
MIN_CHANGED_LINES_EXECUTED = 0.9
"""The share of a case's live changed lines its selected tests must run (the adequacy rule);
also the share of a candidate's own lines the test suite must run for discovery to keep it,
since code injected from a poorly tested function cannot meet the adequacy rule."""
POORLY_COVERED = f"less than {MIN_CHANGED_LINES_EXECUTED:.0%} of its lines run by the tests"
"""The engine's rule name for candidates whose lines the test suite runs too little of (when
the test map measured them)."""
SHORT_FILE = "in a file shorter than"
"""The start of the engine's rule name for candidates in files under min-file-lines."""
OUTSIDE_SOURCE = "outside the analysed library source"
"""The engine's rule name for candidates in examples, docs, scripts, tests and the like."""


class Target(_Frozen):
    """Where a solver must act: the level decides how localization is scored."""

    location: Location
    level: TargetLevel


class StructuralCheck(_Frozen):
    """A deterministic check stored as data: it passes on the original code, fails on the smelly
    code, and can be evaluated on any later version of the repository."""

    kind: str
    """A registered check kind (`smellkit.checks`), e.g. `defined`."""
    description: str
    """What the check asserts, as a sentence."""
    params: dict[str, Any] = Field(default_factory=dict)


class CheckResult(_Frozen):
    check: StructuralCheck
    passed: bool
    detail: str = ""


class Injection(_Frozen):
    """One injected smell: patches both ways, where it is, how to check it, how to ask for it."""

    id: str
    smell: str
    difficulty: Difficulty
    seed: int
    candidate: Candidate
    smelly_patch: str
    """Unified diff (accepted by `git apply`) from the original to the smelly code."""
    ground_truth_patch: str
    """The exact reverse: from the smelly code back to the original."""
    targets: tuple[Target, ...]
    """Where the smell is, in the smelly version."""
    locations: tuple[Location, ...] = ()
    """Every location the smell involves, in the smelly version."""
    red_herrings: tuple[Location, ...] = ()
    """Look-alike code that is not smelly and must be left alone."""
    files: tuple[str, ...]
    """Files the smelly patch touches (created and deleted ones included)."""
    checks: tuple[StructuralCheck, ...]
    instructions: dict[InstructionSetting, str]
    llm_tokens: int = 0
    """Tokens spent by a language model to make this case: always zero here."""


class InjectionSkip(_Frozen):
    """An injection refused, with the reason (a risky edit is never produced)."""

    smell: str
    difficulty: Difficulty
    candidate: Candidate | None
    reason: str


class InjectionFailure(_Frozen):
    """An injection that crashed: an exception other than a refusal escaped the injector or the
    engine. A bug in smellkit (or a plugin) to report, never a property of the candidate: the
    build records it as an internal error, apart from refusals."""

    smell: str
    difficulty: Difficulty
    candidate: Candidate | None
    error_type: str
    """The exception's class (`KeyError`; qualified by its module outside the builtins)."""
    message: str
    traceback: str
    """The formatted traceback, for the bug report."""

    @property
    def reason(self) -> str:
        """One line, as a skip's reason reads."""
        return f"internal error: {self.error_type}: {self.message}"

    @classmethod
    def of(cls, error: BaseException, *, smell: str, difficulty: Difficulty,
           candidate: Candidate | None) -> InjectionFailure:
        kind = type(error)
        name = kind.__qualname__ if kind.__module__ == "builtins" \
            else f"{kind.__module__}.{kind.__qualname__}"
        return cls(smell=smell, difficulty=difficulty, candidate=candidate, error_type=name,
                   message=str(error),
                   traceback="".join(traceback.format_exception(kind, error,
                                                                error.__traceback__)))


# ---------------------------------------------------------------------------------------------
# Benchmark building: validated cases, rejections and the build report.

RejectionStage = Literal[
    "spec", "repository", "inject", "select", "original", "apply", "smelly", "adequacy",
    "internal",
]
"""Where a case was lost. `inject`: the injector refused (or had no candidate); `adequacy`: the
selected tests pass but do not run, or would not notice breaking, the smelly code (see
`TestAdequacy`); `internal`: smellkit itself crashed (an injector, candidate discovery or
validation), a bug to report."""


class FunctionSensitivity(_Frozen):
    """Whether the selected tests notice when one changed function of the smelly version stops
    working: its body replaced by `raise RuntimeError(...)`, the tests that run it run again."""

    qualname: str
    path: str
    """The file holding it, relative to the case's source path."""
    line: int
    """Where its definition starts in the smelly version (decorators included)."""
    tests: tuple[str, ...] = ()
    """The selected tests that run it (none: insensitive without a run)."""
    caught_by: str | None = None
    """The first selected test that failed on the broken function; None when none did."""

    @property
    def sensitive(self) -> bool:
        return self.caught_by is not None


class TestAdequacy(_Frozen):
    """How well a case's selected tests exercise its smelly code, measured on the smelly version
    under coverage. Code the case declares dead (a dead_code case's targets and locations) and
    stubs (bodies that only pass, return None or raise) are not expected to run and are left out
    (`exempt`)."""

    __test__ = False  # a model, not a pytest test class

    targets: tuple[str, ...] = ()
    """The case's target qualnames in the smelly version."""
    targets_executed: tuple[str, ...] = ()
    """Those run by at least one selected test (a class or module: code inside it)."""
    exempt: tuple[str, ...] = ()
    """Definitions not expected to run: declared dead by the case, or stubs."""
    changed_lines: int = 0
    """Executable lines the smelly patch adds or changes, outside exempt definitions."""
    changed_lines_executed: int = 0
    """Those run while the selected tests ran (imports during collection count)."""
    lines_not_executed: tuple[str, ...] = ()
    """`path:line` of each changed line that did not run."""
    functions: tuple[FunctionSensitivity, ...] = ()
    """Each changed live function of the smelly version and whether its breaking was noticed."""
    sensitive: bool = True
    """Every function in `functions` was caught by a selected test."""
    reselected: bool = False
    """The tests were chosen again from the smelly version's own coverage (moved or copied
    code the original's test map could not point at)."""
    target_methods: tuple[str, ...] = ()
    """The case's target methods, each allowing `limit` selected tests (a method-level target;
    a class-level target's methods among the case's locations, or the class if none)."""
    test_budget: int = 0
    """The most tests the case could select (`limit` per target method); 0 in records made
    before the bound was recorded."""

    def live_targets(self) -> tuple[str, ...]:
        return tuple(name for name in self.targets if name not in self.exempt)

    def problems(self, min_lines: float, *, breaks: bool = True) -> list[str]:
        """What keeps these tests from being adequate, one phrase each; empty when they are:
        every live target run, at least `min_lines` of the changed lines run, and sensitive
        (left out without `breaks`: what coverage alone says, before any function is broken)."""
        found: list[str] = []
        missed = [name for name in self.live_targets() if name not in self.targets_executed]
        if missed:
            found.append(f"no selected test runs the target(s) {', '.join(missed)}")
        if self.changed_lines and self.changed_lines_executed < min_lines * self.changed_lines:
            shown = ", ".join(self.lines_not_executed[:5])
            more = " ..." if len(self.lines_not_executed) > 5 else ""
            found.append(f"the selected tests run {self.changed_lines_executed} of the "
                         f"{self.changed_lines} changed lines (fewer than {min_lines:.0%}; "
                         f"not run: {shown}{more})")
        unrun = [item.qualname for item in self.functions if not item.tests]
        if unrun:
            found.append(f"no selected test runs the changed function(s) {', '.join(unrun)}")
        missed_breaks = [item.qualname for item in self.functions
                         if item.tests and not item.sensitive]
        if missed_breaks and breaks:
            found.append("no selected test fails when this changed function is broken (body "
                         f"replaced by `raise RuntimeError`): {', '.join(missed_breaks)}")
        return found


class Preexisting(_Frozen):
    """The findings of a case's smell that the original repository already had: the open
    setting's other right answers, which scoring must not count as residue of the injection."""

    count: int
    """How many findings the smell's detector reports on the original."""
    locations: tuple[Location, ...] = ()
    """Where they are, in the original (one per finding)."""

    @property
    def qualnames(self) -> frozenset[str]:
        return frozenset(item.qualname for item in self.locations)


class Case(Injection):
    """An injection that passed validation: the selected tests pass on the original and on the
    smelly version of the repository it names."""

    repo: str
    """The repo spec's name."""
    revision: str
    """The exact code the case was built from: a commit, `pypi:name==version` or `local`."""
    source_path: str = ""
    """The folder inside the checkout that the patches are relative to (e.g. `src`)."""
    tests_path: str = "tests"
    """The folder of the repository's tests (hidden from solvers, used for scoring)."""
    tests: tuple[str, ...]
    """The selected pytest node ids; they pass on both versions."""
    test_adequacy: TestAdequacy | None = None
    """How well `tests` run and guard the smelly code; None only in datasets built before it
    was measured."""
    timings: dict[str, float] = Field(default_factory=dict)
    """Seconds per validation step; machine-dependent, so left out of exported datasets."""
    preexisting: Preexisting | None = None
    """The findings of this smell the original already had (computed once per repository and
    smell by the build); None when unknown (a case from before they were recorded)."""
    status: Literal["validated"] = "validated"

    @property
    def instance_id(self) -> str:
        """Unique across repositories: the repo name and the injection id."""
        return f"{self.repo}__{self.id}"


class Rejection(_Frozen):
    """Why one case (or a whole repository) did not make it into the dataset."""

    key: str
    """Stable identity (the injection id, or repo|smell|difficulty|candidate), for resuming."""
    repo: str
    stage: RejectionStage
    reason: str
    smell: str | None = None
    difficulty: Difficulty | None = None
    injection_id: str | None = None
    candidate: str | None = None
    """The candidate's target qualname, when there was one."""
    timings: dict[str, float] = Field(default_factory=dict)
    traceback: str | None = None
    """At stage `internal` (smellkit itself crashed): the traceback, for the bug report."""


class BuildReport(_Frozen):
    """What one `smellkit build` did: counts, where the outputs are, why cases were rejected."""

    out_dir: str
    seed: int
    repos: tuple[str, ...]
    """The repositories that were built (those whose spec loaded)."""
    cases: int
    """Cases exported to dataset.jsonl (after sampling)."""
    validated: int
    """Cases that passed validation (before sampling), reused ones included."""
    reused: int
    """Outcomes read back from an earlier, interrupted run instead of recomputed."""
    rejected: int
    by_cell: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Exported cases by smell, then difficulty."""
    distinct: dict[str, dict[str, int]] = Field(default_factory=dict)
    """By smell, the distinct `targets` (candidate targets) and `files` (files the smelly
    patches touch) of the exported cases, over all repositories: how diverse the dataset is."""
    tests: dict[str, dict[str, float]] = Field(default_factory=dict)
    """By smell, the selected tests per exported case (`median`, `max`) and the most per
    target method (`max_per_target_method`; the bound is the validator's limit, 10)."""
    rejections_by_stage: dict[str, int] = Field(default_factory=dict)
    internal_errors: int = 0
    """Rejections at stage `internal`: an injector, candidate discovery or validation crashed
    (a bug in smellkit to report, not a property of the code); counted apart from refusals and
    failing tests, with tracebacks in rejections.jsonl."""
    repo_errors: dict[str, str] = Field(default_factory=dict)
    """Repositories (or spec files) that could not be built at all, and why."""
    harbor_tasks: int = 0
    timings: dict[str, float] = Field(default_factory=dict)
    """Seconds per stage, summed over cases (validation runs in parallel)."""
    seconds: float = 0.0
