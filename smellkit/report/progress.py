"""Rich progress bars on stderr for long commands (`scan`, `build`, and those to come), and the
summary table a build prints when it ends.

The library never draws on a terminal unless asked: the CLI wraps a command in `progress_bars()`
and hands the library a callback that moves them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from smellkit.models import DIFFICULTIES, BuildReport

SCAN_PROGRESS_THRESHOLD = 200
"""Files; below this a bar of a scan only flickers."""


PIPED_WIDTH = 200
"""Columns of a table written to a pipe or file: rich's 80 would cut names and paths short."""


def wide_console(*, stderr: bool = False) -> Any:
    """A rich console on stdout or stderr, as wide as the terminal, or `PIPED_WIDTH` when the
    output is piped (a table then keeps its full cells instead of folding them to 80 columns)."""
    from rich.console import Console

    found = Console(stderr=stderr)
    if not found.is_terminal:
        found = Console(stderr=stderr, width=PIPED_WIDTH)
    return found


def stderr_console() -> Any:
    return wide_console(stderr=True)


@contextmanager
def progress_bars(*, enabled: bool = True, console: Any = None,
                  transient: bool = False) -> Iterator[Any | None]:
    """A rich `Progress` drawing on stderr (None when disabled or stderr is not a terminal)."""
    console = console or stderr_console()
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
                  TimeElapsedColumn(), transient=transient, console=console) as bar:
        yield bar


class StageBars:
    """One bar per stage description (`click: validating`, ...), updated in place: the callback
    of a build (`smellkit.bench.pipeline.Progress`)."""

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


class ScanBar:
    """One bar for a scan: files while they are parsed, then the stage running."""

    def __init__(self, bar: Any):
        self.bar = bar
        self.task = bar.add_task("parsing", total=None)

    def files(self, done: int, total: int) -> None:
        if total >= SCAN_PROGRESS_THRESHOLD:
            self.bar.update(self.task, completed=done, total=total)

    def stage(self, name: str) -> None:
        self.bar.update(self.task, description=name, completed=0, total=None)


@contextmanager
def build_progress(enabled: bool = True, console: Any = None) -> Iterator[StageBars | None]:
    """The callback of a build, drawing bars on stderr (None when disabled or not a terminal)."""
    with progress_bars(enabled=enabled, console=console) as bar:
        yield None if bar is None else StageBars(bar)


@contextmanager
def scan_progress(enabled: bool = True) -> Iterator[ScanBar | None]:
    """The reporter of a scan; the bar goes away when the scan ends."""
    with progress_bars(enabled=enabled, transient=True) as bar:
        yield None if bar is None else ScanBar(bar)


def build_summary_table(report: BuildReport) -> Any:
    """Cases exported per smell and difficulty, the distinct targets and files they use,
    rejections by stage, and below the table, in full width, the repository errors (a failed
    install or test map says what to fix in several lines: a caption would squeeze them to
    the table's width)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

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
    table.add_column("targets", justify="right")
    table.add_column("files", justify="right")
    for smell, cells in sorted(report.by_cell.items()):
        counts = [cells.get(difficulty, 0) for difficulty in DIFFICULTIES]
        distinct = report.distinct.get(smell, {})
        table.add_row(smell, *(str(count) for count in counts), str(sum(counts)),
                      *(str(distinct[key]) if key in distinct else "-"
                        for key in ("targets", "files")))
    if report.rejections_by_stage:
        table.caption = "rejected: " + ", ".join(
            f"{stage} {count}" for stage, count in report.rejections_by_stage.items())
    if report.internal_errors:
        table.caption = (table.caption or "") + (
            f"\n{errors}: smellkit crashed, a bug to report "
            "(stage `internal` in rejections.jsonl, with tracebacks)")
    if not report.repo_errors:
        return table
    return Group(table, *(Text(f"{name}: {error}") for name, error in report.repo_errors.items()))
