"""What the case asks of a refactoring of the smelly function, and the helpers it still calls
that look like the pasted ones (red herrings)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from smellkit.injectors.deep_inlining.names import names_of
from smellkit.models import StructuralCheck

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext


def red_herrings(context: InjectionContext, qualname: str, inlined: Sequence[str]) -> list[str]:
    """Helpers of the repository the function still calls: they look like the pasted ones, but
    are calls already and must stay so."""
    graph = context.index.call_graph
    if qualname not in graph:
        return []
    found = []
    for callee in sorted(graph.successors(qualname)):
        definition = context.index.definitions.get(callee)
        if definition is None or callee in inlined or definition.kind not in (
                "function", "method") or definition.end_line - definition.start_line < 4:
            continue
        found.append(callee)
    return found[:3]


def checks(context: InjectionContext, qualname: str, function: cst.FunctionDef,
           direct: Sequence[str], grown: int, *, reported: bool) -> tuple[StructuralCheck, ...]:
    """What a refactoring of one function the chains were pasted into must achieve: not
    reported any more (when the paste made it `reported`), shorter, and calling its direct
    helpers again."""
    definition = context.index.definitions[qualname]
    lines = definition.end_line - definition.start_line + 1
    name = definition.name
    checks = [
        StructuralCheck(kind="no_finding", description=f"{name} is no longer reported as deep "
                        "inlining", params={"smell": "deep_inlining", "qualnames": [qualname]}),
    ] if reported else []
    if grown > 4:
        checks.append(StructuralCheck(
            kind="max_lines", description=f"{name} is at most {lines + grown // 2} lines long",
            params={"qualname": qualname, "lines": lines + grown // 2}))
    mentioned = names_of([function])
    mentioned_attributes = {node.attr.value for node in attributes(function)}
    for callee in direct:
        short = callee.rpartition(".")[2]
        if short in mentioned.used or short in mentioned_attributes:
            continue  # still called somewhere in the function: the check would not fail
        description = f"{name} calls {short} again instead of doing its work inline"
        checks.append(StructuralCheck(kind="calls", description=description,
                                      params={"caller": qualname, "callee": callee}))
    return tuple(checks)


def attributes(nodes: cst.CSTNode | Sequence[cst.CSTNode]) -> list[cst.Attribute]:
    """Every attribute access in the nodes (`self.write` reads `write`)."""
    found: list[cst.Attribute] = []

    class Collect(cst.CSTVisitor):
        def visit_Attribute(self, inner: cst.Attribute) -> None:
            found.append(inner)

    for node in [nodes] if isinstance(nodes, cst.CSTNode) else nodes:
        node.visit(Collect())
    return found
