"""Claude Code's `stream-json` output, which Qwen Code mirrors: one JSON message per line,
`system`, `assistant` (content blocks, `tool_use` among them), `user` (tool results come back as
`tool_result` blocks) and, last, a `result` message with the run's outcome and usage.

Read here once for both. What differs is passed in: whether the `usage.input_tokens` of the
result already counts cached tokens (Qwen Code's, from an OpenAI-style API, does; Claude's
counts only uncached ones, cache reads and writes apart).
"""

from __future__ import annotations

from typing import Any

from smellkit.agents.base import Parsed, Usage, bad_line, json_lines, number, total

BUDGET_SUBTYPES = frozenset({"error_max_turns", "error_max_budget_usd"})
"""Result subtypes that mean the agent stopped on a limit it was given."""


def _blocks(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    return [block for block in content if isinstance(block, dict)] \
        if isinstance(content, list) else []


def _error_text(result: dict[str, Any]) -> str:
    errors = result.get("errors")
    if isinstance(errors, list) and errors:
        return "; ".join(str(item) for item in errors)[:500]
    for key in ("error", "result"):
        value = result.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:500]
        if isinstance(value, dict) and value.get("message"):
            return str(value["message"])[:500]
    return str(result.get("subtype") or "the result says is_error")


def parse_stream(stdout: str, *, input_includes_cache: bool) -> Parsed:
    """Usage and outcome from a stream-json transcript; lines that are not JSON are noted and
    skipped. Without a `result` message the run did not finish (the CLI writes one last)."""
    problems: list[str] = []
    tool_uses = tool_results = 0
    result: dict[str, Any] | None = None
    for line_number, event, raw in json_lines(stdout):
        if event is None:
            problems.append(bad_line(line_number, raw))
            continue
        kind = event.get("type")
        if kind == "assistant":
            tool_uses += sum(block.get("type") == "tool_use"
                             for block in _blocks(event.get("message")))
        elif kind == "user":
            tool_results += sum(block.get("type") == "tool_result"
                                for block in _blocks(event.get("message")))
        elif kind == "result":
            result = event
    if result is None:
        why = "no `result` message in the output"
        if problems:
            why += f" ({len(problems)} line(s) not JSON)"
        return Parsed(usage=Usage(tool_calls=tool_results or tool_uses or None),
                      finished=False, error=why, problems=tuple(problems[:20]))
    usage = result.get("usage") if isinstance(result.get("usage"), dict) else {}
    assert isinstance(usage, dict)
    fresh = number(usage.get("input_tokens"))
    cache_read = number(usage.get("cache_read_input_tokens"))
    cache_write = number(usage.get("cache_creation_input_tokens"))
    input_tokens = fresh if input_includes_cache else total(fresh, cache_read, cache_write)
    cost = result.get("total_cost_usd")
    duration = number(result.get("duration_ms"))
    subtype = str(result.get("subtype") or "")
    is_error = bool(result.get("is_error")) or (subtype not in ("", "success"))
    parsed_usage = Usage(
        input_tokens=input_tokens, output_tokens=number(usage.get("output_tokens")),
        cached_input_tokens=cache_read,
        cost_usd=float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool)
        else None,
        cost_source="agent" if isinstance(cost, (int, float)) and not isinstance(cost, bool)
        else None,
        turns=number(result.get("num_turns")),
        # tool results are what ran; a tool use without a result was cut off
        tool_calls=tool_results if tool_results or not tool_uses else tool_uses,
        duration_s=duration / 1000 if duration is not None else None)
    return Parsed(usage=parsed_usage, finished=not is_error,
                  budget=subtype in BUDGET_SUBTYPES,
                  error=_error_text(result) if is_error else None,
                  problems=tuple(problems[:20]))
