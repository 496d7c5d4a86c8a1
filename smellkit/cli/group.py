"""The `smellkit` command group and what every command shares: loading PATH, errors, output."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from smellkit._version import __version__
from smellkit.errors import SmellkitError

if TYPE_CHECKING:
    from smellkit.project import Project
    from smellkit.project.options import LoadOptions

INTERNAL_ERROR = 70
"""Exit code when smellkit itself crashed (a bug to report): sysexits' EX_SOFTWARE."""


def fail(error: SmellkitError) -> None:
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


def write_output(text: str, output: Path | None) -> None:
    """A report to its file, or to standard output when no file is named."""
    if output:
        output.write_text(text + "\n", encoding="utf-8")
    else:
        click.echo(text)


def load_project(load: LoadOptions) -> Project:
    """The project PATH and the loading options name (a `SmellkitError` when it cannot be)."""
    from smellkit.project import Project

    return Project.load(load)
