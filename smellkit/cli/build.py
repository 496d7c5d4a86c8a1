"""The Build commands: `candidates`, `inject`, `build`, and the injector options they share."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from smellkit.cli.group import (
    INTERNAL_ERROR,
    fail,
    main,
    project_options,
    write_output,
)
from smellkit.errors import SmellkitError, UsageError
from smellkit.report.progress import (
    build_progress,
    build_summary_table,
    stderr_console,
    wide_console,
)

if TYPE_CHECKING:
    from smellkit.project.options import LoadOptions


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
    from smellkit.bench.backend import load_for_build
    from smellkit.injectors.engine import discover

    try:
        options = _smell_options(smell, min_file_lines, injector_options)
        exclude = _exclusion(exclude_from_injection, inject_anywhere)
        project = load_for_build(load)
        found, report = discover(project, smell, options=options, seed=seed, limit=limit,
                                 exclude=exclude)
    except SmellkitError as error:
        fail(error)
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
    from smellkit.bench.backend import load_for_build
    from smellkit.injectors import engine
    from smellkit.models import InjectionFailure, InjectionSkip

    try:
        options = _smell_options(smell, min_file_lines, injector_options)
        exclude = _exclusion(exclude_from_injection, inject_anywhere)
        if apply_to is not None and apply_to.exists() and any(apply_to.iterdir()):
            raise UsageError(f"{apply_to} is not empty", hint="--apply needs a new or empty folder")
        project = load_for_build(load)
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
        write_output(outcome.model_dump_json(indent=2), output)
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
        fail(error)


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
        fail(error)
        return
    stderr_console().print(build_summary_table(report))
    sys.exit(0 if report.cases else 1)


