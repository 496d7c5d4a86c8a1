"""Dead code injector: the earlier version of code, left behind when its last caller moved on.

A candidate is a function or method `f` (module A) that calls, in writing, a plain top-level
function `g` of another module B of the same package. An injection builds a dead cluster around
that call: the call graph's own functions, one per module, tied by the calls between them (first
`f -> g`; then, as the seed picks, a function a callee calls in a further module, or another
caller of one of the cluster's top-level functions). Each function of the cluster gets its
earlier version, the one its callers used before they were switched to it: under the name it
had (`names`: a word said differently, or a narrower name, from the repository's own words),
with the body before its late revisions (`variants`: no early-exit guard yet, `str.format`
for f-strings, no annotations), calling the earlier versions of the others. Nothing calls the
head of the cluster: the old entry point whose callers all moved to the new one.
So the shapes vary with the seed and with the code: a retired helper and the retired function
that called it (easy, 2 files), a chain going up or down the call graph, or several retired
callers fanning into one retired helper (medium 3 files, hard 4). No dead statement is grafted
into live code: `if False:` around an old call, or a call below a `raise` or `return`, is
nothing an author commits.

Nothing is injected outside the analysed package: the modules are those of one package (a
folder with `__init__.py`), never a `__main__` module nor the `if __name__ == "__main__":` block
of a script. Behaviour is preserved: the new functions are never called and the only new
imports name them beside the import of the function they copy (in sorted place). Structural
checks ask that each copy be gone or reached from live code (`dead_code.absent_or_used`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

import libcst as cst

from smellkit.checks.dead_code import dead_findings
from smellkit.config import is_test_path
from smellkit.detectors.dead_code import DeadCode
from smellkit.errors import InjectionRefused
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.cst import edit
from smellkit.injectors.dead_code.copies import MAX_LINES, Link, add_copy, import_copy, link
from smellkit.injectors.dead_code.names import retired_name
from smellkit.injectors.dead_code.places import main_guard_lines
from smellkit.injectors.dead_code.variants import revisable
from smellkit.models import SPANS, Candidate, Difficulty, StructuralCheck


class DeadCodeInjector(Injector[InjectorOptions]):
    """Earlier versions of functions nothing calls, reached only from each other."""

    smell = DeadCode.smell
    description = ("Leaves the earlier versions of functions behind: the functions around a "
                   "call between modules as they were before their last revisions, under "
                   "their former names, calling each other, reached only from one nothing "
                   "calls.")
    Options = InjectorOptions

    # -- candidates ------------------------------------------------------------------------

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        index = context.index
        graph = index.call_graph
        touched = _flagged_spans(context)
        for facts in sorted(index.modules.values(), key=lambda item: item.path):
            if is_test_path(facts.path) or facts.module.rpartition(".")[2] == "__main__":
                context.discard("a test or __main__ module", len(facts.definitions))
                continue
            if not _in_package(context, facts.module):
                context.discard("not in a package (a script or example)",
                                len(facts.definitions))
                continue
            guarded = _main_guards(context, facts.path)
            returns = {item.scope for item in facts.returns}
            unreachable = {span.scope for span in facts.liveness.unreachable}
            for definition in facts.definitions:
                qualname = definition.qualname
                if (definition.kind not in ("function", "method") or definition.is_stub
                        or index.definitions.get(qualname) is not definition
                        or qualname not in returns or qualname in unreachable
                        or qualname not in graph or definition.decorators):
                    continue
                if any(start <= definition.start_line <= end for start, end in guarded):
                    context.discard("under `if __name__ == \"__main__\":`")
                    continue
                if definition.name.startswith("__") and definition.name.endswith("__"):
                    context.discard("a dunder: Python calls it, an earlier version under "
                                    "another name would be no helper")
                    continue
                if definition.end_line - definition.start_line + 1 > MAX_LINES:
                    context.discard(f"longer than {MAX_LINES} lines: nobody keeps pages of "
                                    "an earlier version")
                    continue
                parts = edit.relative_parts(qualname, facts.module)
                if parts is None or len(parts) > 2 or (
                        len(parts) == 2 and definition.kind != "method"):
                    continue
                if any(start <= definition.end_line + 1 and end >= definition.start_line
                       for start, end in touched.get(facts.path, ())):
                    context.discard("already dead code there")
                    continue
                callees = sorted(
                    callee for callee in graph.successors(qualname)
                    if callee in index.module_of and _callee(context, callee, facts.module)
                    and _written(context, qualname, callee))
                if not callees:
                    context.discard("calls no function or method of another module of its "
                                    "package by name")
                    continue
                location = context.location(qualname)
                if location is None:
                    continue
                files = sorted({facts.path, *(context.path_of(name) or "" for name in callees)})
                yield Candidate(
                    smell=self.name, target=location,
                    reason=f"`{qualname}` ends with a return and calls "
                           f"{', '.join(f'`{name}`' for name in callees[:3])} of another module: "
                           "a shim of the callee can be reached from code that never runs",
                    files=tuple(name for name in files if name),
                    data={"callees": callees})

    # -- injection -------------------------------------------------------------------------

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        callees = list(candidate.data.get("callees", ()))
        rng.shuffle(callees)
        refusal = InjectionRefused("no callee of another module to copy")
        for g in callees:
            try:
                links = _cluster(context, candidate.target.qualname, g, SPANS[difficulty][0],
                                 rng)
                return _build(context, links, difficulty, rng)
            except InjectionRefused as error:  # the last callee's reason is reported
                refusal = error
        raise refusal


def _cluster(context: InjectionContext, f: str, g: str, modules_wanted: int,
             rng: random.Random) -> list[Link]:
    """The calls that tie the dead cluster together, first `f -> g`, then one more module at a
    time: a function the cluster's callees call (the chain goes deeper), or a caller of one of
    its top-level functions (the chain goes up, or another caller of the same helper fans in),
    as the seed picks among what the call graph offers. Every function of the cluster is tied
    to it by a call: a function of a further module that neither calls nor is called by the
    earlier versions is no part of the history, only a copy placed to reach a file count, so
    where the call graph ties too few modules the difficulty is refused."""
    first = link(context, f, g)
    if first is None:
        raise InjectionRefused(f"`{f}` reaches `{g}` through no unaliased import")
    if _uncopied(context, [first]):
        raise InjectionRefused(f"`{f}` or `{g}` is longer than {MAX_LINES} lines or a dunder: "
                               "no copy of it reads as an earlier version")
    index = context.index
    modules = {index.module_of[f], index.module_of[g]}
    search = _Search()
    found = _grow(context, [first], modules, modules_wanted, rng, search)
    if found is not None:
        return found
    if search.twins:
        raise InjectionRefused(
            f"each dead chain of {modules_wanted} modules around `{f}` -> `{g}` ends in an "
            f"earlier version that would be a verbatim twin of its function (`{search.twins[0]}`:"
            " no late revision to undo, no call of the chain to redirect)")
    raise InjectionRefused(f"no function of a further module calls, or is called by, the "
                           f"functions around `{f}` -> `{g}` in a way their earlier versions "
                           f"could keep: the call graph ties no {modules_wanted} modules into "
                           "one dead chain")


@dataclass
class _Search:
    """What `_grow` has tried: partial clusters, and the functions whose earlier version
    would have been a verbatim twin of it in a cluster otherwise complete."""

    tries: int = 0
    twins: list[str] = field(default_factory=list)


def _grow(context: InjectionContext, links: list[Link], modules: set[str], wanted: int,
          rng: random.Random, search: _Search) -> list[Link] | None:
    """`links` and calls tying one more module each until `wanted`, trying the ways in a
    seeded order (at most `_TRIES` partial clusters in all), or None. A cluster whose copies
    would not read as earlier versions (too long, a dunder, a verbatim twin) is passed over."""
    if len(modules) >= wanted:
        if _uncopied(context, links):
            return None
        twins = _twins(context, links)
        search.twins.extend(twins)
        return None if twins else links
    ways = [options for options in _growth(context, links, modules) if options]
    # the way first: helpers called from many places would make most clusters fans
    rng.shuffle(ways)
    for options in ways:
        options = list(options)
        rng.shuffle(options)
        for item in options:
            search.tries += 1
            if search.tries > _TRIES:
                return None
            index = context.index
            found = _grow(context, [*links, item], modules | {
                index.module_of[item.caller], index.module_of[item.callee]}, wanted, rng, search)
            if found is not None:
                return found
    return None


_TRIES = 40


def _growth(context: InjectionContext, links: list[Link],
            modules: set[str]) -> tuple[list[Link], list[Link], list[Link]]:
    """The calls that could tie a function of a further module to the cluster: its members'
    callees there (the chain goes deeper), callers there of its heads (the chain goes up), and
    other callers there of the functions it calls (a fan into one old helper)."""
    index = context.index
    graph = index.call_graph
    callees = {item.callee for item in links}
    members = {item.caller for item in links} | callees
    deeper: list[Link] = []
    up: list[Link] = []
    fan: list[Link] = []
    for member in sorted(members):
        module = index.module_of[member]
        for callee in sorted(graph.successors(member)):  # deeper: what it calls elsewhere
            if callee in index.module_of and index.module_of[callee] not in modules and \
                    _short(context, callee) and _callee(context, callee, module) and \
                    _written(context, member, callee) and \
                    (found := link(context, member, callee)) is not None:
                deeper.append(found)
        if not _callee(context, member):
            continue
        for caller in sorted(graph.predecessors(member)):  # up: who else calls it, elsewhere
            if caller in index.module_of and index.module_of[caller] not in modules and \
                    _short(context, caller) and _copyable(context, caller) and \
                    _written(context, caller, member) and \
                    (found := link(context, caller, member)) is not None:
                (fan if member in callees else up).append(found)
    return deeper, up, fan


def _dunder(context: InjectionContext, qualname: str) -> bool:
    name = context.index.definitions[qualname].name
    return name.startswith("__") and name.endswith("__")


def _short(context: InjectionContext, qualname: str) -> bool:
    definition = context.index.definitions[qualname]
    return definition.end_line - definition.start_line + 1 <= MAX_LINES


def _callee(context: InjectionContext, qualname: str, caller_module: str | None = None) -> bool:
    """A function of the package whose copy the copy of a caller can call: a plain top-level
    function, or a method of a top-level class (called on an object)."""
    definition = context.index.definitions.get(qualname)
    if definition is not None and definition.kind == "method":
        if definition.name.startswith("__") and definition.name.endswith("__"):
            return False  # called by Python (`obj(...)`, `len(obj)`), never by its name
        return _copyable(context, qualname) and not definition.decorators and \
            context.index.module_of.get(qualname) != caller_module
    return _module_function(context, qualname, caller_module)


def _build(context: InjectionContext, links: list[Link], difficulty: Difficulty,
           rng: random.Random) -> Edit:
    """Earlier versions of the cluster's functions, each under the name it had and calling the
    earlier versions of its callees; nothing calls the head (a function nothing in the cluster
    calls). Names whose calls would push a line past the repository's line length are tried
    again with other names."""
    index = context.index
    callees = [item.callee for item in links]
    callers = list(dict.fromkeys(item.caller for item in links))
    roots = [name for name in callers if name not in callees]
    members = list(dict.fromkeys([*callers, *callees]))
    if _uncopied(context, links):
        raise InjectionRefused(f"the cluster {' '.join(members)} has a function longer than "
                               f"{MAX_LINES} lines or a dunder: no copy of it reads as an "
                               "earlier version")
    head = rng.choice(roots)
    limit = context.house_style.line_length
    for attempt in range(_NAMINGS):
        taken: set[str] = set()
        slack = 10 if attempt == 0 else 2  # after a line too wide: names about as long
        names = {name: retired_name(context, name, rng, taken,
                                    len(index.definitions[name].name) + slack)
                 for name in members}
        changes: dict[str, str | None] = {}
        for name in members:
            path = index.modules[index.module_of[name]].path
            text = changes.get(path)
            tree = cst.parse_module(text) if text else context.module(path)
            out = [(item, names[item.callee]) for item in links if item.caller == name]
            tree = add_copy(context, tree, name, names[name], out, rng)
            for item, new in out:
                tree = import_copy(context, tree, item, new)
            changes[path] = tree.code
        if not _too_wide(context, changes, limit):
            break
    else:
        raise InjectionRefused(f"every naming of the earlier versions of {' '.join(members)} "
                               f"pushes a line past {limit} columns")
    qualname = {name: f"{name.rpartition('.')[0]}.{names[name]}" for name in members}
    checks = [_used_check(qualname[name], "function") for name in members]
    chain = " -> ".join(f"`{qualname[item.caller]}` -> `{qualname[item.callee]}`"
                        for item in links)
    target = qualname[head]
    return Edit(
        changes=changes, targets=((target, "method"),), checks=tuple(checks),
        involved=tuple(qualname[name] for name in members if name != head),
        red_herrings=() if difficulty == "easy" else tuple(name for name in members
                                                           if name != head),
        summary=f"retired head: {chain} (none can run)")


_NAMINGS = 4
"""Namings tried before a case whose calls do not fit the line length is refused."""


def _too_wide(context: InjectionContext, changes: dict[str, str | None], limit: int) -> bool:
    """Whether an added line is longer than `limit` (and than every line of its original)."""
    for path, text in changes.items():
        before = context.source(path).splitlines()
        widest = max([limit, *(len(line) for line in before)])
        old = set(before)
        if any(len(line) > widest for line in (text or "").splitlines() if line not in old):
            return True
    return False


def _twins(context: InjectionContext, links: list[Link]) -> list[str]:
    """The functions of the cluster whose earlier version would be their verbatim twin: those
    calling no other piece of it (nothing to redirect) with no late revision to undo. An
    unchanged copy beside its original (`_ngettext_dummy` above `ngettext`) is no history."""
    callers = {item.caller for item in links}
    leaves = dict.fromkeys(item.callee for item in links if item.callee not in callers)
    return [name for name in leaves if not _revisable(context, name)]


def _revisable(context: InjectionContext, qualname: str) -> bool:
    def find() -> bool:
        index = context.index
        module = index.module_of[qualname]
        parts = edit.relative_parts(qualname, module) or []
        function = edit.find_definition(context.module(index.modules[module].path), parts)
        return isinstance(function, cst.FunctionDef) and \
            revisable(function, parts[-2] if len(parts) > 1 else None)

    return context.once(("dead_code.revisable", qualname), find)


def _uncopied(context: InjectionContext, links: list[Link]) -> list[str]:
    """The functions of the cluster that cannot be copied: longer than `MAX_LINES` (pages of
    earlier version nobody keeps), or dunders (Python calls them: an earlier version under
    another name would be no helper)."""
    callees = {item.callee for item in links}
    members = list(dict.fromkeys([*(item.caller for item in links), *callees]))
    return [name for name in members if not _short(context, name) or _dunder(context, name)]


# -- helpers ----------------------------------------------------------------------------------


def _flagged_spans(context: InjectionContext) -> dict[str, list[tuple[int, int]]]:
    """Lines of the original that the dead-code detector already reports, by path."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for finding in dead_findings(context.analysis):
        for location in (finding.location, *finding.related):
            spans.setdefault(location.path, []).append(
                (location.start_line, location.end_line))
    return spans


def _module_function(context: InjectionContext, qualname: str,
                     caller_module: str | None = None) -> bool:
    """A plain top-level function of the package, of another module than `caller_module`
    (when given) of the same top-level package."""
    index = context.index
    definition = index.definitions.get(qualname)
    module = index.module_of.get(qualname)
    if definition is None or module is None or module == caller_module:
        return False
    path = index.modules[module].path
    if (caller_module is not None and module.split(".")[0] != caller_module.split(".")[0]) or \
            not _in_package(context, module):
        return False  # the library's own code only: not a script calling into it
    return (definition.kind == "function" and definition.parent == module
            and definition.col == 0 and not definition.is_async  # a plain top-level def
            and not definition.decorators and not is_test_path(path))


def _written(context: InjectionContext, caller: str, callee: str) -> bool:
    """`caller` calls `callee` in writing, by its name (not only as a decorator, implicitly
    or through another name)."""
    index = context.index
    module = index.module_of.get(caller)
    if module is None:
        return False
    lines = set(index.call_graph.edges[caller, callee].get("lines", ()))
    name = index.definitions[callee].name
    text = context.source(index.modules[module].path).splitlines()
    return any(call.line in lines and name in text[call.line - 1]
               for call in index.modules[module].calls
               if call.scope == caller and not call.implicit and 0 < call.line <= len(text))


def _copyable(context: InjectionContext, qualname: str) -> bool:
    """A plain function or a method of a top-level class, in the package's own code, that a
    copy can sit beside (no decorator but `staticmethod`/`classmethod`, not in a script's
    `__main__` block, not dead already)."""
    index = context.index
    definition = index.definitions.get(qualname)
    module = index.module_of.get(qualname)
    if definition is None or module is None or definition.kind not in ("function", "method") \
            or (definition.name.startswith("__") and definition.name.endswith("__")):
        return False  # Python calls a dunder: its earlier version would be no helper
    parts = edit.relative_parts(qualname, module)
    facts = index.modules[module]
    if parts is None or len(parts) > 2 or (len(parts) == 2) != (definition.kind == "method") \
            or is_test_path(facts.path) or not _in_package(context, module):
        return False
    if any(name not in ("staticmethod", "classmethod") for name in definition.decorators):
        return False
    guarded = _main_guards(context, facts.path)
    return not any(start <= definition.start_line <= end for start, end in guarded) and \
        not any(span.scope == qualname for span in facts.liveness.unreachable)


def _main_guards(context: InjectionContext, path: str) -> list[tuple[int, int]]:
    return context.once(("main guards", path), lambda: main_guard_lines(context.source(path)))


def _in_package(context: InjectionContext, module: str) -> bool:
    """A package's `__init__` or a module of a package (its folder holds an `__init__.py`),
    not `__main__`: scripts, examples and loose modules beside the package are not the library
    (a library may keep most of its code in its `__init__.py`, as cachetools does)."""
    index = context.index
    if module.rpartition(".")[2] == "__main__":
        return False
    if module in index.modules and index.modules[module].is_package:
        return True
    parent = module.rpartition(".")[0]
    return bool(parent) and parent in index.modules and index.modules[parent].is_package


def _used_check(qualname: str, what: str) -> StructuralCheck:
    return StructuralCheck(
        kind="dead_code.absent_or_used",
        description=f"`{qualname}` is not defined, or code that can run uses it",
        params={"qualname": qualname, "what": what})
