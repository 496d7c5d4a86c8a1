"""mini-swe-agent (`mini`, PyPI `mini-swe-agent`).

`mini -t PROMPT -y --exit-immediately -o TRAJ.json [-m M]`: yolo mode (actions run without
confirmation), exits when the agent submits. Usage is read from the trajectory it writes:
`info.model_stats` (`instance_cost`, `api_calls`), `info.exit_status` (`Submitted`, or
`LimitsExceeded` when its cost or call limit stopped it, or an error's name), and per message
`extra.response.usage` (the model API's token counts, when kept) and `extra.actions` (the
commands it ran). `MSWEA_CONFIGURED` (also written to its global config file in the scratch
HOME) skips its first-run set-up questions; `MSWEA_COST_TRACKING=ignore_errors` keeps a model
without a price in its table from stopping the run, and such a run's cost of 0 after model
calls is recorded as unknown (the price table may then supply it).
"""

from __future__ import annotations

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

TRAJECTORY = "mini.traj.json"


def _tokens(messages: list[Any]) -> tuple[int | None, int | None, int | None]:
    """(input, output, cached) summed over the model responses kept in the messages."""
    inputs: list[int | None] = []
    outputs: list[int | None] = []
    cached: list[int | None] = []
    for message in messages:
        extra = message.get("extra") if isinstance(message, dict) else None
        response = extra.get("response") if isinstance(extra, dict) else None
        usage = response.get("usage") if isinstance(response, dict) else None
        if not isinstance(usage, dict):
            continue
        inputs.append(number(usage.get("prompt_tokens")))
        outputs.append(number(usage.get("completion_tokens")))
        details = usage.get("prompt_tokens_details")
        cached.append(number(details.get("cached_tokens")) if isinstance(details, dict)
                      else None)
    return total(*inputs), total(*outputs), total(*cached)


def _actions(messages: list[Any]) -> int:
    count = 0
    for message in messages:
        if not isinstance(message, dict):
            continue
        extra = message.get("extra")
        actions = extra.get("actions") if isinstance(extra, dict) else None
        if message.get("role") == "assistant" and isinstance(actions, list):
            count += len(actions)
    if count == 0:  # no actions recorded: one tool message per command run
        count = sum(isinstance(item, dict) and item.get("role") == "tool"
                    for item in messages)
    return count


class MiniSweAgent(Adapter):
    name = "mini-swe-agent"
    aliases = ("mini",)
    executable = "mini"
    key_var = "OPENAI_API_KEY"
    base_url_var = "OPENAI_BASE_URL"

    def invocation(self, context: RunContext) -> Invocation:
        model = ["-m", context.config.model] if context.config.model else []
        return Invocation(
            [self.executable, "-t", context.instruction, "-y", "--exit-immediately", "-o",
             str(context.io / TRAJECTORY), *model, *context.config.flags],
            env={"MSWEA_CONFIGURED": "true", "MSWEA_COST_TRACKING": "ignore_errors",
                 "MSWEA_SILENT_STARTUP": "true"})

    def prepare_home(self, context: RunContext) -> None:
        config = context.home / ".config" / "mini-swe-agent" / ".env"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text("MSWEA_CONFIGURED=true\n")

    def trajectory(self, context: RunContext) -> list[Path]:
        return [context.io / TRAJECTORY]

    def parse(self, output: AgentOutput) -> Parsed:
        data, problem = read_json_file(output.context.io / TRAJECTORY)
        if not isinstance(data, dict):
            return Parsed(finished=False, error=problem or "the trajectory is not an object",
                          problems=(problem,) if problem else ())
        info = data.get("info") if isinstance(data.get("info"), dict) else {}
        assert isinstance(info, dict)
        stats = info.get("model_stats") if isinstance(info.get("model_stats"), dict) else {}
        assert isinstance(stats, dict)
        messages = data.get("messages") if isinstance(data.get("messages"), list) else []
        assert isinstance(messages, list)
        inputs, outputs, cached = _tokens(messages)
        cost = stats.get("instance_cost")
        calls = number(stats.get("api_calls"))
        cost_usd = float(cost) if isinstance(cost, (int, float)) and \
            not isinstance(cost, bool) and (cost > 0 or not calls) else None
        usage = Usage(input_tokens=inputs, output_tokens=outputs, cached_input_tokens=cached,
                      cost_usd=cost_usd, cost_source="agent" if cost_usd is not None else None,
                      turns=calls, tool_calls=_actions(messages))
        status = str(info.get("exit_status") or "")
        if status == "Submitted":
            return Parsed(usage=usage, finished=True)
        if status == "LimitsExceeded":
            return Parsed(usage=usage, finished=False, budget=True,
                          error="mini-swe-agent stopped on its cost or call limit")
        return Parsed(usage=usage, finished=False,
                      error=f"exit status {status!r}" if status else "no exit status")
