"""Running given tests of a case copy with the spec's test command, and reading what happened.

Outcomes come from the JSON lines `_plugin.py` writes as each test finishes (not from a JUnit file
written at exit), so a run killed at the time limit still reports every test that finished and
names the one that hung.
"""

from __future__ import annotations

import json
import shlex
import shutil
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from smellkit.config import RepoSpec
from smellkit.sandbox.environment import Environment
from smellkit.sandbox.errors import SandboxError
from smellkit.sandbox.runner import LocalRunner, Runner, RunResult

PLUGIN_MODULE = "smellkit_pytest_plugin"
RUN_DIR_PREFIX = ".smellkit-run-"
OUTPUT_TAIL = 4000


class NodeOutcome(BaseModel):
    """One test's result over its setup, call and teardown phases."""

    model_config = ConfigDict(frozen=True)

    status: str  # passed failed error skipped xfailed timeout hung deselected not-run
    message: str = ""
    seconds: float = 0.0


class TestRun(BaseModel):
    """What running the selected tests gave; `ok` only when every requested test passed."""

    model_config = ConfigDict(frozen=True)
    __test__ = False  # a model, not a pytest test class

    requested: tuple[str, ...]
    passed: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    errors: tuple[str, ...] = Field(default=(), description="Setup/teardown errors, collection "
                                    "errors, tests not found or never run.")
    skipped: tuple[str, ...] = ()
    hung: tuple[str, ...] = Field(default=(), description="Tests cut off at the per-test limit.")
    messages: dict[str, str] = Field(default_factory=dict)
    timed_out: bool = Field(default=False, description="The whole run was killed at its limit.")
    returncode: int = 0
    seconds: float = 0.0
    output: str = ""

    @property
    def ok(self) -> bool:
        return not self.timed_out and set(self.requested) <= set(self.passed)

    def summary(self) -> str:
        parts = [f"{len(self.passed)} passed"]
        for name in ("failed", "errors", "skipped", "hung"):
            if getattr(self, name):
                parts.append(f"{len(getattr(self, name))} {name}")
        if self.timed_out:
            parts.append("run timed out")
        return ", ".join(parts) + f" in {self.seconds:.1f}s"


def pytest_argv(spec: RepoSpec) -> list[str]:
    """The spec's test command as argv; only pytest is understood (its node ids, its plugins)."""
    argv = shlex.split(spec.test_command)
    runs_pytest = (argv[:1] in (["pytest"], ["py.test"])
                   or (len(argv) >= 3 and argv[1] == "-m" and argv[2] == "pytest"))
    if not runs_pytest:
        raise SandboxError(f"test-command must run pytest ('python -m pytest ...' or "
                           f"'pytest ...'), got {spec.test_command!r}", path=spec.spec_path)
    return argv


def _start(argv: list[str]) -> int:
    return 1 if argv[0] in ("pytest", "py.test") else 3


def suite_argv(spec: RepoSpec, root: Path) -> list[str]:
    """The command for the whole suite: test-command, plus tests-path when the command names
    no test files or folders itself (`python -m pytest tests/test_a.py` picks a subset)."""
    argv = pytest_argv(spec)
    if _paths(argv, root) or not spec.tests_path:
        return argv
    return [*argv, spec.tests_path]


def selection_argv(spec: RepoSpec, root: Path) -> list[str]:
    """The command for given node ids: test-command without its file and folder arguments,
    which would otherwise run their whole content besides the ids."""
    argv = pytest_argv(spec)
    paths = set(_paths(argv, root))
    return [arg for index, arg in enumerate(argv) if index not in paths]


def _paths(argv: list[str], root: Path) -> list[int]:
    """Positions of positional arguments naming existing files or folders under `root`."""
    found = []
    for index in range(_start(argv), len(argv)):
        arg, before = argv[index], argv[index - 1]
        if arg.startswith("-") or (before.startswith("-") and "=" not in before
                                   and before in VALUE_OPTIONS):
            continue
        if (root / arg.split("::")[0]).exists():
            found.append(index)
    return found


VALUE_OPTIONS = frozenset({"-p", "-k", "-m", "-c", "-o", "-W", "--rootdir", "--confcutdir",
                           "--basetemp", "--deselect", "--ignore", "--ignore-glob", "--tb",
                           "-r", "--durations", "--maxfail", "--override-ini", "--log-level",
                           "--junitxml", "--junit-xml", "--import-mode", "--capture"})
"""pytest options that take the next argument as their value (never a test path)."""


class RunDir:
    """A private folder inside the run's cwd (so a container sees it) holding the plugin and
    the results file; removed afterwards."""

    def __init__(self, cwd: Path):
        self.path = Path(cwd) / f"{RUN_DIR_PREFIX}{uuid.uuid4().hex[:8]}"
        self.path.mkdir()
        shutil.copyfile(Path(__file__).with_name("_plugin.py"),
                        self.path / f"{PLUGIN_MODULE}.py")
        self.results = self.path / "results.jsonl"

    def env(self, base: Mapping[str, str], *, per_test: float, contexts: bool = False,
            deselect: Sequence[str] = ()) -> dict[str, str]:
        env = dict(base)
        env["PYTHONPATH"] = ":".join(filter(None, [env.get("PYTHONPATH", ""), str(self.path)]))
        env["SMELLKIT_RESULTS"] = str(self.results)
        env["SMELLKIT_PER_TEST"] = str(per_test)
        env["SMELLKIT_CONTEXTS"] = "1" if contexts else "0"
        if deselect:
            target = self.path / "deselect.json"
            target.write_text(json.dumps(sorted(deselect)))
            env["SMELLKIT_DESELECT"] = str(target)
        return env

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


PLUGIN_ARGS = ("-p", PLUGIN_MODULE, "-p", "no:cacheprovider")


def read_outcomes(results: Path) -> tuple[dict[str, NodeOutcome], list[str]]:
    """Per node id outcomes, and the node ids that started but never ended (the run died)."""
    reports: dict[str, list[dict[str, object]]] = {}
    started: list[str] = []
    ended: set[str] = set()
    collect_errors: dict[str, str] = {}
    deselected: list[str] = []
    try:
        lines = results.read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:  # a line cut short by a kill
            continue
        nodeid = str(record.get("nodeid", ""))
        event = record.get("event")
        if event == "start":
            started.append(nodeid)
        elif event == "end":
            ended.add(nodeid)
        elif event == "report":
            reports.setdefault(nodeid, []).append(record)
        elif event == "deselected":
            deselected.append(nodeid)
        elif event == "collect-error":
            collect_errors[nodeid] = str(record.get("message", ""))
    outcomes = {nodeid: NodeOutcome(status="deselected") for nodeid in deselected}
    outcomes.update((nodeid, _combine(records)) for nodeid, records in reports.items())
    for nodeid, message in collect_errors.items():
        outcomes[nodeid] = NodeOutcome(status="error", message=f"collection error: {message}")
    unfinished = [nodeid for nodeid in started if nodeid not in ended]
    for nodeid in unfinished:
        outcomes[nodeid] = NodeOutcome(status="hung", message="the run ended during this test")
    return outcomes, unfinished


def _combine(records: list[dict[str, object]]) -> NodeOutcome:
    by_phase = {str(record["when"]): record for record in records}
    seconds = sum(float(str(record.get("duration", 0))) for record in records)
    timeout = next((r for r in records if r.get("timeout")), None)
    if timeout is not None:
        return NodeOutcome(status="timeout",
                           message=str(timeout.get("crash") or timeout.get("message", "")),
                           seconds=seconds)
    setup, call, teardown = (by_phase.get(phase) for phase in ("setup", "call", "teardown"))
    for phase, record in (("setup", setup), ("call", call), ("teardown", teardown)):
        if record is None:
            continue
        outcome = record["outcome"]
        message = str(record.get("crash") or record.get("message", ""))
        if outcome == "failed":
            return NodeOutcome(status="failed" if phase == "call" else "error",
                               message=message if phase == "call" else f"{phase}: {message}",
                               seconds=seconds)
        if outcome in ("skipped", "xfailed"):
            return NodeOutcome(status=str(outcome), message=message, seconds=seconds)
    if call is not None and call["outcome"] in ("passed", "xpassed"):
        return NodeOutcome(status="passed", seconds=seconds)
    return NodeOutcome(status="error", message="no call phase reported", seconds=seconds)


def run_tests(env: Environment, copy_root: Path, spec: RepoSpec, test_ids: Sequence[str],
              runner: Runner | None = None, *, seed: int = 0,
              first_failure: bool = False) -> TestRun:
    """Run exactly `test_ids` on `copy_root`; a hang is cut off at `timeouts.per-test`, the whole
    run at `timeouts.test`, and reported as such rather than as a failure of the code.

    `seed` is the PYTHONHASHSEED, as when the test map was built, so a test that depends on set
    order sees the same order it was found healthy with. `first_failure` stops the run at the
    first failing test (pytest's `-x`), for runs that only ask whether any test fails.
    """
    run, _ = _run_selection(env, copy_root, spec, test_ids, runner, seed=seed,
                            coverage=False, first_failure=first_failure)
    return run


LineContexts = dict[str, dict[int, tuple[str, ...]]]
"""Per measured file (relative to the source root): line -> the coverage contexts that ran it
(a test's node id; "" for code run outside any test, such as imports during collection)."""


class CoveredRun(BaseModel):
    """A run of given tests under coverage: their outcomes and which of them ran each line."""

    model_config = ConfigDict(frozen=True)

    run: TestRun
    lines: LineContexts = Field(default_factory=dict)


def run_tests_covered(env: Environment, copy_root: Path, spec: RepoSpec,
                      test_ids: Sequence[str], runner: Runner | None = None, *,
                      seed: int = 0) -> CoveredRun:
    """`run_tests` under coverage with a context per test, as the test map's run measures the
    suite: outcomes plus the lines each test ran in the copy's source."""
    run, lines = _run_selection(env, copy_root, spec, test_ids, runner, seed=seed,
                                coverage=True, first_failure=False)
    return CoveredRun(run=run, lines=lines or {})


def _run_selection(env: Environment, copy_root: Path, spec: RepoSpec, test_ids: Sequence[str],
                   runner: Runner | None, *, seed: int, coverage: bool,
                   first_failure: bool) -> tuple[TestRun, LineContexts | None]:
    if not test_ids:
        raise SandboxError("no tests to run", path=copy_root,
                           hint="select tests from the test map first")
    runner = runner or LocalRunner()
    copy_root = Path(copy_root).resolve()
    run_dir = RunDir(copy_root)
    lines: LineContexts | None = None
    try:
        command = [*selection_argv(spec, copy_root), *PLUGIN_ARGS, "-q", "--no-header",
                   *(["-x"] if first_failure else []), *test_ids]
        source = copy_root / spec.source_path
        if coverage:
            command = coverage_argv(command, run_dir, source)
        variables = run_dir.env({**env.env_for(copy_root), "PYTHONHASHSEED": str(seed)},
                                per_test=spec.timeouts.per_test, contexts=coverage)
        result = runner.run(command, cwd=copy_root, env=variables, timeout=spec.timeouts.test,
                            mounts=env.mounts())
        outcomes, _ = read_outcomes(run_dir.results)
        if coverage:
            lines = line_contexts(run_dir.path / "coverage.db", source)
    finally:
        run_dir.remove()
    return collect(test_ids, outcomes, result), lines


COVERAGERC = """\
[run]
data_file = {data_file}
source = {source}
omit = {run_dir}/*
branch = false
parallel = false
"""


def coverage_argv(argv: Sequence[str], run_dir: RunDir, source: Path) -> list[str]:
    """A pytest command (`python -m pytest ...` or `pytest ...`) run under `coverage run`,
    measuring `source`, its data and settings kept in `run_dir`."""
    rcfile = run_dir.path / "coveragerc"
    rcfile.write_text(COVERAGERC.format(data_file=run_dir.path / "coverage.db", source=source,
                                        run_dir=run_dir.path))
    argv = list(argv)
    runs_module = len(argv) >= 3 and argv[1] == "-m"
    rest = argv[3:] if runs_module else argv[1:]
    return ["python", "-m", "coverage", "run", f"--rcfile={rcfile}", "-m", "pytest", *rest]


def line_contexts(data_file: Path, source: Path) -> LineContexts:
    """The lines coverage measured under `source`, by file relative to it; empty when the run
    wrote no data (no test got far enough to import the measured code)."""
    from coverage import CoverageData

    if not data_file.is_file():
        return {}
    data = CoverageData(basename=str(data_file))
    data.read()
    root = source.resolve()
    lines: LineContexts = {}
    for measured in data.measured_files():
        try:
            relative = Path(measured).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        by_line = data.contexts_by_lineno(measured)
        lines[relative] = {line: tuple(contexts) for line, contexts in by_line.items()}
    return lines


def collect(test_ids: Sequence[str], outcomes: Mapping[str, NodeOutcome],
            result: RunResult) -> TestRun:
    """Sort the requested ids by outcome; ids never reported are errors, with the run's tail."""
    groups: dict[str, list[str]] = {"passed": [], "failed": [], "errors": [], "skipped": [],
                                    "hung": []}
    messages: dict[str, str] = {}
    tail = (result.stdout + "\n" + result.stderr).strip()[-OUTPUT_TAIL:]
    for nodeid in dict.fromkeys(test_ids):
        outcome = outcomes.get(nodeid)
        if outcome is None:
            why = ("the run was killed before it ran" if result.timed_out
                   else "not run: no such test, or collection failed")
            outcome = NodeOutcome(status="not-run", message=why)
        group = {"passed": "passed", "failed": "failed", "skipped": "skipped",
                 "xfailed": "skipped", "timeout": "hung", "hung": "hung"}.get(outcome.status,
                                                                              "errors")
        groups[group].append(nodeid)
        if outcome.message:
            messages[nodeid] = outcome.message
    return TestRun(requested=tuple(dict.fromkeys(test_ids)),
                   **{name: tuple(ids) for name, ids in groups.items()},
                   messages=messages, timed_out=result.timed_out, returncode=result.returncode,
                   seconds=result.seconds, output=tail)
