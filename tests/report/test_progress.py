"""The CLI's view of a build: progress bars driven by the callback, and the summary table."""

from __future__ import annotations

import io

from rich.console import Console

from smellkit.models import BuildReport
from smellkit.report.progress import (
    PIPED_WIDTH,
    build_progress,
    build_summary_table,
    stderr_console,
)


def _report() -> BuildReport:
    return BuildReport(out_dir="out", seed=0, repos=("click",), cases=3, validated=4, reused=0,
                       rejected=2, by_cell={"dead_code": {"easy": 2, "hard": 1}},
                       distinct={"dead_code": {"targets": 3, "files": 5}},
                       rejections_by_stage={"smelly": 2}, repo_errors={"jinja2": "no tests"})


def test_summary_table_counts_cells_and_names_errors() -> None:
    console = Console(file=io.StringIO(), width=120, force_terminal=False)
    console.print(build_summary_table(_report()))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "3 cases (4 validated, 2" in " ".join(text.split())
    assert "dead_code" in text and "smelly 2" in text and "jinja2: no tests" in text
    header = next(line for line in text.splitlines() if "easy" in line)
    assert header.replace("┃", " ").split() == [
        "smell", "easy", "medium", "hard", "total", "targets", "files"]
    row = next(line for line in text.splitlines() if "dead_code" in line)
    assert row.replace("│", " ").split() == ["dead_code", "2", "0", "1", "3", "3", "5"]


def test_no_bars_off_a_terminal() -> None:
    console = Console(file=io.StringIO(), force_terminal=False)
    with build_progress(console=console) as progress:
        assert progress is None


def test_bars_follow_the_callback() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=100)
    with build_progress(console=console) as progress:
        assert progress is not None
        progress("click: fetching", 0, None)
        progress("click: validating", 3, 10)
        progress("click: validating", 10, 10)
    assert "click: validating" in console.file.getvalue()  # type: ignore[attr-defined]


def test_summary_table_counts_internal_errors_apart() -> None:
    report = _report().model_copy(update={"rejected": 3, "internal_errors": 1,
                                          "rejections_by_stage": {"internal": 1, "smelly": 2}})
    console = Console(file=io.StringIO(), width=120, force_terminal=False)
    console.print(build_summary_table(report))
    text = " ".join(console.file.getvalue().split())  # type: ignore[attr-defined]
    assert "3 rejected, 1 internal error," in text
    assert "1 internal error: smellkit crashed, a bug to report" in text



def test_a_table_piped_to_a_file_keeps_its_long_cells() -> None:
    """Off a terminal rich would fold every table to 80 columns, cutting qualified names."""
    from rich.table import Table

    console = stderr_console()
    assert not console.is_terminal and console.width == PIPED_WIDTH
    names = ["package.module.SomeClass.a_rather_long_method_name_of_sixty_chars",
             "package/module/with/a/deep/path/to/some_file_of_the_repository.py:1234"]
    table = Table()
    for column in ("target", "where"):
        table.add_column(column, overflow="fold")
    table.add_row(*names)
    with console.capture() as captured:
        console.print(table)
    assert all(name in captured.get() for name in names)
