"""Reusing the previous scan's call and attribute graphs when the changed files cannot alter them.

The points-to solution behind both graphs keeps a bounded number of values per node, chosen in the
order values arrive, so it cannot be resumed after a change and still equal a fresh solution.
What can be shown cheaply is that a change does not reach the graphs at all (an early cut-off):
every changed file's graph inputs (definitions without their measures, classes, call sites with
their lines, assignments, returns, attribute accesses, imports, `global` names) equal the stored
run's, except for added assignments to names that nothing else mentions. The solver only looks
a variable up when some expression, import or attribute names it, so such an assignment is never
read: "mentions" are counted as whole-word occurrences in every file's bytes (comments and
strings too, which can only make the check stricter), and dunder names are never taken, because
the solver looks those up by itself (`__init__`, `__call__`, ...). A change to a file astroid read
while resolving sites, a new, removed or renamed file, other options or another version: the
graphs are built again.
"""

from __future__ import annotations

import hashlib
import pickle
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from smellkit.facts import Assignment, FileFacts, Name

if TYPE_CHECKING:
    import networkx as nx

    from smellkit.graphs.calls import CallGraph
    from smellkit.graphs.index import Index
    from smellkit.graphs.pointsto import Solver
    from smellkit.project import FactCache, Survey

_FORMAT = 1


class GraphHeader(NamedTuple):
    """What the stored graphs were built from, and where they are."""

    files: dict[str, str]  # path -> content key of the facts the graphs were built from
    order: tuple[tuple[str, str], ...]  # (path, module) of the index's files, in order
    inference_modules: frozenset[str]
    counts: tuple[int, int, int, int, int, bool]
    graphs: str  # the blob holding (call graph, attribute graph)


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
    graph read, except the assignments (compared on their own). The graphs carry the lines of
    call sites and attribute accesses, never those of definitions, class attributes or
    assignments: those are left out, so that a body growing at its end still compares equal."""
    return (facts.path, facts.module, facts.is_package,
            tuple(definition._replace(measure=None, start_line=0, end_line=0, col=0)
                  for definition in facts.definitions),
            tuple(info._replace(attributes=tuple(attribute._replace(line=0)
                                                 for attribute in info.attributes))
                  for info in facts.classes),
            facts.calls, facts.returns, facts.accesses, facts.imports, facts.globals_declared)


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
    """Whether the graphs stored under `header` are the graphs of `files` (module doc)."""
    if tuple((facts.path, facts.module) for facts in files) != header.order:
        return False
    keys = {source.path: key for source, key, _ in survey.inventory.items}
    added: list[Assignment] = []
    for facts in files:
        old_key = header.files.get(facts.path)
        if old_key is None:
            return False
        if keys.get(facts.path) == old_key:
            continue
        if facts.module in header.inference_modules:
            return False
        old = cache.get(old_key)
        if not isinstance(old, FileFacts) or _graph_inputs(old) != _graph_inputs(facts):
            return False
        extra = _added_assignments(_assignments(old), _assignments(facts))
        if extra is None or any(not isinstance(item.target, Name) for item in extra):
            return False
        added.extend(extra)
    if added:
        sources = [data for _, _, data in survey.inventory.items if isinstance(data, bytes)]
        names = [item.target.id for item in added if isinstance(item.target, Name)]
        if not _unmentioned(names, added, sources):
            return False
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
    """Install the stored graphs on `index`; False when they cannot be read."""
    from smellkit.graphs.calls import CallGraph

    data = cache.get_blob(header.graphs)
    if data is None:
        return False
    try:
        call_graph, attribute_graph = pickle.loads(data)
    except Exception:
        return False
    call_sites, resolved, unresolved, inferred, external, truncated = header.counts
    index.__dict__["calls"] = CallGraph(
        graph=call_graph, call_sites=call_sites, resolved=resolved, unresolved=unresolved,
        inferred=inferred, external=external, truncated=truncated,
        replay=lambda: replay_solver(index), inference_modules=header.inference_modules)
    index.__dict__["attribute_graph"] = attribute_graph
    return True


def replay_solver(index: Index) -> Solver:
    """The solver in the state a fresh build leaves it in: solved, decorators released, and the
    attribute graph's receiver queries propagated (what astroid adds changes no values)."""
    from smellkit._memory import paused_gc
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


def store(cache: FactCache, name: str, header: GraphHeader,
          graphs: tuple[nx.DiGraph, nx.DiGraph] | None) -> None:
    """Write the graphs (when given: they are new) and then the header pointing to them."""
    if graphs is not None:
        cache.put_blob(header.graphs, pickle.dumps(graphs, protocol=pickle.HIGHEST_PROTOCOL))
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
        """Record the graphs of this scan: a new header only when they were reused, else the
        graphs too (replacing the previous ones)."""
        calls = index.calls
        if self.reused and self.previous is not None:
            store(self.cache, self.name,
                  header_for(self.survey, files, calls, self.previous.graphs), None)
            return
        blob = f"graphs-{self.survey.inventory.key(self.name)}.pickle"
        store(self.cache, self.name, header_for(self.survey, files, calls, blob),
              (calls.graph, index.attribute_graph))
        if self.previous is not None and self.previous.graphs != blob:
            self.cache.drop_blob(self.previous.graphs)
