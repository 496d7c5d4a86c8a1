"""Helpers of other modules that disappear once pasted: when the function was their only user,
a person who writes one long function has no such helper at all. Their modules then change
too, so the files the smell spans are files the patch touches (a helper left in place in an
untouched module is no part of the span)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.injectors.cst.imports import without_unused

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext


def removals(context: InjectionContext, qualname: str, path: str,
             inlined: Sequence[str]) -> dict[str, str]:
    """New texts of the other modules whose pasted helpers nothing uses any more, without
    them (and without the imports only they read). A helper stays where anything but the
    function and the other removed helpers names it (a call, a reference, `__all__`, a
    string), where it is a class's last member, or where dropping it would leave an import
    other modules rely on."""
    index = context.index
    chosen = [name for name in dict.fromkeys(inlined)
              if context.path_of(name) not in (None, path)
              and getattr(index.definitions.get(name), "kind", None) in ("function", "method")]
    while True:  # until every caller of a removed helper is the function or removed too
        kept = [name for name in chosen if name in index.call_graph and all(
            caller in (qualname, name, *chosen) for caller in index.call_graph.predecessors(
                name)) and _unnamed_elsewhere(context, name, path, [qualname, *chosen])]
        if kept == chosen:
            break
        chosen = kept
    by_path: dict[str, list[str]] = {}
    for name in chosen:
        by_path.setdefault(context.path_of(name) or path, []).append(name)
    texts: dict[str, str] = {}
    for file, names in sorted(by_path.items()):
        try:
            texts[file] = _without(context, file, names)
        except InjectionRefused:
            continue
    return texts


def _unnamed_elsewhere(context: InjectionContext, name: str, path: str,
                       allowed: Sequence[str]) -> bool:
    """No line of the repository outside the definitions `allowed` names `name`'s short name
    (but the imports of the caller's file at `path`: one only the pasted calls read goes)."""
    short = name.rpartition(".")[2]
    pattern = re.compile(rf"\b{re.escape(short)}\b")
    spans: dict[str, list[tuple[int, int]]] = {}
    for item in allowed:
        definition = context.index.definitions.get(item)
        file = context.path_of(item)
        if definition is not None and file is not None:
            spans.setdefault(file, []).append((definition.start_line, definition.end_line))
    for facts in context.index.modules.values():
        text = context.source(facts.path)
        if short not in text:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if pattern.search(line) and not any(start <= number <= end for start, end in
                                                spans.get(facts.path, [])) and not (
                    facts.path == path and _importing(line)):
                return False
    return True


def _importing(line: str) -> bool:
    """An import line of a module, or a line of a wrapped one (`    name,`)."""
    stripped = line.strip()
    return stripped.startswith(("import ", "from ")) or bool(
        re.fullmatch(r"[\w.]+( as \w+)?,?", stripped))


def _without(context: InjectionContext, path: str, names: Sequence[str]) -> str:
    """The module at `path` without the definitions `names`."""
    index = context.index
    module_name = index.module_of[names[0]]
    original = context.module(path)
    doomed = {tuple(name[len(module_name) + 1:].split(".")) for name in names}

    def keep(body: Sequence[cst.BaseStatement], prefix: tuple[str, ...]) -> \
            list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for item in body:
            if isinstance(item, cst.FunctionDef) and (*prefix, item.name.value) in doomed:
                continue
            if isinstance(item, cst.ClassDef) and isinstance(item.body, cst.IndentedBlock) \
                    and any(parts[:-1] == (*prefix, item.name.value) for parts in doomed):
                inner = keep(item.body.body, (*prefix, item.name.value))
                if not any(isinstance(member, (cst.FunctionDef, cst.ClassDef))
                           for member in inner) and not _has_fields(inner):
                    raise InjectionRefused(f"{item.name.value} would be left empty")
                item = item.with_changes(body=item.body.with_changes(body=inner))
            out.append(item)
        return out

    new = original.with_changes(body=keep(original.body, ()))
    new = without_unused(context, module_name, original, new)
    return new.code


def _has_fields(body: Sequence[cst.BaseStatement]) -> bool:
    return any(isinstance(item, cst.SimpleStatementLine) and any(
        isinstance(small, (cst.Assign, cst.AnnAssign)) for small in item.body) for item in body)
