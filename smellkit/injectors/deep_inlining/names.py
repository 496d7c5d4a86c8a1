"""The names pasted code reads and binds, and new names for pasted locals that would collide
with the host's, made of the repository's words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from smellkit.injectors.cst.rename import Rename
from smellkit.injectors.naming import overlaps, pick, snake, words

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext


class _Names(cst.CSTVisitor):
    """Identifiers used (attribute names and keyword names aside) and those bound."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.bound: set[str] = set()
        self._skip: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._skip.add(id(node.keyword))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._skip:
            self.used.add(node.value)

    def _targets(self, node: cst.CSTNode | None) -> None:
        if isinstance(node, cst.Name):
            self.bound.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._targets(element.value)
        elif isinstance(node, cst.StarredElement):
            self._targets(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._targets(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._targets(node.target)


def names_of(nodes: Sequence[cst.CSTNode]) -> _Names:
    found = _Names()
    for node in nodes:
        node.visit(found)
    return found


def rename(node: cst.CSTNode, mapping: dict[str, str]) -> cst.CSTNode:
    return node.visit(Rename(mapping)) if mapping else node  # type: ignore[return-value]


def callee_words(context: InjectionContext, module: str, callee: str) -> list[str]:
    """Words for renamed locals of a pasted callee: its name's words, the first (mostly a verb:
    `find` of `find_item`) last, then the words near it in its module."""
    near = context.vocabulary.near(module, callee)
    own = [word for word in near if word in words(callee.rpartition(".")[2])]
    return list(dict.fromkeys([*own[1:], *own[:1], *near]))


def fresh(name: str, taken: set[str], pool: Sequence[str]) -> str:
    """A new name for a pasted local that collides with one of the host, made of the local's
    own words and words near its function (`pool`, the callee's first): `index` pasted from
    `find_item` becomes `item_index`, never `index_2`; refused when every such name is taken."""
    head = words(name) or [name.strip("_")]
    extra = [word for word in pool if not overlaps(word, head)]  # never `error_errors`
    options = [[word, *head] for word in extra] + [[*head, word] for word in extra]
    return pick((snake(parts, private=name.startswith("_")) for parts in options), taken,
                what=f"the pasted local {name}")
