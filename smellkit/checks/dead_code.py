"""Structural checks of dead code, phrased on names so any later version can be checked.

- `dead_code.absent_or_used` {qualname, what}: the function (or module variable) is gone, or code
  that can run uses it. "Can run" is decided by name, as the detector decides use: a reference
  counts unless it sits in an unreachable statement, inside the definition itself, or inside a
  definition that is itself unused (the detector reports it, or every reference to it is such a
  dead one, transitively). So removing only the head of a dead chain does not pass for the rest.
- `dead_code.reachable_body` {qualname}: the function has no statement that can never run.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, NamedTuple

from smellkit._internal import pyast
from smellkit.analysis.context import Context
from smellkit.analysis.usage import module_level_names
from smellkit.checks import check_kind
from smellkit.facts import FileFacts
from smellkit.models import Finding

_DEFINITION_KINDS = frozenset({"function", "method", "class", "nested_function", "variable",
                               "attribute"})
_MAX_DEPTH = 8


def dead_findings(context: Context) -> list[Finding]:
    """The dead-code detector's findings on this version, computed once per context."""
    return context.derived(_findings)


def _findings(context: Context) -> list[Finding]:
    from smellkit.detectors.runner import run_detectors

    return run_detectors(context, ["dead_code"], respect_suppressions=False)


class _Span(NamedTuple):
    path: str
    start: int
    end: int


class _Uses:
    """Whether a name is used by code that can run; one per version checked."""

    def __init__(self, context: Context):
        self.context = context
        self.index = context.index
        findings = dead_findings(context)
        self.dead = {finding.location.qualname for finding in findings
                     if finding.evidence.get("kind") in _DEFINITION_KINDS}
        # definitions whose only mention is an import nothing reads: unused too
        self.dead.update(location.qualname for finding in findings
                         if finding.evidence.get("kind") == "import"
                         for location in finding.related)
        self.by_path = {facts.path: facts for facts in self.index.modules.values()}
        self.trees: dict[str, ast.Module | None] = {}
        self.memo: dict[str, bool] = {}

    def references(self, name: str) -> list[tuple[str, int]]:
        """(path, line) of every read of `name` as a bare name or an attribute."""
        found: list[tuple[str, int]] = []
        for facts in self.index.modules.values():
            liveness = facts.liveness
            if name not in liveness.names and name not in liveness.attributes:
                continue
            tree = self._tree(facts)
            if tree is None:
                continue
            for node in ast.walk(tree):
                read = (node.id if isinstance(node, ast.Name) else
                        node.attr if isinstance(node, ast.Attribute) else None)
                if read == name and isinstance(getattr(node, "ctx", None), ast.Load):
                    found.append((facts.path, getattr(node, "lineno", 0)))
        return found

    def _tree(self, facts: FileFacts) -> ast.Module | None:
        if facts.path not in self.trees:
            root = self.context.project.root
            try:
                text = (root / facts.path if not root.is_file() else Path(root)).read_text(
                    encoding="utf-8")
                self.trees[facts.path] = pyast.parse(text)
            except (OSError, SyntaxError, ValueError):
                self.trees[facts.path] = None
        return self.trees[facts.path]

    def owner(self, facts: FileFacts, line: int) -> str | None:
        """The innermost definition (not a lambda) around a line, None at module level."""
        best = None
        for definition in facts.definitions:
            if definition.kind != "lambda" and \
                    definition.start_line <= line <= definition.end_line and (
                    best is None or definition.start_line >= best.start_line):
                best = definition
        return best.qualname if best is not None else None

    def is_dead(self, qualname: str) -> bool:
        """Reported by the detector, or inside a definition that is."""
        current = qualname
        while current in self.index.definitions:
            if current in self.dead:
                return True
            current = self.index.definitions[current].parent
        return False

    def used(self, qualname: str, span: _Span | None, seen: frozenset[str] = frozenset(),
             depth: int = 0) -> bool:
        if qualname in self.memo:
            return self.memo[qualname]
        name = qualname.rpartition(".")[2]
        referenced = False
        result: bool | None = None
        for path, line in self.references(name):
            if span is not None and path == span.path and span.start <= line <= span.end:
                continue  # recursion is no use
            referenced = True
            facts = self.by_path[path]
            if any(item.start <= line <= item.end for item in facts.liveness.unreachable):
                continue
            owner = self.owner(facts, line)
            if owner is None:
                result = True
                break
            if owner in seen or owner == qualname or self.is_dead(owner):
                continue
            if depth >= _MAX_DEPTH:
                result = True
                break
            definition = self.index.definitions.get(owner)
            owner_span = _Span(path, definition.start_line, definition.end_line) \
                if definition is not None else None
            if self.used(owner, owner_span, seen | {qualname}, depth + 1):
                result = True
                break
        if result is None:
            result = not referenced and not self.is_dead(qualname) and qualname not in self.dead
        if not seen:
            self.memo[qualname] = result
        return result


def _uses(context: Context) -> _Uses:
    return _Uses(context)


@check_kind("dead_code.absent_or_used")
def absent_or_used(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    qualname: str = params["qualname"]
    index = context.index
    definition = index.definitions.get(qualname)
    span: _Span | None = None
    if definition is not None:
        facts = context.file_of(qualname)
        if facts is None:
            return True, f"{qualname} is not defined"
        span = _Span(facts.path, definition.start_line, definition.end_line)
    else:
        module, _, name = qualname.rpartition(".")
        facts = index.modules.get(module)
        if facts is None or name not in module_level_names(facts):
            return True, f"{qualname} is not defined"
    if context.derived(_uses).used(qualname, span):
        return True, f"{qualname} is used by code that can run"
    return False, f"{qualname} is defined but only unreachable or unused code refers to it"


@check_kind("dead_code.reachable_body")
def reachable_body(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    qualname: str = params["qualname"]
    facts = context.file_of(qualname)
    if qualname not in context.index.definitions or facts is None:
        return True, f"{qualname} is not defined"
    spans = [span for span in facts.liveness.unreachable
             if span.scope == qualname or span.scope.startswith(qualname + ".")]
    if not spans:
        return True, f"every statement of {qualname} can run"
    where = ", ".join(f"lines {span.start}-{span.end} ({span.reason})" for span in spans[:3])
    return False, f"{qualname} has statements that never run: {where}"
