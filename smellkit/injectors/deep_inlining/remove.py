"""Pasted helpers that disappear: when the functions they were pasted into were their only
users, a person who writes those long functions has no such helper at all (one left behind
that nothing calls reads as dead code). Their modules change too, so the files the smell spans
are files the patch touches."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import libcst as cst

from smellkit.errors import InjectionRefused

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext


def removals(context: InjectionContext, callers: Sequence[str], inlined: Sequence[str],
             trees: Mapping[str, cst.Module], still: set[str]) -> dict[str, cst.Module]:
    """New trees of the modules whose pasted helpers nothing uses any more, without them:
    `trees` holds the files already rewritten (the callers'), the others are read as they
    are. A helper stays where anything but the callers and the other removed helpers names
    it (a call, a reference, `__all__`, a string), where the pasted code still names it
    (`still`: a recursive helper calls itself), where its name may be looked up by text
    (`_dispatched`), or where it is a class's last member.
    Unused imports are left to the caller (`imports.without_unused`)."""
    index = context.index
    dispatched = _dispatched(context)
    chosen = [name for name in dict.fromkeys(inlined) if name not in callers
              and name.rpartition(".")[2] not in still
              and not any(name.rpartition(".")[2].startswith(prefix) for prefix in dispatched)
              and context.path_of(name) is not None
              and getattr(index.definitions.get(name), "kind", None) in ("function", "method")]
    paths = {context.path_of(name) for name in callers}
    while True:  # until every caller of a removed helper is a caller or removed too
        kept = [name for name in chosen if name in index.call_graph and all(
            caller in (*callers, name, *chosen) for caller in index.call_graph.predecessors(
                name)) and _unnamed_elsewhere(context, name, paths, [*callers, *chosen])]
        if kept == chosen:
            break
        chosen = kept
    by_path: dict[str, list[str]] = {}
    for name in chosen:
        by_path.setdefault(context.path_of(name) or "", []).append(name)
    result: dict[str, cst.Module] = {}
    for file, names in sorted(by_path.items()):
        try:
            result[file] = _without(context, trees.get(file) or context.module(file), names)
        except InjectionRefused:
            continue
    return result


_GETATTR = re.compile(r"""getattr\(\s*[\w.]+\s*,\s*(?:f["']([A-Za-z_]\w*)\{"""
                      r"""|["']([A-Za-z_]\w*)["']\s*\+|["']([A-Za-z_]\w*)%s["']\s*%)""")


def _dispatched(context: InjectionContext) -> set[str]:
    """The prefixes of names looked up by text (`getattr(self, f"parse_{name}")`, `getattr(self,
    "visit_" + kind)`): a method so named may be called where no line names it."""
    return {prefix for facts in context.index.modules.values()
            for found in _GETATTR.finditer(context.source(facts.path))
            for prefix in found.groups() if prefix}


def _unnamed_elsewhere(context: InjectionContext, name: str, paths: set[str | None],
                       allowed: Sequence[str]) -> bool:
    """No line of the repository outside the definitions `allowed` names `name`'s short name
    (but the imports of the callers' files at `paths`: one only the pasted calls read goes)."""
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
                    facts.path in paths and _importing(line)):
                return False
    return True


def _importing(line: str) -> bool:
    """An import line of a module, or a line of a wrapped one (`    name,`)."""
    stripped = line.strip()
    return stripped.startswith(("import ", "from ")) or bool(
        re.fullmatch(r"[\w.]+( as \w+)?,?", stripped))


def _without(context: InjectionContext, original: cst.Module,
             names: Sequence[str]) -> cst.Module:
    """The module without the definitions `names` (all of it)."""
    index = context.index
    module_name = index.module_of[names[0]]
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

    return original.with_changes(body=keep(original.body, ()))


def _has_fields(body: Sequence[cst.BaseStatement]) -> bool:
    return any(isinstance(item, cst.SimpleStatementLine) and any(
        isinstance(small, (cst.Assign, cst.AnnAssign)) for small in item.body) for item in body)
