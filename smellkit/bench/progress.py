"""Rich progress bars for `build`, and the summary table printed when it ends.

Kept apart from the pipeline so the library never draws on a terminal unless asked: the CLI
wraps `build` in `rich_progress()` and prints `summary_table(report)`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from smellkit.bench.pipeline import Progress
from smellkit.models import DIFFICULTIES, BuildReport


class _Bars:
    """One bar per stage description (`click: validating`, ...), updated in place."""

    def __init__(self, bar: Any):
        self.bar = bar
        self.tasks: dict[str, Any] = {}

    def __call__(self, description: str, done: int, total: int | None) -> None:
        task = self.tasks.get(description)
        if task is None:
            for other in self.tasks.values():  # the previous stage is finished
                self.bar.update(other, total=self.bar.tasks[other].total or 1,
                                completed=self.bar.tasks[other].total or 1)
            task = self.tasks[description] = self.bar.add_task(description, total=total)
        self.bar.update(task, completed=done, total=total)


@contextmanager
def rich_progress(enabled: bool = True, console: Any = None) -> Iterator[Progress | None]:
    """A progress callback drawing rich bars on stderr (None when disabled or not a terminal)."""
    from rich.console import Console

    console = console or Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console) as bar:
        yield _Bars(bar)


def summary_table(report: BuildReport) -> Any:
    """Cases exported per smell and difficulty, rejections by stage, and repository errors."""
    from rich.table import Table

    errors = f"{report.internal_errors} internal error" + (
        "s" if report.internal_errors != 1 else "")
    internal = f", {errors}" if report.internal_errors else ""
    table = Table(title=f"smellkit build: {report.cases} cases "
                        f"({report.validated} validated, {report.rejected} rejected{internal}, "
                        f"{report.seconds:.0f}s)")
    table.add_column("smell")
    for difficulty in DIFFICULTIES:
        table.add_column(difficulty, justify="right")
    table.add_column("total", justify="right")
    for smell, cells in sorted(report.by_cell.items()):
        counts = [cells.get(difficulty, 0) for difficulty in DIFFICULTIES]
        table.add_row(smell, *(str(count) for count in counts), str(sum(counts)))
    if report.rejections_by_stage:
        table.caption = "rejected: " + ", ".join(
            f"{stage} {count}" for stage, count in report.rejections_by_stage.items())
    if report.internal_errors:
        table.caption = (table.caption or "") + (
            f"\n{errors}: smellkit crashed, a bug to report "
            "(stage `internal` in rejections.jsonl, with tracebacks)")
    for name, error in report.repo_errors.items():
        table.caption = (table.caption or "") + f"\n{name}: {error}"
    return table
