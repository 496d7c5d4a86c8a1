"""Values of expressions for the points-to solver: names, parameters, imports, attributes of
modules, classes and instances, and containers, each a node made on demand
(`smellkit.graphs.pointsto` says what the values are and how calls are handled).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from smellkit.facts import (
    UNKNOWN,
    Alts,
    Attr,
    CallOf,
    CallSite,
    Const,
    DefRef,
    DictLit,
    Expr,
    Iter,
    Name,
    Seq,
    Sub,
)
from smellkit.graphs._propagation import NO_BIND, Propagation
from smellkit.graphs.builtin_names import BUILTIN_PREFIX

if TYPE_CHECKING:
    from smellkit.graphs.index import Index

OPAQUE = "E"
INSTANCE_BIND, CLASS_BIND, INSTANCES = 1, 2, 3
NEW = "N"  # `object.__new__`: calling it makes an instance of the class passed in
_MUTATORS = frozenset({"append", "add", "insert", "appendleft"})
_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))
POSITIONAL = ("positional_only", "positional")
_BUILTIN_TYPES = frozenset({
    "str", "bytes", "bytearray", "int", "float", "complex", "bool", "list", "dict", "set",
    "frozenset", "tuple", "List", "Dict", "Set", "FrozenSet", "Tuple", "Sequence", "Mapping",
    "MutableMapping", "MutableSequence", "MutableSet", "AbstractSet", "Iterable", "Iterator",
    "Collection", "Generator", "DefaultDict", "OrderedDict", "Deque", "Counter", "Pattern",
    "Match", "TextIO", "BinaryIO", "IO"})
"""Annotations naming these (from builtins or typing) promise an object from outside."""
_IMPLICIT_CLASSMETHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})
_MAX_EXTERNAL_DEPTH = 6


class Values(Propagation):
    """The repository's tables and the nodes of its expressions; `Solver` adds calls."""

    def __init__(self, index: Index):
        self.index = index
        self.sites: list[CallSite] = []
        self.offset: dict[str, int] = {}
        self.assigned: dict[tuple[str, str], list[tuple[str, Expr, tuple[str, ...]]]] = {}
        self.local_names: dict[str, set[str]] = {}
        self.attr_stores: dict[str, list[tuple[str, Expr, Expr, tuple[str, ...]]]] = {}
        self.sub_stores: list[tuple[str, Expr, str | int | None, Expr]] = []
        self.returns: dict[str, list[Expr]] = {}
        self.declared: set[tuple[str, str]] = set()
        self.pass_through: dict[str, frozenset[str]] = {}
        self._collect()
        self.memo: dict[Any, int] = {}
        self.expr_nodes: dict[str, dict[Expr, int]] = {}
        """Scope -> expression evaluated there -> its node."""
        self.attr_nodes: dict[tuple[int, str, bool], int] = {}
        """(node of the receiver, attribute, named) -> the node of the loaded attribute."""
        self.chains: dict[str, tuple[str, ...]] = {}
        self.outside_names: dict[tuple[str, str], bool] = {}
        self.annotation_memo: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        self.bound_values: dict[tuple[str, int], str] = {}
        self.receivers: dict[str, str | None] = {}
        self.bindings: dict[tuple[str, str], str | None] = {}
        self.loads: dict[tuple[str, str], int] = {}
        """(instance or class value, attribute name) -> the node of what loading it gives."""
        self.pending_args: dict[tuple[str, str], list[tuple[str, Expr]]] = {}
        self.binds: dict[str, list[tuple[int, int]]] = {}
        self.binding_live: set[str] = set()
        self.containers: list[tuple[bool, str, tuple[tuple[str | int | None, Expr], ...]]] = []
        self.stores_active: set[str] = set()
        self.sub_stores_active = False
        super().__init__()

    # -- hooks the call rules provide ------------------------------------------------------

    def _result(self, call: int) -> int:
        """The node of what call `call` returns."""
        raise NotImplementedError

    def _bind_now(self, call: int, qualname: str, shift: int) -> None:
        """Pass the call's arguments to the parameters of `qualname`."""
        raise NotImplementedError

    # -- static tables -----------------------------------------------------------------------

    def _collect(self) -> None:
        index = self.index
        for module, facts in index.modules.items():
            self.offset[module] = len(self.sites)
            self.sites.extend(facts.calls)
            self.declared.update(facts.globals_declared)
        for scope, names in index.scope_imports.items():
            self.local_names.setdefault(scope, set()).update(names)
        for qualname, definition in index.definitions.items():
            if definition.params:
                self.local_names.setdefault(qualname, set()).update(
                    param.name for param in definition.params)
        for facts in index.modules.values():
            for item in facts.assignments:
                target = item.target
                if isinstance(target, Name):
                    scope = item.scope
                    if (scope, target.id) in self.declared:
                        scope = self._outer_binding(scope, target.id)
                    self.assigned.setdefault((scope, target.id), []).append(
                        (item.scope, item.value, item.annotation))
                    self.local_names.setdefault(scope, set()).add(target.id)
                elif isinstance(target, Attr):
                    self.attr_stores.setdefault(target.attr, []).append(
                        (item.scope, target.base, item.value, item.annotation))
                elif isinstance(target, Sub):
                    self.sub_stores.append((item.scope, target.base, target.key, item.value))
            for ret in facts.returns:
                self.returns.setdefault(ret.scope, []).append(ret.value)
        for scope, values in self.returns.items():
            function = index.definitions.get(scope)
            if function is None or not function.params:
                continue
            params = {param.name for param in function.params}
            # `return param` with the parameter never rebound: each call gets its own argument
            through = frozenset(value.id for value in values
                                if isinstance(value, Name) and value.id in params
                                and all(assigned == UNKNOWN for _, assigned, _ in
                                        self.assigned.get((scope, value.id), ())))
            if through:
                self.pass_through[scope] = through

    def _outer_binding(self, scope: str, name: str) -> str:
        """The scope a `global` / `nonlocal` name of `scope` lives in."""
        chain = list(self.index.enclosing_scopes(scope))[1:]
        for outer in chain[:-1]:
            if name in self.local_names.get(outer, ()):
                return outer
        return chain[-1] if chain else scope

    def _chain(self, scope: str) -> tuple[str, ...]:
        chain = self.chains.get(scope)
        if chain is None:
            chain = self.chains[scope] = tuple(self.index.enclosing_scopes(scope))
        return chain


    def _on_store(self, name: str, source: int, value: str) -> None:
        letter = value[0]
        if letter in "ic":
            self._edge(source, self._field(value[2:], name))
        elif letter == "m":
            self._edge(source, self._var(value[2:], name))

    def _on_subscript(self, key: str | int | None, result: int, value: str) -> None:
        if value[0] == "o":
            number = int(value[2:])
            self._edge(self._all(number) if key is None else self._element(number, key), result)
        elif value[0] in "Ee":
            self._add(result, {OPAQUE})

    def _on_iter(self, unused: None, result: int, value: str) -> None:
        letter = value[0]
        if letter == "o":
            self._edge(self._all(int(value[2:])), result)
        elif letter in "Ee":
            self._add(result, {OPAQUE})
        elif letter in "fib":  # what a generator yields, or an iterable's own elements
            self._add(result, {value})

    def _on_sub_store(self, key: str | int | None, source: int, value: str) -> None:
        if value[0] == "o":
            number = int(value[2:])
            if key is None:
                self._edge(source, self._unknown_key(number))
            else:
                self._edge(source, self._element(number, key))
                self._edge(source, self._all(number))


    # -- expressions -------------------------------------------------------------------------

    def node_of(self, scope: str, expr: Expr) -> int:
        memo = self.expr_nodes.get(scope)
        if memo is None:
            memo = self.expr_nodes[scope] = {}
        else:
            node = memo.get(expr)
            if node is not None:
                return node
        if type(expr) is Name:
            node = self._name(scope, expr.id)
        elif type(expr) is Attr:
            base = self.node_of(scope, expr.base)
            named = self._names_outside(scope, expr.base)
            key = (base, expr.attr, named)
            found = self.attr_nodes.get(key)
            if found is None:  # `np.nan` in a thousand functions: one node
                node = self.attr_nodes[key] = self._new()
                self._rule(base, self._on_load_named if named else self._on_load, expr.attr, node)
            else:
                node = found
        elif isinstance(expr, CallOf):
            node = self._result(self.offset[self.index.scope_module(scope)] + expr.index)
        elif isinstance(expr, DefRef):
            definition = self.index.definitions.get(expr.qualname)
            node = self.empty if definition is None else self._const(
                ("c:" if definition.kind == "class" else "f:") + expr.qualname)
        elif isinstance(expr, Const):
            node = self._const(OPAQUE)
        elif isinstance(expr, Sub):
            node = self._new()
            self._rule(self.node_of(scope, expr.base), self._on_subscript, expr.key, node)
        elif isinstance(expr, Iter):
            node = self._new()
            self._rule(self.node_of(scope, expr.base), self._on_iter, None, node)
        elif isinstance(expr, Alts):
            node = self._new()
            for option in expr.options:
                self._edge(self.node_of(scope, option), node)
        elif isinstance(expr, (Seq, DictLit)):
            items = tuple(enumerate(expr.items)) if isinstance(expr, Seq) else expr.items
            self.containers.append((isinstance(expr, Seq), scope, items))
            node = self._new()
            self.pts[node].add(f"o:{len(self.containers) - 1}")
        else:
            node = self.empty
        memo[expr] = node
        return node

    def binding(self, scope: str, name: str) -> str | None:
        """The scope (function, class or module) where a name used in `scope` is bound."""
        key = (scope, name)
        found = self.bindings.get(key, "")
        if found != "":
            return found
        found = None
        local_names, declared = self.local_names, self.declared
        for current in self._chain(scope):
            if name in local_names.get(current, ()) and (current, name) not in declared:
                found = current
                break
        self.bindings[key] = found
        return found

    def _names_outside(self, scope: str, expr: Expr) -> bool:
        """Whether `expr` is a dotted chain from an imported name, so that its attributes are
        named (`os.path.join`) rather than opaque (`np.nan.real`, `x.real` for a parameter x)."""
        while isinstance(expr, Attr):
            expr = expr.base
        if not isinstance(expr, Name):
            return False
        key = (scope, expr.id)
        found = self.outside_names.get(key)
        if found is None:
            where = self.binding(scope, expr.id)
            found = self.outside_names[key] = where is not None \
                and (where, expr.id) not in self.assigned \
                and expr.id in self.index.scope_imports.get(where, {})
        return found

    def _name(self, scope: str, name: str) -> int:
        where = self.bindings.get((scope, name), "")
        if where == "":
            where = self.binding(scope, name)
        if where is not None:
            node = self.memo.get(("var", where, name))
            return node if node is not None else self._var(where, name)
        module = self._chain(scope)[-1]
        for star in self.index.star_imports.get(module, ()):
            if star in self.index.modules:
                found = self._module_attr(star, name, frozenset({module}))
                if found != self.empty:
                    return found
        if name in _BUILTIN_NAMES:
            return self._const("e:" + BUILTIN_PREFIX + name)
        return self.empty

    def _var(self, scope: str, name: str) -> int:
        """The node of variable `name` bound in `scope` (a function, class or module)."""
        key = ("var", scope, name)
        node = self.memo.get(key)
        if node is not None:
            return node
        assigned = self.assigned.get((scope, name), ())
        imported = self.index.scope_imports.get(scope, {}).get(name)
        definition = self.index.definitions.get(scope)
        if len(assigned) == 1 and isinstance(assigned[0][1], DefRef) and not assigned[0][2] \
                and imported is None and (definition is None or not definition.params):
            node = self.memo[key] = self.node_of(scope, assigned[0][1])  # `def f`: a constant
            return node
        node = self.memo[key] = self._new()
        params = definition is not None and bool(definition.params)
        if params:  # first: when the node fills up, what is certain is already in
            for source in self._param_intrinsic(scope, name):
                self._edge(source, node)
        for where, _, annotation in assigned:
            for promised in self._annotated(where, annotation):
                self._add(node, {promised})
        for where, value, _ in assigned:
            self._edge(self.node_of(where, value), node)
        if imported is not None:
            self._edge(self._import(imported), node)
        if params:
            if scope not in self.binding_live:  # the first parameter in use: pass arguments
                self.binding_live.add(scope)
                for call, shift in self.binds.pop(scope, ()):
                    self._bind_now(call, scope, shift)
            for where, value in self.pending_args.pop((scope, name), ()):
                self._edge(self.node_of(where, value), node)
        return node

    def _param_intrinsic(self, qualname: str, name: str) -> list[int]:
        """Sources of a parameter that are not call arguments: its default, `self` / `cls`."""
        definition = self.index.definitions[qualname]
        sources: list[int] = []
        for param in definition.params:
            if param.name != name:
                continue
            if param.default is not None:
                sources.append(self.node_of(definition.parent, param.default))
            if name == self._receiver(qualname):
                owner = self.index.class_of.get(qualname) or definition.parent
                kind = "c:" if "classmethod" in definition.decorators \
                    or definition.name in _IMPLICIT_CLASSMETHODS else "i:"
                sources.append(self._const(kind + owner))
            sources.extend(self._const(value)
                           for value in self._annotated(qualname, param.annotation))
        return sources

    def _receiver(self, qualname: str) -> str | None:
        """The `self` / `cls` parameter of a method: it only ever holds the method's class."""
        name = self.receivers.get(qualname, "")
        if name == "":
            name = None
            definition = self.index.definitions[qualname]
            owner = self.index.class_of.get(qualname) or (
                definition.parent if definition.kind == "lambda"
                and definition.parent in self.index.classes else None)
            if owner is not None and definition.params and \
                    definition.params[0].kind in POSITIONAL and \
                    "staticmethod" not in definition.decorators:
                name = definition.params[0].name
            self.receivers[qualname] = name
        return name

    def _annotated(self, scope: str, annotation: Sequence[str]) -> list[str]:
        """The values an annotation promises: instances of the repository's classes it names
        (`Self` too), and an outside object for builtin types such as `str` or `list[int]`."""
        if not annotation:
            return []
        key = (scope, tuple(annotation))
        found = self.annotation_memo.get(key)
        if found is None:
            found = self.annotation_memo[key] = []
            for text in annotation:
                head, _, rest = text.partition(".")
                if text.rpartition(".")[2] == "Self":
                    owner = scope if scope in self.index.classes else \
                        self.index.class_of.get(scope)
                    if owner is not None:
                        found.append("i:" + owner)
                    continue
                target = self.index.resolve_name(scope, head)
                if target is None:
                    continue
                full = f"{target}.{rest}" if rest else target
                resolved = self.index.resolve_dotted(full) or full
                if resolved in self.index.classes:
                    found.append("i:" + resolved)
                elif resolved.rpartition(".")[2] in _BUILTIN_TYPES and (
                        resolved.startswith(BUILTIN_PREFIX) or resolved.startswith("typing.")):
                    found.append(OPAQUE)
        return found

    def _import(self, target: str) -> int:
        key = ("import", target)
        node = self.memo.get(key)
        if node is not None:
            return node
        parts = target.split(".")
        node = self._const("e:" + target)
        for length in range(len(parts), 0, -1):
            prefix = ".".join(parts[:length])
            if prefix in self.index.modules:
                node = self._const("m:" + prefix)
                for position in range(length, len(parts)):
                    if position == length:
                        node = self._module_attr(prefix, parts[position], frozenset())
                        if node == self.empty:  # from a compiled extension module, say
                            node = self._const("e:" + target)
                            break
                    else:
                        loaded = self._new()
                        self._rule(node, self._on_load_named, parts[position], loaded)
                        node = loaded
                break
        self.memo[key] = node
        return node

    def _module_attr(self, module: str, name: str, seen: frozenset[str]) -> int:
        key = ("mattr", module, name)
        node = self.memo.get(key)
        if node is not None:
            return node
        submodule = f"{module}.{name}"
        bound = name in self.local_names.get(module, ())
        if submodule in self.index.modules:
            node = self._const("m:" + submodule)
            if bound:
                merged = self._new()
                self._edge(node, merged)
                self._edge(self._var(module, name), merged)
                node = merged
        elif bound:
            node = self._var(module, name)
        else:
            node = self.empty
            for star in self.index.star_imports.get(module, ()):
                if star in self.index.modules and star not in seen:
                    node = self._module_attr(star, name, seen | {module})
                    if node != self.empty:
                        break
        self.memo[key] = node
        return node

    def _class_attr(self, cls: str, name: str, transform: int, after: str | None = None) -> int:
        """`name` looked up on class `cls` or on its instances, through the MRO."""
        key = ("cattr", cls, name, transform, after)
        node = self.memo.get(key)
        if node is not None:
            return node
        node = self.memo[key] = self._new()
        order = self.index.mro(cls)
        if after is not None:
            order = order[order.index(after) + 1:] if after in order else []
        classes = self.index.classes
        outside = False
        for owner in order:
            if owner not in classes:
                outside = outside or owner not in ("object", "builtins.object")
            elif name in self.local_names.get(owner, ()):
                self._edge(self._proxy(self._var(owner, name), transform), node)
                break
        else:
            if name == "__new__":
                self._add(node, {NEW})
            elif outside or name[:2] == "__" == name[-2:]:  # from outside, or from `object`
                self._add(node, {OPAQUE})
        if after is None:
            for owner in order:
                if owner in classes:
                    self._edge(self._field(owner, name), node)
        return node

    def _proxy(self, source: int, transform: int) -> int:
        if transform == NO_BIND:
            return source
        key = ("proxy", source, transform)
        node = self.memo.get(key)
        if node is None:
            node = self.memo[key] = self._new(transform)
            self._edge(source, node)
        return node

    def _bind_value(self, value: str, transform: int) -> str:
        """A function read from a class: bound through an instance, and classmethods always.
        For `INSTANCES`: a class gives its instances, anything else nothing ("")."""
        if transform == INSTANCES:
            return "i:" + value[2:] if value[0] == "c" else ""
        if value[0] != "f":
            return value
        key = (value, transform)
        bound = self.bound_values.get(key)
        if bound is None:
            definition = self.index.definitions.get(value[2:])
            decorators = definition.decorators if definition else ()
            bound = value
            if "staticmethod" not in decorators and (
                    transform == INSTANCE_BIND or "classmethod" in decorators):
                bound = "b:" + value[2:]
            self.bound_values[key] = bound
        return bound

    def _field(self, cls: str, name: str) -> int:
        """Values stored as attribute `name` on instances of `cls` (or on `cls` from outside)."""
        key = ("field", cls, name)
        node = self.memo.get(key)
        if node is not None:
            return node
        node = self.memo[key] = self._new()
        if name not in self.stores_active:
            self.stores_active.add(name)
            for scope, receiver, value, annotation in self.attr_stores.get(name, ()):
                source = self.node_of(scope, value)
                promised = self._annotated(scope, annotation)
                if promised:
                    typed = self._new()
                    self._edge(source, typed)
                    self._add(typed, set(promised))
                    source = typed
                self._rule(self.node_of(scope, receiver), self._on_store, name, source)
        return node


    # -- containers --------------------------------------------------------------------------

    def _activate_sub_stores(self) -> None:
        if not self.sub_stores_active:
            self.sub_stores_active = True
            for scope, base, key, value in self.sub_stores:
                self._rule(self.node_of(scope, base), self._on_sub_store, key,
                           self.node_of(scope, value))

    def _unknown_key(self, number: int) -> int:
        """Values stored in container `number` under keys not known statically."""
        key = ("unk", number)
        node = self.memo.get(key)
        if node is None:
            node = self.memo[key] = self._new()
            self._edge(node, self._all(number))
        return node

    def _all(self, number: int) -> int:
        key = ("all", number)
        node = self.memo.get(key)
        if node is None:
            node = self.memo[key] = self._new()
            _, scope, items = self.containers[number]
            for _, value in items:
                self._edge(self.node_of(scope, value), node)
            self._activate_sub_stores()
        return node

    def _element(self, number: int, wanted: str | int) -> int:
        is_seq, scope, items = self.containers[number]
        if is_seq and isinstance(wanted, int) and wanted < 0:
            wanted += len(items)
        key = ("elem", number, wanted)
        node = self.memo.get(key)
        if node is None:
            node = self.memo[key] = self._new()
            for item_key, value in items:
                if item_key is None or item_key == wanted:
                    self._edge(self.node_of(scope, value), node)
            self._edge(self._unknown_key(number), node)
            self._activate_sub_stores()
        return node


    # -- rules -------------------------------------------------------------------------------

    def _on_load_named(self, name: str, result: int, value: str) -> None:
        """An attribute of a dotted chain from an import: outside names stay names."""
        self._on_load(name, result, value, True)

    def _on_load(self, name: str, result: int, value: str, named: bool = False) -> None:
        kind = value[0]
        if kind == "i" or kind == "c":
            key = (value, name)
            source = self.loads.get(key)
            if source is None:
                source = self.loads[key] = self._class_attr(
                    value[2:], name, INSTANCE_BIND if kind == "i" else CLASS_BIND)
            self._edge(source, result)
        elif kind == "m":
            self._edge(self._module_attr(value[2:], name, frozenset()), result)
        elif kind == "e":
            dotted = f"{value[2:]}.{name}"
            if name == "__new__" and dotted.startswith(BUILTIN_PREFIX):
                self._add(result, {NEW})
            else:
                self._add(result, {"e:" + dotted if named and not dotted.startswith(BUILTIN_PREFIX)
                                   and dotted.count(".") < _MAX_EXTERNAL_DEPTH else OPAQUE})
        elif kind == "s":
            after, _, cls = value[2:].partition(" ")
            self._edge(self._class_attr(cls, name, INSTANCE_BIND, after), result)
        elif kind == "o":
            self._add(result, {"a:" + value[2:] if name in _MUTATORS else OPAQUE})
        elif kind in "EfbON":
            self._add(result, {OPAQUE})

