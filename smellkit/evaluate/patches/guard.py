"""What a prediction's patch may not do, and the checks that it stayed inside its copy.

Refused (never applied): a path that is absolute, has a `..` component or goes into `.git`; a
path through a symbolic link of the tree or one the patch makes; a symlink of the tree edited
as a regular file; a symlink made by the patch that points outside the repository; a binary
patch; a submodule. A symlink of the tree that points outside but is left alone is no reason.

Tampered (the tests would no longer judge the code): any change to the protected paths (the
hidden tests, the tests folder), to `conftest.py`, `pytest.ini`, `.pytest.ini`, `pytest.toml`,
`.pytest.toml`, `sitecustomize.py`, `usercustomize.py` or a `*.pth` file anywhere. In
`pyproject.toml`, `setup.cfg` and `tox.ini` only the pytest configuration counts
(`[tool.pytest]` and everything under it, such as `[tool.pytest.ini_options]`; the INI sections
`[pytest]` and `[tool:pytest]`): those files also hold build and lint settings that a
refactoring may rightly change. The sections are compared as parsed values, so comments and
formatting are free; a file that no longer parses counts as tampered, since its pytest
section can no longer be checked. Not covered: plugins registered through entry points (they
take effect only after a reinstall, which scoring does not do).
"""

from __future__ import annotations

import configparser
import os
import posixpath
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from smellkit.evaluate.patches.parse import SUBMODULE_MODE, SYMLINK_MODE, FileChange
from smellkit.evaluate.patches.treediff import walk_entries

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TEST_MACHINERY = frozenset({
    "conftest.py", "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml",
    "sitecustomize.py", "usercustomize.py",
})
"""File names that change how tests are collected or run, wherever they are."""

PYTEST_SECTIONED = frozenset({"pyproject.toml", "setup.cfg", "tox.ini"})
"""Files where only the pytest configuration is protected."""

_INI_SECTIONS = ("pytest", "tool:pytest")


def protected_paths(paths: Iterable[str]) -> tuple[str, ...]:
    """Repository paths from test folders, files or pytest node ids (`tests/t.py::test_x`)."""
    found: dict[str, None] = {}
    for item in paths:
        path = posixpath.normpath(item.split("::", 1)[0].strip().replace("\\", "/")).strip("/")
        if path and path != ".":
            found[path] = None
    return tuple(found)


def path_problem(path: str) -> str | None:
    """Why a path named by a patch could reach outside the repository (or into `.git`)."""
    parts = path.split("/")
    if not path or "\0" in path:
        return f"bad path {path!r}"
    if path.startswith("/"):
        return f"absolute path {path!r}"
    if ".." in parts:
        return f"path {path!r} climbs out with '..'"
    if ".git" in parts:
        return f"path {path!r} writes into .git"
    return None


def link_escapes(link: str, target: str) -> bool:
    """Whether a symlink at repository path `link` with text `target` points outside."""
    if not target or target.startswith("/"):
        return True
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(link), target))
    return resolved == ".." or resolved.startswith("../")


def change_problems(change: FileChange, tree: Path) -> list[str]:
    """Reasons to refuse one file change before anything is copied or applied."""
    problems = [problem for path in change.paths if (problem := path_problem(path))]
    if problems:
        return problems
    shown = " -> ".join(change.paths)
    if change.binary:
        problems.append(f"{shown}: binary patch (only text changes are scored)")
    if SUBMODULE_MODE in (change.old_mode, change.new_mode):
        problems.append(f"{shown}: submodule change")
    if change.new_mode == SYMLINK_MODE and change.new_path is not None and (
            change.symlink_target is None
            or link_escapes(change.new_path, change.symlink_target)):
        problems.append(f"{change.new_path}: symbolic link to {change.symlink_target!r}, "
                        "outside the repository")
    for path in change.paths:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            if (tree / "/".join(parts[:depth])).is_symlink():
                problems.append(f"{path}: goes through the symbolic link "
                                f"{'/'.join(parts[:depth])}")
                break
    if (change.old_path is not None and change.old_mode != SYMLINK_MODE
            and (tree / change.old_path).is_symlink()):
        problems.append(f"{change.old_path}: a symbolic link in the tree, edited as a file")
    return problems


def patch_problems(changes: Iterable[FileChange], tree: Path) -> list[str]:
    """Reasons to refuse a whole patch: each change's, and a path that goes through a symlink
    the same patch makes (git refuses it, `patch` might follow it)."""
    changes = list(changes)
    problems = [problem for change in changes for problem in change_problems(change, tree)]
    links = {change.new_path for change in changes if change.new_mode == SYMLINK_MODE}
    for path in dict.fromkeys(p for change in changes for p in change.paths):
        parts = path.split("/")
        through = next(("/".join(parts[:depth]) for depth in range(1, len(parts))
                        if "/".join(parts[:depth]) in links), None)
        if through is not None:
            problems.append(f"{path}: goes through the symbolic link {through} the patch makes")
    return problems


def tamper_problem(path: str, protected: Iterable[str]) -> str | None:
    """Why changing `path` would change the tests or how they run (pytest sections aside)."""
    name = path.rsplit("/", 1)[-1]
    for item in protected:
        if path == item or path.startswith(item + "/"):
            return f"{path}: protected test path ({item})"
    if name in TEST_MACHINERY or name.endswith(".pth"):
        return f"{path}: test machinery ({name})"
    return None


def _pytest_config(path: Path) -> object:
    """The parsed pytest configuration of a sectioned file; None when it has none."""
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    if path.name == "pyproject.toml":
        tool = tomllib.loads(text).get("tool")
        return tool.get("pytest") if isinstance(tool, dict) else None
    parser = configparser.RawConfigParser(strict=False)
    parser.read_string(text)
    sections = {name: dict(parser.items(name)) for name in _INI_SECTIONS
                if parser.has_section(name)}
    return sections or None


def config_problem(path: str, before: Path, after: Path) -> str | None:
    """Whether the pytest configuration in sectioned file `path` differs between two roots."""
    if path.rsplit("/", 1)[-1] not in PYTEST_SECTIONED:
        return None
    try:
        old = _pytest_config(before / path)
    except (OSError, UnicodeDecodeError, ValueError, configparser.Error):
        old = "<unreadable>"
    try:
        new = _pytest_config(after / path)
    except (OSError, UnicodeDecodeError, ValueError, configparser.Error):
        return f"{path}: no longer parses, so its pytest configuration cannot be checked"
    if old != new:
        return f"{path}: changes the pytest configuration"
    return None


# ---------------------------------------------------------------------------------------------
# Containment: what changed, and whether anything points or reaches outside.

class Entry(NamedTuple):
    link: str | None
    mode: int
    size: int
    mtime_ns: int


def snapshot(root: Path, *, every_name: bool = False) -> dict[str, Entry]:
    """Each file and symlink under `root` with what tells a change (content is read only when
    these differ). `every_name` keeps caches and `.git` too, for a copy that had none."""
    entries: dict[str, Entry] = {}
    paths = _every_entry(root) if every_name else walk_entries(root)
    for relative, path in paths:
        info = path.lstat()
        link = os.readlink(path) if stat.S_ISLNK(info.st_mode) else None
        entries[relative] = Entry(link, info.st_mode, info.st_size, info.st_mtime_ns)
    return entries


def _every_entry(root: Path) -> Iterable[tuple[str, Path]]:
    for folder, dirs, files in os.walk(root):
        for name in sorted([*dirs, *files]):
            path = Path(folder) / name
            if path.is_symlink() or (name in files and path.is_file()):
                yield path.relative_to(root).as_posix(), path


def changed_paths(before: Path, old: dict[str, Entry], after: Path,
                  new: dict[str, Entry]) -> set[str]:
    """Paths whose presence, kind, mode, link text or bytes differ between two snapshots."""
    changed = set(old).symmetric_difference(new)
    for path in set(old) & set(new):
        first, second = old[path], new[path]
        differs = (first.link, first.mode, first.size) != (second.link, second.mode, second.size)
        if differs or (first.link is None and first.mtime_ns != second.mtime_ns
                       and (before / path).read_bytes() != (after / path).read_bytes()):
            changed.add(path)
    return changed


def escaping_links(root: Path, entries: dict[str, Entry]) -> list[str]:
    """Symlinks under `root` that resolve to somewhere outside it."""
    real_root = os.path.realpath(root)
    found = []
    for path, entry in entries.items():
        if entry.link is None:
            continue
        real = os.path.realpath(root / path)
        if os.path.commonpath([real_root, real]) != real_root:
            found.append(path)
    return found
