"""One agent run on one prepared workspace: start it, wait (with a wall-clock limit), read it.

The agent gets an environment built from an allowlist, never this process's: `HOME` and
`TMPDIR` in the run's scratch folders, a UTF-8 locale, `PATH` (local runner only: a container
keeps its image's), the key variable (its value taken from this process's environment), the
base URL, the adapter's own variables, and the variables the user passed on. Its stdout and
stderr go to files (no size limit, nothing lost on a time-out). A time-out kills the whole
process group (the local runner) or the container (the Docker runner).

Nothing here raises because of the agent: a crash, a time-out, output that cannot be read, a
workspace the agent broke, all become fields of the `RunRecord`. Every text written is passed
through the `Redactor` first.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smellkit.agents.base import (
    Adapter,
    AgentConfig,
    AgentError,
    AgentOutput,
    ExitReason,
    Parsed,
    RunContext,
    Usage,
)
from smellkit.agents.prices import Price, with_cost
from smellkit.agents.redact import Redactor
from smellkit.agents.workspace import Workspace, capture_patch, outside_writes, snapshot
from smellkit.errors import SmellkitError
from smellkit.sandbox.runner import Runner

INSTRUCTION_FILE = "instruction.md"
STDOUT, STDERR = "stdout.log", "stderr.log"
BASE_ENV = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
            "PYTHONDONTWRITEBYTECODE": "1", "GIT_TERMINAL_PROMPT": "0"}


@dataclass
class RunRecord:
    """What one run produced, before it becomes a prediction row."""

    patch: str
    exit_reason: ExitReason
    exit_code: int | None
    usage: Usage
    duration_s: float
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    outside_writes: list[str] = field(default_factory=list)
    command: str = ""


def key_value(adapter: Adapter, config: AgentConfig, source: dict[str, str]) -> str:
    """The API key from this process's environment; AgentError when it is not set (every run
    would fail for want of it)."""
    key_var = config.key_var or adapter.key_var or ""
    key_from = config.key_from or key_var
    value = source.get(key_from)
    if not value:
        raise AgentError(f"{key_from} is not set: the {adapter.name} agent reads its API key "
                         f"from {key_var}",
                         hint=f"export {key_from}=..., or name the variable holding the key "
                              "with --key-var NAME (or NAME=FROM)")
    return value


def agent_environment(adapter: Adapter, context: RunContext, invocation_env: dict[str, str],
                      workspace: Workspace, *, local: bool,
                      source: dict[str, str] | None = None) -> tuple[dict[str, str], Redactor]:
    """The allowlisted environment and the redactor of its secrets. Raises AgentError when the
    key variable is not set here (every run would fail for want of it)."""
    source = dict(os.environ) if source is None else source
    config = context.config
    env = {**BASE_ENV, "HOME": str(workspace.home), "TMPDIR": str(workspace.tmp)}
    if local:
        env["PATH"] = source.get("PATH", os.defpath)
    key_var = config.key_var or adapter.key_var
    if key_var:
        env[key_var] = key_value(adapter, config, source)
        if not config.key_var:
            env.update({alias: env[key_var] for alias in adapter.key_aliases})
    env.update(adapter.environment(context))
    env.update(invocation_env)
    env.update(config.env)
    keys = tuple(name for name in (key_var,) if name)
    return env, Redactor.for_environment(env, keys)


def _shell(invocation_command: list[str] | str, workspace: Workspace,
           stdin: Path | None) -> str:
    """The command as the runner gets it: in the workspace, output to files."""
    command = invocation_command if isinstance(invocation_command, str) \
        else shlex.join(invocation_command)
    source = shlex.quote(str(stdin)) if stdin is not None else "/dev/null"
    return (f"cd {shlex.quote(str(workspace.workspace))} && {{ {command} ; }} < {source} "
            f"> {shlex.quote(str(workspace.io / STDOUT))} "
            f"2> {shlex.quote(str(workspace.io / STDERR))}")


def exit_reason(parsed: Parsed, exit_code: int, timed_out: bool) -> ExitReason:
    """timeout > budget (the agent's own limit) > crash (non-zero exit, or output showing it
    did not finish) > finished."""
    if timed_out:
        return "timeout"
    if parsed.budget:
        return "budget"
    if exit_code != 0 or parsed.finished is False:
        return "crash"
    return "finished"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def run_agent(adapter: Adapter, config: AgentConfig, workspace: Workspace, instruction: str,
              runner: Runner, *, timeout: float, local: bool, logs: Path,
              prices: dict[str, Price], source_env: dict[str, str] | None = None) -> RunRecord:
    """Run the agent in `workspace`, record everything into `logs`, return the record."""
    instruction_file = workspace.io / INSTRUCTION_FILE
    instruction_file.write_text(instruction, encoding="utf-8")
    context = RunContext(workspace=workspace.workspace, io=workspace.io, home=workspace.home,
                         instruction=instruction, instruction_file=instruction_file,
                         config=config)
    adapter.prepare_home(context)
    invocation = adapter.invocation(context)
    env, redactor = agent_environment(adapter, context, invocation.env, workspace, local=local,
                                      source=source_env)
    command = _shell(invocation.command, workspace, invocation.stdin)
    before = snapshot(workspace)
    started = time.perf_counter()
    result = runner.run(command, cwd=workspace.sandbox, env=env, timeout=timeout)
    duration = time.perf_counter() - started
    stdout, stderr = _read(workspace.io / STDOUT), _read(workspace.io / STDERR)
    stderr = stderr + (("\n" if stderr else "") + result.stderr if result.stderr else "")
    output = AgentOutput(stdout=stdout, stderr=stderr, exit_code=result.returncode,
                         timed_out=result.timed_out, context=context)
    try:
        parsed = adapter.parse(output)
    except Exception as error:  # an adapter bug must not lose the run
        parsed = Parsed(problems=(f"reading the output failed: {type(error).__name__}: "
                                  f"{error}",))
    problems = list(parsed.problems)
    escaped = outside_writes(workspace, before)
    if escaped:
        problems.append(f"the agent wrote outside its workspace: {', '.join(escaped[:10])}")
    try:
        patch = capture_patch(workspace)
    except (SmellkitError, OSError) as error:
        patch = ""
        problems.append(f"the patch could not be taken (the workspace is broken): {error}")
    reason = exit_reason(parsed, result.returncode, result.timed_out)
    error_text = parsed.error
    if reason == "timeout":
        error_text = f"killed after the {timeout:g}s time-out"
    elif reason == "crash" and not error_text:
        error_text = f"exited with {result.returncode}" + (
            f": {stderr.strip().splitlines()[-1][:300]}" if stderr.strip() else "")
    record = RunRecord(
        patch=redactor.text(patch), exit_reason=reason,
        exit_code=None if result.timed_out else result.returncode,
        usage=with_cost(parsed.usage, config.model, prices), duration_s=round(duration, 3),
        error=redactor.text(error_text) if error_text else None,
        problems=[redactor.text(item) for item in problems], outside_writes=escaped,
        command=redactor.text(command))
    _write_logs(adapter, context, logs, redactor, stdout, stderr, record,
                {"base_commit": workspace.base_commit, "removed": list(workspace.removed)})
    return record


def _write_logs(adapter: Adapter, context: RunContext, logs: Path, redactor: Redactor,
                stdout: str, stderr: str, record: RunRecord, extra: dict[str, Any]) -> None:
    """stdout, stderr, the trajectory, the patch and the run's record (`run.json`: the
    command, how it ended, the hidden paths removed), all redacted."""
    logs.mkdir(parents=True, exist_ok=True)
    redactor.write(logs / "run.json", json.dumps(
        {"command": record.command, **record_fields(record), **extra}, indent=2) + "\n")
    redactor.write(logs / ("trajectory.jsonl" if adapter.stdout_is_trajectory else STDOUT),
                   stdout)
    redactor.write(logs / STDERR, stderr)
    redactor.write(logs / "instruction.md", context.instruction)
    redactor.write(logs / "patch.diff", record.patch)
    for item in adapter.trajectory(context):
        if item.exists():
            redactor.copy(item, logs / "trajectory" / item.name)


def record_fields(record: RunRecord) -> dict[str, Any]:
    """The record's fields that go into a prediction row (besides the SWE-bench three)."""
    return {"exit_reason": record.exit_reason, "exit_code": record.exit_code,
            "usage": record.usage.model_dump(exclude_none=True),
            "duration_s": record.duration_s, "error": record.error,
            "problems": record.problems, "outside_writes": record.outside_writes}
