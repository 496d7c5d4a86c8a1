"""Entry points: the functions of the smelly version whose behaviour a prediction could change,
paired with the function of the result that must behave the same.

They are the functions and methods whose lines the patch changed or deleted (a changed nested
function stands for the function around it), and their callers in the smelly version's call
graph, breadth first, up to `depth` calls away (so a change reaches a caller that tests exercise
even when the changed helper is private); then the other functions of the modules it changed, a
step further: a deletion or a module-level edit (an import, a constant, dead code removed) can
change them without touching a line of theirs. Each is paired with the result's definition of the
same qualified name, or, when the result no longer has it, with the definition the localization
step's rename matching (`signals.renames`, by shape) found in its place. A pair is compared only
when the result's parameters accept the same calls: the same names and kinds in order, new
parameters only with defaults. Everything else is returned as not comparable, with the reason,
never silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from smellkit.evaluate.signals.localize import Side
from smellkit.facts import Definition, Param

CALLABLE_KINDS = frozenset({"function", "method"})


@dataclass(frozen=True)
class EntryPoint:
    """A smelly function and its counterpart in the result (module and in-module qualname on
    each side), `distance` calls away from what the patch changed."""

    name: str
    module: str
    qualname: str
    result_module: str
    result_qualname: str
    distance: int
    first_line: int
    def_line: int

    @property
    def result_name(self) -> str:
        return f"{self.result_module}.{self.result_qualname}"


@dataclass(frozen=True)
class Selection:
    entry_points: tuple[EntryPoint, ...]
    not_comparable: dict[str, str]
    """Smelly qualified name -> why it cannot be compared."""


def _callable_of(name: str, side: Side) -> str | None:
    """The function a changed name runs in: itself, or the function or method around a nested
    definition; None for classes and modules."""
    definitions = side.project.index.definitions
    while name in definitions:
        definition = definitions[name]
        if definition.kind in CALLABLE_KINDS:
            return name
        if definition.kind == "class":
            return None
        name = definition.parent
    return None


def _reachable(name: str, side: Side) -> bool:
    """Whether a definition can be called from outside: every enclosing definition is a class."""
    definitions = side.project.index.definitions
    parent = definitions[name].parent
    while parent in definitions:
        if definitions[parent].kind != "class":
            return False
        parent = definitions[parent].parent
    return True


def _signature(params: Iterable[Param]) -> str:
    return "(" + ", ".join({"var_positional": "*", "var_keyword": "**"}.get(item.kind, "")
                           + item.name for item in params) + ")"


def compatible(old: Definition, new: Definition) -> str | None:
    """Why `new` does not accept every call `old` accepts (None when it does)."""
    if old.is_async or new.is_async:
        return "a coroutine function (calls are not awaited)"
    before, after = list(old.params), list(new.params)
    shared = [(item.name, item.kind) for item in before] == \
        [(item.name, item.kind) for item in after[:len(before)]]
    extra_defaulted = all(item.default is not None or item.kind in ("var_positional",
                                                                     "var_keyword")
                          for item in after[len(before):])
    if shared and extra_defaulted:
        return None
    return f"signature changed: {_signature(before)} -> {_signature(after)}"


def _in_module(name: str, side: Side) -> tuple[str, str] | None:
    module = side.project.index.module_of.get(name)
    if module is None or not name.startswith(module + "."):
        return None
    return module, name[len(module) + 1:]


def select(changed: Iterable[str], smelly: Side, result: Side,
           renames: Callable[[Iterable[str]], Mapping[str, str]], *,
           depth: int = 2, limit: int = 40, first_lines: Mapping[str, int] | None = None
           ) -> Selection:
    """The entry points of a prediction that changed `changed` (smelly qualified names), nearest
    first, at most `limit`; the rest of the candidates are not comparable ("over the limit").
    `renames` maps smelly names the result lacks to the result's definitions in their place."""
    smelly_defs = smelly.project.index.definitions
    result_defs = result.project.index.definitions
    graph = smelly.project.index.call_graph
    distance: dict[str, int] = {}
    for name in sorted(changed):
        found = _callable_of(name, smelly)
        if found is not None:
            distance.setdefault(found, 0)
    frontier = sorted(distance)
    for level in range(1, depth + 1):
        following = []
        for name in frontier:
            for caller in sorted(graph.predecessors(name)) if name in graph else ():
                target = _callable_of(caller, smelly)
                if target is not None and target not in distance:
                    distance[target] = level
                    following.append(target)
        frontier = following
    index = smelly.project.index
    modules = {index.module_of.get(name, name) for name in changed} & set(index.modules)
    for name, definition in index.definitions.items():
        if definition.kind in CALLABLE_KINDS and name not in distance and \
                index.module_of.get(name) in modules:
            distance[name] = depth + 1
    entries: list[EntryPoint] = []
    not_comparable: dict[str, str] = {}
    moved = renames([name for name in distance if name not in result_defs])
    over: list[str] = []
    for name in sorted(distance, key=lambda item: (distance[item], item)):
        definition = smelly_defs[name]
        counterpart = name if name in result_defs else moved.get(name)
        where = _in_module(name, smelly)
        if not _reachable(name, smelly):
            not_comparable[name] = "nested inside a function: it cannot be called from outside"
            continue
        if counterpart is None or counterpart not in result_defs:
            not_comparable[name] = "the result has no definition of it (removed, or moved " \
                                   "where the rename matching could not follow)"
            continue
        paired = result_defs[counterpart]
        if paired.kind not in CALLABLE_KINDS:
            not_comparable[name] = f"the result's {counterpart} is a {paired.kind}"
            continue
        problem = compatible(definition, paired)
        result_where = _in_module(counterpart, result)
        if problem is None and (where is None or result_where is None):
            problem = "its module is not known"
        if problem is not None:
            not_comparable[name] = problem if counterpart == name else \
                f"renamed to {counterpart}; {problem}"
            continue
        assert where is not None and result_where is not None
        if len(entries) >= limit:
            over.append(name)
            continue
        first = (first_lines or {}).get(name, definition.start_line)
        entries.append(EntryPoint(name=name, module=where[0], qualname=where[1],
                                  result_module=result_where[0], result_qualname=result_where[1],
                                  distance=distance[name], first_line=first,
                                  def_line=definition.start_line))
    if over:
        not_comparable[f"{over[0]} and {len(over) - 1} more"] = \
            f"over the limit of {limit} entry points (the farthest from the change)"
    return Selection(tuple(entries), not_comparable)
