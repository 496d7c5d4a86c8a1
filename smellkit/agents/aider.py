"""Aider (`aider`, PyPI `aider-chat`) with one message.

`aider --message PROMPT --yes-always --no-auto-commits --model M`, plus `--no-gitignore` (aider
otherwise adds `.aider*` to the repository's .gitignore, a change of the patch), no update check
and no analytics (`--yes-always` would otherwise accept its first-run opt-in), plain output,
and its chat history written outside the workspace (the run's trajectory). Aider commits by
default; the patch is taken against the initial commit anyway.

It has no machine-readable output: after each model call it prints `Tokens: 4.2k sent, 1.1k cache
write, 3.0k cache hit, 512 received. Cost: $0.01 message, $0.05 session.` Token counts are
rounded by aider (`4.2k`), so they are approximate; `cost_usd` is the last session cost and
`turns` the number of such lines.
"""

from __future__ import annotations

import re
from pathlib import Path

from smellkit.agents.base import Adapter, AgentOutput, Invocation, Parsed, RunContext, Usage

TOKENS = re.compile(r"^Tokens: (?P<body>.+?)(?:\.\s*Cost:\s*(?P<cost>.*))?$", re.MULTILINE)
COUNT = re.compile(r"([\d.]+)\s*([kKmM]?)\s+(sent|received|cache write|cache hit)")
SESSION = re.compile(r"\$\s*([\d.]+)\s+session")
HISTORY = "aider.chat.history.md"


def tokens(text: str, multiplier: str) -> int:
    scale = {"k": 1_000, "m": 1_000_000}.get(multiplier.lower(), 1)
    return round(float(text) * scale)


class Aider(Adapter):
    name = "aider"
    executable = "aider"
    key_var = "OPENAI_API_KEY"
    base_url_var = "OPENAI_API_BASE"

    def invocation(self, context: RunContext) -> Invocation:
        model = ["--model", context.config.model] if context.config.model else []
        return Invocation(
            [self.executable, "--message", context.instruction, "--yes-always",
             "--no-auto-commits", "--no-gitignore", "--no-check-update",
             "--analytics-disable", "--no-pretty",
             "--no-stream", "--chat-history-file", str(context.io / HISTORY),
             "--input-history-file", str(context.io / "aider.input.history"), *model,
             *context.config.flags])

    def trajectory(self, context: RunContext) -> list[Path]:
        return [context.io / HISTORY]

    def parse(self, output: AgentOutput) -> Parsed:
        sums = {"sent": 0, "received": 0, "cache hit": 0}
        seen = {"sent": False, "received": False, "cache hit": False}
        cost: float | None = None
        lines = 0
        for match in TOKENS.finditer(output.stdout):
            lines += 1
            for value, multiplier, kind in COUNT.findall(match.group("body")):
                if kind in sums:
                    sums[kind] += tokens(value, multiplier)
                    seen[kind] = True
            session = SESSION.search(match.group("cost") or "")
            if session:
                cost = float(session.group(1))
        if not lines:
            return Parsed(problems=("no `Tokens:` line in aider's output",))
        # "sent" is the prompt as the API counts it (OpenAI-style: cache hits included)
        usage = Usage(
            input_tokens=sums["sent"] if seen["sent"] else None,
            output_tokens=sums["received"] if seen["received"] else None,
            cached_input_tokens=sums["cache hit"] if seen["sent"] else None,
            cost_usd=cost, cost_source="agent" if cost is not None else None, turns=lines)
        return Parsed(usage=usage)
