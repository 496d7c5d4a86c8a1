"""The house style of the repository an injection lands in, and new code brought into it.

Every smell's edit passes through `restyle.restyle` (the engine calls it on each changed file before
making the patches): the imports it added go where the repository's isort puts them, written
relative or absolute as the module writes its own, and the lines it added that outgrow the
repository's line length are wrapped as its formatter wraps them. A reviewer should not be able
to tell injected lines by their layout.

The line length comes from the repository's own configuration (ruff, black, isort, flake8), else
from the longest lines its code writes; isort's options from ruff's or isort's configuration.
"""

from __future__ import annotations

import configparser
import contextlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smellkit._internal import pyast
from smellkit.injectors.cst import windows

if TYPE_CHECKING:
    from smellkit.project import Project

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEFAULT_LINE_LENGTH = 88
"""black's and ruff's, for a repository that says nothing and writes nothing."""
SHORTEST_MEASURED, LONGEST_MEASURED = 79, 120
"""Bounds of a line length read off the code: PEP 8's at least (short lines in a small repository
are no rule), and no wider than a long line that slipped through (a URL, a table)."""

_CONFIG_FILES = ("pyproject.toml", "ruff.toml", ".ruff.toml", "setup.cfg", "tox.ini", ".flake8",
                 ".isort.cfg")


@dataclass(frozen=True)
class HouseStyle:
    """What a repository's formatter and import sorter make of its code."""

    line_length: int = DEFAULT_LINE_LENGTH
    force_single_line: bool | None = None
    """isort's `force-single-line`; None: as each module writes its own `from` imports."""
    order_by_type: bool = True
    """isort's `order-by-type`: CONSTANTS, Classes, then functions in a `from` import."""
    relative: bool | None = None
    """Whether the repository writes its own modules' `from` imports relative, for a module
    that imports none of them yet; None when it writes neither."""
    first_party: frozenset[str] = frozenset()
    """Top-level packages of the repository (isort's first-party section)."""
    local_gap: bool | None = None
    """Whether the repository sets its function-local import blocks apart from the code after
    them by a blank line (isort leaves that to the author), for a module that has none."""


def config_folder(root: Path) -> Path:
    """Where the repository keeps its tool configuration: `root`, or its parent when `root` is
    the `src` (or `lib`) folder of a checkout."""
    if not any((root / name).is_file() for name in _CONFIG_FILES) and \
            root.name in ("src", "lib") and \
            any((root.parent / name).is_file() for name in _CONFIG_FILES):
        return root.parent
    return root


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError):
        return {}  # a broken file configures nothing: the code's own measure decides


def _ini(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    with contextlib.suppress(configparser.Error, UnicodeDecodeError):
        parser.read(path, encoding="utf-8")
    return parser


def _ruff(folder: Path) -> dict[str, Any] | None:
    """ruff's settings: `ruff.toml`, `.ruff.toml`, or pyproject's `[tool.ruff]`."""
    for name in ("ruff.toml", ".ruff.toml"):
        if (folder / name).is_file():
            return _toml(folder / name)
    tool = _toml(folder / "pyproject.toml").get("tool", {})
    found = tool.get("ruff") if isinstance(tool, dict) else None
    return found if isinstance(found, dict) else None


def configured_line_length(folder: Path) -> int | None:
    """The line length the repository's tools enforce, None when none says: ruff's or black's
    (88 when they are configured without one), then isort's, then flake8's (plus the 10% that
    bugbear's B950 allows when it replaces E501)."""
    ruff = _ruff(folder)
    tool = _toml(folder / "pyproject.toml").get("tool", {})
    black = tool.get("black") if isinstance(tool, dict) else None
    for settings in (ruff, black):
        if isinstance(settings, dict):
            value = settings.get("line-length", settings.get("line_length"))
            return value if isinstance(value, int) and value > 0 else DEFAULT_LINE_LENGTH
    isort = tool.get("isort") if isinstance(tool, dict) else None
    if isinstance(isort, dict) and isinstance(isort.get("line_length"), int):
        return int(isort["line_length"])
    for name in ("setup.cfg", "tox.ini", ".isort.cfg"):
        parser = _ini(folder / name)
        for section in ("isort", "tool:isort", "settings"):
            if parser.has_option(section, "line_length"):
                value = parser.get(section, "line_length").strip()
                if value.isdigit():
                    return int(value)
    for name in (".flake8", "setup.cfg", "tox.ini"):
        parser = _ini(folder / name)
        if not parser.has_section("flake8"):
            continue
        value = next((parser.get("flake8", key).strip() for key in
                      ("max-line-length", "max_line_length")
                      if parser.has_option("flake8", key)), "")
        if not value.isdigit():
            continue
        selected = " ".join(parser.get("flake8", key) for key in ("select", "extend-select")
                            if parser.has_option("flake8", key))
        ignored = parser.get("flake8", "ignore") if parser.has_option("flake8", "ignore") else ""
        if ("B9" in selected or "B950" in selected) and "E501" in ignored:
            return int(value) + int(value) // 10
        return int(value)
    return None


def measured_line_length(texts: Iterable[str]) -> int:
    """The longest line the code writes (URLs and `noqa` lines aside), within
    [SHORTEST_MEASURED, LONGEST_MEASURED]; the default when there is no code."""
    longest = 0
    for text in texts:
        for line in text.splitlines():
            if len(line) > longest and "://" not in line and "noqa" not in line:
                longest = len(line.rstrip())
    if not longest:
        return DEFAULT_LINE_LENGTH
    return max(SHORTEST_MEASURED, min(LONGEST_MEASURED, longest))


def line_limit(source: str) -> int:
    """The longest line one module's code allows itself (79 at least, comments aside): lines an
    injector adds to it stay within."""
    return max([79, *(len(line) for line in source.splitlines()
                      if not line.lstrip().startswith("#"))])


def _isort_options(folder: Path) -> tuple[bool | None, bool]:
    """(force-single-line or None when unset, order-by-type) from ruff's or isort's settings."""
    ruff = _ruff(folder) or {}
    lint = ruff.get("lint", {}) if isinstance(ruff.get("lint"), dict) else {}
    for table in (lint.get("isort"), ruff.get("isort")):
        if isinstance(table, dict):
            single = table.get("force-single-line")
            return (single if isinstance(single, bool) else None,
                    table.get("order-by-type", True) is not False)
    tool = _toml(folder / "pyproject.toml").get("tool", {})
    isort = tool.get("isort") if isinstance(tool, dict) else None
    if isinstance(isort, dict):
        single = isort.get("force_single_line")
        return (single if isinstance(single, bool) else None,
                isort.get("order_by_type", True) is not False)
    for name in ("setup.cfg", "tox.ini", ".isort.cfg"):
        parser = _ini(folder / name)
        for section in ("isort", "tool:isort", "settings"):
            if parser.has_section(section):
                single = parser.get(section, "force_single_line", fallback="").strip().lower()
                by_type = parser.get(section, "order_by_type", fallback="true").strip().lower()
                return ({"true": True, "false": False}.get(single), by_type != "false")
    return None, True


def house_style(root: Path, texts: Iterable[str], relative_counts: tuple[int, int],
                first_party: Iterable[str]) -> HouseStyle:
    """The style of the repository at `root` (its library folder), whose code is `texts` and
    whose own-module `from` imports are (relative, absolute) in number."""
    folder = config_folder(root)
    length = configured_line_length(folder)
    if length is None:
        length = measured_line_length(texts)
    single, by_type = _isort_options(folder)
    relative_count, absolute_count = relative_counts
    relative = None if relative_count == absolute_count == 0 else \
        relative_count > absolute_count
    return HouseStyle(line_length=length, force_single_line=single, order_by_type=by_type,
                      relative=relative, first_party=frozenset(first_party))


def of_project(project: Project) -> HouseStyle:
    """The house style of a loaded project (its code read only when no tool sets a line
    length)."""
    first_party = {facts.module.partition(".")[0] for facts in project.files}
    relative = absolute = 0
    for facts in project.files:
        for item in facts.imports:
            if item.is_from and (item.level or item.target.partition(".")[0] in first_party):
                if item.level:
                    relative += 1
                else:
                    absolute += 1
    texts = [(project.root / facts.path).read_text(encoding="utf-8", errors="replace")
             for facts in project.files]
    style = house_style(project.root, texts, (relative, absolute), first_party)
    return replace(style, local_gap=local_gap(texts))


def local_gap(texts: Iterable[str]) -> bool | None:
    """Whether most function-local import blocks of the code are followed by a blank line."""
    gaps: list[bool] = []
    for text in texts:
        if "import " not in text:
            continue
        try:
            tree = pyast.parse(text)
        except (SyntaxError, ValueError):
            continue
        gaps.extend(windows.local_gaps(text.splitlines(keepends=True),
                                       windows.import_runs(tree)))
    return sum(gaps) * 2 > len(gaps) if gaps else None
