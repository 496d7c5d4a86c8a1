"""Shared pytest helpers.

- `pypi_sdist(name, version) -> Path`: a PyPI source distribution, downloaded once, cached under
  `~/.cache/smellkit-test-data` (see `tests/support/pypi.py`); the test is skipped when offline.
- `terminal_report(title, lines)`: text a test wants printed at the end of the session, under a
  heading of its own (e.g. the call-graph corpus table).
- `isolated_cache` (autouse, per session): smellkit's cache is a temporary folder, so no test
  reads or writes the user's `~/.cache/smellkit`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

_REPORTS = pytest.StashKey[dict[str, list[str]]]()
CACHE_VARIABLES = ("SMELLKIT_CACHE_DIR", "XDG_CACHE_HOME")
"""What `smellkit.project.options.default_cache_dir` reads, in order (then HOME, which stays: the
test data under `~/.cache/smellkit-test-data` is found through it)."""


@pytest.fixture(scope="session", autouse=True)
def isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """smellkit's default cache folder for the whole session (one per xdist worker), set in the
    environment so that child processes (the CLI, a build run as a process) use it too."""
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SMELLKIT_CACHE_DIR", str(folder / "smellkit"))
        patch.setenv("XDG_CACHE_HOME", str(folder / "xdg"))
        yield folder / "smellkit"


@pytest.fixture(scope="session")
def pypi_sdist() -> Callable[[str, str], Path]:
    """`pypi_sdist("click", "8.1.7")` is the unpacked sdist's top folder."""
    from tests.support.pypi import sdist

    def fetch(name: str, version: str) -> Path:
        try:
            return sdist(name, version)
        except Exception as error:  # no network, PyPI down, pip missing: not a failure here
            pytest.skip(f"cannot get {name}=={version} from PyPI: {error}")

    return fetch


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_REPORTS] = {}


@pytest.fixture(scope="session")
def terminal_report(pytestconfig: pytest.Config) -> Callable[[str, list[str]], None]:
    """Print `lines` under `title` in the terminal summary (replacing an earlier report)."""

    def report(title: str, lines: list[str]) -> None:
        pytestconfig.stash[_REPORTS][title] = lines

    return report


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    for title, lines in config.stash.get(_REPORTS, {}).items():
        terminalreporter.section(title)
        for line in lines:
            terminalreporter.write_line(line)
