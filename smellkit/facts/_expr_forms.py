"""Expression forms for the fact walk (`smellkit.facts._extractor`): the small language of
`smellkit.facts.types` that calls, assignments and returns record, built from `ast` nodes.

Equal forms are one shared object within a module, so the facts pickle small and the solver's
lookups hash shared objects; the tables that make that cheap live here.
"""

from __future__ import annotations

import ast

from smellkit.facts.types import (
    UNKNOWN,
    Alts,
    Attr,
    CallOf,
    Const,
    DefRef,
    DictLit,
    Expr,
    Iter,
    Name,
    Seq,
    Sub,
)

_NAME_NODE, _ATTRIBUTE_NODE, _CALL_NODE = ast.Name, ast.Attribute, ast.Call
_CONSTANT_NODE = ast.Constant


class ExprForms:
    """The form of each expression node of one module, interned."""

    def __init__(self) -> None:
        self.interned: dict[Expr, Expr] = {}
        self.call_index: dict[int, int] = {}
        """id of a call node -> its number among the module's calls (the walk fills it)."""
        self.lambda_names: dict[int, str] = {}
        """id of a lambda node -> its qualified name (the walk fills it)."""
        # The form of each visited attribute node's receiver: final once visited, as everything
        # under it is; saves re-deriving `a.b` for `a.b.c` (and again for the call `a.b.c()`).
        self.receivers: dict[int, Expr] = {}
        self.name_ir: dict[str, Expr] = {}  # interned form by identifier
        self.const_ir: dict[str, Expr] = {}  # interned form by constant type
        self.attr_ir: dict[tuple[int, str], Expr] = {}  # by (id of receiver form, attribute)

    def ir(self, node: ast.AST | None) -> Expr:
        """The expression form of `node`; equal forms are one shared object (pickles small)."""
        if node is None:
            return UNKNOWN
        kind = node.__class__
        if kind is _NAME_NODE:
            # Once interned, a name's form never changes: look it up by the bare string.
            name = node.id  # type: ignore[attr-defined]
            known = self.name_ir.get(name)
            if known is None:
                expr: Expr = Name(name)
                known = self.name_ir[name] = self.interned.setdefault(expr, expr)
            return known
        if kind is _CALL_NODE:
            index = self.call_index.get(id(node))
            expr = CallOf(index) if index is not None else UNKNOWN
        elif kind is _CONSTANT_NODE:
            type_name = type(node.value).__name__  # type: ignore[attr-defined]
            known = self.const_ir.get(type_name)
            if known is None:
                expr = Const(type_name)
                known = self.const_ir[type_name] = self.interned.setdefault(expr, expr)
            return known
        elif kind is _ATTRIBUTE_NODE:
            receiver = self.receivers.get(id(node))
            if receiver is None:
                receiver = self.ir(node.value)  # type: ignore[attr-defined]
            # The receiver is itself shared, so its identity and the name identify the form
            # (cheaper to hash than the form, which hashes the whole chain).
            key = (id(receiver), node.attr)  # type: ignore[attr-defined]
            known = self.attr_ir.get(key)
            if known is None:
                expr = Attr(receiver, node.attr)  # type: ignore[attr-defined]
                known = self.attr_ir[key] = self.interned.setdefault(expr, expr)
            return known
        else:
            expr = self._ir(node)
        return self.interned.setdefault(expr, expr)

    def _ir(self, node: ast.AST | None) -> Expr:
        if node is None:
            return UNKNOWN
        kind = node.__class__
        if kind is _NAME_NODE:
            return Name(node.id)  # type: ignore[attr-defined]
        if kind is _ATTRIBUTE_NODE:
            return Attr(self.ir(node.value), node.attr)  # type: ignore[attr-defined]
        if kind is _CALL_NODE:
            index = self.call_index.get(id(node))
            return CallOf(index) if index is not None else UNKNOWN
        if kind is _CONSTANT_NODE:
            return Const(type(node.value).__name__)  # type: ignore[attr-defined]
        if isinstance(node, ast.Lambda):
            qualname = self.lambda_names.get(id(node))
            return DefRef(qualname) if qualname else UNKNOWN
        if isinstance(node, ast.Subscript):
            key = node.slice
            const = key.value if isinstance(key, ast.Constant) else None
            return Sub(self.ir(node.value), const if isinstance(const, (str, int)) else None)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):  # `[*xs, y]`: xs's elements
            return Seq(tuple([Iter(self.ir(item.value)) if isinstance(item, ast.Starred)
                              else self.ir(item) for item in node.elts]))
        if isinstance(node, ast.Dict):
            items: list[tuple[str | int | None, Expr]] = []
            for key_node, value in zip(node.keys, node.values):
                key_value = key_node.value if isinstance(key_node, ast.Constant) else None
                items.append((key_value if isinstance(key_value, (str, int)) else None,
                              self.ir(value)))
            return DictLit(tuple(items))
        if isinstance(node, ast.IfExp):
            return Alts((self.ir(node.body), self.ir(node.orelse)))
        if isinstance(node, ast.BoolOp):
            return Alts(tuple([self.ir(value) for value in node.values]))
        if isinstance(node, (ast.Await, ast.Starred)):
            return self.ir(node.value)
        if isinstance(node, ast.NamedExpr):
            return self.ir(node.value)
        if isinstance(node, ast.Constant):
            return Const(type(node.value).__name__)
        if isinstance(node, ast.JoinedStr):
            return Const("str")
        return UNKNOWN
