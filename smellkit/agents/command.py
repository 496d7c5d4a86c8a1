"""Any agent without an adapter: a shell command with placeholders.

`{instruction_file}` (the prompt, in a file outside the workspace), `{workspace}` (the
repository, also the current directory), `{model}` and `{usage_file}` are replaced, each quoted
for the shell. A command that wants its usage recorded writes a JSON object with `Usage`'s
fields (`input_tokens`, `output_tokens`, `cached_input_tokens`, `cost_usd`, `turns`,
`tool_calls`, `duration_s`) to `{usage_file}`.
"""

from __future__ import annotations

import shlex
import string
from pathlib import Path

from pydantic import ValidationError

from smellkit.agents.base import (
    Adapter,
    AgentError,
    AgentOutput,
    Invocation,
    Parsed,
    RunContext,
    Usage,
    read_json_file,
)

PLACEHOLDERS = ("instruction_file", "workspace", "model", "usage_file")
USAGE_FILE = "usage.json"


def check_template(command: str | None) -> str:
    """The command, or AgentError naming the placeholder that is not one."""
    if not command or not command.strip():
        raise AgentError("the command agent needs a command",
                         hint="pass --command 'my-agent --task {instruction_file}'")
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(command) if name]
    except ValueError as error:
        raise AgentError(f"--command: {error}",
                         hint="write a literal brace as {{ or }}") from error
    unknown = sorted(set(names) - set(PLACEHOLDERS))
    if unknown:
        raise AgentError(f"--command: unknown placeholder(s) {', '.join(unknown)}",
                         hint=f"use {', '.join('{' + name + '}' for name in PLACEHOLDERS)}")
    return command


class Command(Adapter):
    name = "command"
    executable = "sh"

    def invocation(self, context: RunContext) -> Invocation:
        template = check_template(context.config.command)
        values = {"instruction_file": str(context.instruction_file),
                  "workspace": str(context.workspace), "model": context.config.model,
                  "usage_file": str(context.io / USAGE_FILE)}
        command = template.format(**{key: shlex.quote(value) for key, value in values.items()})
        if context.config.flags:
            command += " " + shlex.join(context.config.flags)
        return Invocation(command)

    def trajectory(self, context: RunContext) -> list[Path]:
        return []

    def parse(self, output: AgentOutput) -> Parsed:
        path = output.context.io / USAGE_FILE
        if not path.exists():
            return Parsed()
        data, problem = read_json_file(path)
        if not isinstance(data, dict):
            return Parsed(problems=(problem or f"{USAGE_FILE} is not a JSON object",))
        try:
            usage = Usage.model_validate(
                {**data, "cost_source": "agent" if data.get("cost_usd") is not None else None})
        except ValidationError as error:
            return Parsed(problems=(f"{USAGE_FILE}: {error.errors()[0]['loc']}: "
                                    f"{error.errors()[0]['msg']}",))
        return Parsed(usage=usage)
