"""Running coding agents on benchmark cases: thin adapters (one module per agent), the
workspace each run gets, what a run records, and `smellkit run` over a dataset."""

from smellkit.agents.base import (
    EXIT_REASONS,
    Adapter,
    AgentConfig,
    AgentError,
    ExitReason,
    Parsed,
    Usage,
)
from smellkit.agents.registry import ADAPTERS, AGENT_NAMES, get_adapter
from smellkit.agents.run import SETTINGS, RunReport, run_agents

__all__ = ["ADAPTERS", "AGENT_NAMES", "EXIT_REASONS", "SETTINGS", "Adapter", "AgentConfig",
           "AgentError", "ExitReason", "Parsed", "RunReport", "Usage", "get_adapter",
           "run_agents"]
