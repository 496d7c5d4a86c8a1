"""What a patch changed, line by line and by qualified name, on both sides of it.

The changed lines are read from the two trees, not from the patch's hunks: a patch applied with
`--recount` or `patch --fuzz` lands at other lines than its hunks say, and the trees are what
every other signal measures. For each file the patch names, the old and the new text are diffed
(difflib, lines split as the parser splits them); a created, deleted or renamed file changes all
of its lines, and a renamed or deleted module moves or drops every definition in it. Blank
lines are left out everywhere (a diff may put them on either side of a boundary).

A line belongs to the innermost definition (class, function, method, nested function; lambdas
belong to the function around them) whose span holds it, the span starting at its first
decorator; a line outside every definition belongs to the module. So the patch's changed (or
deleted) lines name definitions of the old version and its added lines name definitions of the
new version, new and moved code included. An unchanged line that belongs to another definition
in the new version (a class header written above a method takes it out of its class) touches
its old and its new owner, though it is no changed line.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from smellkit.evaluate.patches.parse import FileChange, FileKind
from smellkit.facts import Definition, FileFacts
from smellkit.project import Project

_LINE_END = re.compile(r"\r\n|\r|\n")
_DECORATOR_REACH = 100
"""How many lines above a `def` its decorators are looked for (multi-line ones included)."""


def split_lines(text: str) -> list[str]:
    """Lines as the parser numbers them: split at \\n, \\r\\n and \\r only."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_text(path: Path) -> str | None:
    """A file's text, or None when it is missing, unreadable or binary (holds a NUL byte)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class ChangedFile:
    """One file of a patch with its changed line numbers (1-based) on each side. Paths are
    relative to the roots the two texts were read from; None on the side where it is absent."""

    old: str | None
    new: str | None
    kind: FileKind
    deleted: tuple[int, ...] = ()
    """Lines of the old text that the patch changed or removed."""
    added: tuple[int, ...] = ()
    """Lines of the new text that the patch wrote."""
    kept: tuple[tuple[int, int], ...] = ()
    """(old line, new line) of the lines the diff leaves unchanged (blank lines aside)."""
    readable: bool = True
    """False when a side that should exist could not be read as text (binary, missing)."""

    @property
    def lines(self) -> int:
        return len(self.deleted) + len(self.added)


def diff_lines(old: list[str], new: list[str]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(deleted old line numbers, added new line numbers) of a line diff of two texts, blank
    lines left out: which side of a definition's boundary a diff puts an inserted blank line on
    is arbitrary, and a blank line changes no code."""
    deleted, added, _ = line_diff(old, new)
    return deleted, added


def line_diff(old: list[str], new: list[str]) \
        -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...]]:
    """`diff_lines` and the (old, new) line numbers of the lines it leaves unchanged."""
    deleted: list[int] = []
    added: list[int] = []
    kept: list[tuple[int, int]] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        if tag != "equal":
            deleted.extend(number for number in range(old_start + 1, old_end + 1)
                           if old[number - 1].strip())
            added.extend(number for number in range(new_start + 1, new_end + 1)
                         if new[number - 1].strip())
        else:
            kept.extend((old_start + offset + 1, new_start + offset + 1)
                        for offset in range(old_end - old_start)
                        if old[old_start + offset].strip())
    return tuple(deleted), tuple(added), tuple(kept)


class Side:
    """One version of the analysed code (smelly, original or result): each file's facts and,
    computed once per file, its text and which definition owns each line."""

    def __init__(self, project: Project):
        self.project = project
        self.root = Path(project.root)
        self.facts: dict[str, FileFacts] = {facts.path: facts for facts in project.files}
        self.modules = {facts.module for facts in project.files}
        self._paths = {facts.module: facts.path for facts in reversed(project.files)}
        self._texts: dict[str, str | None] = {}
        self._owners: dict[str, list[str]] = {}

    def text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = read_text(self.root / path)
        return self._texts[path]

    def definitions(self, path: str) -> Iterator[Definition]:
        """The definitions lines can belong to (lambdas are part of the code around them)."""
        facts = self.facts.get(path)
        if facts is not None:
            yield from (item for item in facts.definitions if item.kind != "lambda")

    def owners(self, path: str) -> list[str]:
        """Line number -> qualified name of the innermost definition holding it (index 0 and
        lines past the last definition: the module). Empty for a file without facts."""
        if path in self._owners:
            return self._owners[path]
        facts = self.facts.get(path)
        if facts is None:
            return []
        lines = split_lines(self.text(path) or "")
        spans = sorted((decorated_start(item, lines), -item.end_line, item.qualname)
                        for item in self.definitions(path))
        size = max([len(lines), *(-end for _, end, _ in spans)]) + 1
        owner = [facts.module] * size
        for start, negative_end, qualname in spans:  # inner definitions start later: they win
            owner[start:-negative_end + 1] = [qualname] * (-negative_end + 1 - start)
        self._owners[path] = owner
        return owner

    def owner(self, path: str, line: int) -> str | None:
        """The qualified name a line belongs to; None for a file without facts."""
        owner = self.owners(path)
        if not owner:
            return None
        return owner[line] if line < len(owner) else owner[0]

    def path_of(self, module: str) -> str | None:
        """The file of a module (the first one, as the index keeps it)."""
        return self._paths.get(module)

    def module(self, path: str) -> str | None:
        facts = self.facts.get(path)
        return facts.module if facts is not None else None

    def names(self, path: str) -> set[str]:
        """Every definition of a file and its module: what a created, deleted or renamed file
        changes."""
        module = self.module(path)
        return {item.qualname for item in self.definitions(path)} | \
            ({module} if module is not None else set())

    def problem(self, path: str) -> str | None:
        """Why a Python file of this version has no facts (it did not parse, ...), if known."""
        for diagnostic in self.project.diagnostics:
            if diagnostic.path == path:
                return f"{path}: {diagnostic.message}"
        return None


def decorated_start(definition: Definition, lines: list[str]) -> int:
    """The first line of a definition's decorators (its `def` line without decorators)."""
    start = definition.start_line
    wanted = len(definition.decorators)
    line = start - 1
    while wanted and line >= 1 and start - line <= _DECORATOR_REACH:
        if line <= len(lines) and lines[line - 1].lstrip().startswith("@"):
            start = line
            wanted -= 1
        line -= 1
    return start


def changed_files(changes: Iterable[FileChange], old_root: Path, new_root: Path,
                  old_side: Side | None = None, new_side: Side | None = None) \
        -> list[ChangedFile]:
    """The changed lines of each file change, read from the two trees (texts of the analysed
    code come from the Sides when given, so each file is read once per version)."""
    def text(side: Side | None, root: Path, path: str) -> str | None:
        return side.text(path) if side is not None else read_text(root / path)

    found: list[ChangedFile] = []
    for change in changes:
        old, new = change.old_path, change.new_path
        old_text = text(old_side, old_root, old) if old is not None else None
        new_text = None if new is None or change.binary else text(new_side, new_root, new)
        readable = not change.binary and (old is None or old_text is not None) and \
            (new is None or new_text is not None)
        if not readable:
            found.append(ChangedFile(old, new, change.kind, readable=False))
            continue
        old_lines = split_lines(old_text or "") if change.kind != "copy" else []
        deleted, added, kept = line_diff(old_lines, split_lines(new_text or ""))
        found.append(ChangedFile(old, new, change.kind, deleted, added, kept))
    return found


@dataclass
class Touched:
    """The qualified names a patch touched: old side (changed or deleted) and new side (added
    or changed), each with its module; and, per changed line, the name it belongs to."""

    old: dict[str, str] = field(default_factory=dict)
    new: dict[str, str] = field(default_factory=dict)
    lines: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    """(path on its side, qualname or None, module or None), one per changed line."""
    errors: list[str] = field(default_factory=list)

    @property
    def names(self) -> dict[str, str]:
        return {**self.old, **self.new}


def _mark(side: Side, path: str, numbers: Iterable[int], names: dict[str, str],
          lines: list[tuple[str, str | None, str | None]], whole: bool,
          fallback: str | None) -> bool:
    """Record the names of `numbers` of `path` (all its names when `whole`); False when the
    file has no facts (then its lines go to `fallback`, a module, when there is one)."""
    module = side.module(path)
    if module is None:
        for _ in numbers:
            lines.append((path, fallback, fallback))
        if fallback is not None:
            names[fallback] = fallback
        return False
    if whole:
        for name in side.names(path):
            names[name] = module
    for number in numbers:
        qualname = side.owner(path, number)
        lines.append((path, qualname, module))
        if qualname is not None:
            names[qualname] = module
    return True


def touched(files: Iterable[ChangedFile], old: Side, new: Side) -> Touched:
    """The names the changes touch. Only `.py` files are mapped; a file the new version cannot
    analyse (it does not parse) is an error, and its added lines count at its old module."""
    result = Touched()
    for item in files:
        if item.old is not None and item.old.endswith(".py"):
            whole = item.kind in ("delete", "rename")
            _mark(old, item.old, item.deleted, result.old, result.lines, whole, None)
        elif item.old is not None:
            result.lines.extend((item.old, None, None) for _ in item.deleted)
        if item.new is not None and item.new.endswith(".py"):
            whole = item.kind in ("add", "rename", "copy")
            fallback = old.module(item.old) if item.old is not None else None
            if not _mark(new, item.new, item.added, result.new, result.lines, whole, fallback):
                problem = new.problem(item.new)
                if problem is not None or (new.root / item.new).is_file():
                    result.errors.append(
                        f"localization: {problem or item.new + ': not analysed'}; its "
                        "added lines count at module level")
        elif item.new is not None:
            result.lines.extend((item.new, None, None) for _ in item.added)
        _moved(item, old, new, result)
    return result


def _moved(item: ChangedFile, old: Side, new: Side, result: Touched) -> None:
    """Unchanged lines that belong to another definition on the new side moved between
    definitions: a method taken out of its class into a class whose header the patch writes
    above it changes no line of the method, yet its old class lost it. Both owners are touched
    (no changed line is counted: the lines themselves did not change)."""
    if item.old is None or item.new is None or not item.kept or \
            not (item.old.endswith(".py") and item.new.endswith(".py")):
        return
    old_module, new_module = old.module(item.old), new.module(item.new)
    if old_module is None or new_module is None:
        return
    for before, after in item.kept:
        was, now = old.owner(item.old, before), new.owner(item.new, after)
        if was is not None and now is not None and (was, old_module) != (now, new_module):
            result.old.setdefault(was, old_module)
            result.new.setdefault(now, new_module)


def within(name: str, module: str | None, container: str, container_is_module: bool) -> bool:
    """`name` (defined in `module`) is `container` or inside it; a module holds what its file
    defines, a definition what is nested in it."""
    if name == container:
        return True
    if container_is_module:
        return module == container
    return name.startswith(container + ".")
