"""The terminal summary of a scan."""

from __future__ import annotations

from collections import Counter
from pathlib import PurePosixPath

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from smellkit.models import Location, MetricRow, ScanResult
from smellkit.report.markdown import with_hedge

TOP = 10
TOP_FINDINGS = 30
_RANK = {"info": 0, "warning": 1, "error": 2}
_STYLE = {"info": "dim", "warning": "yellow", "error": "bold red"}


def _top(rows: tuple[MetricRow, ...], metric: str) -> list[MetricRow]:
    ranked = [row for row in rows if isinstance(row.values.get(metric), (int, float))]
    ranked.sort(key=lambda row: (-float(row.values[metric] or 0), row.location.qualname))
    return ranked[:TOP]


def _in_module(location: Location) -> str:
    """The qualified name inside its module (`peekable._get_slice` in `more.py`); the whole
    name where the module part cannot be told from the path."""
    file = PurePosixPath(location.path)
    stem = file.parent.name if file.stem == "__init__" else file.stem
    parts = location.qualname.split(".")
    if stem in parts[:-1]:
        return ".".join(parts[parts.index(stem) + 1:])
    return location.qualname


def render_scan(result: ScanResult, console: Console) -> None:
    """Summary, findings by smell, the most complex code, import cycles and diagnostics."""
    summary = result.summary
    overview = Table(title=f"smellkit {result.version}: {summary.root}", show_header=False)
    overview.add_column("what")
    overview.add_column("value", justify="right")
    resolved = summary.call_sites - summary.call_sites_unresolved
    share = resolved / summary.call_sites if summary.call_sites else 1.0
    for label, value in (
        ("files", f"{summary.files} ({summary.files_from_cache} from cache, "
                  f"{summary.files_with_errors} with errors)"),
        ("modules / classes / functions",
         f"{summary.modules} / {summary.classes} / {summary.functions}"),
        ("lines", f"{summary.lines:,}"),
        ("call sites resolved", f"{resolved:,} of {summary.call_sites:,} ({share:.0%})"),
        ("call-graph edges", f"{summary.call_edges:,}"),
        ("import cycles", str(summary.import_cycles)),
        ("findings", str(summary.findings)),
        ("seconds", f"{summary.seconds:.2f}"),
    ):
        overview.add_row(label, value)
    console.print(overview)

    if result.findings:
        counts = Counter(finding.smell for finding in result.findings)
        by_smell = Table(title="Findings by smell")
        by_smell.add_column("smell")
        by_smell.add_column("findings", justify="right")
        for smell, count in sorted(counts.items()):
            by_smell.add_row(smell, str(count))
        console.print(by_smell)
        ranked = sorted(result.findings, key=lambda f: (-_RANK[f.severity], -f.confidence))
        shown = ranked[:TOP_FINDINGS]
        title = f"Findings ({len(ranked)})" if len(shown) == len(ranked) else \
            f"Top {len(shown)} of {len(ranked)} findings (all: --format json or markdown)"
        # one block per finding, as linters print them: a table's narrow columns would break
        # dotted names mid-word on an 80-column pipe
        console.print(Text(title, style="bold"), justify="center")
        for finding in shown:
            location = finding.location
            head = Text.assemble((finding.severity, _STYLE[finding.severity]), " ",
                                 (finding.smell, "bold"), " ",
                                 f"{location.path}:{location.start_line}", " ",
                                 (location.qualname, "cyan"))
            console.print(head, overflow="fold", highlight=False)
            console.print(Padding(Text(with_hedge(finding)), (0, 0, 0, 4), expand=False),
                          highlight=False)

    # the metric tables name code inside its module, which the file column gives: a full
    # dotted name would be folded mid-word on an 80-column pipe
    complex_rows = _top(result.metrics.functions, "cc")
    if complex_rows:
        table = Table(title=f"Most complex functions (top {TOP} by cyclomatic complexity)")
        for column in ("function", "file", "cc", "sloc"):
            table.add_column(column, justify="right" if column in ("cc", "sloc") else "left",
                             overflow="fold")
        for row in complex_rows:
            table.add_row(_in_module(row.location), f"{row.location.path}:"
                          f"{row.location.start_line}", str(row.values.get("cc")),
                          str(row.values.get("sloc")))
        console.print(table)

    class_rows = _top(result.metrics.classes, "wmc")
    if class_rows:
        table = Table(title=f"Heaviest classes (top {TOP} by WMC)")
        for column in ("class", "file", "wmc", "nom", "lcom4", "cbo"):
            table.add_column(column, justify="left" if column in ("class", "file") else "right",
                             overflow="fold")
        for row in class_rows:
            table.add_row(_in_module(row.location), f"{row.location.path}:"
                          f"{row.location.start_line}", *(str(row.values.get(key, ""))
                                                          for key in ("wmc", "nom", "lcom4",
                                                                      "cbo")))
        console.print(table)

    for cycle in result.import_cycles:
        console.print(f"[yellow]import cycle:[/] {' -> '.join((*cycle, cycle[0]))}")
    for diagnostic in result.diagnostics:
        where = f"{diagnostic.path}:{diagnostic.line}" if diagnostic.line else diagnostic.path
        console.print(f"[red]{diagnostic.severity}[/] {where}: {diagnostic.message} "
                      f"[dim]({diagnostic.code})[/]", highlight=False)
