"""What may move out of a host module into a new sibling (`spread.py`): a callee moves only
when every global name it reads can be bound the same way in the new module, its class keeps
its meaning without it, and nothing reads it where it is defined."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.facts import Name as NameExpr
from smellkit.injectors.deep_inlining.imports import import_line
from smellkit.injectors.deep_inlining.names import names_of
from smellkit.injectors.deep_inlining.scope import binds, free_names

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext

_SPECIAL_BASES = frozenset({"NamedTuple", "TypedDict", "Enum", "IntEnum", "StrEnum", "Flag",
                            "IntFlag", "Protocol"})


class Movability:
    """Decides, once per callee, whether it can move out of its module (and keeps the parsed
    definitions and top-level bindings the move reuses)."""

    def __init__(self, context: InjectionContext):
        self.context = context
        self.index = context.index
        self._refusals: dict[str, str | None] = {}
        self._bindings: dict[str, tuple[dict[str, list[int]], set[str]]] = {}

    def require_movable(self, qualname: str, host: str) -> None:
        """Refused when this callee cannot move out of `host` (its caller's module)."""
        key = f"{host}|{qualname}"
        if key not in self._refusals:  # the reason, or None: decided once per callee
            try:
                self._require_movable(qualname, host)
                self._refusals[key] = None
            except InjectionRefused as refusal:
                self._refusals[key] = refusal.message
        reason = self._refusals[key]
        if reason is not None:
            raise InjectionRefused(reason)

    def _require_movable(self, qualname: str, host: str) -> None:
        definition = self.index.definitions.get(qualname)
        if definition is None or self.index.module_of.get(qualname) != host:
            raise InjectionRefused("not defined in the caller's module")
        if self.index.star_imports.get(host):
            raise InjectionRefused(f"{host} has a star import")
        owner = definition.parent
        if definition.kind == "method":
            cls = self.index.definitions.get(owner)
            if cls is None or cls.parent != host:
                raise InjectionRefused("a method of a nested class")
            if cls.decorators:
                raise InjectionRefused(f"{cls.name} is decorated")
            info = self.index.classes.get(owner)
            bases = [base.rpartition(".")[2] for base in (info.base_names if info else ())]
            if _SPECIAL_BASES & set(bases):
                raise InjectionRefused(f"{cls.name} is a named tuple, typed dict, enum or "
                                       "protocol")
            if info is not None and info.metaclass is not None:
                raise InjectionRefused(f"{cls.name} has a metaclass, which may read its "
                                       "namespace")
        elif owner != host:
            raise InjectionRefused("a nested function")
        node = self.moved_def(qualname)
        if definition.kind == "method":
            self._class_keeps_name(owner, definition.name)
        early = free_names(node, definition_time=True)
        for name in sorted(free_names(node)):
            self._require_binding(host, name, name in early)

    def _require_binding(self, host: str, name: str, early: bool) -> None:
        """Refused when `name`, read by code moving out of `host`, cannot be bound the same way
        in the new module; `early` when it is read where the function is defined (a default or
        an annotation)."""
        facts = self.index.modules[host]
        if self.own(host, name):
            if early:
                raise InjectionRefused(f"reads {name} of {host} where it is defined")
            if self._bound_once(host, name) is None:
                raise InjectionRefused(f"{name} is bound more than once or conditionally in "
                                       f"{host}")
            return
        if any(item.scope == host and item.bound == name for item in facts.imports):
            import_line(self.context, host, name, host + "._new")
            return
        found = self.index.resolve_name(host, name)
        if found is not None and found.startswith("<builtin>."):
            return
        raise InjectionRefused(f"cannot tell what {name} means in {host}")

    def own(self, host: str, name: str) -> bool:
        """`host` defines or assigns `name` itself (it is not imported or a builtin)."""
        facts = self.index.modules[host]
        return self.index.children.get(host, {}).get(name) is not None or any(
            item.scope == host and item.target == NameExpr(name) for item in facts.assignments)

    def _bound_once(self, host: str, name: str) -> int | None:
        """The index of the one top-level statement of `host` binding `name` (a def, a class
        or an assignment; never rebound, never declared global), None otherwise."""
        if any(declared == name for _, declared in self.index.modules[host].globals_declared):
            return None
        if host not in self._bindings:  # once per module: its statements can be big classes
            top: dict[str, list[int]] = {}
            maybe: set[str] = set()
            for number, statement in enumerate(self.context.module(
                    self.index.modules[host].path).body):
                for bound in binds(statement, top=True):
                    top.setdefault(bound, []).append(number)
                maybe |= binds(statement, top=False)
            self._bindings[host] = (top, maybe)
        top, maybe = self._bindings[host]
        found = top.get(name, [])
        return found[0] if len(found) == 1 and name not in maybe else None

    def moved_def(self, qualname: str) -> cst.FunctionDef:
        """The definition as it is written in its new module: an annotation that reads a name
        its old module defines (`state: ParsingState`) becomes a forward reference
        (`state: "ParsingState"`), bound for type checkers only (`hints.py`); evaluated where
        the function is defined, it would need the old module, which imports the new one."""
        node = self._def(qualname)
        host = self.index.module_of[qualname]
        own = {name for name in free_names(node, definition_time=True) if self.own(host, name)}
        return quoted_annotations(node, own) if own else node

    def _def(self, qualname: str) -> cst.FunctionDef:
        host = self.index.module_of[qualname]
        module = self.context.module(self.context.path_of(qualname) or "")
        parts = qualname[len(host) + 1:].split(".")
        body: Sequence[cst.BaseStatement] = module.body
        for position, part in enumerate(parts):
            found = [item for item in body if isinstance(item, (cst.FunctionDef, cst.ClassDef))
                     and item.name.value == part]
            if len(found) != 1:
                raise InjectionRefused(f"{part} is defined {len(found)} times where {qualname} is")
            (item,) = found
            if position == len(parts) - 1:
                if not isinstance(item, cst.FunctionDef):
                    raise InjectionRefused(f"{qualname} is not a function")
                return item
            if not isinstance(item.body, cst.IndentedBlock):
                raise InjectionRefused(f"{qualname} is in a one-line class")
            body = item.body.body
        raise InjectionRefused(f"{qualname} not found")

    def _class_keeps_name(self, cls: str, name: str) -> None:
        """Refused when the class body names the method outside its own `def` (an alias, a
        property built from it, a decorator): it would no longer be bound there."""
        node = self._def_class(cls)
        assert isinstance(node.body, cst.IndentedBlock)
        others: list[cst.CSTNode] = []
        for item in node.body.body:
            if isinstance(item, cst.FunctionDef):
                others.extend(item.decorators)
                if item.name.value == name:
                    continue
                others.extend([item.params])
            else:
                others.append(item)
        if name in names_of(others).used:
            raise InjectionRefused(f"the body of {cls} names {name}")
        if _super_reads(node, name):  # `super().name` in the class skips it to a base's:
            raise InjectionRefused(f"{cls} reads super().{name}")  # the mixin would answer instead

    def _def_class(self, cls: str) -> cst.ClassDef:
        host = self.index.module_of[cls]
        module = self.context.module(self.context.path_of(cls) or "")
        name = cls[len(host) + 1:]
        found = [item for item in module.body if isinstance(item, cst.ClassDef)
                 and item.name.value == name]
        if len(found) != 1 or not isinstance(found[0].body, cst.IndentedBlock):
            raise InjectionRefused(f"class {cls} is not one plain top-level class")
        return found[0]


def quoted_annotations(node: cst.FunctionDef, names: set[str]) -> cst.FunctionDef:
    """The function with every parameter and return annotation that reads one of `names`
    written as a string (left as it is when its text already holds a quote); defaults are
    not touched."""

    class Quote(cst.CSTTransformer):
        def leave_Annotation(self, original: cst.Annotation,
                             updated: cst.Annotation) -> cst.Annotation:
            if not names & names_of([updated.annotation]).used:
                return updated
            text = cst.Module([]).code_for_node(updated.annotation)
            if '"' in text or "'" in text or "\n" in text:
                return updated
            return updated.with_changes(annotation=cst.SimpleString(f'"{text}"'))

    params = node.params.visit(Quote())
    returns = node.returns.visit(Quote()) if node.returns else None
    assert isinstance(params, cst.Parameters)
    assert returns is None or isinstance(returns, cst.Annotation)
    return node.with_changes(params=params, returns=returns)


def _super_reads(node: cst.CSTNode, name: str) -> bool:
    found = False

    class Visit(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> None:
            nonlocal found
            value = attribute.value
            if attribute.attr.value == name and isinstance(value, cst.Call) and \
                    isinstance(value.func, cst.Name) and value.func.value == "super":
                found = True

    node.visit(Visit())
    return found
