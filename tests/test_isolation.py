"""No test touches the user's cache: the default cache resolves into the session's temporary
folder (see `isolated_cache` in conftest.py), whatever a test does with SMELLKIT_CACHE_DIR."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import smellkit
from smellkit.project.options import LoadOptions, default_cache_dir


def _packs(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.pack")) if folder.is_dir() else []


def test_the_default_cache_is_the_sessions_temporary_folder(isolated_cache: Path,
                                                            tmp_path: Path) -> None:
    home_cache = Path(os.path.expanduser("~")) / ".cache" / "smellkit"
    assert default_cache_dir() == isolated_cache == LoadOptions().cache_directory
    assert home_cache not in isolated_cache.parents and isolated_cache != home_cache
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "core.py").write_text("def f():\n    return 1\n")
    before = _packs(isolated_cache)
    smellkit.scan(tmp_path / "pkg", jobs=1)  # the default cache: written, but here
    # A new pack, not more packs: past a number of packs the cache merges them into one.
    assert set(_packs(isolated_cache)) - set(before)


def test_without_smellkit_cache_dir_the_fallback_is_temporary_too(
        isolated_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SMELLKIT_CACHE_DIR")
    assert default_cache_dir() == isolated_cache.parent / "xdg" / "smellkit"
