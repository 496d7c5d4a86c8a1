"""The command line: parse arguments, call the library, map errors to exit codes."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from smellkit._version import __version__
from smellkit.errors import SmellkitError, UsageError
from smellkit.report.progress import (
    build_progress,
    build_summary_table,
    scan_progress,
    stderr_console,
    wide_console,
)

if TYPE_CHECKING:
    from smellkit.project import Project
    from smellkit.project.options import LoadOptions

INTERNAL_ERROR = 70
"""Exit code when smellkit itself crashed (a bug to report): sysexits' EX_SOFTWARE."""


def _fail(error: SmellkitError) -> None:
    click.echo(f"smellkit: error: {error}", err=True)
    sys.exit(error.exit_code)


_project_options = [
    click.argument("path", type=click.Path(path_type=Path), default=".", required=False),
    click.option("--include-tests", is_flag=True, default=None,
                 help="Analyse tests too (excluded by default)."),
    click.option("--exclude", multiple=True, metavar="GLOB",
                 help="Leave out paths matching GLOB (relative, POSIX); repeatable."),
    click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                 help="Worker processes for parsing (default: all cores)."),
    click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
                 help="Where parsed facts are cached (default: $SMELLKIT_CACHE_DIR, else "
                      "~/.cache/smellkit)."),
    click.option("--no-cache", is_flag=True, help="Neither read nor write the cache."),
]


def project_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """PATH and the options of loading it, handed to the command as one `load: LoadOptions`."""

    @functools.wraps(function)
    def command(*args: Any, path: Path, include_tests: bool | None, exclude: tuple[str, ...],
                jobs: int | None, cache_dir: Path | None, no_cache: bool, **kwargs: Any) -> Any:
        from smellkit.project.options import LoadOptions

        load = LoadOptions(path=path, include_tests=include_tests, exclude=exclude, jobs=jobs,
                           cache_dir=cache_dir, use_cache=not no_cache)
        return function(*args, load=load, **kwargs)

    decorated: Callable[..., Any] = command
    for option in reversed(_project_options):
        decorated = option(decorated)
    return decorated


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="smellkit")
def main() -> None:
    """Code smells, structural metrics and refactoring benchmarks for Python repositories."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminated)


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM (a batch system's stop, `kill`) unwinds like Ctrl-C: agents' and tests' process
    groups are killed by the code waiting on them, and the rows already written stay."""
    raise KeyboardInterrupt


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
                _write(scan_json(request), output)
                return
            result = run_scan(request)
    except SmellkitError as error:
        _fail(error)
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
    _write(text, output)


def _write(text: str, output: Path | None) -> None:
    if output:
        output.write_text(text + "\n", encoding="utf-8")
    else:
        click.echo(text)


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
        _fail(UsageError(f"unknown smell {name!r}", hint=f"known: {', '.join(available)}"))
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
        project = _load(load)
    except SmellkitError as error:
        _fail(error)
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


def _load(load: LoadOptions) -> Project:
    from smellkit.project import Project

    return Project.load(load)


_option_options = [
    click.option("--min-file-lines", type=click.IntRange(min=0), default=None,
                 help="Only target files of at least this many lines (default 500)."),
    click.option("--injector-option", "injector_options", multiple=True,
                 metavar="SMELL.KEY=VALUE",
                 help="An injector option, the value read as TOML (`god_class.min-methods=6`); "
                      "repeatable; overrides the spec's [injectors.SMELL] table."),
    click.option("--exclude-from-injection", "exclude_from_injection", multiple=True,
                 metavar="GLOB",
                 help="Never inject into paths matching GLOB; repeatable; replaces the default "
                      "(examples, docs, scripts, benchmarks, tools... of a flat layout; all "
                      "but src/ of a src layout)."),
    click.option("--inject-anywhere", is_flag=True,
                 help="Drop the default exclusion: inject into any analysed file but tests."),
]
_injection_options = [
    click.option("--smell", required=True, metavar="NAME",
                 help="The smell (see `smellkit smells`)."),
    click.option("--seed", type=int, default=0, show_default=True,
                 help="Seeds the candidate order and the instruction wording."),
    *_option_options,
]


def injection_options(function: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_injection_options):
        function = option(function)
    return function


def option_options(function: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_option_options):
        function = option(function)
    return function


def parse_injector_options(assignments: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """`SMELL.KEY=VALUE` assignments as options by smell (values read as TOML)."""
    from smellkit.config import toml_value

    options: dict[str, dict[str, Any]] = {}
    for assignment in assignments:
        name, equals, value = assignment.partition("=")
        smell, dot, key = name.strip().partition(".")
        if not equals or not dot or not smell or not key:
            raise UsageError(f"--injector-option {assignment!r} is not SMELL.KEY=VALUE",
                             hint="e.g. --injector-option god_class.min-file-lines=200")
        options.setdefault(smell, {})[key.strip()] = toml_value(value.strip())
    return options


def _exclusion(globs: tuple[str, ...], anywhere: bool) -> tuple[str, ...] | None:
    """The exclusion the user chose, or None for the spec's (else the layout's) default."""
    if anywhere and globs:
        raise UsageError("--inject-anywhere drops every exclusion; "
                         "--exclude-from-injection sets them", hint="pass one of the two")
    return () if anywhere else (globs or None)


def _smell_options(smell: str, min_file_lines: int | None,
                   assignments: tuple[str, ...]) -> dict[str, Any]:
    """The options of the one smell a command works on: --min-file-lines, then its
    --injector-option values (an option for another smell is a mistake, said as one)."""
    by_smell = parse_injector_options(assignments)
    others = sorted(set(by_smell) - {smell})
    if others:
        raise UsageError(f"--injector-option names {', '.join(others)}, but --smell is {smell}",
                         hint=f"write {smell}.KEY=VALUE")
    options: dict[str, Any] = {} if min_file_lines is None else {
        "min-file-lines": min_file_lines}
    options.update(by_smell.get(smell, {}))
    return options


@main.command()
@project_options
@injection_options
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Show at most N.")
@click.option("--explain", is_flag=True,
              help="Say which rule removed how many definitions, and how many remain.")
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
def candidates(load: LoadOptions, smell: str, seed: int, min_file_lines: int | None,
               injector_options: tuple[str, ...], exclude_from_injection: tuple[str, ...],
               inject_anywhere: bool, limit: int | None, explain: bool,
               output_format: str) -> None:
    """List where SMELL can be injected in PATH, and why each place qualifies."""
    from smellkit.injectors.engine import discover

    try:
        options = _smell_options(smell, min_file_lines, injector_options)
        exclude = _exclusion(exclude_from_injection, inject_anywhere)
        project = _load(load)
        found, report = discover(project, smell, options=options, seed=seed, limit=limit,
                                 exclude=exclude)
    except SmellkitError as error:
        _fail(error)
        return
    if explain:
        if output_format == "json":
            click.echo(report.model_dump_json(indent=2))
        else:
            from smellkit.report.candidates import explain_lines

            click.echo("\n".join(explain_lines(report, str(load.path))))
        return
    if output_format == "json":
        click.echo(json.dumps([item.model_dump(mode="json") for item in found], indent=2))
        return
    from rich.table import Table

    table = Table(title=f"{len(found)} {smell} candidates in {load.path}")
    for column in ("target", "where", "why"):
        table.add_column(column, overflow="fold")
    for item in found:
        target = item.target
        table.add_row(target.qualname, f"{target.path}:{target.start_line}", item.reason)
    wide_console().print(table)


@main.command()
@project_options
@injection_options
@click.option("--difficulty", type=click.Choice(["easy", "medium", "hard"]), required=True)
@click.option("--target", "target", metavar="QUALNAME", default=None,
              help="Inject at the candidate with this target (default: sampled by seed).")
@click.option("--output", "-o", type=click.Path(path_type=Path), default=None,
              help="Write the injection record (JSON) here instead of standard output.")
@click.option("--apply", "apply_to", type=click.Path(path_type=Path), default=None,
              metavar="DIR", help="Copy PATH to DIR (new or empty) and apply the smelly patch.")
@click.option("--verify", "check", is_flag=True,
              help="Also check the round trip (imports, detector, checks, restore).")
def inject(load: LoadOptions, smell: str, seed: int, min_file_lines: int | None,
           injector_options: tuple[str, ...], exclude_from_injection: tuple[str, ...],
           inject_anywhere: bool, difficulty: str, target: str | None, output: Path | None,
           apply_to: Path | None, check: bool) -> None:
    """Inject SMELL into PATH at a difficulty and print the injection record (PATH is not
    modified)."""
    from smellkit.injectors import engine
    from smellkit.models import InjectionFailure, InjectionSkip

    try:
        options = _smell_options(smell, min_file_lines, injector_options)
        exclude = _exclusion(exclude_from_injection, inject_anywhere)
        if apply_to is not None and apply_to.exists() and any(apply_to.iterdir()):
            raise UsageError(f"{apply_to} is not empty", hint="--apply needs a new or empty folder")
        project = _load(load)
        candidate = None
        if target is not None:
            pool = engine.find_candidates(project, smell, options=options, seed=seed,
                                          exclude=exclude)
            matches = [item for item in pool if item.target.qualname == target]
            if not matches:
                raise UsageError(f"no {smell} candidate targets {target}",
                                 hint="list them with `smellkit candidates`")
            candidate = matches[0]
        outcome = engine.inject(project, smell, difficulty,  # type: ignore[arg-type]
                                candidate=candidate, seed=seed, options=options,
                                exclude=exclude)
        if isinstance(outcome, InjectionSkip):
            click.echo(f"smellkit: no injection: {outcome.reason}", err=True)
            sys.exit(1)
        if isinstance(outcome, InjectionFailure):
            click.echo(f"{outcome.traceback.rstrip()}\nsmellkit: {outcome.reason} (a bug in "
                       "smellkit or a plugin; please report it with the traceback above)",
                       err=True)
            sys.exit(INTERNAL_ERROR)
        _write(outcome.model_dump_json(indent=2), output)
        if apply_to is not None:
            _apply_copy(project.root, apply_to, outcome.smelly_patch)
            click.echo(f"smellkit: smelly copy written to {apply_to}", err=True)
        if check:
            result = engine.verify(project.root, outcome, original=project)
            for problem in result.problems:
                click.echo(f"smellkit: verify: {problem}", err=True)
            click.echo(f"smellkit: round trip {'ok' if result.ok else 'FAILED'}", err=True)
            if not result.ok:
                sys.exit(1)
    except SmellkitError as error:
        _fail(error)


def _apply_copy(root: Path, destination: Path, patch: str) -> None:
    import shutil

    from smellkit.injectors.patches import apply_patch
    from smellkit.sandbox.checkout import ignored_in_copies

    shutil.copytree(root, destination, ignore=ignored_in_copies, symlinks=True,
                    dirs_exist_ok=True)
    apply_patch(destination, patch)


@main.command("build")
@click.argument("specs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "-o", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Output folder: dataset.jsonl, rejections.jsonl, harbor/, report.json.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=2, show_default=True,
              help="Cases validated at once.")
@click.option("--per-cell", type=click.IntRange(min=1), default=3, show_default=True,
              help="Cases exported per smell and difficulty of each repository.")
@click.option("--runner", type=click.Choice(["local", "docker"]), default=None,
              help="Where tests run (default: the spec's runner, else local).")
@click.option("--smell", "smells", multiple=True, metavar="NAME",
              help="Only these smells; repeatable.")
@click.option("--difficulty", "difficulties", multiple=True,
              type=click.Choice(["easy", "medium", "hard"]))
@click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
              help="Sources, environments and test maps (default: OUT/cache).")
@option_options
@click.option("--no-harbor", is_flag=True, help="Do not write Harbor task directories.")
@click.option("--base-image", default=None, metavar="IMAGE",
              help="The Harbor tasks' base image (default python:X.Y-slim for the spec's "
                   "Python); it must run python3 with the venv module.")
@click.option("--base-python", default=None, metavar="X.Y",
              help="The base image's Python version, when Docker cannot inspect it here.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="HOST",
              help="A host the Harbor agent may reach besides the model's API; repeatable.")
@click.option("--setup-network", type=click.Choice(["agent", "public"]), default="agent",
              show_default=True,
              help="The Harbor environment's network while it is set up and between phases: "
                   "the agent's, or public (installed agents download themselves, but a process "
                   "the agent leaves could then fetch the original code before scoring).")
@click.option("--network", type=click.Choice(["closed", "public"]), default="closed",
              show_default=True,
              help="public: every phase of the Harbor tasks has an open network, for Harbor "
                   "environments that cannot enforce a network policy (Harbor's docker "
                   "environment needs images from Docker Hub for it); the agent could then "
                   "download the original code.")
@click.option("--no-progress", is_flag=True, help="No progress bars.")
def build_command(specs: tuple[Path, ...], out_dir: Path, seed: int, jobs: int, per_cell: int,
                  runner: str | None, smells: tuple[str, ...], difficulties: tuple[str, ...],
                  cache_dir: Path | None, min_file_lines: int | None,
                  injector_options: tuple[str, ...], exclude_from_injection: tuple[str, ...],
                  inject_anywhere: bool, no_harbor: bool, base_image: str | None,
                  base_python: str | None, allow_hosts: tuple[str, ...], setup_network: str,
                  network: str, no_progress: bool) -> None:
    """Build a refactoring benchmark from repo SPECS (resumable: run again to continue)."""
    from smellkit.bench import build
    from smellkit.bench.harbor import HarborOptions

    try:
        options = HarborOptions(base_image=base_image, base_python=base_python,
                                allow_hosts=allow_hosts,
                                setup_network="public" if setup_network == "public" else "agent",
                                network="public" if network == "public" else "closed")
        by_smell = parse_injector_options(injector_options)
        exclude = _exclusion(exclude_from_injection, inject_anywhere)
        with build_progress(enabled=not no_progress) as progress:
            report = build(list(specs), out_dir, seed=seed, jobs=jobs, per_cell=per_cell,
                           runner=runner, smells=smells or None,  # type: ignore[arg-type]
                           difficulties=difficulties or None, cache_dir=cache_dir,
                           options=by_smell, min_file_lines=min_file_lines,
                           exclude_from_injection=exclude, harbor=not no_harbor,
                           harbor_options=options, progress=progress)
    except SmellkitError as error:
        _fail(error)
        return
    stderr_console().print(build_summary_table(report))
    sys.exit(0 if report.cases else 1)


@main.command("evaluate")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.argument("predictions", nargs=-1, type=click.Path(path_type=Path))
@click.option("--out", "-o", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Output folder: scores.jsonl, input_errors.jsonl, run.json.")
@click.option("--baseline", "baselines", multiple=True, type=click.Choice(["oracle", "noop"]),
              help="Score a baseline too: the ground truth (oracle) or no change (noop).")
@click.option("--repos", type=click.Path(path_type=Path), default=None,
              help="A folder of final repositories, one per instance id, as predictions.")
@click.option("--harbor-jobs", type=click.Path(path_type=Path), default=None,
              help="A Harbor jobs folder: each trial's verifier/prediction.patch.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=2, show_default=True,
              help="Predictions scored at once.")
@click.option("--runner", type=click.Choice(["local", "docker"]), default=None,
              help="Where tests run (default: the spec's runner, else local).")
@click.option("--full-suite", is_flag=True,
              help="Also run every test that passes on the original code.")
@click.option("--spec", "specs", multiple=True, type=click.Path(path_type=Path),
              metavar="FILE", help="A repo spec, instead of the one the build recorded.")
@click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
              help="Checkouts and environments (default: the build's cache).")
@click.option("--no-tests", is_flag=True,
              help="Run no tests: static signals only (for measuring their speed).")
@click.option("--no-progress", is_flag=True, help="No progress bars.")
@click.option("--equivalence", is_flag=True,
              help="Also test each result against the smelly code by differential testing "
                   "(recorded inputs of the functions the patch could change).")
@click.option("--equivalence-budget", type=click.FloatRange(min=1), default=None,
              help="Seconds of differential testing per prediction (default 240).")
def evaluate_command(dataset: Path, predictions: tuple[Path, ...], out_dir: Path,
                     baselines: tuple[str, ...], repos: Path | None, harbor_jobs: Path | None,
                     jobs: int, runner: str | None, full_suite: bool, specs: tuple[Path, ...],
                     cache_dir: Path | None, no_tests: bool, no_progress: bool,
                     equivalence: bool, equivalence_budget: float | None) -> None:
    """Score PREDICTIONS (SWE-bench JSONL/JSON, mini-swe-agent preds.json) on DATASET (a
    build's output folder or dataset file); resumable: run again to score what is missing."""
    from smellkit.evaluate.scorer import evaluate

    try:
        options = _equivalence_options(equivalence, equivalence_budget)
        with build_progress(enabled=not no_progress) as progress:
            report = evaluate(dataset, list(predictions), out_dir, baselines=baselines,
                              repos=repos, harbor_jobs=harbor_jobs, jobs=jobs,
                              runner=runner,  # type: ignore[arg-type]
                              full_suite=full_suite, tests=not no_tests, specs=specs,
                              cache_dir=cache_dir, progress=progress, equivalence=options)
    except SmellkitError as error:
        _fail(error)
        return
    from smellkit.report.scores import print_evaluation

    console = stderr_console()
    print_evaluation(report, console)
    if (out_dir / "scores.jsonl").is_file():
        _write_score_reports(out_dir, console)
    sys.exit(report.exit_code)


def _equivalence_options(enabled: bool, budget: float | None) -> Any:
    """The equivalence options `--equivalence` and `--equivalence-budget` ask for (None: off)."""
    if not enabled:
        if budget is not None:
            raise UsageError("--equivalence-budget needs --equivalence")
        return None
    from smellkit.evaluate.equivalence import EquivalenceOptions

    return EquivalenceOptions() if budget is None else EquivalenceOptions(case_budget=budget)


def _write_score_reports(out_dir: Path, console: Any) -> None:
    """summary.json/.csv/.md and report.html beside scores.jsonl; without the `report` extra,
    a note says how to get them (the scores themselves are complete either way)."""
    from smellkit.evaluate.reports import write_reports
    from smellkit.evaluate.reports.frame import ReportExtraMissing

    try:
        paths = write_reports(out_dir)
    except ReportExtraMissing as error:
        console.print(f"no summaries or report.html: {error}")
        return
    console.print(f"summaries and plots: {paths.summary_md}, {paths.report_html}")


def _assignments(values: tuple[str, ...], option: str) -> dict[str, str]:
    """NAME=VALUE pairs, or NAME alone for the value of NAME in this environment."""
    import os

    found: dict[str, str] = {}
    for item in values:
        name, sep, value = item.partition("=")
        if not name or not name.replace("_", "").isalnum():
            raise UsageError(f"{option} {item!r}: expected NAME or NAME=VALUE")
        if not sep:
            if name not in os.environ:
                raise UsageError(f"{option} {name}: {name} is not set here",
                                 hint=f"give its value: {option} {name}=VALUE")
            value = os.environ[name]
        found[name] = value
    return found


@main.command("run")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--agent", "-a", required=True, metavar="NAME",
              help="claude-code, codex, qwen-coder (qwen-code), openhands, aider, "
                   "mini-swe-agent or command.")
@click.option("--model", "-m", default="", help="The model the agent uses.")
@click.option("--setting", required=True, type=click.Choice(["open", "guided", "targeted"]),
              help="Which of the case's instructions the agent gets.")
@click.option("--out", "-o", "predictions", type=click.Path(path_type=Path), required=True,
              help="The predictions file (JSONL); logs go to PREDICTIONS.logs/ beside it.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Agents run at once.")
@click.option("--timeout", type=click.FloatRange(min=1), default=1800, show_default=True,
              help="Seconds each run may take; then its process group is killed.")
@click.option("--limit", type=click.IntRange(min=0), default=None,
              help="Only the first N cases (after --instance).")
@click.option("--instance", "instances", multiple=True, metavar="ID",
              help="Only this instance id; repeatable.")
@click.option("--runner", type=click.Choice(["local", "docker"]), default="local",
              show_default=True, help="Where the agent runs.")
@click.option("--image", default=None, help="The Docker image holding the agent's CLI.")
@click.option("--base-url", default=None, help="The model API's base URL.")
@click.option("--key-var", default=None, metavar="NAME[=FROM]",
              help="The variable the agent reads its key from (default: the adapter's), "
                   "and the variable here holding it.")
@click.option("--agent-arg", "agent_args", multiple=True, metavar="ARG",
              help="An extra argument for the agent's command line; repeatable.")
@click.option("--env", "env_vars", multiple=True, metavar="NAME[=VALUE]",
              help="Another variable for the agent (NAME alone: its value here); repeatable.")
@click.option("--command", "command", default=None,
              help="The command agent's shell command, with {instruction_file}, "
                   "{workspace}, {model} and {usage_file}.")
@click.option("--name", default=None,
              help="model_name_or_path of the predictions (default AGENT/MODEL/SETTING).")
@click.option("--prices", type=click.Path(path_type=Path), default=None,
              help="A price table (JSON or TOML), for agents that report no cost.")
@click.option("--spec", "specs", multiple=True, type=click.Path(path_type=Path),
              metavar="FILE", help="A repo spec, instead of the one the build recorded.")
@click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
              help="Checkouts (default: the build's cache).")
@click.option("--work-dir", type=click.Path(path_type=Path), default=None,
              help="Where workspaces are made (default: a temporary folder).")
@click.option("--keep-workspaces", is_flag=True, help="Leave the workspaces for inspection.")
@click.option("--no-progress", is_flag=True, help="No progress bars.")
def run_command(dataset: Path, agent: str, model: str, setting: str, predictions: Path,
                jobs: int, timeout: float, limit: int | None, instances: tuple[str, ...],
                runner: str, image: str | None, base_url: str | None, key_var: str | None,
                agent_args: tuple[str, ...], env_vars: tuple[str, ...], command: str | None,
                name: str | None, prices: Path | None, specs: tuple[Path, ...],
                cache_dir: Path | None, work_dir: Path | None, keep_workspaces: bool,
                no_progress: bool) -> None:
    """Run a coding agent on every case of DATASET; one prediction per case, resumable."""
    from smellkit.agents import AgentConfig, run_agents
    from smellkit.report.runs import run_summary_table

    try:
        key, _, key_from = (key_var or "").partition("=")
        config = AgentConfig(model=model, base_url=base_url, key_var=key or None,
                             key_from=key_from or None, flags=agent_args,
                             env=_assignments(env_vars, "--env"), command=command)
        with build_progress(enabled=not no_progress) as progress:
            report = run_agents(dataset, predictions, agent=agent, config=config,
                                setting=setting, name=name, jobs=jobs, timeout=timeout,
                                limit=limit, instances=instances, runner=runner, image=image,
                                specs=specs, cache_dir=cache_dir, work_dir=work_dir,
                                keep_workspaces=keep_workspaces, prices=prices,
                                progress=progress)
    except SmellkitError as error:
        _fail(error)
        return
    stderr_console().print(run_summary_table(report))


@main.command("judge")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.argument("predictions", nargs=-1, type=click.Path(path_type=Path))
@click.option("--out", "-o", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Output folder: verdicts.jsonl, judge_summary.json/.md, judge_run.json, "
                   "and the scores and their reports with the judge's columns.")
@click.option("--model", "judge_models", multiple=True, metavar="MODEL",
              help="A judge model; repeatable (each judges every prediction). Default: "
                   "$SMELLKIT_JUDGE_MODEL.")
@click.option("--base-url", default=None, metavar="URL",
              help="An OpenAI-compatible server (default: $SMELLKIT_JUDGE_BASE_URL, else "
                   "$OPENAI_BASE_URL, else OpenAI's).")
@click.option("--api-key-env", default=None, metavar="NAME",
              help="The environment variable holding the key (default: "
                   "SMELLKIT_JUDGE_API_KEY, else OPENAI_API_KEY).")
@click.option("--samples", type=click.IntRange(min=1), default=3, show_default=True,
              help="Samples per verdict (the median of each score is kept).")
@click.option("--baseline", "baselines", multiple=True, type=click.Choice(["oracle", "noop"]),
              help="Judge a baseline too: the ground truth (oracle) or no change (noop).")
@click.option("--scores", "scores_dir", type=click.Path(path_type=Path), default=None,
              help="Read Score rows from this `smellkit evaluate` folder instead of scoring.")
@click.option("--analysis", type=click.Choice(["case", "model"]), default="case",
              show_default=True, help="The smell analysis: from the case record, or written "
                                      "by a model (SmellBench's pre-step).")
@click.option("--analysis-model", default=None, metavar="MODEL",
              help="The model that writes the analysis (default: the first --model).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              help="Requests in flight at once.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=120.0, show_default=True,
              help="Seconds before a request is cut off and retried.")
@click.option("--retries", type=click.IntRange(min=0), default=4, show_default=True,
              help="Retries after 429, 5xx, a lost connection or a time-out.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Sample i is asked with seed SEED + i (and temperature 0).")
@click.option("--max-tokens", type=click.IntRange(min=64), default=2048, show_default=True)
@click.option("--structured", type=click.Choice(["auto", "json_schema", "json_object",
                                                  "prompt"]), default="auto", show_default=True,
              help="How to ask for JSON (auto: a JSON schema, falling back when refused).")
@click.option("--price", "prices", multiple=True, metavar="MODEL=IN,OUT",
              help="USD per million prompt and completion tokens of MODEL; repeatable.")
@click.option("--judge-cache", type=click.Path(path_type=Path), default=None,
              help="The replies' cache (default: $SMELLKIT_CACHE_DIR/judge, else "
                   "~/.cache/smellkit/judge).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the replies' cache.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=2, show_default=True,
              help="Predictions scored at once (when this run scores).")
@click.option("--runner", type=click.Choice(["local", "docker"]), default=None,
              help="Where the scoring's tests run (default: the spec's runner, else local).")
@click.option("--no-progress", is_flag=True, help="No progress bars.")
def judge_command(dataset: Path, predictions: tuple[Path, ...], out_dir: Path,
                  judge_models: tuple[str, ...], base_url: str | None, api_key_env: str | None,
                  samples: int, baselines: tuple[str, ...], scores_dir: Path | None,
                  analysis: str, analysis_model: str | None, concurrency: int, timeout: float,
                  retries: int, seed: int, max_tokens: int, structured: str,
                  prices: tuple[str, ...], judge_cache: Path | None, no_cache: bool, jobs: int,
                  runner: str | None, no_progress: bool) -> None:
    """Judge PREDICTIONS of DATASET with an LLM and cross-check every verdict against the
    scores (resumable: run again to judge what is missing)."""
    import os

    from smellkit.judge.cache import ReplyCache
    from smellkit.judge.client import MODEL_ENV, ClientOptions, parse_price
    from smellkit.judge.run import judge

    try:
        models = judge_models or tuple(filter(None, [os.environ.get(MODEL_ENV)]))
        key = None
        if api_key_env is not None:
            key = os.environ.get(api_key_env)
            if not key:
                raise UsageError(f"${api_key_env} is not set", hint="export it, or leave out "
                                 "--api-key-env for SMELLKIT_JUDGE_API_KEY / OPENAI_API_KEY")
        options = ClientOptions(
            base_url=base_url, api_key=key, timeout=timeout, retries=retries,
            concurrency=concurrency, seed=seed, max_tokens=max_tokens,
            structured=structured,  # type: ignore[arg-type]
            prices=dict(parse_price(text) for text in prices),
            cache=ReplyCache(judge_cache, enabled=not no_cache))
        with build_progress(enabled=not no_progress) as progress:
            report = judge(dataset, list(predictions), out_dir, judge_models=models,
                           baselines=baselines, scores=scores_dir, samples=samples,
                           client=options, analysis=analysis,  # type: ignore[arg-type]
                           analysis_model=analysis_model,
                           evaluate_options={"jobs": jobs, "runner": runner},
                           progress=progress)
    except SmellkitError as error:
        _fail(error)
        return
    from smellkit.report.judge import print_judging

    console = stderr_console()
    print_judging(report, console)
    _write_score_reports(out_dir, console)
    sys.exit(report.exit_code)


@main.command("crosscheck")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.argument("scores_dir", type=click.Path(path_type=Path))
@click.argument("verdicts", type=click.Path(path_type=Path))
@click.option("--out", "-o", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Output folder: verdicts.jsonl (cross-checked), crosscheck_errors.jsonl, "
                   "judge_summary.json/.md, and the score reports with the judge's columns.")
@click.option("--model", default=None, metavar="NAME",
              help="The predictions' model the verdicts judged, when the file does not say.")
@click.option("--judge-model", default=None, metavar="NAME",
              help="The judge's name, when the file does not say.")
@click.option("--predictions", "predictions", multiple=True, type=click.Path(path_type=Path),
              help="The judged predictions: the cross-check then also knows which involved "
                   "files each patch left untouched; repeatable.")
def crosscheck_command(dataset: Path, scores_dir: Path, verdicts: Path, out_dir: Path,
                       model: str | None, judge_model: str | None,
                       predictions: tuple[Path, ...]) -> None:
    """Cross-check VERDICTS of any judge (SmellBench's judge_rubric.py output, JSONL or CSV)
    against SCORES_DIR (a `smellkit evaluate` folder) of the predictions of DATASET."""
    from smellkit.judge.external import crosscheck_verdicts

    try:
        report = crosscheck_verdicts(dataset, scores_dir, verdicts, out_dir, model=model,
                                     judge_model=judge_model, predictions=predictions)
    except SmellkitError as error:
        _fail(error)
        return
    from smellkit.report.judge import print_crosscheck

    console = stderr_console()
    print_crosscheck(report, console)
    _write_score_reports(out_dir, console)
    sys.exit(report.exit_code)
