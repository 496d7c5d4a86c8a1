"""Bounded astroid inference for call sites the points-to analysis leaves unresolved.

One query infers the callee of one call site, in the module that holds it: never a whole-program
inference pass (what makes pylint slow on big code bases). Three bounds keep a run cheap:

- `budget`: at most this many queries per run ([tool.smellkit] `inference-budget`);
- `time_limit`: each query is cut off after this many seconds (POSIX, main thread);
- `max_seconds`: the whole run stops after this many seconds, astroid's parsing included (astroid
  parses a module in tens of milliseconds, and a large repository has hundreds with candidates);
  each parse and query is cut off when the run's time is up.

Library modules go first, modules with the most candidate sites first, so the time that there is
goes where it resolves most. The two time bounds make the tail of a large run depend on the
machine's speed; `budget=0` turns inference off for fully repeatable graphs.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NamedTuple

from smellkit.config import is_test_module
from smellkit.facts import Attr, Name

if TYPE_CHECKING:
    from smellkit.facts import CallSite
    from smellkit.graphs.index import Index
    from smellkit.graphs.pointsto import Solver

_MAX_RESULTS = 8
_last_roots: tuple[str, ...] | None = None
"""Source roots of the previous run: astroid's module cache is global and keyed by module name."""


class _OutOfTime(BaseException):
    """Not an `Exception`: astroid catches those in places and would carry on."""


def _raise_out_of_time(signum: int, frame: FrameType | None) -> None:
    raise _OutOfTime


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Interrupt the block after `seconds` where a real-time timer is free (POSIX, main thread)."""
    usable = (seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread()
              and signal.getitimer(signal.ITIMER_REAL)[0] == 0)
    if not usable:
        yield
        return
    previous = signal.signal(signal.SIGALRM, _raise_out_of_time)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class SourceModule(NamedTuple):
    """What astroid needs to know of a file of the repository."""

    path: str  # relative to the root, POSIX
    module: str
    is_package: bool


class Query(NamedTuple):
    """One call site for astroid: the solver's site number and where the call is."""

    call: int
    module: str
    line: int
    col: int
    name: str | None  # the callee's last name: which of the calls starting here is meant


class InferenceJob(NamedTuple):
    """A whole run of inference, small enough to send to another process."""

    root: Path
    files: tuple[SourceModule, ...]
    queries: tuple[Query, ...]  # in the order they are tried
    budget: int
    max_seconds: float


Answers = tuple[list[tuple[int, list[str]]], frozenset[str]]
"""What astroid said of each query it got to (site, callee names), and the repository's modules
whose source it read."""


def source_roots(root: Path, files: Sequence[SourceModule]) -> list[Path]:
    """Folders that module names count from, derived from each file's path and module name."""
    found: dict[Path, None] = {}
    for facts in files:
        parts = Path(facts.path).with_suffix("").parts
        depth = (len(facts.module.split(".")) if facts.module else 0) + facts.is_package
        if 0 < depth <= len(parts):
            found[(root / Path(*parts[: len(parts) - depth])).resolve()] = None
    return list(found)


class AstroidResolver:
    """Callee names of single call sites by astroid inference, within the bounds.

    `callees` returns qualified names as astroid spells them (`pkg.mod.Class.method`,
    `builtins.str.join`), an empty list when astroid knows nothing, and None once a bound is
    reached. Call `close` when done: it restores `sys.path`.
    """

    def __init__(self, root: Path, files: Sequence[SourceModule], *, budget: int = 5000,
                 time_limit: float = 0.25, max_seconds: float = 1.0):
        self.root = Path(root)
        self.budget = budget
        self.time_limit = time_limit
        self.deadline = time.monotonic() + max_seconds
        self.used = 0
        self.by_module = {facts.module: facts for facts in files}
        self.roots = [str(path) for path in source_roots(self.root, files)]
        self.trees: dict[str, dict[tuple[int, int], list[Any]] | None] = {}
        self._saved_path: list[str] | None = None

    def _start(self) -> None:
        global _last_roots
        if self._saved_path is not None:
            return
        from astroid import MANAGER

        if _last_roots != tuple(self.roots):  # another project's modules may share our names
            if _last_roots is not None:
                MANAGER.clear_cache()
            _last_roots = tuple(self.roots)
        self._saved_path = list(sys.path)
        sys.path[:0] = [path for path in self.roots if path not in sys.path]

    def modules_read(self) -> frozenset[str]:
        """The repository's modules whose source this resolver (or astroid, following imports)
        has read: the only files its answers depend on."""
        read = set(self.trees)
        if read:
            from astroid import MANAGER

            read.update(name for name in MANAGER.astroid_cache if name in self.by_module)
        return frozenset(read)

    def close(self) -> None:
        if self._saved_path is not None:
            sys.path[:] = self._saved_path
            self._saved_path = None

    def _remaining(self) -> float:
        """Seconds left before `max_seconds` is up (at least a millisecond: 0 means no timer)."""
        return max(self.deadline - time.monotonic(), 0.001)

    def _calls_of(self, module: str) -> dict[tuple[int, int], list[Any]] | None:
        """The module's call nodes by position (`f(x).g()`: two calls start at one place)."""
        if module in self.trees:
            return self.trees[module]
        facts = self.by_module.get(module)
        calls: dict[tuple[int, int], list[Any]] | None = None
        if facts is not None:
            try:
                from astroid import MANAGER, nodes
                from astroid.builder import AstroidBuilder

                path = self.root / facts.path
                source = path.read_text(encoding="utf-8")
                with _time_limit(min(self.time_limit * 4, self._remaining())):
                    tree = AstroidBuilder(MANAGER).string_build(source, module, str(path))
                calls = {}
                for node in tree.nodes_of_class(nodes.Call):
                    calls.setdefault((node.lineno, node.col_offset), []).append(node)
            except (Exception, _OutOfTime):  # odd code, or too big: the sites stay unresolved
                calls = None
        self.trees[module] = calls
        return calls

    def callees(self, module: str, line: int, col: int, name: str | None) -> list[str] | None:
        """What the call at `line`, `col` whose callee ends in `name` may call."""
        if self.used >= self.budget or time.monotonic() > self.deadline:
            return None
        self.used += 1
        self._start()
        calls = self._calls_of(module)
        node = None
        for candidate in calls.get((line, col), ()) if calls else ():
            func = candidate.func
            if getattr(func, "attrname", None) == name or getattr(func, "name", None) == name:
                node = candidate
        if node is None:
            return []
        names: list[str] = []
        try:
            with _time_limit(min(self.time_limit, self._remaining())):
                for count, value in enumerate(node.func.infer()):
                    if count >= _MAX_RESULTS:
                        break
                    qualified = _qualified_name(value)
                    if qualified is not None:
                        names.append(qualified)
        except (Exception, _OutOfTime):  # RecursionError, astroid's own errors, the time limit
            return names
        return names


def _qualified_name(value: Any) -> str | None:
    """The definition an inferred callee stands for; calling an instance means its `__call__`."""
    from astroid import bases, nodes

    if isinstance(value, nodes.ClassDef):
        return str(value.qname())
    if isinstance(value, bases.UnboundMethod):  # bound methods too
        return str(value._proxied.qname())
    if isinstance(value, nodes.FunctionDef):
        return str(value.qname())
    if isinstance(value, bases.Instance) and not isinstance(value, nodes.Lambda):
        return f"{value._proxied.qname()}.__call__"
    return None


def plan(index: Index, solver: Solver, budget: int, max_seconds: float) -> InferenceJob:
    """The call sites the points-to analysis left unresolved that are worth inferring, library
    modules first, then those with the most sites.

    Sites whose callee is rooted in a parameter without a default are left out: astroid infers
    nothing there either. A run takes three steps, which can be two processes: `plan` and
    `apply` need the solved index, `answer` (astroid) only the job."""
    assert index.root is not None
    by_module: dict[str, list[int]] = {}
    for call, site in enumerate(solver.sites):
        if not site.implicit and call not in solver.targets and call not in solver.outside \
                and _worth_inferring(solver, site):
            by_module.setdefault(index.scope_module(site.scope), []).append(call)
    order = sorted(by_module, key=lambda module: (is_test_module(module), -len(by_module[module]),
                                                  module))
    queries: list[Query] = []
    for module in order:
        for call in by_module[module]:
            site = solver.sites[call]
            func = site.func
            name = func.id if isinstance(func, Name) else \
                func.attr if isinstance(func, Attr) else None
            queries.append(Query(call, module, site.line, site.col, name))
    files = tuple(SourceModule(facts.path, facts.module, facts.is_package)
                  for facts in index.modules.values())
    return InferenceJob(index.root, files, tuple(queries), budget, max_seconds)


def answer(job: InferenceJob) -> Answers:
    """astroid's callee names for the job's queries, in order, until a bound is reached."""
    resolver = AstroidResolver(job.root, job.files, budget=job.budget,
                               max_seconds=job.max_seconds)
    found: list[tuple[int, list[str]]] = []
    try:
        for query in job.queries:
            names = resolver.callees(query.module, query.line, query.col, query.name)
            if names is None:
                break
            found.append((query.call, names))
    finally:
        resolver.close()
    return found, resolver.modules_read()


def apply(index: Index, found: list[tuple[int, list[str]]], targets: dict[int, set[str]],
          outside: set[int]) -> int:
    """astroid's answers added to a solution's `targets` and `outside`; returns how many sites
    they resolved to definitions of the repository."""
    inferred = 0
    for call, names in found:
        resolved: set[str] = set()
        for qualified in names:
            if qualified in index.classes:
                resolved.add(index.lookup_method(qualified, "__init__") or qualified)
            elif qualified in index.definitions:
                resolved.add(qualified)
            else:
                outside.add(call)
        if resolved:
            targets[call] = resolved
            inferred += 1
    return inferred


def _worth_inferring(solver: Solver, site: CallSite) -> bool:
    """astroid knows no more than the index about a parameter without a default."""
    root = site.func
    while isinstance(root, Attr):
        root = root.base
    if not isinstance(root, Name):
        return True
    where = solver.binding(site.namespace or site.scope, root.id)
    definition = solver.index.definitions.get(where) if where else None
    if definition is None or (where, root.id) in solver.assigned:
        return True
    return not any(param.name == root.id and param.default is None
                   for param in definition.params)
