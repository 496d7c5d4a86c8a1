"""The points-to solver behind the call graph: a flow-insensitive analysis over the facts IR, in the
spirit of PyCG.

Every name, parameter, attribute, return value and container element is a node holding the set of
abstract values it may point to; assignments, argument passing and returns are subset edges between
nodes; attribute loads and stores, subscripts, iteration and calls are rules that add edges as
values arrive. One worklist runs the system to its fixpoint. Nodes are made on demand, so only what
some call site (or a later `types_of` query) needs is ever evaluated.

Abstract values are short strings, a kind letter and a name:

    f:q  function or lambda `q`        b:q  `q` bound to an instance (its first parameter is taken)
    c:C  the class `C`                 i:C  an instance of `C`
    m:M  the module `M`                e:X  the outside name `X` (`<builtin>.len`, `os.path.join`)
    E    an object from outside the repository (what `np.zeros()` returned, a `str`, ...)
    o:N  container literal number N    O    some container (too many meet at one node to tell)
    a:N  `append`-like method of N     s:A C  `super(A, self)` with `self` an instance of `C`
    N    `object.__new__`

As in PyCG, `self` in a method of `C` is an instance of `C`: calls on `self` resolve through the MRO
of the class defining the method; it is context-insensitive, except that a function returning one
of its parameters unchanged (an identity decorator) returns each call's own argument.

The bound: a node keeps a bounded number of values, chosen in a fixed order (`_propagation`); what
a node is sure of (a parameter's annotation, `self`) goes in first.

Three layers, one module each: `_propagation` (nodes, edges, rules, the worklist), `_values` (the
nodes of names, attributes, imports and containers) and this one (calls: targets, arguments,
returns, and the entry points).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from smellkit._internal.collector import paused_gc
from smellkit.facts import UNKNOWN, CallSite, Const, Expr, Iter, Name
from smellkit.graphs._propagation import MAX_STEPS
from smellkit.graphs._values import (
    INSTANCES,
    OPAQUE,
    POSITIONAL,
    Values,
)
from smellkit.graphs.builtin_names import BUILTIN_PREFIX

if TYPE_CHECKING:
    from smellkit.graphs.index import Index

__all__ = ["MAX_STEPS", "OPAQUE", "Solver"]

_PASS_THROUGH = {BUILTIN_PREFIX + "staticmethod": 0, BUILTIN_PREFIX + "classmethod": 0,
                 "typing.cast": 1, "typing_extensions.cast": 1}
"""Outside callables that return one of their arguments (by position)."""
_COPIES = frozenset(BUILTIN_PREFIX + name for name in (
    "list", "tuple", "set", "frozenset", "sorted", "reversed", "iter"))
"""Builtins that return a new container of their argument's elements."""
_SUPER = BUILTIN_PREFIX + "super"


class Solver(Values):
    """Calls on top of the values: targets, arguments, returns; built once per index, then
    reused by queries."""

    def __init__(self, index: Index):
        self.methods: dict[tuple[str, str], str | None] = {}
        self.layouts: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {}
        self.targets: dict[int, set[str]] = {}
        self.outside: set[int] = set()
        self.results: dict[int, int] = {}
        super().__init__(index)

    # -- rules -------------------------------------------------------------------------------

    def _result(self, call: int) -> int:
        """The node of what call `call` returns, made when some expression uses it."""
        node = self.results.get(call)
        if node is None:
            node = self.results[call] = self._new()
            site = self.sites[call]
            self._rule(self.node_of(site.namespace or site.scope, site.func), self._on_result,
                       call, node)
        return node

    def _method(self, cls: str, name: str) -> str | None:
        key = (cls, name)
        if key not in self.methods:
            self.methods[key] = self.index.lookup_method(cls, name)
        return self.methods[key]

    def _target(self, call: int, name: str) -> None:
        targets = self.targets.get(call)
        if targets is None:
            self.targets[call] = {name}
        else:
            targets.add(name)

    def _on_call(self, call: int, unused: None, value: str) -> None:
        kind = value[0]
        if kind == "f" or kind == "b":
            qualname = value[2:]
            targets = self.targets.get(call)
            if targets is None:
                self.targets[call] = {qualname}
            else:
                targets.add(qualname)
            if qualname in self.binding_live:
                self._bind_now(call, qualname, 1 if kind == "b" else 0)
            else:
                self.binds.setdefault(qualname, []).append((call, 1 if kind == "b" else 0))
        elif kind == "c":
            init = self._method(value[2:], "__init__")
            self._target(call, init or value[2:])
            if init is not None:
                self._bind(call, init, 1)
        elif kind == "e":
            if self.sites[call].implicit:  # an outside decorator: no edge, as for builtins
                self.outside.add(call)
            elif value != "e:" + _SUPER:
                self._target(call, value[2:])
            else:
                self.targets.setdefault(call, set())
        elif kind == "i":
            method = self._method(value[2:], "__call__")
            if method is not None:
                self._target(call, method)
                self._bind(call, method, 1)
        elif kind == "E" or kind == "N":
            self.outside.add(call)
        elif kind == "a" and self.sites[call].args:
            self.outside.add(call)
            site = self.sites[call]
            self._edge(self.node_of(site.namespace or site.scope, site.args[-1]),
                       self._unknown_key(int(value[2:])))

    def _on_result(self, call: int, result: int, value: str) -> None:
        """What calling `value` at call site `call` returns."""
        kind = value[0]
        site = self.sites[call]
        if kind == "f" or kind == "b":
            self._returned_at(call, value[2:], 1 if kind == "b" else 0, result)
        elif kind == "c":
            self._add(result, {"i:" + value[2:]})
        elif kind == "i":
            method = self._method(value[2:], "__call__")
            if method is not None:
                self._returned_at(call, method, 1, result)
        elif kind == "N" and site.args:
            self._edge(self._proxy(self.node_of(site.namespace or site.scope, site.args[0]),
                                   INSTANCES), result)
        elif kind in "eE":
            position = 0 if site.implicit else _PASS_THROUGH.get(value[2:])
            if position is not None:  # an outside decorator keeps the definition, as `cast` does
                if len(site.args) > position:
                    self._edge(self.node_of(site.namespace or site.scope, site.args[position]),
                               result)
            elif value == "e:" + _SUPER:
                self._edge(self._super(site), result)
            elif value[2:] in _COPIES and site.args:
                namespace = site.namespace or site.scope
                self.containers.append((True, namespace, ((None, Iter(site.args[0])),)))
                self._add(result, {f"o:{len(self.containers) - 1}"})
            else:
                self._add(result, {OPAQUE})

    def _returned_at(self, call: int, qualname: str, shift: int, result: int) -> None:
        self._edge(self._returned(qualname), result)
        for name in self.pass_through.get(qualname, ()):
            argument = self._argument(call, qualname, shift, name)
            if argument is not None:
                self._edge(argument, result)

    def _super(self, site: CallSite) -> int:
        index = self.index
        method = site.scope
        while method in index.definitions and method not in index.class_of:
            method = index.definitions[method].parent
        cls = index.class_of.get(method)
        if cls is None:
            return self.empty
        after = cls
        if site.args and isinstance(site.args[0], Name):
            named = index.resolve_name(site.namespace or site.scope, site.args[0].id)
            if named in index.classes:
                after = named
        return self._const(f"s:{after} {cls}")

    def _returned(self, qualname: str) -> int:
        key = ("ret", qualname)
        node = self.memo.get(key)
        if node is not None:
            return node
        node = self.memo[key] = self._new()
        definition = self.index.definitions.get(qualname)
        if definition is not None and definition.returns:
            for promised in self._annotated(definition.parent, definition.returns):
                self._add(node, {promised})
        through = self.pass_through.get(qualname, frozenset())
        for value in self.returns.get(qualname, ()):
            if isinstance(value, Name) and value.id in through:
                for source in self._param_intrinsic(qualname, value.id):
                    self._edge(source, node)
            else:
                self._edge(self.node_of(qualname, value), node)
        return node

    def _bind(self, call: int, qualname: str, shift: int) -> None:
        """Pass the call's arguments to the parameters of `qualname`, once one is in use."""
        if qualname in self.binding_live:
            self._bind_now(call, qualname, shift)
        else:
            self.binds.setdefault(qualname, []).append((call, shift))

    def _bind_now(self, call: int, qualname: str, shift: int) -> None:
        layout = self.layouts.get(qualname)
        positional, keywords = layout if layout is not None else self._layout(qualname)
        if not keywords and not positional:
            return
        site = self.sites[call]
        namespace = site.namespace or site.scope
        # `_pass` inline: this runs for every (call site, callee) pair
        memo, node_of, edge = self.memo, self.node_of, self._edge
        count = len(positional)
        index = shift
        for argument in site.args:
            if index >= count:
                break
            # the first parameter may be a receiver
            if (index or positional[0] != self._receiver(qualname)) and \
                    argument != UNKNOWN and type(argument) is not Const:
                param = positional[index]
                node = memo.get(("var", qualname, param))
                if node is not None:
                    edge(node_of(namespace, argument), node)
                else:
                    self.pending_args.setdefault((qualname, param), []).append(
                        (namespace, argument))
            index += 1
        for name, argument in site.kwargs:
            if name in keywords:
                self._pass(call, qualname, name, namespace, argument)

    def _layout(self, qualname: str) -> tuple[tuple[str, ...], frozenset[str]]:
        """Names of the positional parameters, and of those a keyword can name."""
        layout = self.layouts.get(qualname)
        if layout is None:
            params = self.index.definitions[qualname].params
            layout = self.layouts[qualname] = (
                tuple(param.name for param in params if param.kind in POSITIONAL),
                frozenset(param.name for param in params if param.kind != "positional_only"))
        return layout

    def _pass(self, call: int, qualname: str, name: str, namespace: str, argument: Expr) -> None:
        if argument == UNKNOWN or isinstance(argument, Const):
            return
        node = self.memo.get(("var", qualname, name))
        if node is not None:
            self._edge(self.node_of(namespace, argument), node)
        else:
            self.pending_args.setdefault((qualname, name), []).append((namespace, argument))

    def _argument(self, call: int, qualname: str, shift: int, name: str) -> int | None:
        """The node of the argument call `call` passes to parameter `name`, if any."""
        site = self.sites[call]
        positional, _ = self._layout(qualname)
        found: Expr | None = None
        if name in positional and 0 <= positional.index(name) - shift < len(site.args):
            found = site.args[positional.index(name) - shift]
        for keyword, value in site.kwargs:
            if keyword == name:
                found = value
        if found is None or found == UNKNOWN or isinstance(found, Const):
            return None
        return self.node_of(site.namespace or site.scope, found)


    # -- entry points ------------------------------------------------------------------------

    def solve(self) -> None:
        for call, site in enumerate(self.sites):
            self._rule(self.node_of(site.namespace or site.scope, site.func), self._on_call, call,
                       None)
        self.run()

    def release_unknown_decorators(self) -> None:
        """A decorator nothing is known about leaves the decorated name bound to the definition
        (a later pass: the emptiness of a callee is only known at the fixpoint)."""
        waiting = [call for call, site in enumerate(self.sites) if site.implicit and site.args]
        for _ in range(3):
            released = [call for call in waiting if not self.callee_values(call)]
            for call in released:
                site = self.sites[call]
                self._edge(self.node_of(site.namespace or site.scope, site.args[0]),
                           self._result(call))
            self.run()
            gone = set(released)
            waiting = [call for call in waiting if call not in gone]
            if not released:
                break

    def values_of(self, queries: Iterable[tuple[str, Expr]]) -> list[set[str]]:
        """The values each expression may have, after propagating what the queries need."""
        with paused_gc():
            nodes = [self.node_of(scope, expr) for scope, expr in queries]
            self.run()
        return [self.pts[node] for node in nodes]

    def callee_values(self, call: int) -> set[str]:
        site = self.sites[call]
        return self.pts[self.node_of(site.namespace or site.scope, site.func)]
