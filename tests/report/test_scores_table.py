"""The table `smellkit evaluate` prints: usage columns appear when a source recorded usage."""

from __future__ import annotations

from rich.console import Console

from smellkit.evaluate.score import Score
from smellkit.report.scores import scores_table


def _text(rows: list[Score]) -> str:
    console = Console(width=200, record=True)
    console.print(scores_table(rows))
    return console.export_text()


def _row(model: str, usage: dict[str, float], resolved: bool = False) -> Score:
    return Score(instance_id=f"case-{len(usage)}-{resolved}", model=model, smell="dead_code",
                 usage=usage, resolved=resolved,
                 error_category="resolved" if resolved else "no_patch")


def test_usage_is_summed_per_model_over_the_rows_that_report_it() -> None:
    text = _text([
        _row("claude-code:sonnet", {"input_tokens": 1200, "output_tokens": 300,
                                    "cost_usd": 0.02}, resolved=True),
        _row("claude-code:sonnet", {"input_tokens": 800, "output_tokens": 100}),
        _row("oracle", {})])
    assert "tokens in/out" in text and "cost $" in text
    (claude,) = [line for line in text.splitlines() if "claude-code:sonnet" in line]
    assert "2,000/400" in claude and "0.02" in claude
    (oracle,) = [line for line in text.splitlines() if "oracle" in line]
    assert "-/-" in oracle


def test_no_usage_columns_without_usage() -> None:
    text = _text([_row("oracle", {}, resolved=True)])
    assert "tokens" not in text and "cost" not in text
