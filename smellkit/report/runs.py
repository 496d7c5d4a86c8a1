"""The table `smellkit run` prints when it ends: how the runs ended, what they used and cost."""

from __future__ import annotations

from typing import Any

from smellkit.agents import EXIT_REASONS, RunReport


def run_summary_table(report: RunReport) -> Any:
    """Rows by exit reason, then tokens, cost and time over every row of the file."""
    from rich.table import Table

    table = Table(title=f"smellkit run: {report.model_name} ({report.ran} run, "
                        f"{report.reused} already done, {len(report.not_run)} not run, "
                        f"{report.seconds:.0f}s)")
    table.add_column("")
    table.add_column("value", justify="right")
    for reason in EXIT_REASONS:
        table.add_row(reason, str(report.exit_reasons.get(reason, 0)))
    table.add_row("input tokens", f"{report.input_tokens:,}")
    table.add_row("  of them cached", f"{report.cached_input_tokens:,}")
    table.add_row("output tokens", f"{report.output_tokens:,}")
    table.add_row("cost (USD)", "-" if report.cost_usd is None else f"{report.cost_usd:.4f}")
    table.add_row("agent time (s)", f"{report.duration_s:.1f}")
    notes = [f"predictions: {report.predictions}", f"logs: {report.logs}"]
    if report.outside_writes:
        notes.append(f"{report.outside_writes} run(s) wrote outside their workspace "
                     "(field outside_writes)")
    notes += [f"not run: {instance}: {reason}" for instance, reason in report.not_run.items()]
    notes += [f"dataset: {error}" for error in report.dataset_errors[:5]]
    table.caption = "\n".join(notes)
    return table
