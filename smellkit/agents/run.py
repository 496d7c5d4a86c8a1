"""`smellkit run`: one agent, one model, one instruction setting, over a dataset's cases.

Each case gets a fresh workspace (see `workspace`), one run (see `execute`) and one line in the
predictions file: SWE-bench's `instance_id`, `model_name_or_path`, `model_patch`, plus `agent`,
`model`, `setting`, `exit_reason`, `exit_code`, `usage`, `duration_s`, `error`, `problems`,
`outside_writes` and `logs` (the case's log folder, relative to the predictions file). Rows are
appended durably as runs finish (`JsonlLog`), so a killed run loses no finished row and a rerun
runs only the cases without one. Logs go to `<predictions>.logs/<case>/`; workspaces to a
temporary folder outside any project (agents read instructions such as CLAUDE.md and `.env`
files from the folders above their workspace), removed after each case.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from smellkit._internal.jsonl import JsonlLog
from smellkit.agents.base import EXIT_REASONS, Adapter, AgentConfig, AgentError
from smellkit.agents.command import check_template
from smellkit.agents.execute import key_value, record_fields, run_agent
from smellkit.agents.prices import load_prices
from smellkit.agents.registry import get_adapter
from smellkit.agents.workspace import prepare_workspace
from smellkit.errors import SmellkitError, UsageError
from smellkit.evaluate.inputs.dataset import EvalCase, read_dataset
from smellkit.evaluate.workspace import (
    Repository,
    find_specs,
    folder_name,
    missing_spec,
    prepare_repository,
    revision_problem,
)
from smellkit.models import InstructionSetting
from smellkit.sandbox.runner import LocalRunner, Runner

Progress = Callable[[str, int, int | None], None]
SETTINGS: tuple[InstructionSetting, ...] = ("open", "guided", "targeted")


class RunReport(BaseModel):
    """What one `smellkit run` did."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    predictions: str
    logs: str
    agent: str
    model_name: str
    setting: str
    cases: int
    """Cases selected (after --instance and --limit)."""
    ran: int
    reused: int
    """Cases that already had a row from an earlier run."""
    not_run: dict[str, str] = Field(default_factory=dict)
    """Cases that could not be run, and why (no instruction for the setting, no spec, ...)."""
    exit_reasons: dict[str, int] = Field(default_factory=dict)
    """Over every row of the file (earlier runs included)."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cost_usd: float | None = None
    duration_s: float = 0.0
    """Summed over the rows' wall-clock durations."""
    outside_writes: int = 0
    """Rows whose agent wrote outside its workspace."""
    dataset_errors: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def exit_code(self) -> int:
        return 1 if self.not_run else 0


def logs_folder(predictions: Path) -> Path:
    return predictions.with_name(predictions.name.removesuffix(".jsonl") + ".logs")


@contextmanager
def _exclusive(predictions: Path) -> Iterator[None]:
    """One run per predictions file: two would run the same cases twice."""
    predictions.parent.mkdir(parents=True, exist_ok=True)
    with open(predictions.with_name(f".{predictions.name}.lock"), "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            raise UsageError("another smellkit run is writing these predictions",
                             path=predictions, hint="wait for it, or give another -o") from error
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def select_cases(cases: Sequence[EvalCase], instances: Sequence[str],
                 limit: int | None) -> list[EvalCase]:
    """The cases asked for (`--instance`, in dataset order), then the first `limit`."""
    chosen = list(cases)
    if instances:
        known = {case.instance_id for case in cases}
        unknown = [item for item in instances if item not in known]
        if unknown:
            raise UsageError(f"unknown instance id(s): {', '.join(unknown)}",
                             hint="the ids are the dataset's instance_id values")
        wanted = set(instances)
        chosen = [case for case in chosen if case.instance_id in wanted]
    return chosen[:limit] if limit is not None else chosen


def make_agent_runner(name: str, image: str | None) -> tuple[Runner, bool]:
    """The runner and whether it is local. Docker: containers of `image` (which must hold the
    agent's CLI), with network (the agent talks to its model's API)."""
    if name == "local":
        if image:
            raise UsageError("--image is for the docker runner", hint="add --runner docker")
        return LocalRunner(), True
    if name != "docker":
        raise UsageError(f"unknown runner {name!r}", hint="use local or docker")
    if not image:
        raise UsageError("the docker runner needs --image IMAGE",
                         hint="an image holding the agent's command-line tool")
    from smellkit.sandbox.docker import DockerRunner, docker_available
    from smellkit.sandbox.errors import SandboxError

    problem = docker_available()
    if problem is not None:
        raise SandboxError(f"the docker runner cannot be used: {problem}")
    return DockerRunner(image, cpus=2.0, memory="4g", network=True), False


class _Session:
    """Shared state of one run: repositories by name, totals, the lock around them."""

    def __init__(self, dataset_dir: Path, specs: Sequence[Path | str], cache_dir: Path | None,
                 work: Path):
        self.dataset_dir = dataset_dir
        self.sources, self.broken = find_specs(dataset_dir, specs)
        self.cache_dir = cache_dir
        self.work = work
        self.repositories: dict[str, Repository | SmellkitError] = {}
        self.lock = threading.Lock()

    def repository(self, name: str) -> Repository:
        with self.lock:
            if name not in self.repositories:
                try:
                    source = self.sources.get(name)
                    if source is None:
                        raise missing_spec(name, self.dataset_dir, self.broken)
                    cache = self.cache_dir or (
                        source.cache if source.cache is not None and source.cache.is_dir()
                        else self.dataset_dir / "cache")
                    self.repositories[name] = prepare_repository(
                        source, cache.resolve(), self.work / "facts", runner=None, tests=False)
                except SmellkitError as error:
                    self.repositories[name] = error
            found = self.repositories[name]
        if isinstance(found, SmellkitError):
            raise found
        return found


def run_agents(dataset: Path | str, predictions: Path | str, *, agent: str,
               config: AgentConfig, setting: str, name: str | None = None, jobs: int = 1,
               timeout: float = 1800.0, limit: int | None = None,
               instances: Sequence[str] = (), runner: str = "local", image: str | None = None,
               specs: Sequence[Path | str] = (), cache_dir: Path | str | None = None,
               work_dir: Path | str | None = None, keep_workspaces: bool = False,
               prices: Path | str | None = None, progress: Progress | None = None,
               source_env: dict[str, str] | None = None) -> RunReport:
    """Run `agent` on the cases of `dataset` and append one prediction per case to
    `predictions` (resumable). Raises SmellkitError for a bad request (unknown agent or
    setting, unreadable dataset, a key that is not set); problems of single cases are in
    the report's `not_run`, and the agent's failures are rows."""
    started = time.perf_counter()
    adapter = get_adapter(agent)
    if setting not in SETTINGS:
        raise UsageError(f"unknown setting {setting!r}", hint=f"one of {', '.join(SETTINGS)}")
    if adapter.name == "command":
        check_template(config.command)
    elif config.command:
        raise UsageError("--command is for the command agent", hint="add --agent command")
    model_name = name or f"{adapter.name}/{config.model or 'default'}/{setting}"
    table = load_prices(prices)
    agent_runner, local = make_agent_runner(runner, image)
    if config.key_var or adapter.key_var:
        key_value(adapter, config, dict(os.environ) if source_env is None else source_env)
    out = Path(predictions).resolve()
    logs = logs_folder(out)
    data = read_dataset(dataset)
    folder = Path(dataset) if Path(dataset).is_dir() else Path(dataset).parent
    chosen = select_cases(data.cases, instances, limit)
    notify = progress or (lambda description, done, total: None)
    with _exclusive(out):
        rows = JsonlLog(out, key="instance_id")
        for row in rows:
            if row.get("model_name_or_path") != model_name:
                raise UsageError(
                    f"{out} holds predictions of {row.get('model_name_or_path')!r}, not "
                    f"{model_name!r}", path=out,
                    hint="give another -o for another agent, model or setting (or the same "
                         "--name to continue that run)")
        pending = [case for case in chosen if case.instance_id not in rows]
        work = Path(work_dir).resolve() if work_dir else \
            Path(tempfile.mkdtemp(prefix="smellkit-run-"))
        work.mkdir(parents=True, exist_ok=True)
        session = _Session(folder.resolve(), specs,
                           Path(cache_dir).resolve() if cache_dir else None, work)
        not_run: dict[str, str] = {}
        done = 0
        description = f"{adapter.name}: running"
        notify(description, 0, len(pending))
        counter_lock = threading.Lock()
        interrupted = False

        def one(case: EvalCase) -> None:
            nonlocal done
            try:
                row = _run_case(case, adapter, config, setting, model_name, session,
                                agent_runner, local=local, timeout=timeout, logs=logs,
                                out=out, table=table, keep=keep_workspaces,
                                source_env=source_env)
                rows.append(row)
            except SmellkitError as error:
                with counter_lock:
                    not_run[case.instance_id] = str(error)
            with counter_lock:
                done += 1
                notify(description, done, len(pending))

        try:
            if jobs <= 1:
                for case in pending:
                    one(case)
            else:
                pool = ThreadPoolExecutor(max_workers=jobs)
                try:
                    list(pool.map(one, pending))
                except BaseException:  # Ctrl-C: start no other case; running ones finish
                    interrupted = True  # and write their rows: their workspaces must stay
                    pool.shutdown(wait=False, cancel_futures=True)
                    raise
                pool.shutdown()
        finally:
            if not keep_workspaces and work_dir is None and not interrupted:
                shutil.rmtree(work, ignore_errors=True)
        mine = [row for row in rows if row.get("instance_id") in
                {case.instance_id for case in chosen}]
        return _report(mine, out, logs, adapter, model_name, setting, chosen, pending,
                       not_run, data.errors, started)


def _run_case(case: EvalCase, adapter: Adapter, config: AgentConfig, setting: str,
              model_name: str, session: _Session, runner: Runner, *, local: bool,
              timeout: float, logs: Path, out: Path, table: Any, keep: bool,
              source_env: dict[str, str] | None) -> dict[str, Any]:
    """One case: its workspace, the run, the row. Raises SmellkitError when the case cannot
    be run at all (no instruction, no spec, a smelly patch that does not apply)."""
    instruction = case.instructions.get(setting, "")
    if not instruction.strip():
        raise AgentError(f"the case has no {setting!r} instruction",
                         hint=f"it has: {', '.join(case.instructions) or 'none'}")
    repository = session.repository(case.repo)
    problem = revision_problem(case, repository.spec)
    if problem is not None:
        raise AgentError(problem)
    folder = folder_name(case.instance_id)
    root = session.work / folder
    workspace = prepare_workspace(repository, case, root)
    case_logs = logs / folder
    shutil.rmtree(case_logs, ignore_errors=True)
    try:
        record = run_agent(adapter, config, workspace, instruction, runner, timeout=timeout,
                           local=local, logs=case_logs, prices=table, source_env=source_env)
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    return {"instance_id": case.instance_id, "model_name_or_path": model_name,
            "model_patch": record.patch, "agent": adapter.name, "model": config.model,
            "setting": setting, **record_fields(record),
            "logs": case_logs.relative_to(out.parent).as_posix()}


def _report(rows: list[dict[str, Any]], out: Path, logs: Path, adapter: Adapter,
            model_name: str, setting: str, chosen: list[EvalCase], pending: list[EvalCase],
            not_run: dict[str, str], dataset_errors: Sequence[Any],
            started: float) -> RunReport:
    reasons = Counter(str(row.get("exit_reason")) for row in rows)
    usages = [row.get("usage") or {} for row in rows]

    def summed(key: str) -> int:
        return sum(int(usage.get(key) or 0) for usage in usages)

    costs = [float(usage["cost_usd"]) for usage in usages if usage.get("cost_usd") is not None]
    return RunReport(
        predictions=str(out), logs=str(logs), agent=adapter.name, model_name=model_name,
        setting=setting, cases=len(chosen), ran=len(pending) - len(not_run),
        reused=len(chosen) - len(pending), not_run=not_run,
        exit_reasons={reason: reasons[reason] for reason in EXIT_REASONS if reasons[reason]},
        input_tokens=summed("input_tokens"), output_tokens=summed("output_tokens"),
        cached_input_tokens=summed("cached_input_tokens"),
        cost_usd=round(sum(costs), 6) if costs else None,
        duration_s=round(sum(float(row.get("duration_s") or 0) for row in rows), 2),
        outside_writes=sum(bool(row.get("outside_writes")) for row in rows),
        dataset_errors=tuple(str(error) for error in dataset_errors),
        seconds=round(time.perf_counter() - started, 2))
