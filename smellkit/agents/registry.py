"""The built-in adapters, by name (Harbor's agent names where Harbor has one), and aliases."""

from __future__ import annotations

from smellkit.agents.aider import Aider
from smellkit.agents.base import Adapter, AgentError
from smellkit.agents.claude_code import ClaudeCode
from smellkit.agents.codex import Codex
from smellkit.agents.command import Command
from smellkit.agents.mini_swe_agent import MiniSweAgent
from smellkit.agents.openhands import OpenHands
from smellkit.agents.qwen_code import QwenCode

ADAPTERS: tuple[type[Adapter], ...] = (ClaudeCode, Codex, QwenCode, OpenHands, Aider,
                                       MiniSweAgent, Command)
AGENT_NAMES: tuple[str, ...] = tuple(adapter.name for adapter in ADAPTERS)


def get_adapter(name: str) -> Adapter:
    """The adapter called `name` (or one of its aliases); AgentError lists the known ones."""
    for adapter in ADAPTERS:
        if name == adapter.name or name in adapter.aliases:
            return adapter()
    raise AgentError(f"unknown agent {name!r}", hint=f"one of {', '.join(AGENT_NAMES)}")
