"""Prices per million tokens, for agents that report tokens but no cost (Codex, Qwen Code).

The built-in table holds list prices OpenAI published in 2025 for the models Codex is commonly
run with; prices change, so a run can pass its own table (`--prices FILE`, JSON or TOML:
`{"model": {"input": 1.25, "cached_input": 0.125, "output": 10.0}}`, USD per million tokens),
which is merged over the built-in one. A model is looked up by its full name, then without a
`provider/` prefix; an unknown model gets no cost rather than a guessed one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from smellkit.agents.base import AgentError, Usage

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


class Price(BaseModel):
    """USD per million tokens; cached input costs `input` when not given."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)


DEFAULT_PRICES: dict[str, Price] = {
    name: Price(input=values[0], cached_input=values[1], output=values[2])
    for name, values in {
        "gpt-5": (1.25, 0.125, 10.0), "gpt-5-codex": (1.25, 0.125, 10.0),
        "gpt-5-mini": (0.25, 0.025, 2.0), "gpt-5-nano": (0.05, 0.005, 0.4),
        "gpt-4.1": (2.0, 0.5, 8.0), "gpt-4.1-mini": (0.4, 0.1, 1.6),
        "o3": (2.0, 0.5, 8.0), "o4-mini": (1.1, 0.275, 4.4),
    }.items()}


def load_prices(path: Path | str | None) -> dict[str, Price]:
    """The built-in table with `path`'s entries over it; AgentError names a bad entry."""
    table = dict(DEFAULT_PRICES)
    if path is None:
        return table
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
        data = tomllib.loads(text) if file.suffix == ".toml" else json.loads(text)
    except (OSError, ValueError) as error:
        raise AgentError(f"cannot read the price table: {error}", path=file,
                         hint='write {"model": {"input": 1.25, "cached_input": 0.125, '
                              '"output": 10.0}} (USD per million tokens)') from error
    if not isinstance(data, dict):
        raise AgentError("the price table must be an object keyed by model", path=file)
    for model, entry in data.items():
        try:
            table[model] = Price.model_validate(entry)
        except ValidationError as error:
            raise AgentError(f"{model}: {error.errors()[0]['msg']}", path=file,
                             hint="each model needs input and output (and may give "
                                  "cached_input), USD per million tokens") from error
    return table


def price_of(model: str, table: dict[str, Price]) -> Price | None:
    return table.get(model) or table.get(model.rsplit("/", 1)[-1])


def with_cost(usage: Usage, model: str, table: dict[str, Price]) -> Usage:
    """`usage` with a cost from the table when the agent gave none and the tokens are known."""
    price = price_of(model, table)
    if usage.cost_usd is not None or price is None or usage.input_tokens is None or \
            usage.output_tokens is None:
        return usage
    cached = min(usage.cached_input_tokens or 0, usage.input_tokens)
    cached_price = price.input if price.cached_input is None else price.cached_input
    cost = ((usage.input_tokens - cached) * price.input + cached * cached_price +
            usage.output_tokens * price.output) / 1_000_000
    return usage.model_copy(update={"cost_usd": round(cost, 8),
                                    "cost_source": "price-table"})
