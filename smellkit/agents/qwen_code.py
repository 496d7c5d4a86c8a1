"""Qwen Code (`qwen`, npm `@qwen-code/qwen-code`; Harbor's `qwen-coder`) in headless mode.

`qwen --yolo --output-format stream-json --auth-type openai [--model M] [--openai-base-url U]
-p PROMPT`. The key goes through `OPENAI_API_KEY` rather than `--openai-api-key`, so it never
shows in a process listing or a recorded command line. Its stream mirrors Claude Code's; the
`result` has `usage` (an OpenAI-style count: `input_tokens` includes the cached ones) and no
cost, which the price table may supply.
"""

from __future__ import annotations

from smellkit.agents.base import Adapter, AgentOutput, Invocation, Parsed, RunContext
from smellkit.agents.streamjson import parse_stream


class QwenCode(Adapter):
    name = "qwen-coder"
    aliases = ("qwen-code", "qwen")
    executable = "qwen"
    key_var = "OPENAI_API_KEY"
    stdout_is_trajectory = True

    def invocation(self, context: RunContext) -> Invocation:
        config = context.config
        model = ["--model", config.model] if config.model else []
        base = ["--openai-base-url", config.base_url] if config.base_url else []
        return Invocation(
            [self.executable, "--yolo", "--output-format", "stream-json", "--auth-type",
             "openai", *model, *base, *config.flags, "-p", context.instruction])

    def parse(self, output: AgentOutput) -> Parsed:
        return parse_stream(output.stdout, input_includes_cache=True)
