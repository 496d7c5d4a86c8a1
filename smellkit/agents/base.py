"""What every agent adapter is: a command line built from a run's context, and a reading of the
agent's own output into `Parsed` (usage, whether it says it finished, what went wrong).

An adapter never runs anything and never touches the workspace: `execute` starts the command
through a runner, with an environment built from an allowlist, and hands the adapter what came
out. That keeps each adapter a thin, testable translation of one tool's documented interface.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from smellkit.errors import SmellkitError

ExitReason = Literal["finished", "timeout", "crash", "budget"]
EXIT_REASONS: tuple[ExitReason, ...] = ("finished", "timeout", "crash", "budget")


class AgentError(SmellkitError):
    """An agent run cannot be set up (unknown adapter, missing key, bad option)."""

    exit_code = 2


class Usage(BaseModel):
    """What one run cost, as the agent reported it; None where it reports nothing.

    `input_tokens` counts every prompt token, cached ones included (Claude Code reports cache
    reads and writes apart; they are added in), and `cached_input_tokens` is the part read from
    a prompt cache, so the fields mean the same for every agent."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    cached_input_tokens: int | None = Field(default=None, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)
    cost_source: Literal["agent", "price-table"] | None = None
    """Who computed `cost_usd`: the agent itself, or smellkit's price table from the tokens."""
    turns: int | None = Field(default=None, ge=0)
    """Model calls (or agentic turns, as the agent counts them)."""
    tool_calls: int | None = Field(default=None, ge=0)
    duration_s: float | None = Field(default=None, ge=0)
    """The run's length as the agent measured it (the row's `duration_s` is the wall clock)."""


class Parsed(BaseModel):
    """An agent's output, read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    usage: Usage = Usage()
    finished: bool | None = None
    """True: the output confirms the agent ran to its end; False: it shows the agent did not
    (no final event, an error result); None: the output cannot tell (the exit code decides)."""
    budget: bool = False
    """The agent stopped on one of its own limits (turns, cost, calls)."""
    error: str | None = None
    """What the agent reported as going wrong, or why its output could not be read."""
    problems: tuple[str, ...] = ()
    """Output that could not be read (lines that are not JSON, missing files), for the log."""


@dataclass(frozen=True)
class AgentConfig:
    """How to call an agent: the model, where its API is, which variable holds the key, and
    anything extra. Every field is optional; the adapter supplies the defaults."""

    model: str = ""
    base_url: str | None = None
    key_var: str | None = None
    """The variable the agent reads its key from (default: the adapter's)."""
    key_from: str | None = None
    """The variable of this process's environment holding the key (default: `key_var`)."""
    flags: tuple[str, ...] = ()
    """Extra arguments appended to the agent's command line."""
    env: dict[str, str] = field(default_factory=dict)
    """Extra variables given to the agent (names and values, already resolved)."""
    command: str | None = None
    """The `command` adapter's shell command, with placeholders."""


@dataclass(frozen=True)
class RunContext:
    """Where one run happens: the folders the agent may use, and what to ask of it."""

    workspace: Path
    """The repository the agent works in (its current directory)."""
    io: Path
    """A folder outside the workspace for the prompt file and files the agent writes for us
    (trajectories); kept out of the patch."""
    home: Path
    instruction: str
    instruction_file: Path
    config: AgentConfig


@dataclass(frozen=True)
class Invocation:
    """The command to run: an argv list, or a shell string (for `command`); with `stdin`, that
    file is its standard input (else /dev/null)."""

    command: list[str] | str
    stdin: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    """Variables this agent needs besides the key and base URL (none of them secret)."""


@dataclass(frozen=True)
class AgentOutput:
    """What a finished (or killed) run left behind for the adapter to read."""

    stdout: str
    stderr: str
    exit_code: int
    timed_out: bool
    context: RunContext


class Adapter(ABC):
    """One coding agent's non-interactive interface. Subclasses set the class attributes and
    implement `invocation` and `parse`; `trajectory` names the files worth keeping."""

    name: ClassVar[str]
    """Harbor's agent name where Harbor has one."""
    aliases: ClassVar[tuple[str, ...]] = ()
    executable: ClassVar[str]
    key_var: ClassVar[str | None] = None
    """The variable the agent reads its API key from, by default."""
    key_aliases: ClassVar[tuple[str, ...]] = ()
    """Other variables the key is also given as (the agent prefers them, where it has one)."""
    base_url_var: ClassVar[str | None] = None
    """The variable that carries `--base-url` to the agent (when it reads one)."""
    stdout_is_trajectory: ClassVar[bool] = False
    """The agent's stdout is its event stream: kept as `trajectory.jsonl`."""

    @abstractmethod
    def invocation(self, context: RunContext) -> Invocation:
        """The command line and its extra variables."""

    @abstractmethod
    def parse(self, output: AgentOutput) -> Parsed:
        """Usage and outcome from the agent's own output; never raises on bad output."""

    def prepare_home(self, context: RunContext) -> None:
        """Write what the agent needs in its scratch HOME before it starts (settings that keep
        it from asking questions); nothing by default."""
        return None

    def trajectory(self, context: RunContext) -> list[Path]:
        """Files or folders (outside the workspace) holding the agent's trajectory."""
        return []

    def environment(self, context: RunContext) -> dict[str, str]:
        """The key and base URL variables this adapter passes, besides `Invocation.env`."""
        found: dict[str, str] = {}
        if context.config.base_url and self.base_url_var:
            found[self.base_url_var] = context.config.base_url
        return found


def json_lines(text: str) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    """(line number, object or None, raw line) of each non-blank line of a JSONL stream; a
    line that is not a JSON object gives None, so a parser can report it and go on."""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        try:
            value = json.loads(stripped)
        except ValueError:
            yield number, None, stripped
            continue
        yield number, value if isinstance(value, dict) else None, stripped


def bad_line(number: int, line: str) -> str:
    return f"stdout line {number} is not a JSON object: {line[:120]}"


def number(value: object) -> int | None:
    """An integer count from a JSON value (bools and junk are not counts)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


def total(*values: int | None) -> int | None:
    """The sum of the counts that are known; None if none is."""
    known = [value for value in values if value is not None]
    return sum(known) if known else None


def read_json_file(path: Path) -> tuple[Any, str | None]:
    """A JSON file's content, or None and why it could not be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8", errors="replace")), None
    except FileNotFoundError:
        return None, f"{path.name} was not written"
    except (OSError, ValueError) as error:
        return None, f"{path.name} is not readable JSON: {error}"
