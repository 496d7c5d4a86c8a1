"""God class injector: a class absorbs responsibilities that live elsewhere (the inverse of
"extract class"), in two forms.

Collaborators: a class `A` that creates a collaborator `self.<attr> = C(...)` in one of its
methods, where `C` is a plain class of another module (no bases, decorators, class attributes or
dunders but `__init__`, no subclasses) that nothing but that method creates or names, and `A`
touches it only as `self.<attr>.<member>`. Inlining keeps behaviour: `C.__init__` becomes
`A._init_<attr>` (called where `C(...)` was, with the same arguments), `C`'s methods and fields
join `A` under `_<attr>_<name>`; a private `C` is deleted, a public one stays for code outside the
repository (its tests, its users).

Functions (`_god_class_absorb`): a class `A` of real size (`min-holder-wmc`) takes in functions
of other modules of its package (those its module calls first) as static methods, each module
keeping thin functions of the same signatures that delegate to them, so every caller, inside
the repository or not, runs the same code.

Either way the result must be what the detector calls a god class (WMC >= 47, TCC < 1/3,
ATFD > 5, predicted from the detector's own measures), and a class that a god class finding
already names is no candidate.

Difficulties: easy absorbs one collaborator or the functions of one module (two files); medium
two, from two other modules (three files); hard three or more (four files). Medium and hard
name red herrings: the other collaborators `A` creates, or the functions its module calls (and
those of the absorbed modules) that stay where they are; hard needs one. What `A` gained is
called as before, by name: an indirection made up to hide it (a registry filled by a decorator,
looked up by string) would read as machine-made, as no codebase grows a god class so.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator

from pydantic import Field

from smellkit.analysis.access import data_access, is_test_code
from smellkit.analysis.context import Context
from smellkit.detectors.god_class import GodClass, GodClassOptions
from smellkit.detectors.runner import residue, run_detectors
from smellkit.errors import InjectionRefused
from smellkit.facts import Attr, CallOf, Name
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.cst import move
from smellkit.injectors.god_class import absorb as absorbing
from smellkit.injectors.god_class import planning
from smellkit.injectors.god_class.inline import Collaborator, inline
from smellkit.models import Candidate, Difficulty, StructuralCheck

_NEEDED = {"easy": 1, "medium": 2, "hard": 3}


class GodClassInjectorOptions(InjectorOptions):
    wmc_at_least: int = Field(
        default=GodClassOptions.default("wmc_at_least"), ge=1, description="The holder and the "
        "collaborators it absorbs must reach this WMC together (the detector's threshold).")
    atfd_above: int = Field(
        default=GodClassOptions.default("atfd_above"), ge=0, description="Together they must use "
        "more than this many attributes of other classes (the detector's ATFD threshold).")
    min_holder_wmc: int = Field(
        default=15, ge=0, description="A holder absorbing functions must have at least this WMC "
        "of its own: a class with real behaviour, not a record or a node type.")
    tcc_below: float = Field(
        default=GodClassOptions.default("tcc_below"), gt=0, le=1, description="A holder absorbing "
        "functions must end with a TCC below this (the detector's threshold).")


class GodClassInjector(Injector[GodClassInjectorOptions]):
    """Inlines the collaborators a class alone uses into it."""

    smell = GodClass.smell
    description = ("A class does the work of the collaborator classes it used to delegate to: "
                   "large, incohesive, using much foreign data; split the responsibilities out.")
    Options = GodClassInjectorOptions

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        analysis = context.analysis
        # A class a finding names (as the god class or as one whose data it uses) is no place to
        # inject: the detector's report there would not be about the injection.
        flagged = {location.qualname for finding in run_detectors(analysis, [self.name])
                   for location in (finding.location, *finding.related)}
        yield from self._collaborator_candidates(context, flagged)
        yield from self._function_candidates(context, flagged)

    def coverage_targets(self, candidate: Candidate) -> tuple[str, ...]:
        """What the edit moves: the collaborators' code and the method that created them; for
        absorbed functions nothing more (discovery took only functions the tests run well, and
        the holder's own code does not change)."""
        if candidate.data.get("kind") == "functions":
            return ()
        return tuple(dict.fromkeys(name for item in candidate.data["collaborators"]
                                   for name in (item["scope"], item["cls"])))

    def _collaborator_candidates(self, context: InjectionContext,
                                 flagged: set[str]) -> Iterator[Candidate]:
        analysis = context.analysis
        by_holder: dict[str, list[Collaborator]] = {}
        for item in _collaborators(analysis, context.discard):
            by_holder.setdefault(item.holder, []).append(item)
        for holder, found in sorted(by_holder.items()):
            if holder in flagged:
                context.discard("already reported as a god class")
                continue  # already a god class: injecting would prove nothing
            names = {item.cls for item in found}
            if len(names) != len(found):
                context.discard("holds one collaborator class twice")
                continue  # one class held twice: it is not one responsibility
            wmc = _wmc(analysis, holder) + sum(_wmc(analysis, item.cls) for item in found)
            atfd = _atfd(analysis, holder, names)
            location = context.location(holder)
            if location is None:
                continue
            if wmc < self.options.wmc_at_least or atfd <= self.options.atfd_above:
                context.discard("with its collaborators still too small or self-contained for "
                                "the detector")
                continue
            files = tuple(dict.fromkeys([location.path, *(context.path_of(item.cls) or ""
                                                          for item in found)]))
            held = ", ".join(f"self.{item.attribute} ({item.cls})" for item in found)
            yield Candidate(
                smell=self.name, target=location, files=files,
                reason=(f"{holder} holds collaborators that only it uses: {held}; with them it "
                        f"would have WMC {wmc} and use {atfd} attributes of other classes"),
                data={"kind": "collaborators", "holder": holder, "collaborators": [
                    {"attribute": item.attribute, "cls": item.cls, "scope": item.scope}
                    for item in found]})

    def _function_candidates(self, context: InjectionContext,
                             flagged: set[str]) -> Iterator[Candidate]:
        """Holders that absorbing functions of one, two or three other modules of the package
        would make god classes."""
        analysis = context.analysis
        index = context.index
        calls = planning.calls_by_module(analysis)
        per_module: dict[str, list[planning.Cluster]] = {}
        for holder in sorted(index.classes):
            module = index.module_of.get(holder)
            if module is None or holder in flagged:
                continue  # counted with the collaborator holders
            fragile = _fragile_function_holder(analysis, holder)
            if fragile is not None:
                context.discard(_fragility_rule(fragile))
                continue
            measures = planning.measure_holder(analysis, holder)
            if measures.wmc < self.options.min_holder_wmc:
                context.discard(f"a holder of WMC under {self.options.min_holder_wmc} "
                                "(a record or a small class)")
                continue
            if not _central(analysis, holder, measures.wmc):
                context.discard("not a central class: no subclasses, no other module uses it, "
                                "and a bigger class beside it in its module")
                continue
            if module not in per_module:
                per_module[module] = planning.clusters(analysis, module, calls,
                                                         context.well_covered) \
                    if planning.eagerly_imported(analysis, module) else []
            pool = planning.for_holder(analysis, per_module[module], holder)
            if not pool and planning.cycling(analysis, per_module[module], holder):
                context.discard("its module imports every module whose functions it calls: "
                                "they could reach it only from inside functions (a cycle), as the "
                                "repository's own code does in fewer than "
                                f"{planning.IDIOM_PLACES} places")
                continue
            if not pool:
                context.discard("its module is imported lazily or its package has no movable "
                                "well-tested functions elsewhere")
                continue
            location = context.location(holder)
            if location is None:
                continue
            for needed in (1, 2, 3):
                chosen = planning.choose(measures, pool, needed, self._limits())
                if chosen is not None:
                    break
            else:
                context.discard("no functions of up to three other modules make it a god class")
                continue
            functions = [item for cluster in chosen for item in cluster.functions]
            wmc, tcc, atfd = planning.predicted(measures, functions)
            names = ", ".join(item.name for item in functions[:4])
            local = [item.module for item in chosen
                     if planning.cyclic(analysis, item.module, holder)]
            places = len(analysis.derived(planning.imports_in_functions))
            idiom = (f"; the thin functions of {', '.join(local)} would import it when called, "
                     f"as the repository's code imports its modules inside functions in {places} "
                     "places") \
                if local else ""
            yield Candidate(
                smell=self.name, target=location,
                files=(location.path, *(context.path_of(item.module) or "" for item in chosen)),
                reason=(f"absorbing {len(functions)} functions of "
                        f"{', '.join(item.module for item in chosen)} ({names}"
                        f"{', ...' if len(functions) > 4 else ''}) as static methods would give "
                        f"{holder} WMC {wmc}, TCC {tcc:.2f}, ATFD {atfd}; now WMC "
                        f"{measures.wmc}, ATFD {len(measures.foreign)}{idiom}"),
                data={"kind": "functions", "holder": holder, "modules": needed})

    def _limits(self) -> planning.Limits:
        return self.options.wmc_at_least, self.options.tcc_below, self.options.atfd_above

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        if candidate.data.get("kind") == "functions":
            return self._absorb(context, candidate, difficulty)
        holder: str = candidate.data["holder"]
        found = [Collaborator(holder, item["attribute"], item["cls"], item["scope"])
                 for item in candidate.data["collaborators"]]
        holder_path = context.path_of(holder)
        apart = [item for item in found if context.path_of(item.cls) != holder_path]
        needed = _NEEDED[difficulty]
        if len(apart) < needed:
            raise InjectionRefused(f"{holder} has {len(apart)} collaborator(s) in other modules, "
                                   f"{difficulty} needs {needed}")
        chosen = sorted(apart, key=lambda item: (-_wmc(context.analysis, item.cls), item.cls))
        chosen = chosen[:needed] if difficulty != "hard" else chosen
        herrings = _look_alikes(context.analysis, holder, {item.cls for item in chosen})
        if difficulty == "hard" and not herrings:
            raise InjectionRefused(f"{holder} holds no collaborator that others use too (a red "
                                   "herring)")
        changes, added = inline(context, holder, chosen)
        checks = _checks(context, holder, "its responsibilities live in classes of their own")
        return Edit(
            changes=changes, targets=((holder, "class"),), checks=checks,
            involved=(*(f"{holder}.{name}" for name in added), *(item.cls for item in chosen)),
            red_herrings=tuple(herrings) if difficulty != "easy" else (),
            summary=f"inlined {', '.join(item.cls for item in chosen)} into {holder}")

    def _absorb(self, context: InjectionContext, candidate: Candidate,
                difficulty: Difficulty) -> Edit:
        """The holder absorbs functions of one module (easy), two (medium) or three (hard); the
        functions its module calls that stay where they are are the red herrings."""
        analysis = context.analysis
        holder: str = candidate.data["holder"]
        module = context.index.module_of[holder]
        found = planning.clusters(analysis, module, planning.calls_by_module(analysis),
                                  context.well_covered)
        pool = planning.for_holder(analysis, found, holder)
        cycling = planning.cycling(analysis, found, holder)
        measures = planning.measure_holder(analysis, holder)
        needed = _NEEDED[difficulty]
        excluded: dict[str, str] = {}
        limits = self._limits()
        rounds = 0
        while rounds < 8 and len(excluded) < 48:  # refusals cost no analysis: more tries
            chosen = planning.choose(measures, pool, needed, limits, frozenset(excluded))
            if chosen is None:
                why = f" ({next(iter(excluded.values()))})" if excluded else ""
                left = (f"; {', '.join(cycling)} stay{'s' if len(cycling) == 1 else ''} out: "
                        f"{module} imports {'it' if len(cycling) == 1 else 'them'}, so only an "
                        f"import inside functions could reach {holder}, as the repository's own "
                        f"code does in fewer than {planning.IDIOM_PLACES} places") \
                    if cycling else ""
                raise InjectionRefused(f"no {needed} module(s) of functions would make {holder} a "
                                       f"god class{why}{left}")
            changes, absorbed, refused = absorbing.absorb(context, holder, chosen)
            if refused:  # choose again without them
                rounds += not set(refused) - set(excluded)
                excluded.update(refused)
                continue
            rounds += 1
            herrings = planning.staying(pool, chosen, {item.qualname for item in absorbed})
            if difficulty == "hard" and not herrings:
                raise InjectionRefused(f"no function that {module} calls, or of the absorbed "
                                       "modules, stays where it is (a red herring)")
            # The detector itself, on the smelly version, has the last word: data a method read
            # through `self` is foreign only where the analysis types the instance it now takes.
            short = _shortfall(context, changes, holder)
            if short is not None:  # choose again, asking for that much more foreign data
                limits = (limits[0], limits[1], limits[2] + short)
                continue
            return self._function_edit(context, holder, difficulty, changes, absorbed, herrings)
        if excluded:
            raise InjectionRefused("too many functions refused: "
                                   f"{'; '.join(list(excluded.values())[:3])}")
        raise InjectionRefused(f"the detector does not flag {holder} with any choice tried: the "
                               "analysis types too little of the data the absorbed code uses")

    def _function_edit(self, context: InjectionContext, holder: str, difficulty: Difficulty,
                       changes: dict[str, str | None], absorbed: list[planning.Function],
                       herrings: list[str]) -> Edit:
        checks = _checks(context, holder,
                         "the functions it absorbed live in modules of their own")
        modules = sorted({item.module for item in absorbed})
        return Edit(
            changes=changes, targets=((holder, "class"),), checks=checks,
            involved=(*(f"{holder}.{item.absorbed_name}" for item in absorbed),
                      *(item.qualname for item in absorbed)),
            red_herrings=tuple(herrings) if difficulty != "easy" else (),
            summary=f"{holder} absorbed {len(absorbed)} functions of {', '.join(modules)} as "
                    "static methods; thin functions of the same names delegate to them")


def _shortfall(context: InjectionContext, changes: dict[str, str | None],
               holder: str) -> int | None:
    """None when the detector flags the holder in the smelly version, else how many more
    attributes of other classes it would need (at least 1).

    The prediction cannot see everything: data an absorbed function read through a parameter
    is foreign only where the analysis types what it now takes. The smelly version is analysed
    to be sure."""
    from smellkit.injectors.engine import smelly_project

    try:
        smelly = smelly_project(context.project, changes)
    except InjectionRefused:
        return 1
    analysis = Context(smelly)
    location = analysis.location(holder)
    if location is not None and residue(analysis, "god_class", [location]):
        return None  # as `verify` asks
    measures = planning.measure_holder(analysis, holder)
    return max(1, GodClassInjectorOptions().atfd_above + 1 - len(measures.foreign))


def _central(analysis: Context, holder: str, wmc: int) -> bool:
    """A class a reader would believe grew to take in other modules' work: a base other
    classes extend, one other modules import, or the largest class of its module. A leaf
    beside a bigger class (a `Tuple` field next to `Field`) taking in utilities reads as
    planted."""
    index = analysis.index
    if index.subclasses(holder):
        return True
    module = index.module_of[holder]
    for facts in index.modules.values():
        if facts.module != module and any(
                index.resolve_dotted(item.target) == holder for item in facts.imports):
            return True
    return all(planning.measure_holder(analysis, other).wmc <= wmc
               for other in index.classes if other != holder
               and index.module_of.get(other) == module)


def _fragility_rule(why: str) -> str:
    """The discovery rule behind a reason `_fragile_function_holder` gives (without the class
    names, so that `--explain` counts alike reasons together)."""
    if "metaclass" in why:
        return "a class with a metaclass or a hook on names"
    if why.startswith(("not a top-level", "decorated", "an enumeration", "a metaclass")):
        return why
    return "a base from outside the repository whose members are unknown"


def _collaborators(analysis: Context, discard: Callable[[str], None]) -> Iterator[Collaborator]:
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
            if is_test_code(analysis, holder):
                discard("test code")
                continue
            if not _plain(analysis, cls):
                discard("a collaborator with bases, subclasses, class attributes, decorators "
                        "or dunders")
                continue
            creators = {caller for name in (cls, f"{cls}.__init__") if name in graph
                        for caller in graph.predecessors(name)}
            if creators - {assignment.scope}:
                discard("a collaborator that other code creates too")
                continue
            if _named_elsewhere(analysis, cls, {facts.module, index.module_of[cls]}):
                discard("a collaborator that other modules, __all__ or strings name")
                continue
            yield Collaborator(holder, target.attr, cls, assignment.scope)


def _fragile_function_holder(analysis: Context, holder: str) -> str | None:
    """Why the holder should not take new static methods, or None: a nested, decorated, test or
    enumeration class, a metaclass, one with a metaclass or a hook on names (`CLASS_HOOKS`), or
    with a base from outside whose members are unknown."""
    index = analysis.index
    definition = index.definitions.get(holder)
    if definition is None or definition.parent not in index.modules:
        return "not a top-level class"
    if definition.decorators or is_test_code(analysis, holder):
        return "decorated or test code"
    if data_access(analysis).is_enum(holder):
        return "an enumeration"
    if any(base.rpartition(".")[2] in METACLASSES for base in index.mro(holder)[1:]):
        return "a metaclass (its instances are classes: no home for others' work)"
    for cls in index.mro(holder):
        info = index.classes.get(cls)
        hooks = sorted(set(index.children.get(cls, {})) & CLASS_HOOKS)
        if (info is not None and info.metaclass) or hooks:
            return f"{cls} has a metaclass or {', '.join(hooks)}"
    return move.unsafe_base(index, holder)


METACLASSES = frozenset({"type", "ABCMeta", "EnumMeta", "EnumType"})
"""Bases that make a class a metaclass (marshmallow's `SchemaMeta`): a reader never expects
one to grow the work of fields or validators."""
CLASS_HOOKS = frozenset({"__getattr__", "__getattribute__", "__init_subclass__",
                         "__class_getitem__", "__set_name__"})
"""Members through which a class answers names it does not define, or watches what is defined
in it or its subclasses: new static methods could change what they do."""


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


def _checks(context: InjectionContext, holder: str, why: str) -> tuple[StructuralCheck, ...]:
    """The holder keeps no more methods than the original had, and no god class is reported."""
    index = context.index
    methods = sum(1 for name in index.children.get(holder, {}).values()
                  if index.definitions[name].kind == "method")
    short = holder.rpartition(".")[2]
    return (
        StructuralCheck(
            kind="god_class.at_most_methods",
            description=f"`{short}` defines at most {methods} methods ({why})",
            params={"cls": holder, "methods": methods}),
        StructuralCheck(
            kind="no_finding", description=f"no god class is reported at `{short}`",
            params={"smell": "god_class", "qualnames": [holder]}),
    )
