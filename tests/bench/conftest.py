"""Shared pieces of the bench tests: where built environments are cached between sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

collect_ignore_glob = ["fixtures/*"]  # the fixture repositories' own tests are data here


def bench_cache() -> Path:
    """Fetched sources, environments and test maps, shared by sessions and xdist workers."""
    from tests.support.pypi import data_dir

    folder = data_dir() / "bench"
    folder.mkdir(exist_ok=True)
    return folder


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "docker: needs a working Docker daemon; skipped with the reason when there "
        "is none")
