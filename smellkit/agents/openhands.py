"""OpenHands CLI (`openhands`, PyPI `openhands`) in headless mode.

`openhands --headless --json --override-with-envs -t PROMPT` with `LLM_MODEL`, `LLM_API_KEY`
and `LLM_BASE_URL` (only read with `--override-with-envs`). Usage is not on stdout: it is in the
conversation's saved state, `~/.openhands/conversations/<id>/base_state.json` (HOME is the run's
scratch folder, so the run's conversation is the only one there; a `Conversation ID:` line on
stdout picks it when there are several): `stats.usage_to_metrics.<usage id>` holds
`accumulated_cost`, `accumulated_token_usage` (`prompt_tokens`, `completion_tokens`,
`cache_read_tokens`) and one `response_latencies` entry per model call, summed over the usage
ids (the agent's, a condenser's). Tool calls are the `ActionEvent`s of `events/`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from smellkit.agents.base import (
    Adapter,
    AgentOutput,
    Invocation,
    Parsed,
    RunContext,
    Usage,
    number,
    read_json_file,
    total,
)

CONVERSATION_ID = re.compile(r"Conversation ID:\s*([0-9A-Za-z_-]+)")
FAILED_STATES = frozenset({"error", "stuck"})


def conversations(home: Path) -> Path:
    return home / ".openhands" / "conversations"


def find_conversation(home: Path, stdout: str) -> Path | None:
    """The run's conversation folder: the one stdout names, else the newest."""
    root = conversations(home)
    found = [item for item in root.iterdir() if (item / "base_state.json").is_file()] \
        if root.is_dir() else []
    named = CONVERSATION_ID.findall(stdout)
    for name in reversed(named):
        for item in found:
            if item.name.replace("-", "") == name.replace("-", ""):
                return item
    return max(found, key=lambda item: (item / "base_state.json").stat().st_mtime,
               default=None)


def _actions(folder: Path) -> int:
    count = 0
    for path in sorted((folder / "events").glob("*.json")):
        try:
            event = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except (OSError, ValueError):
            continue
        if isinstance(event, dict) and event.get("kind") == "ActionEvent":
            count += 1
    return count


class OpenHands(Adapter):
    name = "openhands"
    executable = "openhands"
    key_var = "LLM_API_KEY"
    base_url_var = "LLM_BASE_URL"

    def invocation(self, context: RunContext) -> Invocation:
        env = {"LLM_MODEL": context.config.model} if context.config.model else {}
        return Invocation([self.executable, "--headless", "--json", "--override-with-envs",
                           *context.config.flags, "-t", context.instruction], env=env)

    def trajectory(self, context: RunContext) -> list[Path]:
        root = conversations(context.home)
        return sorted(root.iterdir()) if root.is_dir() else []

    def parse(self, output: AgentOutput) -> Parsed:
        folder = find_conversation(output.context.home, output.stdout)
        if folder is None:
            return Parsed(problems=("no conversation state under ~/.openhands/conversations",))
        state, problem = read_json_file(folder / "base_state.json")
        if not isinstance(state, dict):
            return Parsed(problems=(problem or "base_state.json is not an object",))
        stats = state.get("stats") if isinstance(state.get("stats"), dict) else {}
        assert isinstance(stats, dict)
        metrics = stats.get("usage_to_metrics")
        entries: list[dict[str, Any]] = [value for value in metrics.values()
                                         if isinstance(value, dict)] \
            if isinstance(metrics, dict) else []
        tokens = [entry.get("accumulated_token_usage") or {} for entry in entries]
        costs = [entry.get("accumulated_cost") for entry in entries]
        known_costs = [float(cost) for cost in costs
                       if isinstance(cost, (int, float)) and not isinstance(cost, bool)]
        calls = [len(entry["response_latencies"]) for entry in entries
                 if isinstance(entry.get("response_latencies"), list)]
        usage = Usage(
            input_tokens=total(*(number(item.get("prompt_tokens")) for item in tokens)),
            output_tokens=total(*(number(item.get("completion_tokens")) for item in tokens)),
            cached_input_tokens=total(*(number(item.get("cache_read_tokens"))
                                        for item in tokens)),
            cost_usd=sum(known_costs) if known_costs else None,
            cost_source="agent" if known_costs else None,
            turns=sum(calls) if calls else None, tool_calls=_actions(folder))
        status = str(state.get("execution_status") or "").lower()
        if status in FAILED_STATES:
            return Parsed(usage=usage, finished=False,
                          error=f"the conversation ended in state {status!r}")
        return Parsed(usage=usage, finished=True if status == "finished" else None)
