"""Which clusters of module-level functions a holder class absorbs (the god class injector's
second form): the holder's measures, the clusters of functions its module calls in other modules,
and the choice of clusters that makes the detector flag the holder. `absorb.py` makes the edit.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

import networkx as nx

from smellkit.analysis.access import MethodData, data_access, is_dunder, is_property, is_test_code
from smellkit.analysis.context import Context
from smellkit.config import is_test_path
from smellkit.detectors.god_class import GodClass, GodClassOptions
from smellkit.detectors.god_class.cohesion import Cohesion, is_visible
from smellkit.graphs.imports import imported_module
from smellkit.injectors.cst import move


@dataclass
class Holder:
    """A class's god class measures now (WMC, connected and visible TCC pairs, foreign data)."""

    cls: str
    wmc: int
    connected: int
    visible: int
    foreign: set[str]
    lineage: set[str]
    """The class and its ancestors: data of theirs is not foreign."""


@dataclass(frozen=True)
class Function:
    qualname: str
    module: str
    name: str
    cc: int
    uses: frozenset[tuple[str, str]]
    """(attribute, owning class) of the data of classes it uses."""
    owner: str | None = None
    """The class of a method (its own data, read through the instance it then takes as a
    parameter, counts in `uses`); None for a module-level function."""
    new_name: str = ""
    """The static method's name in the holder when its own name is taken there (`absorb`
    builds it from the function's words and the words of its class or of the holder); the
    function's own name when empty."""
    lines: int = 0
    """Its length in lines, docstring included (what a reviewer reads of it in the class)."""

    @property
    def absorbed_name(self) -> str:
        return self.new_name or self.name


@dataclass
class Cluster:
    """The movable functions of one module (its responsibility), those the holder's module
    calls marked."""

    module: str
    functions: list[Function] = field(default_factory=list)
    called: frozenset[str] = frozenset()


def measure_holder(analysis: Context, cls: str) -> Holder:
    """The holder's measures as the detector takes them."""
    index = analysis.index
    access = data_access(analysis)
    detector = GodClass(GodClassOptions())
    methods = sorted(qualname for qualname in index.children.get(cls, {}).values()
                     if index.definitions[qualname].kind == "method")
    accessors = {qualname for qualname in methods
                 if detector.is_accessor(index.definitions[qualname])}
    model = Cohesion(index.definitions, access, cls, methods, accessors)
    visible = [qualname for qualname in model.members
               if is_visible(index.definitions[qualname].name)]
    reach = {qualname: model.reach(qualname) for qualname in visible}
    connected = sum(1 for position, first in enumerate(visible)
                    for second in visible[position + 1:]
                    if not reach[first].isdisjoint(reach[second]))
    foreign = {attribute for qualname in methods
               for attribute in access.data_uses(model.data[qualname])}
    wmc = sum(_cc(analysis, qualname) for qualname in methods if qualname not in accessors)
    return Holder(cls, wmc, connected, len(visible), foreign, set(index.mro(cls)))


def predicted(holder: Holder, functions: list[Function]) -> tuple[int, float, int]:
    """(WMC, TCC, ATFD) of the holder once it has absorbed the functions: each is a method of
    its own complexity, linked to no attribute, its foreign data still foreign."""
    visible = holder.visible + sum(1 for item in functions if is_visible(item.absorbed_name))
    pairs = visible * (visible - 1) // 2
    tcc = holder.connected / pairs if pairs else 1.0
    foreign = set(holder.foreign)
    foreign.update(attribute for item in functions for attribute, owner in item.uses
                   if owner not in holder.lineage)
    return holder.wmc + sum(item.cc for item in functions), tcc, len(foreign)


def calls_by_module(analysis: Context) -> dict[str, dict[str, set[str]]]:
    """module -> other module -> its top-level functions the first one calls."""
    index = analysis.index
    found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for caller, callee in analysis.call_graph.edges:
        definition = index.definitions.get(callee)
        module = index.scope_module(caller)
        if definition is None:
            continue
        source = definition.parent if definition.kind == "function" else \
            index.module_of.get(definition.parent) if definition.kind == "method" else None
        if source is not None and source in index.modules and source != module:
            found[module][source].add(callee)
    return found


def clusters(analysis: Context, module: str, calls: dict[str, dict[str, set[str]]],
             well_covered: Callable[[str], bool] | None = None) -> list[Cluster]:
    """The modules of the same package with functions that can move, as clusters: first those
    whose functions `module` calls (most calls first), then the others (most public functions
    first). Only functions whose lines the tests run (`well_covered`, when given) move: a moved
    body is changed code the case's tests must run."""
    index = analysis.index
    access = data_access(analysis)
    package = module.partition(".")[0]
    at_import = run_at_import(analysis)
    partners = collaborators(analysis, module)
    by_module: dict[str, list[Function]] = defaultdict(list)
    for qualname, definition in index.definitions.items():
        owner = definition.parent if definition.kind == "method" else None
        source = definition.parent if owner is None else index.module_of.get(owner, "")
        if definition.kind not in ("function", "method") or source == module \
                or source not in index.modules or source.partition(".")[0] != package \
                or not _movable(analysis, qualname, at_import) \
                or (well_covered is not None and not well_covered(qualname)):
            continue
        if owner is not None and (owner not in partners
                                  or not _movable_method(analysis, qualname, owner)):
            continue
        entry = access.methods.get(qualname)
        uses = {(name, use.owner) for name, use in access.data_uses(entry).items()} \
            if entry is not None else set()
        if owner is not None and entry is not None:
            uses.update((name, name.rpartition(".")[0]) for name in own_data(analysis, entry))
            if not uses:
                continue  # a method that uses no data brings the holder nothing foreign
        by_module[source].append(Function(
            qualname, source, definition.name, _cc(analysis, qualname), frozenset(uses),
            owner, lines=definition.end_line - definition.start_line + 1))
    called = calls.get(module, {})
    found = [Cluster(source, sorted(functions, key=lambda item: (
        index.definitions[item.qualname].start_line)),
        frozenset(called.get(source, set())) & {item.qualname for item in functions})
        for source, functions in by_module.items()]
    found.sort(key=lambda item: (-len(item.called), -sum(is_visible(f.absorbed_name) for f in
                                                         item.functions), item.module))
    return found


def staying(pool: list[Cluster], chosen: list[Cluster], moved: set[str]) -> list[str]:
    """The red herrings of an absorption: functions the holder's module calls, then those of
    the absorbed modules, that stay where they are; each once (a function both called and of
    an absorbed module would otherwise come twice), at most two."""
    calls = sorted(name for cluster in pool for name in cluster.called if name not in moved)
    taken = {cluster.module for cluster in chosen}
    stays = [item.qualname for cluster in pool if cluster.module in taken
             for item in cluster.functions if item.qualname not in moved]
    return list(dict.fromkeys([*calls, *stays]))[:2]


MAX_FUNCTIONS = 8
MAX_LINES = 160
"""At most this many functions, and lines of them, absorbed in one injection: a case a reviewer
reads as one change. The one class these repositories ship that the detector calls a god class,
click's `Context`, has 25 methods of 8 lines at the median; a change bringing it a third as many
members again (8), of twice the median length (160 lines), is already a large pull request.
Before this cap a single case took up to 12 members and 235 lines."""


Limits = tuple[int, float, int]
"""The detector's thresholds: WMC at least, TCC below, ATFD above."""


def flags(holder: Holder, functions: list[Function], limits: Limits) -> bool:
    """The holder would be a god class with these functions absorbed."""
    wmc, tcc, atfd = predicted(holder, functions)
    return wmc >= limits[0] and tcc < limits[1] and atfd > limits[2]


def select(holder: Holder, pool: list[Cluster], needed: int, limits: Limits,
           excluded: frozenset[str] = frozenset(), tried: int = 8) -> list[Cluster] | None:
    """`needed` clusters of the pool (among the first `tried`; one cluster is sought in the
    whole pool, which costs one try per module), each cut to the functions that make the holder
    a god class: the ones the holder's module calls first, then greedily those that bring it
    closest (public ones lower TCC, complex ones raise WMC, data users ATFD); None when no
    combination does within `MAX_FUNCTIONS` and `MAX_LINES`."""
    usable = [Cluster(item.module, [f for f in item.functions if f.qualname not in excluded],
                      item.called) for item in (pool if needed == 1 else pool[:tried])]
    usable = [item for item in usable if item.functions]
    for combination in combinations(usable, needed):
        chosen = {item.module: [f for f in item.functions if f.qualname in item.called]
                  or [max(item.functions, key=lambda f: (is_visible(f.absorbed_name), f.cc))]
                  for item in combination}
        rest = [f for item in combination for f in item.functions
                if f not in chosen[item.module]]
        while not flags(holder, _all(chosen), limits) and len(_all(chosen)) < MAX_FUNCTIONS:
            room = MAX_LINES - _lines(_all(chosen))
            fitting = [f for f in rest if f.lines <= room]
            if not fitting:
                break
            best = max(fitting, key=lambda f: _gain(holder, _all(chosen), f, limits))
            rest.remove(best)
            chosen[best.module].append(best)
        picked = _all(chosen)
        if flags(holder, picked, limits) and reviewable(picked):
            order = {f.qualname: position for position, f in enumerate(
                f for item in combination for f in item.functions)}
            return [Cluster(item.module, sorted(chosen[item.module],
                                                key=lambda f: order[f.qualname]), item.called)
                    for item in combination]
    return None


def reviewable(functions: list[Function]) -> bool:
    """Within `MAX_FUNCTIONS` and `MAX_LINES`."""
    return len(functions) <= MAX_FUNCTIONS and _lines(functions) <= MAX_LINES


def _lines(functions: list[Function]) -> int:
    return sum(f.lines for f in functions)


def _all(chosen: dict[str, list[Function]]) -> list[Function]:
    return [f for functions in chosen.values() for f in functions]


def _gain(holder: Holder, chosen: list[Function], candidate: Function,
          limits: Limits) -> tuple[float, int, str]:
    """How much closer to the thresholds one more function brings the holder (a hundredth of
    TCC weighs as one unit of WMC, a foreign attribute as five), ties broken by name."""
    wmc, tcc, atfd = predicted(holder, chosen)
    after_wmc, after_tcc, after_atfd = predicted(holder, [*chosen, candidate])
    score = 0.0
    if tcc >= limits[1]:
        score += (tcc - after_tcc) * 100
    if wmc < limits[0]:
        score += min(after_wmc, limits[0]) - wmc
    if atfd <= limits[2]:
        score += (min(after_atfd, limits[2] + 1) - atfd) * 5
    return score, candidate.cc, candidate.qualname


def _cc(analysis: Context, qualname: str) -> int:
    measure = analysis.index.definitions[qualname].measure
    return measure.cc if measure is not None else 1


def _movable(analysis: Context, qualname: str, at_import: set[str]) -> bool:
    """A plain function at the top level of a module that nothing runs while modules are being
    imported (`at_import`)."""
    definition = analysis.index.definitions[qualname]
    if definition.decorators or definition.is_async or is_test_code(analysis, qualname) \
            or definition.is_stub or is_dunder(definition.name) \
            or (definition.col != 0 and definition.kind == "function"):
        return False  # (a function defined under an `if` or `try` has a column too)
    return qualname not in at_import


def functions_only(pool: list[Cluster]) -> list[Cluster]:
    """The pool without methods: module-level functions are the first choice (their thin
    functions read as a module's API kept for compatibility); methods come in only where
    functions cannot make the holder a god class."""
    found = [Cluster(item.module, [f for f in item.functions if f.owner is None],
                     item.called) for item in pool]
    return [item for item in found if item.functions]


def choose(holder: Holder, pool: list[Cluster], needed: int, limits: Limits,
           excluded: frozenset[str] = frozenset()) -> list[Cluster] | None:
    """`select` among the functions alone first, then with the methods too."""
    return select(holder, functions_only(pool), needed, limits, excluded) \
        or select(holder, pool, needed, limits, excluded)


def collaborators(analysis: Context, module: str) -> set[str]:
    """Classes of other modules whose instances `module` makes or whose methods it calls, and
    the classes of the modules it imports directly or that import it: the work a class of
    `module` could plausibly take over (a class of a module it has nothing to do with would
    read as planted)."""
    index = analysis.index
    graph = index.import_graph
    neighbours = {*graph.successors(module), *graph.predecessors(module)} \
        if module in graph else set()
    found = {cls for cls in index.classes if index.module_of.get(cls) in neighbours - {module}}
    for caller, callee in analysis.call_graph.edges:
        if index.scope_module(caller) != module:
            continue
        definition = index.definitions.get(callee)
        if definition is None:
            continue
        cls = callee if definition.kind == "class" else index.class_of.get(callee)
        if cls is not None and index.module_of.get(cls) != module:
            found.add(cls)
    return found


def for_holder(analysis: Context, pool: list[Cluster], holder: str) -> list[Cluster]:
    """The pool without the methods of the holder's own lineage (ancestors and descendants):
    their data is not foreign to it, and their code is already its own. Only modules whose
    code the holder's own methods already call, the most calls first: a class that already
    coordinates that work is what plausibly grows to take it over (a numeric validator taking
    in field serialisation does not read as grown); and, unless the repository dodges import
    cycles inside functions itself (`dodges_cycles_in_functions`), only modules whose thin
    functions can name the holder through an import at their top (`cyclic`)."""
    related = {*analysis.index.mro(holder), *analysis.index.descendants(holder)}
    dodging = dodges_cycles_in_functions(analysis)
    found = [Cluster(item.module, [f for f in item.functions if f.owner not in related],
                     item.called) for item in pool
             if dodging or not cyclic(analysis, item.module, holder)]
    return _ranked(analysis, found, holder)


def cycling(analysis: Context, pool: list[Cluster], holder: str) -> list[str]:
    """The modules `for_holder` leaves out for an import cycle alone (see `cyclic`), the most
    called first: named in refusals. None where the repository dodges cycles so itself."""
    if dodges_cycles_in_functions(analysis):
        return []
    return [item.module for item in _ranked(analysis, pool, holder)
            if cyclic(analysis, item.module, holder)]


IDIOM_PLACES = 2
"""Imports of the repository's own modules inside functions that make doing so its idiom. One
is an exception its authors made once (marshmallow's `Nested` imports `Schema` so, "to avoid
circular imports"; WTForms' `DefaultMeta.build_csrf` imports `SessionCSRF`); click (18 places)
and Jinja2 (11) do it wherever a cycle would otherwise close."""


def dodges_cycles_in_functions(analysis: Context) -> bool:
    """Whether the repository's library code imports its own modules inside function bodies
    in at least `IDIOM_PLACES` places (click's core.py imports shell_completion and decorators
    in its methods, Jinja2's nodes.py imports compiler in one). There a thin function that
    imports the holder when called, to get past an import cycle, reads as the repository's
    own code, and a module the holder's module imports (`cyclic`) may give it functions;
    elsewhere such an import is a tell. Test code, `if TYPE_CHECKING:` blocks (they never
    run) and imports of other distributions do not count; docstrings hold no imports to
    count."""
    return len(analysis.derived(imports_in_functions)) >= IDIOM_PLACES


def imports_in_functions(analysis: Context) -> list[tuple[str, int]]:
    """Where (path, line) library code imports another module of the repository inside a
    function body, one entry per import statement."""
    index = analysis.index
    places: set[tuple[str, int]] = set()
    for module, facts in index.modules.items():
        if is_test_path(facts.path):
            continue
        for item in facts.imports:
            if item.scope == module or item.type_only:
                continue  # at the top of the module (or in a class body there), or never run
            landed = imported_module(index, item.target)
            if landed is not None and landed != module:
                places.add((facts.path, item.line))
    return sorted(places)


def _ranked(analysis: Context, found: list[Cluster], holder: str) -> list[Cluster]:
    """The clusters of modules the holder's own methods call, the most calls first."""
    index = analysis.index
    shared: Counter[str] = Counter()
    for caller, callee in analysis.call_graph.edges:
        if index.class_of.get(caller) != holder:
            continue
        module = index.module_of.get(callee)
        if module is not None:
            shared[module] += 1
    ranked = sorted(enumerate(item for item in found if item.functions
                              and shared[item.module]),
                    key=lambda pair: (-shared[pair[1].module], pair[0]))
    return [item for _, item in ranked]


def cyclic(analysis: Context, module: str, holder: str) -> bool:
    """`module` can reach the holder only through an import inside a function: it does not
    import the holder (or its module) at its top already, and importing the holder's module
    imports `module` (its package's `__init__` modules too, those not already being imported
    with `module`). A thin function importing the holder when called, to dodge that cycle,
    reads as machine-made unless the repository does so itself (`dodges_cycles_in_functions`);
    `if TYPE_CHECKING:` imports do not count, they never run."""
    index = analysis.index
    holder_module = index.module_of.get(holder)
    facts = index.modules.get(module)
    if holder_module is None or facts is None:
        return True
    type_only = {item.bound for item in facts.imports if item.type_only}
    if any(name not in type_only and target in (holder, holder_module)
           for name, target in move.module_bindings(index, module).items()):
        return False  # imported at its top already (even within a cycle the repository has)
    graph = index.import_graph
    if module not in graph or holder_module not in graph:
        return True
    packages = _packages(module)
    starts = [holder_module, *(name for name in _packages(holder_module)
                               if name not in packages and name in graph)]
    eager = nx.subgraph_view(graph, filter_edge=lambda a, b: bool(graph.edges[a, b]["eager"]))
    return any(start == module or nx.has_path(eager, start, module) for start in starts)


def _packages(module: str) -> list[str]:
    """`a.b.c` -> `a`, `a.b`: what importing it imports first."""
    parts = module.split(".")
    return [".".join(parts[:length]) for length in range(1, len(parts))]


def _movable_method(analysis: Context, qualname: str, owner: str) -> bool:
    """A method of a top-level class with a plain `self`, not a dunder: its code can run as a
    static method of the holder, taking the instance, while the class keeps a thin method of
    the same signature (so overrides and callers see no change)."""
    index = analysis.index
    definition = index.definitions[qualname]
    cls = index.definitions.get(owner)
    if cls is None or cls.parent not in index.modules or cls.decorators or cls.col != 0:
        return False
    if data_access(analysis).is_enum(owner):
        return False
    params = definition.params
    return bool(params) and params[0].kind == "positional" and not params[0].annotation


def own_data(analysis: Context, entry: MethodData) -> set[str]:
    """Data of its own class a method reads through its instance (methods it calls left out:
    that is collaboration): once the code takes the instance as a parameter, foreign data."""
    index = analysis.index
    return {name for name in entry.through_self
            if (found := index.definitions.get(name)) is None or found.kind != "method"
            or is_property(found)}


def run_at_import(analysis: Context) -> set[str]:
    """Definitions that module or class bodies call, directly or not: they may run while the
    package is being imported, before the holder's module is there to import."""
    index = analysis.index
    graph = analysis.call_graph
    found: set[str] = set()
    stack = [node for node in graph if node in index.modules
             or (node in index.definitions and index.definitions[node].kind == "class")]
    while stack:
        for callee in graph.successors(stack.pop()):
            if callee not in found:
                found.add(callee)
                stack.append(callee)
    return found


def eagerly_imported(analysis: Context, module: str) -> bool:
    """The package's top module imports `module` when it is imported (eagerly, not lazily), so a
    function that imports it when called finds it loaded."""
    index = analysis.index
    top = module.partition(".")[0]
    graph = index.import_graph
    if top == module or top not in graph or module not in graph:
        return False
    eager = nx.subgraph_view(graph, filter_edge=lambda a, b: bool(graph.edges[a, b]["eager"]))
    return bool(nx.has_path(eager, top, module))


# -- the codemod --------------------------------------------------------------------------------
