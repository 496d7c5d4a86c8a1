"""The Measure commands: `scan`, `smells`, `graph`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from smellkit.cli.group import fail, load_project, main, project_options, write_output
from smellkit.errors import SmellkitError, UsageError
from smellkit.report.progress import (
    scan_progress,
)

if TYPE_CHECKING:
    from smellkit.project.options import LoadOptions


@main.command()
@project_options
@click.option("--smell", "smells", multiple=True, metavar="NAME",
              help="Only this smell; repeatable (default: all). `smellkit smells` lists them.")
@click.option("--no-smells", is_flag=True, help="Metrics only: run no detector.")
@click.option("--min-severity", type=click.Choice(["info", "warning", "error"]), default="info",
              show_default=True, help="Leave out findings below this severity.")
@click.option("--format", "output_format",
              type=click.Choice(["table", "json", "sarif", "markdown"]), default="table",
              show_default=True)
@click.option("--output", "-o", type=click.Path(path_type=Path), default=None,
              help="Write the report to this file instead of standard output.")
@click.option("--baseline", type=click.Path(path_type=Path), default=None,
              help="Leave out the findings recorded in this baseline file.")
@click.option("--write-baseline", type=click.Path(path_type=Path), default=None,
              help="Record every current finding in this baseline file.")
@click.option("--fail-on", type=click.Choice(["never", "info", "warning", "error"]),
              default="never", show_default=True,
              help="Exit 1 when a reported finding has at least this severity.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def scan(load: LoadOptions, smells: tuple[str, ...], no_smells: bool, min_severity: str,
         output_format: str, output: Path | None, baseline: Path | None,
         write_baseline: Path | None, fail_on: str, no_progress: bool) -> None:
    """Scan PATH (default: the current folder) for smells and structural metrics."""
    from smellkit.scanning.scanner import ScanRequest, run_scan, scan_json

    chosen: tuple[str, ...] | None = () if no_smells else (smells or None)
    as_text = output_format == "json" and write_baseline is None and fail_on == "never"
    try:
        with scan_progress(not no_progress) as reporter:
            request = ScanRequest.of(
                load, smells=chosen, min_severity=min_severity, baseline=baseline,
                progress=reporter.files if reporter else None,
                stage=reporter.stage if reporter else None)
            if as_text:  # the stored report passes through without being rebuilt
                write_output(scan_json(request), output)
                return
            result = run_scan(request)
    except SmellkitError as error:
        fail(error)
        return
    if write_baseline is not None:
        from smellkit.scanning.baseline import write_baseline as write

        count = write(write_baseline, result.findings)
        click.echo(f"smellkit: {count} findings recorded in {write_baseline}", err=True)
    _emit_scan(result, output_format, output)
    if fail_on != "never":
        from smellkit.detectors.runner import SEVERITY_RANK

        floor = SEVERITY_RANK[fail_on]  # type: ignore[index]
        if any(SEVERITY_RANK[finding.severity] >= floor for finding in result.findings):
            sys.exit(1)


def _emit_scan(result: Any, output_format: str, output: Path | None) -> None:
    if output_format == "table":
        from rich.console import Console

        from smellkit.report.table import render_scan

        if output:
            with output.open("w", encoding="utf-8") as handle:
                render_scan(result, Console(file=handle, width=120, no_color=True))
        else:
            render_scan(result, Console())
        return
    if output_format == "json":
        text = result.model_dump_json(indent=2)
    elif output_format == "sarif":
        from smellkit.detectors import detectors
        from smellkit.report.sarif import to_sarif

        rules = {name: cls.description for name, cls in detectors().items()}
        text = json.dumps(to_sarif(result, rules), indent=2)
    else:
        from smellkit.report.markdown import to_markdown

        text = to_markdown(result)
    write_output(text, output)


@main.command()
@click.argument("name", required=False)
def smells(name: str | None) -> None:
    """List the smells smellkit detects, or the options of one."""
    from smellkit.detectors import detectors

    available = detectors()
    if name is None:
        width = max(len(key) for key in available)
        for key, cls in available.items():
            click.echo(f"{key:{width}}  {cls.description}")
        return
    if name not in available:
        fail(UsageError(f"unknown smell {name!r}", hint=f"known: {', '.join(available)}"))
        return
    cls = available[name]
    click.echo(f"{name}: {cls.description}\n\noptions ([tool.smellkit.detectors.{name}]):")
    for field, info in cls.Options.model_fields.items():
        key = field.replace("_", "-")
        click.echo(f"  {key} = {info.default!r}\n      {info.description or ''}")


@main.command()
@project_options
@click.option("--kind", type=click.Choice(["calls", "imports", "classes"]), default="calls",
              show_default=True)
@click.option("--format", "output_format",
              type=click.Choice(["json", "pycg", "graphml", "dot"]), default="json",
              show_default=True)
@click.option("--output", "-o", type=click.Path(path_type=Path), default=None)
def graph(load: LoadOptions, kind: str, output_format: str, output: Path | None) -> None:
    """Export the call, import or class graph of PATH."""
    from smellkit.graphs import export

    try:
        project = load_project(load)
    except SmellkitError as error:
        fail(error)
        return
    index = project.index
    chosen = {"calls": lambda: index.call_graph, "imports": lambda: index.import_graph,
              "classes": lambda: index.class_graph}[kind]()
    if output_format == "pycg":
        if kind == "calls":
            from smellkit.graphs.pycg import to_pycg

            text = json.dumps(to_pycg(index, chosen), indent=2)
        else:
            text = json.dumps(export.to_adjacency(chosen), indent=2)
    elif output_format == "json":
        text = export.to_node_link_json(chosen)
    elif output_format == "graphml":
        text = export.to_graphml(chosen)
    else:
        text = export.to_dot(chosen, name=kind)
    for diagnostic in project.diagnostics:
        click.echo(f"smellkit: {diagnostic.path}: {diagnostic.message}", err=True)
    if output:
        output.write_text(text + "\n", encoding="utf-8")
    else:
        click.echo(text)


