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
from smellkit.facts import UNKNOWN, Attr, CallSite, Const, Expr, Iter, Name, Seq, Sub
from smellkit.graphs._propagation import FEW_INSTANCES, MAX_STEPS, NO_BIND
from smellkit.graphs._sequence import Sequence
from smellkit.graphs._sites import ENTER, call_sites, defined_methods, reaches_code
from smellkit.graphs._values import (
    CLASSES,
    INSTANCES,
    OPAQUE,
    POSITIONAL,
    Values,
)
from smellkit.graphs.builtin_names import BUILTIN_PREFIX

if TYPE_CHECKING:
    from smellkit.graphs.index import Index

__all__ = ["MAX_STEPS", "OPAQUE", "Solver", "call_sites", "defined_methods", "reaches_code"]

_PASS_THROUGH = {BUILTIN_PREFIX + "staticmethod": 0, BUILTIN_PREFIX + "classmethod": 0,
                 "typing.cast": 1, "typing_extensions.cast": 1}
"""Outside callables that return one of their arguments (by position)."""
_COPIES = frozenset(BUILTIN_PREFIX + name for name in (
    "list", "tuple", "set", "frozenset", "sorted", "reversed", "iter"))
"""Builtins that return a new container of their argument's elements."""
_SUPER = BUILTIN_PREFIX + "super"
_TYPE = BUILTIN_PREFIX + "type"
_NEXT = BUILTIN_PREFIX + "next"
_ITER = BUILTIN_PREFIX + "iter"
_DUNDER_BUILTINS = {BUILTIN_PREFIX + name: dunders for name, dunders in (
    ("len", ("__len__",)), ("str", ("__str__", "__repr__")), ("repr", ("__repr__",)),
    ("iter", ("__iter__",)), ("next", ("__next__",)), ("hash", ("__hash__",)),
    ("abs", ("__abs__",)), ("bool", ("__bool__", "__len__")), ("reversed", ("__reversed__",)),
    ("format", ("__format__", "__str__", "__repr__")), ("int", ("__int__",)),
    ("float", ("__float__",)), ("round", ("__round__",)), ("bytes", ("__bytes__",)))}
"""Builtins that call a special method of their first argument (the next ones when the class
does not define the first)."""
_CALLBACK_BUILTINS = frozenset({BUILTIN_PREFIX + "map", BUILTIN_PREFIX + "filter"})
"""Builtins that call the function among their arguments."""
_MAP = BUILTIN_PREFIX + "map"
_KEY_BUILTINS = frozenset(BUILTIN_PREFIX + name for name in ("sorted", "min", "max"))
"""Builtins that call their `key=` argument."""


class Solver(Values):
    """Calls on top of the values: targets, arguments, returns; built once per index, then
    reused by queries."""

    def __init__(self, index: Index):
        self.methods: dict[tuple[str, str], str | None] = {}
        self.layouts: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {}
        self.targets: dict[int, set[str]] = {}
        self.outside: set[int] = set()
        self.results: dict[int, int] = {}
        self.sequence = Sequence(index)
        super().__init__(index)

    # -- rules -------------------------------------------------------------------------------

    def _result(self, call: int) -> int:
        """The node of what call `call` returns, made when some expression uses it."""
        node = self.results.get(call)
        if node is None:
            site = self.sites[call]
            func = site.func
            if type(func) is Attr and func.attr in ENTER and site.protocol == "dunder":
                node = self.results[call] = self._new()
                self._rule(self.node_of(site.namespace or site.scope, func.base), self._on_entered,
                           call, node)
                return node
            # a special method's result: instances of a few classes (`FEW_INSTANCES`), since
            # `a + b` reaches the `__add__` of every class `a` may be an instance of
            node = self.results[call] = self._new(
                FEW_INSTANCES if site.protocol == "dunder" or self._dispatched(call) else NO_BIND)
            self._rule(self._callee(call),
                       self._on_protocol_result if site.protocol else self._on_result,
                       call, node)
        return node

    def _callee(self, call: int) -> int:
        """The node of what call `call` calls; at the top level of a module, the last of several
        assignments when it surely decides the value (`smellkit.graphs._sequence`)."""
        site = self.sites[call]
        func = site.func
        scope = site.scope
        if (type(func) is Name or type(func) is Sub) and not site.protocol \
                and scope in self.index.modules and site.namespace in ("", scope):
            value = self.sequence.last_write(scope, func, site.line)
            if value is not None:
                return self.node_of(scope, value)
        return self.node_of(site.namespace or scope, func)

    def _on_entered(self, call: int, result: int, value: str) -> None:
        """`with m as v`: what `m.__enter__()` returns, or `m` itself when the repository does
        not define its `__enter__` (a `contextmanager` function's value is what it yields)."""
        if value[0] == "i":
            func = self.sites[call].func
            assert isinstance(func, Attr)
            method = self._method(value[2:], func.attr)
            if method is not None:
                self._returned_at(call, method, 1, result, True)
                return
        self._add(result, {value})

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
            else:
                self._target(call, value[2:])
                self._builtin_calls_back(call, value[2:])
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
        elif kind in "uxgvwk":
            self.outside.add(call)
            self._container_method(call, kind, int(value[2:]))

    def _on_result(self, call: int, result: int, value: str) -> None:
        """What calling `value` at call site `call` returns."""
        kind = value[0]
        site = self.sites[call]
        if kind == "f" or kind == "b":
            self._returned_at(call, value[2:], 1 if kind == "b" else 0, result,
                              kind == "b" and self._overriding(call, value[2:]))
        elif kind == "c":
            self._add(result, {"i:" + value[2:]})
        elif kind == "i":
            method = self._method(value[2:], "__call__")
            if method is not None:
                self._returned_at(call, method, 1, result)
        elif kind == "N" and site.args:
            self._edge(self._proxy(self.node_of(site.namespace or site.scope, site.args[0]),
                                   INSTANCES), result)
        elif kind in "uxgvw":
            self._on_container_result(call, result, kind, int(value[2:]))
        elif kind in "eE":
            position = 0 if site.implicit else _PASS_THROUGH.get(value[2:])
            if position is not None:  # an outside decorator keeps the definition, as `cast` does
                if len(site.args) > position:
                    self._edge(self.node_of(site.namespace or site.scope, site.args[position]),
                               result)
            elif value == "e:" + _SUPER:
                self._edge(self._super(site), result)
            elif value == "e:" + _TYPE and len(site.args) == 1:
                self._edge(self._proxy(self.node_of(site.namespace or site.scope, site.args[0]),
                                       CLASSES), result)
            elif value == "e:" + _MAP:  # iterating gives what the function returns
                for argument in site.args:
                    self._rule(self.node_of(site.namespace or site.scope, argument),
                               self._on_mapped, None, result)
            elif value == "e:" + _NEXT and site.args:
                self._edge(self.node_of(site.namespace or site.scope, Iter(site.args[0])),
                           result)
            elif value[2:] in _COPIES and site.args:
                namespace = site.namespace or site.scope
                self.containers.append((True, namespace, ((None, Iter(site.args[0])),)))
                self._add(result, {f"o:{len(self.containers) - 1}"})
                if value == "e:" + _ITER:  # an instance's `__iter__` returns the iterator
                    self._rule(self.node_of(namespace, site.args[0]), self._on_iter_argument,
                               None, result)
            else:
                self._add(result, {OPAQUE})

    def _on_container_result(self, call: int, result: int, kind: str, number: int) -> None:
        site = self.sites[call]
        namespace = site.namespace or site.scope
        if kind == "g":  # get, pop, setdefault: an element, or the default given
            self._edge(self._all(number) if site.key is None else self._element(number, site.key),
                       result)
            if len(site.args) > 1:
                self._edge(self.node_of(namespace, site.args[1]), result)
        elif kind == "v":
            self._add(result, {f"o:{number}"})
        elif kind == "w" and isinstance(site.func, Attr):  # items: (key, element) pairs
            pair = Seq((UNKNOWN, Sub(site.func.base, None)))
            self.containers.append((True, namespace, ((None, pair),)))
            self._add(result, {f"o:{len(self.containers) - 1}"})

    def _container_method(self, call: int, kind: str, number: int) -> None:
        """Values a container method puts into container `number`."""
        site = self.sites[call]
        namespace = site.namespace or site.scope
        if kind == "u":
            if site.args:
                self._rule(self.node_of(namespace, site.args[0]), self._on_update, number, None)
            for name, argument in site.kwargs:
                if name is not None and argument != UNKNOWN and not isinstance(argument, Const):
                    source = self.node_of(namespace, argument)
                    self._edge(source, self._element(number, name))
                    self._edge(source, self._all(number))
        elif kind == "x" and site.args:
            self._edge(self.node_of(namespace, Iter(site.args[0])), self._unknown_key(number))
        elif (kind == "k" or (kind == "g" and isinstance(site.func, Attr)
                              and site.func.attr == "setdefault")) and len(site.args) > 1:
            source = self.node_of(namespace, site.args[1])
            if site.key is None:
                self._edge(source, self._unknown_key(number))
            else:  # as `d["k"] = v` (`_on_sub_store`)
                self._edge(source, self._element(number, site.key))
                self._edge(source, self._all(number))

    def _on_update(self, number: int, unused: None, value: str) -> None:
        """`d.update(mapping)`: the mapping's entries, by key where known."""
        if value[0] != "o":
            return
        other = int(value[2:])
        _, scope, items = self.containers[other]
        for key, item in items:
            source = self.node_of(scope, item)
            if key is None:
                self._edge(source, self._unknown_key(number))
            else:
                self._edge(source, self._element(number, key))
                self._edge(source, self._all(number))
        self._edge(self._unknown_key(other), self._unknown_key(number))

    def _builtin_calls_back(self, call: int, name: str) -> None:
        """Builtins that call code of their arguments: `len(x)` calls `x.__len__`,
        `map(f, xs)` calls `f`, `sorted(xs, key=f)` calls `f`."""
        site = self.sites[call]
        namespace = site.namespace or site.scope
        dunders = _DUNDER_BUILTINS.get(name)
        if dunders is not None and site.args:
            self._rule(self.node_of(namespace, site.args[0]), self._on_dunder_argument,
                       (call, dunders), None)
        if name in _CALLBACK_BUILTINS:  # any argument that is a function: as PyCG does
            for argument in site.args:
                self._rule(self.node_of(namespace, argument), self._on_callback, call, None)
        if name in _KEY_BUILTINS:
            for keyword, argument in site.kwargs:
                if keyword == "key":
                    self._rule(self.node_of(namespace, argument), self._on_callback, call, None)

    def _on_dunder_argument(self, wanted: tuple[int, tuple[str, ...]], unused: None,
                            value: str) -> None:
        if value[0] != "i":
            return
        call, dunders = wanted
        for dunder in dunders:
            method = self._method(value[2:], dunder)
            if method is not None:
                self._target(call, method)
                return

    def _on_mapped(self, unused: None, result: int, value: str) -> None:
        if value[0] == "f" or value[0] == "b":
            self._edge(self._returned(value[2:]), result)

    def _on_iter_argument(self, unused: None, result: int, value: str) -> None:
        if value[0] == "i":
            method = self._method(value[2:], "__iter__")
            if method is not None:
                self._edge(self._returned(method), result)

    def _on_callback(self, call: int, unused: None, value: str) -> None:
        kind = value[0]
        if kind == "f" or kind == "b":
            self._target(call, value[2:])
        elif kind == "c":
            self._target(call, self._method(value[2:], "__init__") or value[2:])
        elif kind == "i":
            method = self._method(value[2:], "__call__")
            if method is not None:
                self._target(call, method)

    # -- implicit calls ----------------------------------------------------------------------

    def _on_protocol(self, call: int, unused: None, value: str) -> None:
        """An implicit call (`CallSite.protocol`) reaches only code it can reach: a special
        method, the `__init__` of a class raised, a property's getter or setter, a descriptor's
        `__get__` / `__set__`."""
        kind = value[0]
        protocol = self.sites[call].protocol
        if protocol == "dunder":
            if kind == "f" or kind == "b":
                self._target(call, value[2:])
                self._bind(call, value[2:], 1 if kind == "b" else 0)
        elif protocol == "construct":
            if kind == "c":
                init = self._method(value[2:], "__init__")
                if init is not None:
                    self._target(call, init)
        elif kind == "f" or kind == "b":  # read / write
            if value[2:] in self.property_methods:
                self._target(call, value[2:])
        elif kind == "i":
            method = self._method(value[2:], "__get__" if protocol == "read" else "__set__")
            if method is not None:
                self._target(call, method)

    def _on_accessed(self, call: int, unused: None, value: str) -> None:
        """A read or write of an attribute of `value`: its getter or setter, looked up per
        class (a node per access held what each access may reach once more)."""
        func = self.sites[call].func
        assert isinstance(func, Attr)
        kind = value[0]
        if (kind == "i" and func.attr != "__class__") or kind == "c":
            self._rule(self._loaded(value, func.attr), self._on_protocol, call, None)
        elif kind == "m" or kind == "s":
            loaded = self._new()
            self._on_load(func.attr, loaded, value)
            self._rule(loaded, self._on_protocol, call, None)

    def _on_protocol_result(self, call: int, result: int, value: str) -> None:
        kind = value[0]
        if self.sites[call].protocol == "dunder":
            if kind == "f" or kind == "b":
                self._returned_at(call, value[2:], 1 if kind == "b" else 0, result, True)
            elif kind in "eE":
                self._add(result, {OPAQUE})
        elif kind == "c":  # raise / except: an instance of the class
            self._add(result, {"i:" + value[2:]})
        elif kind in "eE":
            self._add(result, {OPAQUE})

    def _dispatched(self, call: int) -> bool:
        """Whether call `call` is `self.m()` with `m` overridden in subclasses."""
        site = self.sites[call]
        func = site.func
        if type(func) is not Attr or type(func.base) is not Name:
            return False
        scope = site.namespace or site.scope
        owner = self.index.class_of.get(scope)
        if owner is None or func.base.id != self._receiver(scope):
            return False
        return any(func.attr in self.local_names.get(cls, ())
                   for cls in self._descendants(owner) if cls in self.index.classes)

    def _overriding(self, call: int, qualname: str) -> bool:
        """Whether `qualname` is reached at `self.m()` only as a subclass's override."""
        site = self.sites[call]
        func = site.func
        if type(func) is not Attr or type(func.base) is not Name:
            return False
        scope = site.namespace or site.scope
        owner = self.index.class_of.get(scope)
        if owner is None or func.base.id != self._receiver(scope):
            return False
        holder = self.index.class_of.get(qualname)
        return holder is not None and holder not in self.index.mro(owner)

    def _returned_at(self, call: int, qualname: str, shift: int, result: int,
                     implicit: bool = False) -> None:
        """What a call returns: test code's returns stay in test code (`in_tests`). A flow the
        program does not write (`implicit`: a special method Python calls, a subclass's
        override reached through `self`) carries what the return annotation declares when it
        names something, and instances of a few classes only (`FEW_INSTANCES`): those flows
        gave each result the union of what every class returns, and their spread through
        pandas tripled the solver's work for edges no analysis tells apart."""
        if not self.in_tests(qualname) or self.in_tests(self.sites[call].scope):
            if not implicit:
                self._edge(self._returned(qualname), result)
            else:
                self._edge(self._declared(qualname), self._few_into(result))
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
        # `self` may be an instance of a subclass: the MRO after `after` is that of its class
        key = ("super", after, cls)
        node = self.memo.get(key)
        if node is None:
            node = self.memo[key] = self._new()
            library = not self.in_tests(cls)
            self._add(node, {f"s:{after} {owner}" for owner in [cls, *self._descendants(cls)]
                             if owner in index.classes and after in index.mro(owner)
                             and not (library and self.in_tests(owner))})
        return node

    def _declared(self, qualname: str) -> int:
        """What `qualname` returns, as its return annotation says when it names something."""
        key = ("declared", qualname)
        node = self.memo.get(key)
        if node is not None:
            return node
        definition = self.index.definitions.get(qualname)
        promised = self._annotated(definition.parent, definition.returns) \
            if definition is not None and definition.returns else []
        if promised:
            node = self._new()
            self._add(node, set(promised))
        else:
            node = self._returned(qualname)
        self.memo[key] = node
        return node

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
            elif name is None:  # `**mapping`: its entries, by parameter name
                self._rule(node_of(namespace, argument), self._on_spread, qualname, None)
            elif argument != UNKNOWN and type(argument) is not Const \
                    and self._var_keyword(qualname):
                source = node_of(namespace, argument)
                number = self._keyword_container(qualname)
                self._edge(source, self._element(number, name))
                self._edge(source, self._all(number))

    def _var_keyword(self, qualname: str) -> str | None:
        for param in self.index.definitions[qualname].params:
            if param.kind == "var_keyword":
                return param.name
        return None

    def _on_spread(self, qualname: str, unused: None, value: str) -> None:
        if value[0] != "o":
            return
        number = int(value[2:])
        rest = self._var_keyword(qualname)
        for param in self.index.definitions[qualname].params:
            if param.kind in POSITIONAL[1:] or param.kind == "keyword_only":
                self._edge(self._element(number, param.name), self._var(qualname, param.name))
        if rest is not None:
            self.forward_keywords(number, self._keyword_container(qualname))

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
            if not site.protocol:
                self._rule(self._callee(call), self._on_call, call, None)
            elif site.protocol in ("read", "write"):  # the getter or setter, not its value
                assert isinstance(site.func, Attr)
                self._rule(self.node_of(site.scope, site.func.base), self._on_accessed, call,
                           None)
                if type(site.func.base) is Name and site.scope in self.index.class_of:
                    self._rule(self._with_overrides(site.scope, site.func.base.id,
                                                    site.func.attr, self.empty),
                               self._on_protocol, call, None)
            elif site.protocol != "instance":  # `call_sites` kept those that may reach code
                self._rule(self._callee(call), self._on_protocol, call, None)
        self.run()

    def release_unknown_decorators(self) -> None:
        """A decorator nothing is known about leaves the decorated name bound to the definition
        (a later pass: the emptiness of a callee is only known at the fixpoint)."""
        waiting = [call for call, site in enumerate(self.sites)
                   if site.implicit and site.args and not site.protocol]
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
        return self.pts[self._callee(call)]
