"""The repository-wide index: every definition by qualified name, name lookup across modules, MRO.

The index is built in the main process from all files' facts. Graphs hang off it as cached
properties so a caller pays only for the ones it uses.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from smellkit._internal.collector import Derived
from smellkit.facts import ClassInfo, Definition, FileFacts
from smellkit.graphs.builtin_names import BUILTIN_NAMES, BUILTIN_PREFIX

if TYPE_CHECKING:
    import networkx as nx

    from smellkit._internal.forking import Standby
    from smellkit.graphs.calls import CallGraph
    from smellkit.graphs.pointsto import Solver


class Index(Derived):
    """Definitions, scopes, imports and classes of the whole repository, by qualified name."""

    def __init__(self, files: Sequence[FileFacts], *, root: Path | None = None,
                 inference_budget: int = 5000):
        self.files = list(files)
        self.root = root
        """The project folder the facts' paths are relative to; astroid inference needs it."""
        self.inference_budget = inference_budget
        """At most this many unresolved call sites go to astroid when the call graph is built."""
        self.standby: Standby | None = None
        """A child waiting to run astroid while the call graph is built (`Standby` says why)."""
        self.modules: dict[str, FileFacts] = {}
        self.definitions: dict[str, Definition] = {}
        self.classes: dict[str, ClassInfo] = {}
        self.class_of: dict[str, str] = {}
        """Method qualname -> the class that defines it."""
        self.module_of: dict[str, str] = {}
        """Definition qualname -> its module."""
        self.children: dict[str, dict[str, str]] = {}
        """Scope qualname -> name defined directly in it -> the definition's qualname."""
        self.scope_imports: dict[str, dict[str, str]] = {}
        """Scope qualname -> name bound by an import there -> absolute dotted target."""
        self.star_imports: dict[str, list[str]] = {}
        self._mros: dict[str, list[str]] = {}
        """Class qualname -> its MRO, filled by the first `mro` query for every class."""
        self._mro_active: set[str] | None = None
        """Classes whose MRO is being computed; None before the first `mro` query."""
        for facts in self.files:
            self.modules.setdefault(facts.module, facts)
        for facts in self.modules.values():
            for definition in facts.definitions:
                self.definitions.setdefault(definition.qualname, definition)
                self.module_of[definition.qualname] = facts.module
                self.children.setdefault(definition.parent, {})[definition.name] = \
                    definition.qualname
                if definition.kind == "method":
                    self.class_of[definition.qualname] = definition.parent
            for info in facts.classes:
                self.classes.setdefault(info.qualname, info)
            for item in facts.imports:
                if item.bound == "*":
                    self.star_imports.setdefault(item.scope, []).append(item.target)
                else:
                    self.scope_imports.setdefault(item.scope, {})[item.bound] = item.target

    # -- name resolution --------------------------------------------------------------------

    def resolve_dotted(self, dotted: str) -> str | None:
        """The module or definition an absolute dotted name denotes, following re-exports.

        `pkg.f` where `pkg/__init__.py` does `from .impl import f` gives `pkg.impl.f`.
        Returns None for names outside the repository, and for re-exports that only lead back
        to themselves (`from .b import X` in a, `from .a import X` in b, star imports in a ring).
        """
        return self._resolve_dotted(dotted, {})

    def member(self, container: str, name: str) -> str | None:
        """`container.name` where container is a module, class or function qualname."""
        return self._member(container, name, {})

    def _resolve_dotted(self, dotted: str, done: dict[str, str | None]) -> str | None:
        """`resolve_dotted` within one query: `done` holds each dotted name met so far with what
        it gave, None while it is being resolved. A name that comes back to itself gives None,
        and each name is followed once, so rings and lattices of star imports take time linear
        in the names they reach (following every path through them took exponential time)."""
        if dotted in self.modules or dotted in self.definitions:
            return dotted
        if dotted in done:
            return done[dotted]
        done[dotted] = None
        head, _, last = dotted.rpartition(".")
        found = None
        if head:
            container = self._resolve_dotted(head, done)
            if container is not None:
                found = self._member(container, last, done)
        done[dotted] = found
        return found

    def _member(self, container: str, name: str, done: dict[str, str | None]) -> str | None:
        child = self.children.get(container, {}).get(name)
        if child is not None:
            return child
        if container in self.modules:
            submodule = f"{container}.{name}"
            target = self.scope_imports.get(container, {}).get(name)
            if target is not None and target != submodule:
                return self._resolve_dotted(target, done)
            if submodule in self.modules:
                return submodule
            for star in self.star_imports.get(container, ()):
                found = self._resolve_dotted(f"{star}.{name}", done)
                if found is not None:
                    return found
        if container in self.classes:
            for base in self.mro(container)[1:]:
                child = self.children.get(base, {}).get(name)
                if child is not None:
                    return child
        return None

    def enclosing_scopes(self, scope: str) -> Iterator[str]:
        """`scope`, then the functions around it, then its module; class bodies are skipped."""
        first = True
        while scope in self.definitions:
            definition = self.definitions[scope]
            if first or definition.kind != "class":
                yield scope
            first = False
            scope = definition.parent
        yield scope

    def resolve_name(self, scope: str, name: str, *, unbound: str | None = None) -> str | None:
        """What a bare name in `scope` refers to: a definition, a module or an external dotted name.

        Looks in the scope, the enclosing functions and the module, as Python does (minus
        assignments, which the call resolver tracks itself). Builtins come back as `<builtin>.x`.
        The definition `unbound` is passed over: its name is not bound yet where the name is
        read (the bases of `class X(X)` are evaluated before the class statement binds `X`).
        """
        done: dict[str, str | None] = {}
        for current in self.enclosing_scopes(scope):
            child = self.children.get(current, {}).get(name)
            if child is not None and child != unbound:
                return child
            target = self.scope_imports.get(current, {}).get(name)
            if target is not None:
                return self._resolve_dotted(target, done) or target
            if current in self.modules:
                for star in self.star_imports.get(current, ()):
                    found = self._resolve_dotted(f"{star}.{name}", done)
                    if found is not None:
                        return found
        if name in BUILTIN_NAMES:
            return BUILTIN_PREFIX + name
        return None

    def resolve_reference(self, scope: str, dotted: str) -> str | None:
        """What a dotted reference written in `scope` denotes (`np.ndarray`, an annotation's text):
        its head resolved as a bare name there, the rest followed through re-exports."""
        head, _, rest = dotted.partition(".")
        target = self.resolve_name(scope, head)
        if target is None:
            return None
        full = f"{target}.{rest}" if rest else target
        return self.resolve_dotted(full) or full

    def scope_module(self, scope: str) -> str:
        return scope if scope in self.modules else self.module_of.get(scope, scope)

    # -- classes ----------------------------------------------------------------------------

    def bases(self, class_qualname: str) -> list[str]:
        """Resolved bases: in-repository classes by qualname, others by their dotted name.

        A base is read before the class's own name is bound, so in `from a import X` then
        `class X(X)` the base is `a.X`. A base that still comes out as the class itself (through
        a module that imports itself, say) names a binding the index cannot see; it is left out,
        since no class is its own base.
        """
        info = self.classes.get(class_qualname)
        if info is None:
            return []
        parent = self.definitions[class_qualname].parent
        resolved: list[str] = []
        for text in info.base_names:
            if not text:
                continue
            head, _, rest = text.partition(".")
            target = self.resolve_name(parent, head, unbound=class_qualname)
            if target is None:
                resolved.append(text)
                continue
            full = f"{target}.{rest}" if rest else target
            base = self.resolve_dotted(full) or full
            if base != class_qualname:
                resolved.append(base)
        return resolved

    def mro(self, class_qualname: str) -> list[str]:
        """C3 linearisation over the repository's classes; external bases end the chain.

        Each class comes once, the class itself first. Where bases form a cycle (which Python
        rejects, so it comes from names resolved to the wrong class), the base that leads back
        to a class whose linearisation is under way ends the chain there too.
        """
        found = self._mros.get(class_qualname)
        if found is not None:
            return found
        if self._mro_active is None:  # the first query: linearise every class, in index order
            self._mro_active = set()
            for name in self.classes:
                self._linearise(name)
            return self._mros.get(class_qualname) or [class_qualname]
        # during that pass, resolving a base such as `Other.Inner` needs Other's MRO now
        return self._linearise(class_qualname)

    def _linearise(self, name: str) -> list[str]:
        found = self._mros.get(name)
        if found is not None:
            return found
        active = self._mro_active
        if name not in self.classes or active is None or name in active:
            return [name]
        active.add(name)
        try:
            bases = self.bases(name)
            sequences = [self._linearise(base) for base in bases] + [list(bases)]
        finally:
            active.discard(name)
        order = [name]
        sequences = [[item for item in sequence if item != name] for sequence in sequences]
        sequences = [sequence for sequence in sequences if sequence]
        while sequences:
            for sequence in sequences:
                head = sequence[0]
                if not any(head in other[1:] for other in sequences):
                    break
            else:  # inconsistent hierarchy: fall back to depth-first order
                head = sequences[0][0]
            order.append(head)
            sequences = [[item for item in sequence if item != head] for sequence in sequences]
            sequences = [sequence for sequence in sequences if sequence]
        self._mros[name] = order
        return order

    def lookup_method(self, class_qualname: str, name: str, *, after: str | None = None) -> \
            str | None:
        """The definition `name` found through the MRO, starting after `after` (for super())."""
        order = self.mro(class_qualname)
        if after is not None and after in order:
            order = order[order.index(after) + 1:]
        for cls in order:
            child = self.children.get(cls, {}).get(name)
            if child is not None:
                return child
        return None

    def subclasses(self, class_qualname: str) -> list[str]:
        return sorted(self.class_graph.predecessors(class_qualname)) \
            if class_qualname in self.class_graph else []

    def descendants(self, class_qualname: str) -> list[str]:
        """Every class inheriting from this one, directly or not, sorted."""
        import networkx as nx

        graph = self.class_graph
        return sorted(nx.ancestors(graph, class_qualname)) if class_qualname in graph else []

    # -- graphs -----------------------------------------------------------------------------

    @cached_property
    def calls(self) -> CallGraph:
        """On big code the attribute graph's type queries run while astroid infers in another
        process (the scan's `standby`, else a forked child): each takes about a second on pandas.
        The graphs that need no call graph are built then too."""
        from smellkit._internal.forking import MIN_DEFINITIONS
        from smellkit.graphs.calls import build_call_graph

        if len(self.definitions) >= MIN_DEFINITIONS:
            return build_call_graph(self, alongside=self._alongside_inference, fork=True,
                                    standby=self.standby)
        return build_call_graph(self)

    def _alongside_inference(self, solver: Solver) -> None:
        from smellkit.graphs.attributes import keep_graph

        keep_graph(self, solver)
        self.import_graph  # noqa: B018 - each is kept on the index
        self.class_graph  # noqa: B018

    @property
    def call_graph(self) -> nx.DiGraph:
        return self.calls.graph

    @cached_property
    def import_graph(self) -> nx.DiGraph:
        from smellkit.graphs.imports import build_import_graph

        return build_import_graph(self)

    @cached_property
    def class_graph(self) -> nx.DiGraph:
        from smellkit.graphs.classes import build_class_graph

        return build_class_graph(self)

    @cached_property
    def attribute_graph(self) -> nx.DiGraph:
        from smellkit.graphs.attributes import build_attribute_graph

        return build_attribute_graph(self)


