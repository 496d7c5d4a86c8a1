"""Tells: what gives an injected smell away as machine-made, found by comparing the smelly files
with the originals.

A solver (or a reviewer) spots generated code by marks no human leaves: names that end in a
counter (`index_3`, `_parser_steps_2.py`, `ParserSteps3`), a name or import left undefined or
unused, and the same helper name in every case. Each check reports only what the smelly version
adds: a warning the original already had, or a numbered name the repository already uses
(`sha256`, `utf8`), is the repository's own and not a tell.

- `added_tells(before, after)`: numbered new names and modules, and the pyflakes warnings the
  edit adds (undefined names, unused imports and variables, redefinitions).
- `reused_names(cases)`: new helper, class and module names that two cases share verbatim.
- `injection_files` and `scan`: the same over finished injection records.
"""

from __future__ import annotations

import ast
import functools
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from smellkit._internal import pyast
from smellkit.injectors.naming import is_numbered
from smellkit.injectors.patches import apply_patch, patched_paths
from smellkit.models import Injection

Texts = Mapping[str, str | None]
"""Relative path -> a file's text; None when the file does not exist (before) or is deleted."""

WARNINGS = frozenset({"UndefinedName", "UndefinedLocal", "UndefinedExport", "UnusedImport",
                      "UnusedVariable", "RedefinedWhileUnused", "ImportShadowedByLoopVar"})
"""The pyflakes messages that mark code as broken or careless; style-only ones are left out."""
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Flake:
    """One pyflakes message, keyed without its line so that a moved warning stays the same."""

    kind: str
    names: tuple[str, ...]
    text: str
    """As pyflakes prints it (`path:line:col: undefined name 're'`)."""


@functools.lru_cache(maxsize=64)
def flakes(path: str, text: str) -> tuple[Flake, ...]:
    """The pyflakes messages of `WARNINGS` kinds in one file (none when it does not parse: the
    engine refuses such files anyway); kept for the originals every injection compares with."""
    from pyflakes.checker import Checker

    try:
        tree = pyast.parse(text, filename=path)
    except (SyntaxError, ValueError):
        return ()
    found: list[Flake] = []
    for message in Checker(tree, filename=path).messages:
        kind = type(message).__name__
        if kind in WARNINGS:
            names = tuple(str(arg) for arg in message.message_args if not isinstance(arg, int))
            found.append(Flake(kind, names, str(message)))
    return tuple(found)


def bound_names(text: str) -> dict[str, str]:
    """Every name a module binds -> what it is (`function`, `class`, `parameter`, `variable`,
    `attribute`, `import`), for the numbered-name check."""
    try:
        tree = pyast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.setdefault(node.name, "function")
        elif isinstance(node, ast.ClassDef):
            found.setdefault(node.name, "class")
        elif isinstance(node, ast.arg):
            found.setdefault(node.arg, "parameter")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.setdefault(node.id, "variable")
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.setdefault(node.attr, "attribute")
        elif isinstance(node, ast.alias) and node.asname:
            found.setdefault(node.asname, "import")
    return found


def defined_names(text: str) -> set[str]:
    """Names a module defines for others to use: its functions, classes, methods and
    module-level variables (not locals, which may well repeat across cases)."""
    try:
        tree = pyast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add(node.name)
        elif isinstance(node, ast.ClassDef):
            found.add(node.name)
            found.update(item.name for item in node.body
                         if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(item.id for target in targets for item in ast.walk(target)
                         if isinstance(item, ast.Name))
    return found


def _known(before: Texts, context: Iterable[str]) -> set[str]:
    """Every word of the original texts (code, strings and comments): names the repository
    already wrote."""
    known: set[str] = set()
    for text in [*(item for item in before.values() if item), *context]:
        known.update(_WORD.findall(text))
    return known


def _stem(path: str) -> str:
    name = path.rpartition("/")[2]
    return name[:-3] if name.endswith(".py") else name


def added_tells(before: Texts, after: Texts, *, context: Iterable[str] = ()) -> list[str]:
    """What the edit `before` -> `after` adds that gives it away, one line each (empty when
    nothing does): new modules and names ending in a counter, and pyflakes warnings the
    original did not have. `context`: texts of other original files the edit copied or moved
    code from, whose names and warnings count as the repository's own."""
    context = list(context)
    known = _known(before, context)
    tells: list[str] = []
    for path, text in sorted(after.items()):
        if text is None or not path.endswith(".py") or text == before.get(path):
            continue
        if before.get(path) is None and is_numbered(_stem(path)):
            tells.append(f"{path}: new module name {_stem(path)} ends in a counter")
        for name, kind in sorted(bound_names(text).items()):
            if name not in known and is_numbered(name):
                tells.append(f"{path}: new {kind} name {name} ends in a counter")
    old: set[tuple[str, tuple[str, ...]]] = set()
    for path, text in [*before.items(), *((f"<context {number}>", item) for number, item
                                          in enumerate(context))]:
        if text is not None and path.endswith((".py", ">")):
            old.update((item.kind, item.names) for item in flakes(path, text))
    for path, text in sorted(after.items()):
        if text is None or not path.endswith(".py") or text == before.get(path):
            continue
        tells.extend(item.text for item in flakes(path, text)
                     if (item.kind, item.names) not in old)
    return tells


def added_names(before: Texts, after: Texts, *, context: Iterable[str] = ()) -> set[str]:
    """The helper, class and module names the edit creates that the original did not have."""
    known = _known(before, context)
    found: set[str] = set()
    for path, text in after.items():
        if text is None or not path.endswith(".py") or text == before.get(path):
            continue
        if before.get(path) is None:
            found.add(_stem(path))
        found.update(defined_names(text))
    return {name for name in found if name not in known and name != "__init__"}


@dataclass(frozen=True)
class CaseNames:
    """What one case added, for the cross-case check."""

    case: str
    targets: tuple[str, ...]
    """Where the case was centred (its candidate's target), for the report."""
    names: frozenset[str]


def reused_names(cases: Iterable[CaseNames]) -> list[str]:
    """New names that two cases share verbatim (`_compat`, `_DISPATCH`), at different targets
    or at one (two cases of one class both making up `format_length_error`): a fixed word list
    or one helper made up twice, which reads as machine-made in a dataset holding both."""
    users: dict[str, list[CaseNames]] = {}
    for case in cases:
        for name in case.names:
            users.setdefault(name, []).append(case)
    found: list[str] = []
    for name, shared in sorted(users.items()):
        targets = {case.targets for case in shared}
        if len(shared) > 1:
            found.append(f"{name} is added by {len(shared)} cases of {len(targets)} "
                         f"target{'s' if len(targets) > 1 else ''} "
                         f"({', '.join(sorted(case.case for case in shared)[:4])})")
    return found


# -- over finished injection records ---------------------------------------------------------------


def injection_files(root: str | Path, injection: Injection) -> tuple[dict[str, str | None],
                                                                      dict[str, str | None]]:
    """The original and smelly texts of the files an injection's patch touches, rebuilt by
    applying its smelly patch to a scratch copy of those files."""
    root = Path(root)
    paths = patched_paths(injection.smelly_patch)
    before: dict[str, str | None] = {}
    with tempfile.TemporaryDirectory(prefix="smellkit-tells-") as scratch:
        for path in paths:
            source = root / path
            before[path] = source.read_text(encoding="utf-8") if source.is_file() else None
            if source.is_file():
                (Path(scratch) / path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, Path(scratch) / path)
        apply_patch(Path(scratch), injection.smelly_patch)
        after = {path: (Path(scratch) / path).read_text(encoding="utf-8")
                 if (Path(scratch) / path).is_file() else None for path in paths}
    return before, after


def _context(root: Path, injection: Injection, changed: Iterable[str]) -> list[str]:
    """The original texts of the other files the smell involves (where code was copied from)."""
    paths = {item.path for item in injection.locations} | {injection.candidate.target.path}
    paths |= set(injection.candidate.files)
    return [(root / path).read_text(encoding="utf-8") for path in sorted(paths - set(changed))
            if (root / path).is_file()]


def scan(root: str | Path, injections: Iterable[Injection], *,
         alternatives: bool = False) -> dict[str, list[str]]:
    """Tells of injections made on the repository at `root`: per case id, its own tells; under
    the key `"(across cases)"`, the names two cases both made up. With `alternatives`, the
    injections of one target are alternatives of one case (an injector's tests make one per
    difficulty and seed, of which a dataset keeps what sampling picks), so only names shared by
    injections of different targets count."""
    root = Path(root)
    found: dict[str, list[str]] = {}
    cases: list[CaseNames] = []
    for injection in injections:
        before, after = injection_files(root, injection)
        context = _context(root, injection, before)
        found[injection.id] = added_tells(before, after, context=context)
        targets = (injection.candidate.target.qualname,)
        cases.append(CaseNames(injection.id, targets,
                               frozenset(added_names(before, after, context=context))))
    if alternatives:
        merged: dict[tuple[str, ...], set[str]] = {}
        for case in cases:
            merged.setdefault(case.targets, set()).update(case.names)
        cases = [CaseNames(", ".join(targets), targets, frozenset(names))
                 for targets, names in merged.items()]
    found["(across cases)"] = reused_names(cases)
    return found
