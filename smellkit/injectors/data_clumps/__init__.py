"""Data-clump injection: a parameter object inlined back into the fields it carries.

The original passes one object (a dataclass, a NamedTuple or any small parameter object) to
several functions that only read its fields; the smelly version passes those 3-4 fields one by one
through every signature ("inline parameter object"), so the same group of parameters travels
together through several functions in several modules. The ground truth is the original: the
object. Difficulties follow SmellBench: easy spans 2 files with positional arguments; medium 3+
files, the fields passed as keyword arguments and, where the code has one, a delegation chain that
now hands the loose fields on; hard 4+ files and red herrings (functions that still take the
object whole and must be left alone).

A function qualifies when one of its parameters holds instances of the class: by its annotation,
or, where the code annotates nothing (as most libraries), because the points-to analysis sees
every caller pass an instance of that class and nothing else.

Two more modes find clumps where no function takes a parameter object (most libraries): fields
passed beside the object to functions that still need it (`keep.py`), and fields passed one by
one to module-level functions that take over the bodies of methods reading them from `self`
alone (`fields.py`, `spread.py`). Candidates of every mode are offered; `data["mode"]` says
which (`object`, `beside`, `fields`).
"""

from __future__ import annotations

import random
import weakref
from collections import defaultdict
from collections.abc import Iterable, Iterator
from itertools import combinations

from pydantic import Field

from smellkit.config import is_test_path
from smellkit.detectors.data_clumps import DataClumps, DataClumpsOptions
from smellkit.errors import InjectionRefused
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.cst.imports import without_unused
from smellkit.injectors.data_clumps.edit import FunctionPlan, SitePlan, explode_module
from smellkit.injectors.data_clumps.fields import Group, Reader, groups, readers
from smellkit.injectors.data_clumps.keep import keep_clumps, keep_takers
from smellkit.injectors.data_clumps.plan import (
    Planner,
    Taker,
    class_fields,
    closure,
    files_of,
)
from smellkit.injectors.data_clumps.spread import Spread, layouts, spread
from smellkit.models import Candidate, Difficulty, Finding, StructuralCheck, TargetLevel

SMELL = DataClumps.smell.name
MIN_FILES: dict[Difficulty, int] = {"easy": 2, "medium": 3, "hard": 4}
_MAX_COMBINATIONS = 400


class DataClumpsInjectorOptions(InjectorOptions):
    min_functions: int = Field(
        default=DataClumpsOptions.default("min_occurrences"), ge=3, description="The object must "
        "be passed to at least this many functions that can be exploded (the detector's "
        "`min-occurrences` signatures).")
    min_fields: int = Field(
        default=DataClumpsOptions.default("min_group_size"), ge=2, description="Fewest fields in "
        "the clump (the detector's `min-group-size`).")
    max_fields: int = Field(default=4, ge=2, description="Most fields in the clump.")


_PLANNERS: weakref.WeakKeyDictionary[InjectionContext, Planner] = weakref.WeakKeyDictionary()
_FLAGGED: weakref.WeakKeyDictionary[InjectionContext, frozenset[str]] = \
    weakref.WeakKeyDictionary()
_FINDINGS: weakref.WeakKeyDictionary[InjectionContext, list[Finding]] = \
    weakref.WeakKeyDictionary()


def _planner(context: InjectionContext) -> Planner:
    if context not in _PLANNERS:
        _PLANNERS[context] = Planner(context)
    return _PLANNERS[context]


def _original_findings(context: InjectionContext) -> list[Finding]:
    """The data-clump findings of the original (cached)."""
    if context not in _FINDINGS:
        from smellkit.detectors.runner import run_detectors

        _FINDINGS[context] = list(run_detectors(context.analysis, [SMELL],
                                                respect_suppressions=False))
    return _FINDINGS[context]


def _already_flagged(context: InjectionContext) -> frozenset[str]:
    """Qualnames a data-clump finding of the original touches: no injection there."""
    if context not in _FLAGGED:
        _FLAGGED[context] = frozenset(
            location.qualname for finding in _original_findings(context)
            for location in (finding.location, *finding.related))
    return _FLAGGED[context]


def reported_at(context: InjectionContext, fields: Iterable[str],
                qualnames: Iterable[str]) -> bool:
    """Whether the original already reports a clump of all of `fields` at one of `qualnames`:
    signatures that carry the group and another reported one (`shell_complete(cli, ctx_args,
    prog_name, complete_var)` is part of click's `(ctx_args, prog_name, complete_var)`) can
    still carry a new group that no finding names."""
    wanted = set(fields)
    places = set(qualnames)
    for finding in _original_findings(context):
        names = finding.evidence.get("parameters")
        if not isinstance(names, list) or not wanted <= set(names):
            continue
        if places & {location.qualname for location in (finding.location, *finding.related)}:
            return True
    return False


class DataClumpsInjector(Injector[DataClumpsInjectorOptions]):
    """Inline a parameter object into the fields it carries, in several signatures."""

    smell = DataClumps.smell
    description = ("A parameter object inlined back into its 3-4 fields in the signatures and "
                   "call sites of the functions it is passed to, or methods' bodies moved into "
                   "functions that take the fields they read one by one.")
    Options = DataClumpsInjectorOptions

    # -- candidates -----------------------------------------------------------------------------

    def _clumps(self, context: InjectionContext,
                cls: str) -> Iterator[tuple[tuple[str, ...], dict[str, Taker]]]:
        """(fields, the takers that can be exploded to exactly those fields) for one class."""
        planner = _planner(context)
        takers = planner.takers(cls)
        if not takers:
            return
        flagged = _already_flagged(context)
        order = [item.name for item in context.index.classes[cls].attributes]
        options = self.options
        wanted: set[frozenset[str]] = set()
        fields = class_fields(context.index, cls)
        if options.min_fields <= len(fields) <= options.max_fields:
            wanted.add(frozenset(fields))
        wanted.update(taker.reads for taker in takers.values()
                      if options.min_fields <= len(taker.reads) <= options.max_fields)
        for clump in sorted(wanted, key=sorted):
            usable = {name: taker for name, taker in takers.items()
                      if taker.reads <= clump and name not in flagged
                      and planner.free_names(taker, set(clump))}
            changed = True
            while changed:  # hand-offs must stay inside the usable set
                changed = False
                for name in list(usable):
                    if not usable[name].hands_to <= usable.keys():
                        del usable[name]
                        changed = True
            if len(usable) >= options.min_functions:
                yield tuple(sorted(clump, key=lambda item: (
                    order.index(item) if item in order else len(order), item))), usable

    def _keep(self, context: InjectionContext,
              cls: str) -> Iterator[tuple[tuple[str, ...], dict[str, Taker]]]:
        """Clumps of fields read beside other uses of the object (`_data_clumps_keep`)."""
        flagged = _already_flagged(context)
        takers = {name: taker for name, taker in keep_takers(_planner(context), cls).items()
                  if name not in flagged}
        order = [item.name for item in context.index.classes[cls].attributes]
        options = self.options
        for clump, usable in keep_clumps(takers, options.min_fields, options.max_fields,
                                         options.min_functions):
            yield tuple(sorted(clump, key=lambda item: (
                order.index(item) if item in order else len(order), item))), usable

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        index = context.index
        for cls in sorted(index.classes):
            path = context.path_of(cls)
            if path is None:
                continue
            if is_test_path(path):
                context.discard("test code")
                continue
            if cls in _already_flagged(context):
                context.discard("already part of a reported data clump")
                continue
            if not _planner(context).annotated.get(cls):
                context.discard("no function takes its instances as a parameter")
                continue
            clumps = list(self._clumps(context, cls))
            keep = not clumps
            found = clumps or list(self._keep(context, cls))
            if not found:
                context.discard(f"fewer than {self.options.min_functions} functions in two "
                                f"modules read the same {self.options.min_fields}+ of its "
                                "fields, every call of them known")
            for fields, usable in found:
                first = min(usable.values(), key=lambda item: (item.path,
                                                               item.definition.start_line))
                location = context.location(first.qualname)
                if location is None:
                    continue
                modules = sorted({taker.path for taker in usable.values()})
                files = files_of(usable, set(usable), path)
                yield Candidate(
                    smell=self.name, target=location, files=tuple(sorted(files)),
                    reason=(f"{cls} is passed whole to {len(usable)} functions in "
                            f"{len(modules)} modules that "
                            f"{'read' if keep else 'only read'} its fields "
                            f"({', '.join(fields)}), and every call of them is known"),
                    data={"mode": "beside" if keep else "object", "class": cls,
                          "fields": list(fields), "functions": sorted(usable),
                          **({"keep": True} if keep else {})})
        yield from self._field_candidates(context)

    def _field_candidates(self, context: InjectionContext) -> Iterator[Candidate]:
        """Groups of fields that methods of one or more classes read from `self` alone, with
        the signatures already taking them (`fields.py`)."""
        options = self.options
        found = readers(context, _planner(context), min_fields=options.min_fields)
        flagged = _already_flagged(context)
        grouped: set[str] = set()
        for group in groups(context, found, min_fields=options.min_fields,
                            max_fields=options.max_fields):
            grouped.update(reader.qualname for reader in group.readers)
            if reported_at(context, group.fields,
                           [holder.qualname for holder in group.holders]) or any(
                    reader.qualname in flagged for reader in group.readers):
                context.discard("fields whose signatures already form a reported data clump")
                continue
            first = group.readers[0]
            location = context.location(first.qualname)
            if location is None:
                continue
            names = ", ".join(group.fields)
            methods = ", ".join(".".join(reader.qualname.split(".")[-2:])
                                for reader in group.readers)
            held = (f"; {len(group.holders)} signatures take them already "
                    f"({', '.join(holder.qualname for holder in group.holders[:3])})"
                    if group.holders else "")
            calling = (" (or call those that do)" if any(reader.calls for reader in group.readers)
                       else "")
            yield Candidate(
                smell=self.name, target=location,
                files=tuple(sorted({reader.path for reader in group.readers}
                                   | {holder.path for holder in group.holders})),
                reason=(f"{len(group.readers)} methods use self only to read ({names}){calling}: "
                        f"{methods}{held}"),
                data={"mode": "fields", "fields": list(group.fields),
                      "readers": [reader.qualname for reader in group.readers],
                      "holders": [holder.qualname for holder in group.holders]})
        alone = len(found.keys() - grouped)
        if alone:
            context.discard("a method reading 3+ fields that no other method or signature "
                            "shares enough of (3 signatures needed)", alone)

    # -- injection ------------------------------------------------------------------------------

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        if candidate.data.get("mode") == "fields":
            return self._inject_fields(context, candidate, difficulty, rng)
        cls = str(candidate.data.get("class", ""))
        fields = tuple(str(item) for item in candidate.data.get("fields", ()))
        if cls not in context.index.classes or not fields:
            raise InjectionRefused("the candidate names no known class and fields")
        keep = bool(candidate.data.get("keep"))
        usable = dict(self._keep(context, cls) if keep else self._clumps(context, cls)).get(fields)
        if usable is None:
            raise InjectionRefused(f"{cls} no longer offers the clump ({', '.join(fields)})")
        cls_path = context.path_of(cls)
        holds = self._class_holds(context, cls, fields)
        everyone = {definition.qualname for _, definition in
                    _planner(context).annotated.get(cls, [])}
        chosen = self._choose(usable, everyone, cls_path, holds, difficulty, rng)
        herrings = sorted(everyone - chosen)
        if difficulty == "hard" and not herrings:
            raise InjectionRefused("hard needs a red herring: a function that keeps taking the "
                                   "object")
        plans = self._plans(context, cls, usable, chosen, fields, holds, difficulty, rng, keep)
        changes = self._edit(context, usable, plans, fields, difficulty, keep)
        renamed = sorted(name for name, plan in plans.items() if plan.names != fields)
        targets: tuple[tuple[str, TargetLevel], ...] = tuple(
            (name, "method") for name in sorted(chosen))
        callers = sorted({site.scope for name in chosen for site in usable[name].sites
                          if site.scope not in chosen and site.scope in context.index.definitions})
        names = ", ".join(fields)
        functions = sorted(chosen)
        checks = (
            StructuralCheck(
                kind="data_clumps.not_together",
                description=(f"the parameters ({names}) no longer travel together through "
                             f"{', '.join(name.rpartition('.')[2] for name in functions)}"),
                params={"names": list(fields), "functions": functions, "max_holders": 1}),
            StructuralCheck(
                kind="no_finding",
                description=f"no data clump is reported at {', '.join(functions)}",
                params={"smell": SMELL, "qualnames": functions}),
        )
        return Edit(changes=changes, targets=targets, checks=checks,
                    involved=(cls, *callers), red_herrings=tuple(herrings[:5]),
                    summary=(f"inlined {cls} into ({names}) in {len(chosen)} functions "
                             f"({difficulty}; renamed in {', '.join(renamed) or 'none'})"))

    def _inject_fields(self, context: InjectionContext, candidate: Candidate,
                       difficulty: Difficulty, rng: random.Random) -> Edit:
        """Move readers' bodies into functions that take the fields one by one."""
        fields = tuple(str(item) for item in candidate.data.get("fields", ()))
        options = self.options
        found = readers(context, _planner(context), min_fields=options.min_fields)
        group = next((item for item in groups(context, found, min_fields=options.min_fields,
                                              max_fields=options.max_fields)
                      if item.fields == fields), None)
        if group is None:
            raise InjectionRefused(f"no methods read the fields ({', '.join(fields)}) any more")
        made, moved = _placed(context, group, difficulty, rng)
        herrings = [reader.qualname for reader in group.readers if reader not in moved]
        holders = [holder.qualname for holder in group.holders if not holder.is_class]
        names = ", ".join(fields)
        functions = list(made.functions)
        checks = (
            StructuralCheck(
                kind="data_clumps.not_together",
                description=(f"the parameters ({names}) no longer travel together through "
                             f"{', '.join(name.rpartition('.')[2] for name in functions)}"),
                params={"names": list(fields), "functions": [*functions, *holders],
                        "max_holders": len(holders)}),
            StructuralCheck(
                kind="no_finding",
                description=f"no data clump is reported at {', '.join(functions)}",
                params={"smell": SMELL, "qualnames": functions}),
        )
        return Edit(
            changes=made.changes, targets=tuple((name, "method") for name in functions),
            checks=checks,
            involved=(*made.methods, *(holder.qualname for holder in group.holders)),
            red_herrings=tuple(herrings[:5]) if difficulty == "hard" else (),
            summary=(f"moved the bodies of {', '.join(made.methods)} into "
                     f"{', '.join(functions)}, which take ({names}) one by one ({difficulty})"))

    def _plans(self, context: InjectionContext, cls: str, usable: dict[str, Taker],
               chosen: set[str], fields: tuple[str, ...], holds: bool, difficulty: Difficulty,
               rng: random.Random, keep: bool = False) -> dict[str, FunctionPlan]:
        """The new parameters of each exploded function. Medium and hard annotate them with the
        fields' builtin types where the class declares one (retyped parameters), and so does
        easy where the object's parameter is annotated (an annotated signature with bare new
        parameters would give the edit away); hard also renames one parameter of one function
        (`host_name` for `host`), as long as the other functions still share the exact names
        often enough for the clump to be seen."""
        declared = field_annotations(context, cls)
        typed = tuple(declared.get(field) for field in fields)
        untyped: tuple[str | None, ...] = (None,) * len(fields)

        def annotations(name: str) -> tuple[str | None, ...]:
            taker = usable[name]
            annotated = any(param.annotation for param in taker.definition.params
                            if param.name == taker.param)
            return typed if difficulty != "easy" or annotated else untyped

        plans = {name: FunctionPlan(usable[name].param, fields, annotations(name), keep)
                 for name in chosen}
        if difficulty != "hard":
            return plans
        planner = _planner(context)
        order = sorted(chosen)
        rng.shuffle(order)
        for name in order:
            others = chosen - {name}
            modules = {usable[other].path for other in others} | (
                {context.path_of(cls)} if holds else set())
            if len(others) + holds < 3 or len(modules) < 2:
                continue
            options = [field for field in fields if len(field) >= 3
                       and f"{field}_value" not in fields
                       and planner.free_names(usable[name], {f"{field}_value"})]
            if not options:
                continue
            field = rng.choice(options)
            names = tuple(f"{item}_value" if item == field else item for item in fields)
            plans[name] = FunctionPlan(usable[name].param, names, annotations(name), keep)
            break
        return plans

    @staticmethod
    def _class_holds(context: InjectionContext, cls: str, fields: tuple[str, ...]) -> bool:
        """Whether the detector counts the class itself as a holder of the fields."""
        info = context.index.classes[cls]
        if "__init__" in context.index.children.get(cls, {}):
            return False
        annotated = {item.name for item in info.attributes
                     if item.kind == "class" and item.annotation}
        return set(fields) <= annotated

    @staticmethod
    def _choose(usable: dict[str, Taker], everyone: set[str], cls_path: str | None,
                holds: bool, difficulty: Difficulty, rng: random.Random) -> set[str]:
        """The functions to explode: closed under hand-offs, spanning the difficulty's files,
        enough signatures in enough modules for the detector. Easy and medium take the smallest
        such set, hard the largest (more places, more to get wrong)."""
        names = sorted(usable)
        rng.shuffle(names)
        wanted = MIN_FILES[difficulty]
        best: set[str] | None = None
        tried = 0
        sizes = range(1, len(names) + 1)
        for size in (reversed(sizes) if difficulty == "hard" else sizes):
            for group in combinations(names, size):
                tried += 1
                if tried > _MAX_COMBINATIONS:
                    break
                chosen = closure(usable, set(group))
                files = files_of(usable, chosen, cls_path)
                holders = len(chosen) + (1 if holds else 0)
                modules = {usable[name].path for name in chosen} | (
                    {cls_path} if holds and cls_path else set())
                if holders < 3 or len(modules) < 2:
                    continue
                if difficulty == "easy" and len(files) != wanted:
                    continue
                if difficulty != "easy" and len(files) < wanted:
                    continue
                if difficulty == "hard" and not everyone - chosen:
                    continue  # keep one taker whole as a red herring
                handoff = any(usable[name].hands_to for name in chosen)
                if best is None or (difficulty == "medium" and handoff):
                    best = chosen
                if difficulty != "medium" or handoff:
                    return best
            if tried > _MAX_COMBINATIONS:
                break
        if best is not None:
            return best
        raise InjectionRefused("no set of functions spans "
                               f"{'exactly' if difficulty == 'easy' else 'at least'}"
                               f" {wanted} files with 3 signatures in 2 modules")

    @staticmethod
    def _edit(context: InjectionContext, usable: dict[str, Taker], plans: dict[str, FunctionPlan],
              fields: tuple[str, ...], difficulty: Difficulty,
              keep: bool = False) -> dict[str, str | None]:
        functions: dict[str, dict[str, FunctionPlan]] = defaultdict(dict)
        sites: dict[str, dict[tuple[int, str], SitePlan]] = defaultdict(dict)
        expected: dict[str, int] = defaultdict(int)
        for name in sorted(plans):
            taker = usable[name]
            functions[taker.path][name] = plans[name]
            for site in taker.sites:
                plan = SitePlan(site.position, site.keyword, site.positional_count,
                                as_keywords=difficulty != "easy", names=plans[name].names,
                                keep=keep)
                key = (site.line, site.name)
                if sites[site.path].setdefault(key, plan) != plan:
                    raise InjectionRefused(f"two different calls of {site.name} on line "
                                           f"{site.line} of {site.path}")
                expected[site.path] += 1
        changes: dict[str, str | None] = {}
        for path in sorted(functions.keys() | sites.keys()):
            module = _planner(context).facts_of[path].module
            text = explode_module(context.source(path), module, fields, functions[path],
                                  sites[path], expected[path])
            if text is None:
                raise InjectionRefused(f"not every planned change could be made in {path}")
            import libcst as cst

            changes[path] = without_unused(context, module, context.module(path),
                                           cst.parse_module(text)).code
        return changes


BUILTIN_TYPES = frozenset({"str", "int", "float", "bool", "bytes", "complex"})


def field_annotations(context: InjectionContext, cls: str) -> dict[str, str]:
    """The builtin type each field of the class declares (a class-level annotation, or the
    annotation of the constructor parameter stored under the field's name); other types are
    left out, since naming them in another module could need an import."""
    import libcst as cst

    path = context.path_of(cls)
    if path is None:
        return {}
    found: dict[str, str] = {}
    wanted = cls.rpartition(".")[2]
    for statement in context.module(path).body:
        if not (isinstance(statement, cst.ClassDef) and statement.name.value == wanted):
            continue
        for item in statement.body.body:
            if isinstance(item, cst.SimpleStatementLine):
                for small in item.body:
                    if (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
                            and isinstance(small.annotation.annotation, cst.Name)):
                        found[small.target.value] = small.annotation.annotation.value
            elif isinstance(item, cst.FunctionDef) and item.name.value == "__init__":
                for param in item.params.params:
                    if param.annotation is not None and isinstance(
                            param.annotation.annotation, cst.Name):
                        found.setdefault(param.name.value, param.annotation.annotation.value)
    return {name: text for name, text in found.items() if text in BUILTIN_TYPES}


_MAX_PLACEMENTS = 12
"""Layouts tried in turn: each one refused costs a parse and an extraction per body."""


def _placed(context: InjectionContext, group: Group, difficulty: Difficulty,
            rng: random.Random) -> tuple[Spread, list[Reader]]:
    """The first layout whose bodies take their place (`spread.layouts`), and its readers;
    refused with the first reasons the layouts were turned away for."""
    refusals: list[str] = []
    placements = layouts(context, group, difficulty, rng)
    for _ in range(_MAX_PLACEMENTS):
        try:
            moved, helper = next(placements)
        except StopIteration:
            break
        except InjectionRefused:  # no more layouts: say why those tried were turned away
            if not refusals:
                raise
            break
        try:
            return spread(context, group, moved, helper, rng), moved
        except InjectionRefused as refusal:
            if refusal.message not in refusals:
                refusals.append(refusal.message)
    raise InjectionRefused("; ".join(refusals[:2]) or "no layout to try")
