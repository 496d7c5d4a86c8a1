"""God class injector: a class absorbs the collaborator classes only it uses (the inverse of
"extract class").

Candidate: a class `A` that creates a collaborator `self.<attr> = C(...)` in one of its methods,
where `C` is a plain class of another module (no bases, decorators, class attributes or dunders
but `__init__`, no subclasses) that nothing but that method creates or names, and `A` touches it
only as `self.<attr>.<member>`. Inlining keeps behaviour: `C.__init__` becomes `A._init_<attr>`
(called where `C(...)` was, with the same arguments), `C`'s methods and fields join `A` under
`_<attr>_<name>`; a private `C` is deleted, a public one stays for code outside the repository
(its tests, its users). The result must be what the detector calls a god class
(WMC >= 47, TCC < 1/3, ATFD > 5), so candidates are classes that come close with their
collaborators.

Difficulties: easy inlines one collaborator (two files); medium two, from two other modules
(three files); hard three or more (four files). Medium and hard name red herrings: the other
collaborators `A` creates (a class others use too, one left out), which must stay separate.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import Field

from smellkit.detectors._access import data_access, is_test_code
from smellkit.detectors.context import Context
from smellkit.detectors.runner import run_detectors
from smellkit.facts import Attr, CallOf, Name
from smellkit.injectors import _feature_envy_move as move
from smellkit.injectors._god_class_inline import Collaborator, inline
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions, Skip
from smellkit.injectors.checks import check_kind
from smellkit.models import Candidate, Difficulty, StructuralCheck

_NEEDED = {"easy": 1, "medium": 2, "hard": 3}


class GodClassInjectorOptions(InjectorOptions):
    wmc_at_least: int = Field(
        default=47, ge=1, description="The holder and the collaborators it absorbs must reach "
        "this WMC together (the detector's threshold).")
    atfd_above: int = Field(
        default=5, ge=0, description="Together they must use more than this many attributes of "
        "other classes (the detector's ATFD threshold).")


class GodClassInjector(Injector[GodClassInjectorOptions]):
    """Inlines the collaborators a class alone uses into it."""

    name = "god_class"
    description = ("A class does the work of the collaborator classes it used to delegate to: "
                   "large, incohesive, using much foreign data; split the responsibilities out.")
    Options = GodClassInjectorOptions

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        analysis = context.analysis
        by_holder: dict[str, list[Collaborator]] = {}
        for item in _collaborators(analysis):
            by_holder.setdefault(item.holder, []).append(item)
        flagged: set[str] | None = None
        for holder, found in sorted(by_holder.items()):
            if flagged is None:  # the detector runs once, and only when there is a holder
                flagged = {finding.location.qualname
                           for finding in run_detectors(analysis, [self.name])}
            if holder in flagged:
                continue  # already a god class: injecting would prove nothing
            names = {item.cls for item in found}
            if len(names) != len(found):
                continue  # one class held twice: it is not one responsibility
            wmc = _wmc(analysis, holder) + sum(_wmc(analysis, item.cls) for item in found)
            atfd = _atfd(analysis, holder, names)
            location = context.location(holder)
            if location is None or wmc < self.options.wmc_at_least \
                    or atfd <= self.options.atfd_above:
                continue
            files = tuple(dict.fromkeys([location.path, *(context.path_of(item.cls) or ""
                                                          for item in found)]))
            held = ", ".join(f"self.{item.attribute} ({item.cls})" for item in found)
            yield Candidate(
                smell=self.name, target=location, files=files,
                reason=(f"{holder} holds collaborators that only it uses: {held}; with them it "
                        f"would have WMC {wmc} and use {atfd} attributes of other classes"),
                data={"holder": holder, "collaborators": [
                    {"attribute": item.attribute, "cls": item.cls, "scope": item.scope}
                    for item in found]})

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit | Skip:
        holder: str = candidate.data["holder"]
        found = [Collaborator(holder, item["attribute"], item["cls"], item["scope"])
                 for item in candidate.data["collaborators"]]
        holder_path = context.path_of(holder)
        apart = [item for item in found if context.path_of(item.cls) != holder_path]
        needed = _NEEDED[difficulty]
        if len(apart) < needed:
            return Skip(f"{holder} has {len(apart)} collaborator(s) in other modules, "
                        f"{difficulty} needs {needed}")
        chosen = sorted(apart, key=lambda item: (-_wmc(context.analysis, item.cls), item.cls))
        chosen = chosen[:needed] if difficulty != "hard" else chosen
        herrings = _look_alikes(context.analysis, holder, {item.cls for item in chosen})
        if difficulty == "hard" and not herrings:
            return Skip(f"{holder} holds no collaborator that others use too (a red herring)")
        try:
            changes, added = inline(context, holder, chosen)
        except move.Refused as refused:
            return Skip(str(refused))
        index = context.index
        methods = sum(1 for name in index.children.get(holder, {}).values()
                      if index.definitions[name].kind == "method")
        short = holder.rpartition(".")[2]
        checks = (
            StructuralCheck(
                kind="god_class.at_most_methods",
                description=f"`{short}` defines at most {methods} methods (its responsibilities "
                            "live in classes of their own)",
                params={"cls": holder, "methods": methods}),
            StructuralCheck(
                kind="no_finding", description=f"no god class is reported at `{short}`",
                params={"smell": "god_class", "qualnames": [holder]}),
        )
        return Edit(
            changes=changes, targets=((holder, "class"),), checks=checks,
            involved=(*(f"{holder}.{name}" for name in added), *(item.cls for item in chosen)),
            red_herrings=tuple(herrings) if difficulty != "easy" else (),
            summary=f"inlined {', '.join(item.cls for item in chosen)} into {holder}")


def _collaborators(analysis: Context) -> Iterator[Collaborator]:
    """`self.<attr> = C(...)` in a method of a class, C a plain class that only that method
    creates or names."""
    index = analysis.index
    graph = analysis.call_graph
    for facts in index.modules.values():
        for assignment in facts.assignments:
            target, value = assignment.target, assignment.value
            if not (isinstance(target, Attr) and isinstance(target.base, Name)
                    and isinstance(value, CallOf) and value.index < len(facts.calls)):
                continue
            holder = index.class_of.get(assignment.scope)
            definition = index.definitions.get(assignment.scope)
            if holder is None or definition is None or not definition.params \
                    or definition.params[0].name != target.base.id:
                continue
            func = facts.calls[value.index].func
            if not isinstance(func, Name):
                continue
            cls = index.resolve_name(assignment.scope, func.id)
            if cls is None or cls not in index.classes or cls == holder:
                continue
            if is_test_code(analysis, holder) or not _plain(analysis, cls):
                continue
            creators = {caller for name in (cls, f"{cls}.__init__") if name in graph
                        for caller in graph.predecessors(name)}
            if creators - {assignment.scope}:
                continue
            if _named_elsewhere(analysis, cls, {facts.module, index.module_of[cls]}):
                continue
            yield Collaborator(holder, target.attr, cls, assignment.scope)


def _plain(analysis: Context, cls: str) -> bool:
    """A class with no bases, decorators, subclasses, class attributes or dunders but
    `__init__`, defined at the top level of its module."""
    index = analysis.index
    info = index.classes[cls]
    definition = index.definitions[cls]
    if info.base_names or info.metaclass or definition.decorators \
            or definition.parent not in index.modules or index.subclasses(cls):
        return False
    if any(item.kind != "instance" for item in info.attributes):
        return False
    for name, qualname in index.children.get(cls, {}).items():
        member = index.definitions[qualname]
        if member.kind != "method" or member.decorators:
            return False
        if name.startswith("__") and name != "__init__":
            return False
    return True


def _named_elsewhere(analysis: Context, cls: str, allowed: set[str]) -> bool:
    """Another module imports the class, or it is exported, or a string names it."""
    index = analysis.index
    name = index.definitions[cls].name
    for module, facts in index.modules.items():
        if module not in allowed and any(
                index.resolve_dotted(item.target) == cls for item in facts.imports):
            return True
        if facts.dunder_all and name in facts.dunder_all:
            return True
        if any(value == name for value, _ in facts.string_constants):
            return True
    return False


def _wmc(analysis: Context, cls: str) -> int:
    index = analysis.index
    total = 0
    for qualname in index.children.get(cls, {}).values():
        definition = index.definitions[qualname]
        if definition.kind == "method":
            total += definition.measure.cc if definition.measure is not None else 1
    return total


def _atfd(analysis: Context, holder: str, absorbed: set[str]) -> int:
    """Foreign attributes the holder and the absorbed classes use, theirs left out."""
    access = data_access(analysis)
    index = analysis.index
    used: set[str] = set()
    for cls in (holder, *absorbed):
        for qualname in index.children.get(cls, {}).values():
            entry = access.methods.get(qualname)
            if entry is not None:
                used.update(name for name, use in access.data_uses(entry).items()
                            if use.owner not in absorbed and use.owner != holder)
    return len(used)


def _look_alikes(analysis: Context, holder: str, absorbed: set[str]) -> list[str]:
    """Classes the holder also creates and keeps, that stay separate (used by others too, or
    not absorbed at this difficulty)."""
    index = analysis.index
    found: list[str] = []
    info = index.classes.get(holder)
    if info is None:
        return found
    for facts in index.modules.values():
        for assignment in facts.assignments:
            if index.class_of.get(assignment.scope) != holder or not isinstance(
                    assignment.value, CallOf) or assignment.value.index >= len(facts.calls):
                continue
            func = facts.calls[assignment.value.index].func
            if isinstance(func, Name):
                cls = index.resolve_name(assignment.scope, func.id)
                if cls in index.classes and cls not in absorbed and cls != holder \
                        and cls not in found:
                    found.append(cls)
    return sorted(found)[:2]


@check_kind("god_class.at_most_methods")
def _at_most_methods(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    """The class defines no more methods than it did before it absorbed its collaborators."""
    cls, limit = params["cls"], int(params["methods"])
    index = context.index
    if cls not in index.classes:
        return True, f"{cls} is not defined"
    count = sum(1 for name in index.children.get(cls, {}).values()
                if index.definitions[name].kind == "method")
    return count <= limit, f"{cls} defines {count} methods (limit {limit})"
