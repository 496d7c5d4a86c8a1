"""Shared pieces of the bench tests: where built environments are cached between sessions."""

from __future__ import annotations

from pathlib import Path

collect_ignore_glob = ["fixtures/*"]  # the fixture repositories' own tests are data here


def bench_cache() -> Path:
    """Fetched sources, environments and test maps, shared by sessions and xdist workers."""
    from tests.support.pypi import data_dir

    folder = data_dir() / "bench"
    folder.mkdir(exist_ok=True)
    return folder
