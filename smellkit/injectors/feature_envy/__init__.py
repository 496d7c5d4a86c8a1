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

Difficulties (SmellBench's): easy puts the method in `A` itself (two files); medium puts it in a
new mixin module that `A` inherits from, reaching the collaborator through a renamed local alias
or parameter (three files), and names red herrings: methods of `B` that read as much of its data
but are at home, the holder's methods that only delegate to it, or other classes' methods that
call `B` without envying it. When `A` and `B` share a module, easy puts the method in a mixin
module (reading the collaborator explicitly) so that the smell spans two files, and medium is
refused. Hard is medium's layout for a public method the class lends to the object it holds
whose subclasses in other modules call it too (`NativeCodeGenerator` calling the `write` of
jinja2's `CodeGenerator`): their calls go to the new home directly
(`self.environment.write(self, x)`) while the class's own calls and its API keep the forwarding
method, so the smell spans four modules or more. Without such callers one moved method spans
three modules at most, and a fourth that only declared the collaborator's type (a typed base)
would be a file added to reach the count: refused.

New modules and mixins are named after the moved method (`add_entry.py`, `_AddEntryMixin`) and
get no stock docstring; they declare `__slots__ = ()` only when the holder's classes use slots.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper
from pydantic import Field

from smellkit.analysis.access import is_dunder, is_test_code
from smellkit.analysis.context import Context
from smellkit.detectors.feature_envy import FeatureEnvy, FeatureEnvyOptions
from smellkit.errors import InjectionRefused
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.cst import move
from smellkit.injectors.cst.imports import (
    drop_unused_imports,
    insert_import,
    is_docstring,
    is_import_line,
)
from smellkit.injectors.cst.slots import SLOTS_LINE, uses_slots
from smellkit.injectors.data_clumps.spread import returns_value
from smellkit.injectors.feature_envy import rewrite, sites
from smellkit.injectors.naming import camel, meaningful, pick, snake, words
from smellkit.models import Candidate, Difficulty, Location, StructuralCheck


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
    """One moved method spans its class's module, its new home's and a mixin's; hard adds the
    subclasses in other modules that call it, sent to the new home directly. Without them a
    fourth module would only declare the collaborator's type (padding): refused."""

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
                        "so it can move"
                        + ("; both classes share a module, so the method goes to new mixin "
                           "modules" if holder_path == target.path else "")),
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
        those in subclasses of other modules are kept on the candidate for hard."""
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
                outside = sorted({path for site in callers
                                  if (path := context.path_of(site.scope)) is not None})
                yield Candidate(
                    smell=self.name, target=target, files=(target.path, holder_path),
                    reason=(f"{callee} reads {len(own)} data attributes of its own class "
                            f"({names}) and {'' if others else 'only '}{cls} calls it, "
                            f"which holds a {holder} in self.{attribute}: that object can "
                            "take the method and read the "
                            f"data back through a parameter"
                            + _leaving(moves, cls)
                            + (f"; subclasses in {', '.join(outside)} call it too"
                               if outside else "")),
                    data={"holder": holder, "attribute": None, "method": callee,
                          "scopes": sorted(scopes), "move": True, "delegate": not moves,
                          "via": attribute,
                          "asserted": kept.asserted,
                          "sites": [[site.scope, site.line, site.col, site.receiver]
                                    for site in found],
                          "callers": [[site.holder, site.scope, site.line, site.col,
                                       site.receiver] for site in callers]})

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
        return _Injection(self, context, candidate, difficulty, rng).run()


class _Injection:
    """One injection: the files it reads, the names it picks, the edit it returns."""

    def __init__(self, injector: FeatureEnvyInjector, context: InjectionContext,
                 candidate: Candidate, difficulty: Difficulty, rng: random.Random):
        self.context = context
        self.rng = rng
        self.index = index = context.index
        self.difficulty = difficulty
        data: dict[str, Any] = candidate.data
        self.holder: str = data["holder"]
        self.attribute: str | None = data["attribute"]
        self.argument: str | None = data.get("argument")
        """The envied class calls the method itself, passing it the holder's instance for
        this parameter (`_passed_candidates`): that argument becomes the receiver."""
        lends = bool(data.get("via") or self.argument)
        caller = index.class_of[data["method"]] if lends else data["holder"]
        self.sites = [sites.Site(caller, scope, line, col, data["attribute"], receiver)
                      for scope, line, col, receiver in data["sites"]]
        self.callers = [sites.Site(holder, scope, line, col, None, receiver)
                        for holder, scope, line, col, receiver in data.get("callers", [])]
        """Subclasses in other modules calling the method as `self.m(...)`: at hard they call
        the new home directly, and the method of its name stays for the rest (its API)."""
        self.via: str | None = data.get("via")
        """The envied class calls the method itself, through the object it holds in
        `self.<via>` (`_held_candidates`): the calls to rewrite are in the envied class."""
        self.declared = bool(data.get("asserted"))
        """The holder's class is known only from the constructor's assertion: the moved
        method declares the type of the instance it is given, or no analysis would know it."""
        self.method: str = data["method"]
        self.delegate = bool(data.get("delegate"))
        """A public method moves too, and its class keeps a method of its name that hands the
        calls of code outside (its API) on to the new home."""
        self.cls = index.class_of[self.method]
        receivers = sorted(site.receiver for site in self.sites if site.receiver)
        self.word = (self.attribute or (snake(words(self.cls.rpartition(".")[2])[-2:])
                                        if lends else max(receivers, key=receivers.count))
                     ).strip("_") or "part"
        self.method_name = self.method.rpartition(".")[2]
        holder_place = move.top_level(index, self.holder)
        cls_place = move.top_level(index, self.cls)
        if holder_place is None or cls_place is None:
            raise InjectionRefused("the classes are not defined at the top level of their modules")
        (self.holder_module, self.holder_name), (self.cls_module, self.cls_name) = \
            holder_place, cls_place
        self.holder_path = context.path_of(self.holder) or ""
        self.cls_path = context.path_of(self.cls) or ""
        self.local = self.holder_path == self.cls_path
        """Both classes in one module: the method always goes to new modules (mixins), one
        more than across modules, so that the smell spans 2, 3 and 4 files."""
        self.layers = {"easy": 0, "medium": 1, "hard": 1}[difficulty] + int(self.local)
        """Hard is medium's layout (a mixin module) plus the callers in other modules."""

    def run(self) -> Edit:
        index = self.index
        reached = self.via is not None and self.delegate and bool(self.callers)
        if self.layers >= 2 or (self.difficulty == "hard" and not reached):
            # a module holding only the collaborator's annotation would be padding
            why = (f"{self.method_name} is private and nothing outside its class calls it"
                   if not self.delegate else
                   f"no caller of {self.method_name} in another module can go to its new home "
                   f"(a subclass's `self.{self.method_name}(...)` that the tests run)")
            raise InjectionRefused(
                f"{why}: its move spans {2 if self.local else 3} files at most (its class's, "
                "the caller's, a mixin's), and a module that only declares the collaborator's "
                "type would be a file added to reach the count")
        if not self.delegate and index.lookup_method(self.cls, self.method_name,
                                                     after=self.cls) is not None:
            raise InjectionRefused(f"moving {self.method_name} out of {self.cls_name} would "
                                   "expose the method it overrides")
        graph = index.call_graph
        if self.method in graph and graph.has_edge(self.method, self.method):
            raise InjectionRefused(f"{self.method_name} calls itself, on the {self.cls_name} "
                                   "it would move away from")
        base = move.unsafe_base(index, self.holder)
        if base is not None:
            raise InjectionRefused(f"{self.holder} inherits from {base}, whose members are unknown")
        taken = move.members(index, self.holder)
        self.new_name = self.method_name
        if self.new_name in taken:  # renamed after the attribute: `symbols_copy`
            private = "_" if self.method_name.startswith("_") else ""
            self.new_name = f"{private}{self.word}_{self.method_name.lstrip('_')}"
        if self.new_name in taken:
            raise InjectionRefused(f"{self.holder} already has members named {self.method_name} "
                                   f"and {self.new_name}")
        holder_tree = self.context.module(self.holder_path)
        cls_tree = self.context.module(self.cls_path)
        holder_node = move.find_class(holder_tree, self.holder_name)
        cls_node = move.find_class(cls_tree, self.cls_name)
        function = move.find_method(cls_node, self.method_name) if cls_node else None
        if holder_node is None or cls_node is None or function is None:
            raise InjectionRefused("the classes or the method are not where the index puts them")
        self_param = function.params.params[0] if function.params.params else None
        if self_param is not None and self_param.annotation is not None:
            raise InjectionRefused(f"{self.method_name} annotates its self parameter")
        if self.attribute is None and rewrite.typed(function):
            self.declared = True  # the object it is given is annotated as the rest of it is
        if self.argument is not None:  # the parameter goes: nothing needs its annotation
            function = rewrite.unannotated(function, self.argument)
        changes: dict[str, str | None] = {}
        if self.via is None and self.argument is None:
            holder_tree, count = sites.redirect_calls(holder_tree, holder_node, self.sites,
                                                      self.new_name,
                                                      self.context.wrapper(self.holder_path))
        else:  # `self.m(...)` in the envied class becomes `self.<via>.m(self, ...)`, or
            # `self.m(x, ...)` becomes `x.m(self, ...)`
            if self.local:
                raise InjectionRefused("the held object's class shares the envied module")
            if self.delegate:  # its calls stay: the method of that name hands them on
                count = len(self.sites)
            else:
                cls_tree, count = sites.redirect_calls(cls_tree, cls_node, self.sites,
                                                       self.new_name,
                                                       self.context.wrapper(self.cls_path),
                                                       via=self.via, argument=self._argument())
            changes[self.cls_path] = cls_tree.code
        if count != len(self.sites):
            raise InjectionRefused(f"found {count} of the {len(self.sites)} calls to rewrite")
        holder_node = move.find_class(holder_tree, self.holder_name)
        assert holder_node is not None
        cls_future = move.has_future_annotations(cls_tree)
        if not self.layers:
            if self.attribute is not None:
                replacement: cst.BaseExpression = rewrite.self_attribute(function, self.attribute)
            else:
                replacement = cst.Name(self._local_name(function))
            moved = move.move_method(
                index, self.cls_module, cls_tree, function, self.holder_module,
                replacement=replacement,
                postponed=cls_future and move.has_future_annotations(holder_tree),
                wrapper=self.context.wrapper(self.cls_path), quote_checked=True, hoist=True)
            new_function = moved.function
            checked = [self._restyled(self.holder_module, item) for item in moved.type_checking]
            if isinstance(replacement, cst.Name):
                new_function = rewrite.with_receiver(new_function, replacement.value)
            if self.argument is not None:
                new_function = rewrite.argument_as_self(new_function, self.argument)
            if self.via is not None and isinstance(replacement, cst.Name):
                new_function = rewrite.through_self(new_function, replacement.value, self.via)
            if self.declared and isinstance(replacement, cst.Name):
                bound = move.module_bindings(index, self.holder_module).get(self.cls_name) \
                    == self.cls and self.cls_name not in {
                        item.bound for item in index.modules[self.holder_module].imports
                        if item.type_only}
                new_function = rewrite.annotated(new_function, replacement.value, self.cls_name,
                                                 quoted=not bound)
                if move.module_bindings(index, self.holder_module).get(self.cls_name) != self.cls:
                    checked.append(self._import_line(self.holder_module, self.cls_module,
                                                     self.cls_name))
            if checked:
                holder_tree = self._checked(holder_tree, checked)
            new_holder = move.append_to_class(holder_node, [rewrite.wrapped(
                move.as_method_of_class(new_function, self.new_name),
                rewrite.line_length(self.context.source(self.holder_path)))])
            holder_tree = move.replace_node(holder_tree, holder_node, new_holder)
            for statement in rewrite.still_read(moved.imports, new_function):
                holder_tree = insert_import(holder_tree, statement)
            target = f"{self.holder}.{self.new_name}"
        else:
            holder_tree, target = self._mixins(changes, holder_tree, holder_node, cls_tree,
                                               function, cls_future)
        # the method leaves its class (one module for both: from the holder's edited tree)
        if self.local:
            cls_tree = holder_tree
        elif self.via is None and self.argument is None:
            cls_tree = self.context.module(self.cls_path)
        cls_node = move.find_class(cls_tree, self.cls_name)
        assert cls_node is not None
        old = move.find_method(cls_node, self.method_name)
        assert old is not None
        cls_tree = move.replace_node(cls_tree, old, self._forwarding(old) if self.delegate
                                     else cst.RemoveFromParent())
        cls_tree = drop_unused_imports(cls_tree, self.context.module(self.cls_path),
                                       move.reexported(index, self.cls_module, (
                                           self.context.source(item.path)
                                           for item in self.context.project.files)))
        if self.local:
            holder_tree = cls_tree
        else:
            changes[self.cls_path] = cls_tree.code
        changes[self.holder_path] = holder_tree.code
        callers = self.callers if self.difficulty == "hard" else []
        if callers:
            self._redirect_callers(changes)
        herrings = sites.look_alikes(self.context.analysis, self.cls, self.method, self.holder,
                                     self.attribute,
                                     frozenset(site.scope for site in [*self.sites, *callers]))
        if self.difficulty == "hard" and not herrings:
            raise InjectionRefused(f"{self.cls} has no other method that reads as much of its data "
                                   "(a red herring)")
        checks = (
            StructuralCheck(
                kind="feature_envy.not_envious",
                description=f"`{_short(target)}` no longer reads more attributes of "
                            f"`{self.cls_name}` than of its own class",
                params={"method": target, "envied": self.cls}),
            StructuralCheck(
                kind="no_finding", description=f"no feature envy is reported at `{_short(target)}`",
                params={"smell": "feature_envy", "qualnames": [target]}),
        )
        return Edit(
            changes=changes, targets=((target, "method"),), checks=checks,
            involved=(self.holder, self.cls,
                      *sorted({site.scope for site in [*self.sites, *callers]})),
            red_herrings=tuple(herrings) if self.difficulty != "easy" else (),
            summary=f"moved {self.method} to {target}"
                    + (f" ({self.cls_name} hands its API's calls on)" if self.delegate else "")
                    + "; "
                    f"{len(self.sites)} call(s) in {self.holder} go there"
                    + (f"; {len(callers)} call(s) of subclasses in other modules go there "
                       "directly" if callers else ""))

    def _redirect_callers(self, changes: dict[str, str | None]) -> None:
        """The subclasses' calls in other modules go to the new home, as the class's own
        forwarding method does: `self.write(x)` -> `self.environment.write(self, x)`."""
        by_path: dict[str, list[sites.Site]] = {}
        for site in self.callers:
            path = self.context.path_of(site.scope)
            if path is None or path in changes:
                raise InjectionRefused(f"{site.scope} is in a module the move already edits")
            by_path.setdefault(path, []).append(site)
        for path, found in sorted(by_path.items()):
            tree = self.context.module(path)
            wrapper: MetadataWrapper | None = self.context.wrapper(path)
            for holder in sorted({site.holder for site in found}):
                place = move.top_level(self.index, holder)
                node = move.find_class(tree, place[1]) if place is not None else None
                if node is None:
                    raise InjectionRefused(f"{holder} is not defined at the top level of {path}")
                group = [site for site in found if site.holder == holder]
                tree, count = sites.redirect_calls(tree, node, group, self.new_name, wrapper,
                                                   via=self.via)
                wrapper = None  # positions of the edited tree: computed again
                if count != len(group):
                    raise InjectionRefused(f"found {count} of the {len(group)} calls to "
                                           f"{self.method_name} in {holder}")
            changes[path] = tree.code

    def _forwarding(self, function: cst.FunctionDef) -> cst.FunctionDef:
        """The public method, left in its class for its callers (the class's own, and code
        outside the repository), handing them on to its new home
        (`return self.cli.source_vars(self)`): its signature and docstring as they were."""
        params = function.params
        own = params.params[0].name.value
        receiver = f"{own}.{self.via}" if self.via is not None else self.argument
        arguments = [own]
        for param in [*params.posonly_params, *params.params[1:]]:
            if param.name.value != self.argument:
                arguments.append(param.name.value)
        if isinstance(params.star_arg, cst.Param):
            arguments.append(f"*{params.star_arg.name.value}")
        arguments.extend(f"{param.name.value}={param.name.value}"
                         for param in params.kwonly_params if param.name.value != self.argument)
        if params.star_kwarg is not None:
            arguments.append(f"**{params.star_kwarg.name.value}")
        head = ("return " if returns_value(function) else "") + f"{receiver}.{self.new_name}("
        limit = rewrite.line_length(self.context.source(self.cls_path))
        line = f"{head}{', '.join(arguments)})"
        if len(line) + 8 > limit:  # as the formatter wraps a call one level into a method
            line = f"{head}\n    {', '.join(arguments)}\n)"
        call = cst.parse_statement(line)
        body = function.body
        assert isinstance(body, cst.IndentedBlock)
        first = body.body[0] if body.body else None
        kept = [first] if first is not None and is_docstring(first) else []
        return function.with_changes(body=body.with_changes(body=[*kept, call]))

    def _relative(self) -> bool:
        """Whether the holder's module imports its siblings relatively (`from .core import
        Field`): new imports of the injection follow the module's own style."""
        source = self.context.source(self.holder_path)
        return re.search(r"^\s*from \.\w", source, re.MULTILINE) is not None

    def _import_line(self, importer: str, module: str, name: str) -> str:
        """`from <module> import <name>` for `importer`, relative to a sibling when the holder's
        module writes its own imports so, else absolute (`from wtforms.fields.core import`)."""
        if self._relative():
            return move.relative_import(importer, module, name)
        return f"from {module} import {name}"

    def _restyled(self, importer: str, statement: str) -> str:
        """An absolute `from x import y` written in the holder module's import style."""
        found = re.fullmatch(r"from ([\w.]+) import (\w+)", statement)
        return self._import_line(importer, *found.groups()) if found is not None else statement

    def _header(self, module: str, statements: list[str]) -> str:
        """The import block of a new module, in isort's order and in the holder module's import
        style (absolute or relative)."""
        tree = cst.Module(body=[])
        package = module.rpartition(".")[0]
        for statement in dict.fromkeys(statements):
            match = re.fullmatch(r"from (\.+)([\w.]*) import (\w+)", statement)
            if match is not None and not self._relative():
                dots, rest, name = match.groups()
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - len(dots) + 1])
                statement = f"from {base}{'.' if base and rest else ''}{rest} import {name}"
            elif match is None and statement.startswith("from ") and self._relative():
                found = re.fullmatch(r"from ([\w.]+) import (\w+)", statement)
                if found is not None:
                    statement = _relative_to(package, *found.groups())
            tree = insert_import(tree, statement)
        return tree.code if tree.body else ""

    def _argument(self) -> tuple[str, int | None] | None:
        """The parameter whose argument becomes the receiver, with its position among the
        method's positional parameters (None: keyword-only)."""
        if self.argument is None:
            return None
        params = self.index.definitions[self.method].params[1:]
        positional = [param.name for param in params
                      if param.kind in ("positional_only", "positional")]
        return self.argument, (positional.index(self.argument)
                               if self.argument in positional else None)

    def _checked(self, tree: cst.Module, statements: list[str]) -> cst.Module:
        """The holder's module importing, for type checkers only, what the moved method's
        annotations name (the envied class, a class it cannot import at run time)."""
        bound = move.module_bindings(self.index, self.holder_module)
        typing_names = [name for name, target in sorted(bound.items()) if target == "typing"]
        if bound.get("TYPE_CHECKING") == "typing.TYPE_CHECKING":
            guard = "TYPE_CHECKING"
        elif typing_names:
            guard = f"{typing_names[0]}.TYPE_CHECKING"
        else:
            if "typing" in bound:
                raise InjectionRefused(f"{self.holder_module} binds typing to something else")
            tree, guard = insert_import(tree, "import typing"), "typing.TYPE_CHECKING"
        body = list(tree.body)
        for number, item in enumerate(body):  # the module's own block takes them, in order
            if isinstance(item, cst.If) and item.orelse is None \
                    and "TYPE_CHECKING" in tree.code_for_node(item.test) \
                    and isinstance(item.body, cst.IndentedBlock) \
                    and all(is_import_line(line) for line in item.body.body):
                inner = cst.Module(body=[line for line in item.body.body
                                         if isinstance(line, cst.SimpleStatementLine)])
                for statement in statements:
                    inner = insert_import(inner, statement)
                lines = [inner.code_for_node(line).strip() for line in inner.body]
                if all(re.fullmatch(r"from [\w.]+ import \w+", line) for line in lines):
                    order = sorted(range(len(lines)), key=lambda at: (
                        lines[at].split()[1], lines[at].split()[3].lower()))
                    inner = inner.with_changes(body=[inner.body[at] for at in order])
                body[number] = item.with_changes(body=item.body.with_changes(body=inner.body))
                return tree.with_changes(body=body)
        block = cst.parse_statement(f"if {guard}:\n" + "".join(
            f"    {statement}\n" for statement in dict.fromkeys(statements)))
        at = max((number + 1 for number, item in enumerate(body) if is_import_line(item)),
                 default=0)
        block = block.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        return tree.with_changes(body=[*body[:at], block, *body[at:]])

    def _local_name(self, function: cst.FunctionDef) -> str:
        """A name for the collaborator inside the moved method: the attribute's or the
        receiver's word, else words of its class, none the method already uses."""
        vocabulary = self.context.vocabulary
        candidates = [self.word, *vocabulary.names(
            self.cls_module, self.cls_name, head=words(self.cls_name)[-1:], rng=self.rng)]
        return pick(candidates, move.names_in(function),
                    what=f"the {self.cls_name} inside {self.method_name}")

    def _module_stems(self, folder: str, stem: str) -> list[str]:
        """File stems for new modules beside the holder's, from the repository's words near
        the holder and the collaborator (`_template_symbols`), private when the repository
        names its internal modules so."""
        vocabulary = self.context.vocabulary
        private = vocabulary.private_modules() or stem.startswith("_")
        found = vocabulary.names(self.holder_module, self.word, self.cls_name,
                                 head=self._method_words(), rng=self.rng, private=private)
        return [name for name in dict.fromkeys(found) if name.lstrip("_") != stem.lstrip("_")
                and _join(folder, name) != self.holder_path][:60]

    def _method_words(self) -> list[str]:
        """The moved method's own words (`add_entry`): what the new module and mixin do."""
        return [part for part in words(self.method_name) if meaningful(part)] or \
            [part for part in words(self.method_name) if len(part) >= 3]

    def _class_words(self) -> list[str]:
        """Camel-case middles for the new classes' names (`_Template` + `Symbols` + `Mixin`):
        the collaborator's word first, then words near it."""
        vocabulary = self.context.vocabulary
        head = [part for part in words(self.word) if len(part) >= 3]
        found = vocabulary.names(self.holder_module, self.cls_name, self.method_name,
                                 head=head, rng=self.rng, camel_case=True, most=1)
        return [name for name in dict.fromkeys(found) if name.lower() not in
                self.holder_name.lower()][:40]

    def _mixins(self, changes: dict[str, str | None], holder_tree: cst.Module,
                holder_node: cst.ClassDef, cls_tree: cst.Module, function: cst.FunctionDef,
                future: bool) -> tuple[cst.Module, str]:
        """The method goes to a new mixin module that the holder inherits; the mixin declares
        the type of the attribute holding the collaborator, as typed mixins do. At easy (both
        classes in one module) the method reads the collaborator explicitly, as it does in the
        holder."""
        context = self.context
        folder = self.holder_path.rpartition("/")[0]
        stem = self.holder_path.rpartition("/")[2][:-3]
        bound = move.module_bindings(self.index, self.holder_module)
        stems = self._module_stems(folder, stem)
        mixin_path = context.module_path(folder, stems)
        mixin_module = _module_name(self.holder_module, self.holder_path, mixin_path)
        behaviour = camel(self._method_words())  # named after what it does: `_AddEntryMixin`
        names = [behaviour, camel(words(self.holder_name)[-1:]) + behaviour,
                 *(self.holder_name.lstrip("_") + name for name in self._class_words())]
        mixin_name = pick((f"_{name}Mixin" for name in names), bound,
                          what=f"the mixin of {self.holder_name}")
        slotted = uses_slots(context, [self.holder])
        slots = f"    {SLOTS_LINE}\n" if slotted else ""
        alias = self._local_name(function)
        self_name = function.params.params[0].name.value
        explicit = self.difficulty == "easy"
        preamble = [cst.parse_statement(f"{alias} = {self_name}.{self.attribute}")] \
            if self.attribute and not explicit else []
        replacement: cst.BaseExpression = rewrite.self_attribute(function, self.attribute) \
            if self.attribute and explicit else cst.Name(alias)
        moved = move.move_method(
            self.index, self.cls_module, cls_tree, function, None,
            replacement=replacement, postponed=future, importer=self.holder_module,
            preamble=preamble, wrapper=context.wrapper(self.cls_path), quote_checked=True,
            hoist=True)
        new_function = moved.function if self.attribute \
            else rewrite.with_receiver(moved.function, alias)
        if self.argument is not None:
            new_function = rewrite.argument_as_self(new_function, self.argument)
        if self.via is not None:
            new_function = rewrite.through_self(new_function, alias, self.via)
        read = list(moved.imports)
        # the envied class's module is imported when the mixin's is anyway: so is the class
        runtime = any(item.startswith(f"from {self.cls_module} import ") for item in
                      rewrite.still_read(read, new_function))
        if self.declared:
            new_function = rewrite.annotated(new_function, alias, self.cls_name,
                                             quoted=not runtime and not future)
        method_code = rewrite.in_class(rewrite.wrapped(
            move.as_method_of_class(new_function, self.new_name),
            rewrite.line_length(context.source(self.holder_path))))
        opening = "from __future__ import annotations\n\n" if future else ""
        declared = f'"{self.cls_name}"' if not future and not runtime else self.cls_name
        declaration = f"    {self.attribute}: {declared}\n" if self.attribute else ""
        checked = [self._restyled(mixin_module, item) for item in moved.type_checking]
        read = rewrite.still_read(read, new_function)
        if self.attribute or self.declared:
            if runtime:
                read.append(f"from {self.cls_module} import {self.cls_name}")
            else:
                checked.insert(0, self._import_line(mixin_module, self.cls_module,
                                                    self.cls_name))
        aliases = [match.group(1) or "typing" for statement in read
                   if (match := re.fullmatch(r"import typing(?: as (\w+))?", statement))]
        # the holder module's own name for typing (jinja2's `import typing as t`)
        own = next((name for name, module in sorted(bound.items()) if module == "typing"),
                   "typing")
        typing_name = aliases[0] if aliases else own
        imports = self._header(mixin_module, [
            *read, *([f"import typing as {own}" if own != "typing" else "import typing"]
                     if checked and not aliases else [])])
        if checked:
            lines = "".join(f"    {statement}\n" for statement in dict.fromkeys(checked))
            imports += f"\nif {typing_name}.TYPE_CHECKING:\n{lines}"
        head = f"class {mixin_name}:\n"
        body = slots + ("\n" if slots and declaration else "") + declaration
        if not body:  # the method opens the class body
            method_code = method_code.lstrip("\n")
        changes[mixin_path] = (f"{opening}{imports}{chr(10) * 2 if imports else ''}"
                               f"{head}{body}{method_code}")
        new_holder = move.add_base(holder_node, mixin_name)
        holder_tree = move.replace_node(holder_tree, holder_node, new_holder)
        holder_tree = insert_import(
            holder_tree, self._import_line(self.holder_module, mixin_module, mixin_name))
        return holder_tree, f"{mixin_module}.{mixin_name}.{self.new_name}"


def _relative_to(package: str, module: str, name: str) -> str:
    """`from <module> import <name>` written from `package` relatively (`from . import nodes`,
    `from ..utils import x`) when both are in one top-level package, else as it is."""
    base, parts = package.split("."), module.split(".")
    if not package or base[0] != parts[0]:
        return f"from {module} import {name}"
    common = 0
    while common < min(len(base), len(parts)) and base[common] == parts[common]:
        common += 1
    return f"from {'.' * (len(base) - common + 1)}{'.'.join(parts[common:])} import {name}"


def _module_name(module: str, path: str, new_path: str) -> str:
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    stem = new_path.rpartition("/")[2][:-3]
    return f"{package}.{stem}" if package else stem


def _join(folder: str, stem: str) -> str:
    return f"{folder}/{stem}.py" if folder else f"{stem}.py"


def _short(qualname: str) -> str:
    return ".".join(qualname.split(".")[-2:])


def _leaving(moves: bool, cls: str) -> str:
    return ("; it is private, so it moves" if moves else
            f"; it is public, so it moves and {cls.rpartition('.')[2]} keeps a method of that "
            "name that hands calls on to it")


def _outside_callers(context: InjectionContext, method: str,
                     others: set[str]) -> list[sites.Site]:
    """The calls that reach a public method from modules other than its class's, when every
    one is `self.m(...)` in a subclass that inherits it (`NativeCodeGenerator` writing through
    `CodeGenerator.write`): a hard case sends them to the new home directly. Empty when there
    are none, or when some reach it otherwise (the forwarding method serves those)."""
    analysis = context.analysis
    home = context.path_of(method)
    outside = {scope for scope in others if context.path_of(scope) != home}
    if not outside:
        return []
    found = [site for site in sites.inherited_calls(analysis, method) if site.scope in outside]
    name = method.rpartition(".")[2]
    if {site.scope for site in found} != outside or any(
            sites.calls_named(analysis, scope, name)
            != sum(1 for site in found if site.scope == scope) for scope in outside):
        return []
    # a call no test runs would be a changed line no selected test runs (jinja2's
    # `NativeCodeGenerator._output_child_pre` writes only with a `finalize` no test sets)
    if not all(context.well_covered(scope) for scope in outside):
        return []
    return found


def _own_data(analysis: Context, callee: str,
              scopes: set[str]) -> tuple[frozenset[str], str, bool]:
    """What a held or passed candidate's reason says of the method: the data attributes of its
    own class it reads, their short names, and whether it moves (private, and called only from
    `scopes`) rather than leaving a copy."""
    own = frozenset(sites.own_data(analysis, callee))
    moves = callee.rpartition(".")[2].startswith("_") \
        and sites.only_called_there(analysis, callee, scopes)
    return own, ", ".join(sorted(name.rpartition(".")[2] for name in own)), moves
