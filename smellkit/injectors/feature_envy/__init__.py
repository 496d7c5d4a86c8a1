"""Feature envy injector: a method that works on its own class's data moves to a class that calls
it, and from there reads everything through the object it was called on (the inverse of "move
method").

Candidate: a method `B.m` that reads at least three data attributes (properties included) of its
own class, and one class `A` that calls it from its methods only as `self.<attr>.m(...)` (`<attr>`
a plain instance attribute of `A` holding a `B`) or only as `x.m(...)` (`x` a name of the calling
method holding a `B`), the points-to analysis (or, where no value flows in that it sees, the
declared type) typing the receiver (`_feature_envy_sites`); each calling class makes a candidate.
The method must be private and called from nowhere else: it moves (it leaves `B`). A public
method or one with other callers could only be copied, and a copy is no move: refused.
`A`'s calls go to the new method, so the same code runs on the same objects: `self.x`
in the body becomes `self.<attr>.x`, or `x.x` with the receiver passed as a new first parameter.

The other direction, where `B` itself calls its method (`_held_candidates`,
`_passed_candidates`): `B` holds an `A` (`self.<attr>`, typed by what its constructor stores, or
by the constructor's `assert isinstance(param, A)`) and calls `self.<attr>.m(self, ...)`, or `B`
passes `m` an `A` for one parameter (`self.m(store, ...)`) and calls `store.m(self, ...)`; the
method, in `A`, reads `B`'s data through its new parameter, and the object it belongs to as
`self`.

A public method `B` lends to its collaborator moves too, and `B` keeps a method of its name that
hands the calls on, its own and those of code outside the repository (its API):
`return self.cli.source_vars(self)`, the shape of a class that forwards its work to a helper which
then reads everything back from it.

Difficulties (SmellBench's), counted in files that carry the smell, never in files made for the
count: easy moves the method to `A` itself (two files). Medium and hard need calls that reach
the method from other modules: a public method that the class lends to the object it holds,
inherited by subclasses in other modules that call it (`NativeCodeGenerator` calling the `write`
of jinja2's `CodeGenerator`), or called in other modules on an object the analysis is sure is of
its class (`ledger.headroom()`, `self.account.headroom()`; `sites.typed_calls`). Their calls go
to the new home directly (`self.environment.write(self, x)`,
`ledger.columns.headroom(ledger)`) while the class's own calls and its API keep the forwarding
method: medium redirects one such module's calls (three files), hard every one's, from two
modules or more (four files or more); both name red herrings (methods of `B` that read as much of
its data but are at home, the holder's methods that only delegate to it, or other classes'
methods that call `B` without envying it). Without such callers a moved method spans two modules,
and a third that only declared the collaborator's type, or a one-method mixin named after the
method, would be a file added to reach the count: refused. For the same reason two classes that
share a module make no candidate (the envy would span one file).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

from pydantic import Field

from smellkit.analysis.access import is_dunder, is_test_code
from smellkit.analysis.context import Context
from smellkit.detectors.feature_envy import FeatureEnvy, FeatureEnvyOptions
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.feature_envy import sites
from smellkit.injectors.feature_envy.injection import Injection
from smellkit.models import Candidate, Difficulty, Location


class FeatureEnvyInjectorOptions(InjectorOptions):
    min_own_attributes: int = Field(
        default=FeatureEnvyOptions.default("min_envied_attributes"), ge=1, description="The moved "
        "method must read at least this many distinct data attributes of its own class (the "
        "detector's `min-envied-attributes`).")


class FeatureEnvyInjector(Injector[FeatureEnvyInjectorOptions]):
    """Moves (or copies) a method into the class that reaches it through an attribute."""

    smell = FeatureEnvy.smell
    description = ("A method reads the data of a class it reaches through an attribute more than "
                   "its own data: it belongs in that class.")
    Options = FeatureEnvyInjectorOptions
    difficulties = ("easy", "medium", "hard")
    """A moved method spans its class's module and its new home's; medium adds one module of
    subclasses or typed receivers that call it, sent to the new home directly, hard two or
    more. Without them a third or fourth module would be padding (a mixin, a type declaration):
    refused."""

    # -- candidates -------------------------------------------------------------------------

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        analysis = context.analysis
        index = context.index
        by_callee: dict[tuple[str, str], list[sites.Site]] = {}
        for site, callee in sites.call_sites(analysis):
            by_callee.setdefault((callee, site.holder), []).append(site)
        reached = {callee for callee, _ in by_callee}
        for candidate in self._held_candidates(context):
            reached.add(candidate.target.qualname)
            yield candidate
        for candidate in self._passed_candidates(context):
            reached.add(candidate.target.qualname)
            yield candidate
        unreached = sum(1 for name, definition in index.definitions.items()
                        if definition.kind == "method" and name not in reached
                        and not is_dunder(definition.name) and not is_test_code(analysis, name))
        if unreached:  # counted, so that "no candidate" says why
            context.discard("a method no other class calls on an instance it holds or is "
                            "passed (self.<attr>.m(), or a typed name)", unreached)
        for (callee, holder), found in sorted(by_callee.items()):
            attributes = {site.attribute for site in found}
            if len(attributes) != 1:
                context.discard("called both through an attribute and through a name")
                continue  # one form: all through one attribute or all by name
            (attribute,) = attributes
            why = self._ineligible(analysis, callee, holder, attribute)
            if why is not None:
                context.discard(why)
                continue
            cls = index.class_of[callee]
            own = sites.own_data(analysis, callee)
            target = context.location(callee)
            holder_path = context.path_of(holder)
            if target is None or holder_path is None:
                continue
            if holder_path == target.path:
                # the envy would span one file: a new module made to hold the method would be
                # a file added to reach the count
                context.discard("both classes share a module (the envy would span one file)")
                continue
            scopes = sorted({site.scope for site in found})
            # A public method is API: code outside the repository (its tests) may call it, and
            # the holder's class cannot hand those calls on (it holds no holder): it could only
            # be copied, and a copy is no move (the smell is the data's method living elsewhere)
            if not (callee.rpartition(".")[2].startswith("_")
                    and sites.only_called_there(analysis, callee, set(scopes))):
                context.discard("public or called elsewhere too: it could only be copied to "
                                "the class that calls it, not moved")
                continue
            names = ", ".join(sorted(name.rpartition(".")[2] for name in own))
            way = f"self.{attribute}" if attribute else \
                f"{', '.join(sorted({site.receiver or '' for site in found}))} (a local name)"
            yield Candidate(
                smell=self.name, target=target, files=tuple(sorted({target.path, holder_path})),
                reason=(f"{callee} reads {len(own)} data attributes of its own class ({names}); "
                        f"{holder} calls it through {way}, an instance of {cls}, in "
                        f"{len(scopes)} method(s); it is private and nothing else calls it, "
                        "so it can move"),
                data={"holder": holder, "attribute": attribute, "method": callee,
                      "scopes": scopes, "move": True,
                      "sites": [[site.scope, site.line, site.col, site.receiver]
                                for site in found]})

    def _held_candidates(self, context: InjectionContext) -> Iterator[Candidate]:
        """A method of a class `B` that reads its data, called only from `B`'s own methods,
        while `B` holds an object of an unrelated class `A` (`self.<attr>`, set by its
        constructor): `A` gets the method, taking the `B` as a parameter, and `B` calls it
        as `self.<attr>.m(self, ...)`. The pattern of a class that hands its work to the
        helper it owns, which then reads everything back from it. A public method may have
        other callers too (its class keeps a method of its name that hands their calls on);
        those in other modules, by subclasses through `self` or on an object typed as `B`, are
        kept on the candidate for medium and hard."""
        analysis = context.analysis
        held = sites.held_objects(analysis)
        by_callee: dict[str, list[sites.Site]] = {}
        for site, callee in sites.self_calls(analysis):
            if site.holder in held:
                by_callee.setdefault(callee, []).append(site)
        graph = analysis.call_graph
        for callee, found in sorted(by_callee.items()):
            cls = context.index.class_of[callee]
            scopes = {site.scope for site in found}
            others = set(graph.predecessors(callee)) - scopes - {callee} \
                if callee in graph else set()
            # a public method keeps a forwarding method of its name: its other callers go on
            # calling that; a private one could only move if nothing else called it
            if others and callee.rpartition(".")[2].startswith("_"):
                context.discard("a method its own class calls, and code elsewhere too")
                continue
            callers = _outside_callers(context, callee, others)
            for attribute, kept in sorted(held[cls].items()):
                holder = kept.cls
                # `self.<attribute>` becomes the new home's own `self`: no longer its class's data
                besides = {name for name in sites.own_data(analysis, callee)
                           if name.rpartition(".")[2] != attribute}
                if len(besides) < self.options.min_own_attributes:
                    context.discard("reads too little of its own class besides the object it "
                                    "holds (the detector would not see the envy once it moves)")
                    continue
                placed = self._placed(context, callee, holder, "holds",
                                      forwarded=not callee.rpartition(".")[2].startswith("_"))
                if placed is None:
                    continue
                target, holder_path = placed
                own, names, moves = _own_data(analysis, callee, scopes)
                handed = _handed_callers(context, callers, attribute,
                                         {target.path, holder_path})
                outside = sorted({path for site, _ in handed
                                  if (path := context.path_of(site.scope)) is not None})
                typed = any(kind for _, kind in handed)
                yield Candidate(
                    smell=self.name, target=target, files=(target.path, holder_path),
                    reason=(f"{callee} reads {len(own)} data attributes of its own class "
                            f"({names}) and {'' if others else 'only '}{cls} calls it, "
                            f"which holds a {holder} in self.{attribute}: that object can "
                            "take the method and read the "
                            f"data back through a parameter"
                            + _leaving(moves, cls)
                            + (f"; {'code' if typed else 'subclasses'} in "
                               f"{', '.join(outside)} call{'s' if typed else ''} it too"
                               if outside else "")),
                    data={"holder": holder, "attribute": None, "method": callee,
                          "scopes": sorted(scopes), "move": True, "delegate": not moves,
                          "via": attribute,
                          "asserted": kept.asserted,
                          "sites": [[site.scope, site.line, site.col, site.receiver]
                                    for site in found],
                          "callers": [[site.holder, site.scope, site.line, site.col,
                                       site.receiver, site.attribute, kind]
                                      for site, kind in handed]})

    def _passed_candidates(self, context: InjectionContext) -> Iterator[Candidate]:
        """A method of a class `B` that reads its data, called only from `B`'s own methods, each
        call passing it the same kind of object of an unrelated class `A` for one parameter
        (`self._invoke_field_validators(error_store=error_store, ...)`): `A` gets the method,
        taking the `B` in that parameter's place, and the calls become
        `error_store._invoke_field_validators(self, ...)`. A class that lends its work to the
        collaborator it passes around, which then reads everything back from it."""
        analysis = context.analysis
        index = context.index
        by_callee: dict[str, list[sites.Passed]] = {}
        for passed, callee in sites.passed_objects(analysis):
            by_callee.setdefault(callee, []).append(passed)
        graph = analysis.call_graph
        for callee, found in sorted(by_callee.items()):
            scopes = {item.site.scope for item in found}
            if callee in graph and set(graph.predecessors(callee)) - scopes - {callee}:
                context.discard("a method its own class calls, and code elsewhere too")
                continue
            calls = {(item.site.line, item.site.col) for item in found}
            every = {(site.line, site.col) for site, name in sites.self_calls(analysis)
                     if name == callee}
            if every != calls or len(found) != len(calls):
                context.discard("a method some of whose calls pass no collaborator")
                continue
            params = {item.param for item in found}
            kinds = {cls for item in found for cls in item.classes}
            if len(params) != 1 or len(kinds) != 1:
                context.discard("a method passed different collaborators")
                continue
            (param,), (holder,) = params, kinds
            if not sites.holds_data(analysis, holder):
                context.discard("the passed object holds no data of its own (a sentinel)")
                continue
            placed = self._placed(context, callee, holder, "is passed")
            if placed is None:
                continue
            target, holder_path = placed
            cls = index.class_of[callee]
            own, names, moves = _own_data(analysis, callee, scopes)
            yield Candidate(
                smell=self.name, target=target, files=(target.path, holder_path),
                reason=(f"{callee} reads {len(own)} data attributes of its own class "
                        f"({names}) and only {cls} calls it, passing it a {holder} as "
                        f"`{param}`: that object can take the method and read the data back "
                        "through a parameter"
                        + _leaving(moves, cls)),
                data={"holder": holder, "attribute": None, "method": callee,
                      "scopes": sorted(scopes), "move": True, "delegate": not moves,
                      "argument": param,
                      "sites": [[item.site.scope, item.site.line, item.site.col,
                                 item.receiver] for item in found]})

    def _placed(self, context: InjectionContext, callee: str, holder: str,
                how: str, forwarded: bool = False) -> tuple[Location, str] | None:
        """The method's location and the holder's file, when the method may go to the object
        it `how` ("holds", "is passed"); None, the reason discarded, when it may not."""
        why = self._ineligible(context.analysis, callee, holder, None, forwarded)
        if why is not None:
            context.discard(why)
            return None
        target = context.location(callee)
        holder_path = context.path_of(holder)
        if target is None or holder_path is None:
            return None
        if holder_path == target.path:
            context.discard(f"the object it {how} is of a class of the same module")
            return None
        return target, holder_path

    def _ineligible(self, analysis: Context, callee: str, holder: str,
                    attribute: str | None, forwarded: bool = False) -> str | None:
        """Why the method may not move, or None. `forwarded`: its class keeps a method of its
        name that hands the calls on, so a subclass's override still overrides that."""
        index = analysis.index
        definition = index.definitions[callee]
        cls = index.class_of.get(callee)
        if cls is None or definition.kind != "method":
            return "not a method"
        if is_dunder(definition.name) or definition.decorators or definition.is_stub:
            return "a dunder, decorated or stub method"
        if is_test_code(analysis, callee) or is_test_code(analysis, holder):
            return "test code"
        if holder == cls or cls in index.mro(holder) or holder in index.mro(cls):
            return "the holder is the class itself or related to it"
        if len(sites.own_data(analysis, callee)) < self.options.min_own_attributes:
            return "reads too little of its own class"
        if not forwarded and any(definition.name in index.children.get(sub, {})
                                 for sub in index.descendants(cls)):
            return "overridden in a subclass"
        if attribute is not None and not sites.plain_attribute(analysis, holder, attribute):
            return "the attribute is not a plain instance attribute"
        return None

    # -- injection --------------------------------------------------------------------------

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        return Injection(context, candidate, difficulty, rng).run()


def _leaving(moves: bool, cls: str) -> str:
    return ("; it is private, so it moves" if moves else
            f"; it is public, so it moves and {cls.rpartition('.')[2]} keeps a method of that "
            "name that hands calls on to it")


def _outside_callers(context: InjectionContext, method: str,
                     others: set[str]) -> list[tuple[sites.Site, bool]]:
    """The calls that reach a public method from modules other than its class's, in the
    functions where every call of its name is either `self.m(...)` in a subclass that inherits
    it (`NativeCodeGenerator` writing through `CodeGenerator.write`) or a call on a receiver the
    analysis types as an instance of its class (`ledger.m(...)`, `self.ledger.m(...)`; flagged
    True): medium and hard cases send them to the new home directly. A function that reaches it
    otherwise (`super().m()`, an untyped receiver), or whose lines the tests barely run, keeps
    calling the forwarding method. A private method has no forwarding method: none."""
    analysis = context.analysis
    home = context.path_of(method)
    name = method.rpartition(".")[2]
    if name.startswith("_"):
        return []
    outside = {scope for scope in others if context.path_of(scope) != home}
    found = [(site, False) for site in sites.inherited_calls(analysis, method)
             if site.scope in outside]
    found += [(site, True) for site in sites.typed_calls(analysis, method)
              if context.path_of(site.scope) not in (home, None)]
    scopes = {site.scope for site, _ in found}
    kept = {scope for scope in scopes
            if sites.calls_named(analysis, scope, name)
            == sum(1 for site, _ in found if site.scope == scope)
            # a call no test runs would be a changed line no selected test runs (jinja2's
            # `NativeCodeGenerator._output_child_pre` writes only with a `finalize` no test sets)
            and context.well_covered(scope)}
    return [(site, kind) for site, kind in found if site.scope in kept]


def _handed_callers(context: InjectionContext, callers: list[tuple[sites.Site, bool]],
                    via: str, edited: set[str]) -> list[tuple[sites.Site, bool]]:
    """The outside callers that may go to the object held in `self.<via>`: none in a module the
    move edits anyway (the method's class's, its new home's), and no typed call when the
    attribute is private (`ledger._columns.headroom(ledger)` would reach into another class's
    private state from outside it; a subclass's `self._columns` is its own). A function loses
    all its calls or none, so it never calls both ways."""
    dropped = {site.scope for site, typed in callers
               if context.path_of(site.scope) in edited or (typed and via.startswith("_"))}
    return [(site, typed) for site, typed in callers if site.scope not in dropped]


def _own_data(analysis: Context, callee: str,
              scopes: set[str]) -> tuple[frozenset[str], str, bool]:
    """What a held or passed candidate's reason says of the method: the data attributes of its
    own class it reads, their short names, and whether it moves (private, and called only from
    `scopes`) rather than leaving a copy."""
    own = frozenset(sites.own_data(analysis, callee))
    moves = callee.rpartition(".")[2].startswith("_") \
        and sites.only_called_there(analysis, callee, scopes)
    return own, ", ".join(sorted(name.rpartition(".")[2] for name in own)), moves
