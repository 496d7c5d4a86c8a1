"""OpenAI Codex CLI (`codex`, npm `@openai/codex`) in exec mode.

`codex exec --json --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check -m M --
PROMPT`, stdin empty. JSONL events: `thread.started`, `turn.started`, `turn.completed` with
`usage` (`input_tokens`, `cached_input_tokens`, `output_tokens`; the cached ones are part of
the input, as in OpenAI's API), `turn.failed` (`error.message`), `item.started|updated|completed`
(items `agent_message`, `command_execution`, `file_change`, `mcp_tool_call`, ...), `error`.
There is no cost: the price table supplies it. The key is given as `OPENAI_API_KEY` and as
`CODEX_API_KEY` (which `codex exec` prefers over a login stored in CODEX_HOME).
"""

from __future__ import annotations

from smellkit.agents.base import (
    Adapter,
    AgentOutput,
    Invocation,
    Parsed,
    RunContext,
    Usage,
    bad_line,
    json_lines,
    number,
    total,
)

TOOL_ITEMS = frozenset({"command_execution", "file_change", "mcp_tool_call", "web_search",
                        "collab_tool_call"})
"""Completed items that are the agent acting (the rest are messages, reasoning, plans)."""


class Codex(Adapter):
    name = "codex"
    executable = "codex"
    key_var = "OPENAI_API_KEY"
    key_aliases = ("CODEX_API_KEY",)
    base_url_var = "OPENAI_BASE_URL"
    stdout_is_trajectory = True

    def invocation(self, context: RunContext) -> Invocation:
        model = ["-m", context.config.model] if context.config.model else []
        return Invocation(
            [self.executable, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox",
             "--skip-git-repo-check", *model, *context.config.flags, "--",
             context.instruction],
            env={"CODEX_HOME": str(context.home / ".codex")})

    def parse(self, output: AgentOutput) -> Parsed:
        problems: list[str] = []
        inputs: list[int | None] = []
        cached: list[int | None] = []
        outputs: list[int | None] = []
        turns = tools = 0
        last_turn: str | None = None
        errors: list[str] = []
        for line_number, event, raw in json_lines(output.stdout):
            if event is None:
                problems.append(bad_line(line_number, raw))
                continue
            kind = event.get("type")
            if kind == "turn.completed":
                turns += 1
                last_turn = kind
                usage = event.get("usage") if isinstance(event.get("usage"), dict) else {}
                assert isinstance(usage, dict)
                inputs.append(number(usage.get("input_tokens")))
                cached.append(number(usage.get("cached_input_tokens")))
                outputs.append(number(usage.get("output_tokens")))
            elif kind == "turn.failed":
                last_turn = kind
                error = event.get("error")
                errors.append(str(error.get("message") if isinstance(error, dict) else error))
            elif kind == "error":
                errors.append(str(event.get("message") or "error event"))
            elif kind == "item.completed":
                item = event.get("item")
                if isinstance(item, dict) and item.get("type") in TOOL_ITEMS:
                    tools += 1
        usage_read = Usage(input_tokens=total(*inputs), cached_input_tokens=total(*cached),
                           output_tokens=total(*outputs), turns=turns if last_turn else None,
                           tool_calls=tools)
        if last_turn == "turn.completed":
            return Parsed(usage=usage_read, finished=True, problems=tuple(problems[:20]))
        why = errors[-1] if errors else "no `turn.completed` event in the output"
        return Parsed(usage=usage_read, finished=False, error=why[:500],
                      problems=tuple(problems[:20]))
