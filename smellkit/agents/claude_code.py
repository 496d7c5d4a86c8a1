"""Claude Code (`claude`, npm `@anthropic-ai/claude-code`) in print mode.

`claude --print --verbose --output-format stream-json --permission-mode bypassPermissions
[--model M]`, the prompt on stdin (`--print` with `stream-json` requires `--verbose`). The last
line is a `result` message: `subtype`, `is_error`, `num_turns`, `duration_ms`,
`total_cost_usd` and `usage` (`input_tokens`, `output_tokens`, `cache_creation_input_tokens`,
`cache_read_input_tokens`); tool results come back as `tool_result` blocks of `user` messages.
`IS_SANDBOX=1` lets it bypass permissions when it runs as root in a container.
"""

from __future__ import annotations

from smellkit.agents.base import Adapter, AgentOutput, Invocation, Parsed, RunContext
from smellkit.agents.streamjson import parse_stream


class ClaudeCode(Adapter):
    name = "claude-code"
    aliases = ("claude",)
    executable = "claude"
    key_var = "ANTHROPIC_API_KEY"
    base_url_var = "ANTHROPIC_BASE_URL"
    stdout_is_trajectory = True

    def invocation(self, context: RunContext) -> Invocation:
        model = ["--model", context.config.model] if context.config.model else []
        return Invocation(
            [self.executable, "--print", "--verbose", "--output-format", "stream-json",
             "--permission-mode", "bypassPermissions", *model, *context.config.flags],
            stdin=context.instruction_file,
            env={"IS_SANDBOX": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                 "DISABLE_AUTOUPDATER": "1"})

    def parse(self, output: AgentOutput) -> Parsed:
        return parse_stream(output.stdout, input_includes_cache=False)
