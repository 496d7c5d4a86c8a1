"""Reusing the previous scan's call and attribute graphs when the changed files cannot alter them.

The points-to solution behind both graphs keeps a bounded number of values per node, chosen in the
order values arrive, so it cannot be resumed after a change and still equal a fresh solution.
What can be shown cheaply is that a change does not reach the solution at all (an early cut-off):
every changed file's graph inputs (definitions without their measures, classes, call sites,
assignments, returns, attribute accesses, imports, `global` names; lines left out) equal the
stored run's, except for added assignments to names that nothing else mentions. The solver only
looks a variable up when some expression, import or attribute names it, so such an assignment is
never read: "mentions" are counted as whole-word occurrences in every file's bytes (comments and
strings too, which can only make the check stricter), and dunder names are never taken, because
the solver looks those up by itself (`__init__`, `__call__`, ...).

The solver never reads a line number; the graphs carry those of call sites and accesses. What is
stored is the resolution (each site's targets, each access's owner, by number), and the graphs are
rebuilt from it with today's lines: on pandas, pickling the graphs themselves took a second of
every cold scan, rebuilding them takes half that, and only a re-scan that reuses them pays it.
A change to a file astroid read while resolving sites, a new, removed or renamed file, other
options or another version: everything is built again.
"""

from __future__ import annotations

import hashlib
import pickle
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from smellkit.facts import Assignment, FileFacts, Name

if TYPE_CHECKING:

    from smellkit.graphs.calls import CallGraph
    from smellkit.graphs.index import Index
    from smellkit.graphs.pointsto import Solver
    from smellkit.project import FactCache, Survey

_FORMAT = 3


class GraphHeader(NamedTuple):
    """What the stored graphs were built from, and where they are."""

    files: dict[str, str]  # path -> content key of the facts the graphs were built from
    order: tuple[tuple[str, str], ...]  # (path, module) of the index's files, in order
    inference_modules: frozenset[str]
    counts: tuple[int, int, int, int, int, bool]
    graphs: str  # the blob holding the resolution the graphs are rebuilt from


def header_name(survey: Survey, version: str) -> str:
    """One stored header per project folder and options."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (str(_FORMAT), version, str(survey.root.resolve()),
                 survey.config.model_dump_json()):
        digest.update(part.encode())
        digest.update(b"\0")
    return f"graphs-{digest.hexdigest()}.header"


def _graph_inputs(facts: FileFacts) -> tuple[Any, ...]:
    """Everything of a file the index, the solver, astroid's site choice and the attribute
    graph read, except the assignments (compared on their own) and all lines: the graphs carry
    only the lines of call sites and attribute accesses, and those are put in again when the
    graphs are rebuilt from the stored resolution (`_lines`)."""
    return (facts.path, facts.module, facts.is_package,
            tuple(definition._replace(measure=None, start_line=0, end_line=0, col=0)
                  for definition in facts.definitions),
            tuple(info._replace(attributes=tuple(attribute._replace(line=0)
                                                 for attribute in info.attributes))
                  for info in facts.classes),
            tuple(call._replace(line=0) for call in facts.calls), facts.returns,
            tuple(access._replace(line=0) for access in facts.accesses),
            tuple(item._replace(line=0) for item in facts.imports), facts.globals_declared)


def _assignments(facts: FileFacts) -> list[Assignment]:
    return [item._replace(line=0) for item in facts.assignments]


def _added_assignments(old: Sequence[Assignment],
                       new: Sequence[Assignment]) -> list[Assignment] | None:
    """The assignments `new` adds to `old` (which must be a subsequence of it), else None."""
    added: list[Assignment] = []
    position = 0
    for item in new:
        if position < len(old) and item == old[position]:
            position += 1
        else:
            added.append(item)
    return added if position == len(old) else None


def _unmentioned(names: Iterable[str], added: list[Assignment],
                 sources: Sequence[bytes]) -> bool:
    """Whether each name occurs in all the sources exactly as often as the added assignments
    bind it: nothing else reads, imports or spells it."""
    for name in set(names):
        if name.startswith("__") and name.endswith("__"):
            return False
        expected = sum(1 for item in added
                       if isinstance(item.target, Name) and item.target.id == name)
        pattern = re.compile(rb"(?<![\w])" + re.escape(name.encode()) + rb"(?![\w])")
        seen = 0
        for data in sources:
            if name.encode() in data:
                seen += len(pattern.findall(data))
                if seen > expected:
                    return False
    return True


def unchanged_graphs(header: GraphHeader, survey: Survey, files: Sequence[FileFacts],
                     cache: FactCache) -> bool:
    """Whether the graphs stored under `header` are the graphs of `files` but for the lines of
    call sites and accesses (which the stored resolution does not hold)."""
    keys = {source.path: key for source, key, _ in survey.inventory.items}
    return graphs_hold(header, survey, tuple((facts.path, facts.module) for facts in files),
                       [facts for facts in files if keys.get(facts.path) != header.files.get(
                           facts.path)], cache)


def graphs_hold(header: GraphHeader, survey: Survey, order: tuple[tuple[str, str], ...],
                changed: Sequence[FileFacts], cache: FactCache) -> bool:
    """`unchanged_graphs` knowing only the (path, module) of every file with facts and the facts
    of the files whose content differs from the stored run's."""
    if order != header.order:
        return False
    added: list[Assignment] = []
    for facts in changed:
        old_key = header.files.get(facts.path)
        if old_key is None or facts.module in header.inference_modules:
            return False
        old = cache.get(old_key, detailed=False)
        if not isinstance(old, FileFacts) or _graph_inputs(old) != _graph_inputs(facts):
            return False
        extra = _added_assignments(_assignments(old), _assignments(facts))
        if extra is None or any(not isinstance(item.target, Name) for item in extra):
            return False
        added.extend(extra)
    if added:
        sources = [data for _, _, data in survey.inventory.items if isinstance(data, bytes)]
        names = [item.target.id for item in added if isinstance(item.target, Name)]
        return _unmentioned(names, added, sources)
    return True


def load(cache: FactCache, name: str) -> GraphHeader | None:
    data = cache.get_blob(name)
    if data is None:
        return None
    try:
        header = pickle.loads(data)
    except Exception:
        return None
    return header if isinstance(header, GraphHeader) else None


def reuse(index: Index, header: GraphHeader, cache: FactCache) -> bool:
    """Install the stored graphs on `index`, rebuilt from their resolution with today's lines;
    False when they cannot be read."""
    from smellkit._internal.collector import paused_gc
    from smellkit.graphs import attributes, calls

    data = cache.get_blob(header.graphs)
    if data is None:
        return False
    sites = [site for facts in index.modules.values() for site in facts.calls]
    accesses = [access for facts in index.modules.values() for access in facts.accesses]
    try:
        targets, resolved = pickle.loads(data)
        found = [(accesses[number], owner, own) for number, owner, own in resolved]
        if any(call >= len(sites) for call in targets):
            return False
    except Exception:  # a damaged entry: build the graphs again
        return False
    with paused_gc():
        call_graph = calls.graph_of(index, sites, targets)
        attribute_graph = attributes.graph_of(index, found)
    index.__dict__["_attribute_accesses"] = found
    call_sites, resolved_sites, unresolved, inferred, external, truncated = header.counts
    index.__dict__["calls"] = calls.CallGraph(
        graph=call_graph, call_sites=call_sites, resolved=resolved_sites, unresolved=unresolved,
        inferred=inferred, external=external, truncated=truncated,
        replay=lambda: replay_solver(index), inference_modules=header.inference_modules,
        targets=targets)
    index.__dict__["attribute_graph"] = attribute_graph
    return True


Resolution = tuple[dict[int, tuple[str, ...]], list[tuple[int, str, bool]]]
"""Each call site's targets and each resolved attribute access (owner, own), by number."""


def _resolution(index: Index) -> Resolution:
    """What the graphs were made of, by site and access number, to rebuild them with new lines."""
    calls = index.calls
    index.attribute_graph  # noqa: B018 - building it keeps the resolved accesses
    found = index.__dict__.get("_attribute_accesses")
    if found is None:  # the attribute graph came from elsewhere: resolve the accesses again
        from smellkit.graphs.attributes import resolve_accesses

        found = resolve_accesses(index, calls.solver)
    numbers = {id(access): number for number, access in enumerate(
        access for facts in index.modules.values() for access in facts.accesses)}
    return calls.targets, [(numbers[id(access)], owner, own) for access, owner, own in found]


def replay_solver(index: Index) -> Solver:
    """The solver in the state a fresh build leaves it in: solved, decorators released, and the
    attribute graph's receiver queries propagated (what astroid adds changes no values)."""
    from smellkit._internal.collector import paused_gc
    from smellkit.graphs.attributes import _build
    from smellkit.graphs.pointsto import Solver

    with paused_gc():
        solver = Solver(index)
        solver.solve()
        solver.release_unknown_decorators()
        _build(index, solver)
    return solver


def header_for(survey: Survey, files: Sequence[FileFacts], calls: CallGraph,
               graphs: str) -> GraphHeader:
    keys = {source.path: key for source, key, _ in survey.inventory.items}
    return GraphHeader(
        files={facts.path: keys[facts.path] for facts in files if facts.path in keys},
        order=tuple((facts.path, facts.module) for facts in files),
        inference_modules=calls.inference_modules,
        counts=(calls.call_sites, calls.resolved, calls.unresolved, calls.inferred,
                calls.external, calls.truncated),
        graphs=graphs)


def store(cache: FactCache, name: str, header: GraphHeader, resolution: Resolution | None) -> None:
    """Write the graphs' resolution (when given: they are new), then the header pointing to it."""
    if resolution is not None:
        cache.put_blob(header.graphs, pickle.dumps(resolution, protocol=pickle.HIGHEST_PROTOCOL))
    cache.put_blob(name, pickle.dumps(header, protocol=pickle.HIGHEST_PROTOCOL))


class GraphCache:
    """The stored graphs of one project folder and options: reused when the change allows,
    saved after a scan for the next one."""

    def __init__(self, survey: Survey, cache: FactCache, version: str):
        self.survey = survey
        self.cache = cache
        self.name = header_name(survey, version)
        self.previous: GraphHeader | None = None
        self.reused = False

    def attach(self, files: Sequence[FileFacts], index: Index) -> bool:
        """Put the stored graphs on `index` when they are the graphs of `files`."""
        self.previous = load(self.cache, self.name)
        self.reused = self.previous is not None \
            and unchanged_graphs(self.previous, self.survey, files, self.cache) \
            and reuse(index, self.previous, self.cache)
        return self.reused

    def save(self, files: Sequence[FileFacts], index: Index) -> None:
        """Record the graphs of this scan: a new header only when they were reused, else their
        resolution too (replacing the previous one)."""
        calls = index.calls
        if self.reused and self.previous is not None:
            store(self.cache, self.name,
                  header_for(self.survey, files, calls, self.previous.graphs), None)
            return
        blob = f"graphs-{self.survey.inventory.key(self.name)}.pickle"
        store(self.cache, self.name, header_for(self.survey, files, calls, blob),
              _resolution(index))
        if self.previous is not None and self.previous.graphs != blob:
            self.cache.drop_blob(self.previous.graphs)
