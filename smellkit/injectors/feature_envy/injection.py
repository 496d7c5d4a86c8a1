"""One feature envy injection: the method leaves its class for the holder (or the object its
class lends its work to), its calls follow, a public method leaves a forwarding method behind, and
at medium and hard the calls of other modules (subclasses', or on a typed receiver) go to the new
home directly."""

from __future__ import annotations

import random
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper

from smellkit.errors import InjectionRefused
from smellkit.injectors.base import Edit, InjectionContext
from smellkit.injectors.cst import move
from smellkit.injectors.cst.imports import drop_unused_imports, insert_import, is_docstring
from smellkit.injectors.data_clumps.spread import returns_value
from smellkit.injectors.feature_envy import calls, rewrite, sites
from smellkit.injectors.feature_envy.placement import Placement
from smellkit.injectors.naming import snake, words
from smellkit.models import Candidate, Difficulty, StructuralCheck


class Injection(Placement):
    """One injection: the files it reads, the names it picks (`Placement`), the edit it
    returns."""

    def __init__(self, context: InjectionContext, candidate: Candidate,
                 difficulty: Difficulty, rng: random.Random):
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
        self.callers = [sites.Site(holder, scope, line, col, attribute, receiver)
                        for holder, scope, line, col, receiver, attribute, _
                        in data.get("callers", [])]
        """Calls from other modules, by subclasses as `self.m(...)` or on a receiver typed as
        the method's class (`ledger.m(...)`, `self.ledger.m(...)`): at medium (one module's)
        and hard they call the new home directly, and the method of its name stays for the
        rest (its API)."""
        self.typed = {(site.scope, site.line, site.col)
                      for site, (*_, typed) in zip(self.callers, data.get("callers", []))
                      if typed}
        """The positions of the callers on a typed receiver (the rest are subclasses' `self`)."""
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
        if self.holder_path == self.cls_path:  # discovery turns such pairs away
            raise InjectionRefused("both classes share a module: the envy would span one file")
        by_module: dict[str, list[sites.Site]] = {}
        for site in self.callers:
            by_module.setdefault(self.context.path_of(site.scope) or "", []).append(site)
        self.caller_modules = by_module
        """The calls from other modules, by module: medium sends one module's to
        the new home directly (the rest keep calling the forwarding method), hard all."""

    def run(self) -> Edit:
        index = self.index
        needed = {"easy": 0, "medium": 1, "hard": 2}[self.difficulty]
        if len(self.caller_modules) < needed:
            # a mixin, or a module holding only the collaborator's annotation, would be padding
            why = (f"{self.method_name} is private and nothing outside its class calls it"
                   if not self.delegate else
                   f"no caller of {self.method_name} in another module can go to its new home "
                   f"(a subclass's `self.{self.method_name}(...)`, or a call on an object "
                   f"the analysis types as a {self.cls_name}, that the tests run)"
                   if not self.caller_modules else
                   f"the callers of {self.method_name} that can go to its new home are in "
                   f"{len(self.caller_modules)} other module(s)")
            raise InjectionRefused(
                f"{why}: a {self.difficulty} case spans {needed + 2} files or more, the "
                "method's class's, its new home's and modules whose calls go there; a mixin, or "
                "a module that only declares the collaborator's type, would be a file added to "
                "reach the count")
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
            holder_tree, count = calls.redirect_calls(holder_tree, holder_node, self.sites,
                                                      self.new_name,
                                                      self.context.wrapper(self.holder_path))
        else:  # `self.m(...)` in the envied class becomes `self.<via>.m(self, ...)`, or
            # `self.m(x, ...)` becomes `x.m(self, ...)`
            if self.delegate:  # its calls stay: the method of that name hands them on
                count = len(self.sites)
            else:
                cls_tree, count = calls.redirect_calls(cls_tree, cls_node, self.sites,
                                                       self.new_name,
                                                       self.context.wrapper(self.cls_path),
                                                       via=self.via, argument=self._argument())
            changes[self.cls_path] = cls_tree.code
        if count != len(self.sites):
            raise InjectionRefused(f"found {count} of the {len(self.sites)} calls to rewrite")
        holder_node = move.find_class(holder_tree, self.holder_name)
        assert holder_node is not None
        cls_future = move.has_future_annotations(cls_tree)
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
        # the method leaves its class
        if self.via is None and self.argument is None:
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
        changes[self.cls_path] = cls_tree.code
        changes[self.holder_path] = holder_tree.code
        callers = self._redirected()
        if callers:
            self._redirect_callers(changes, callers)
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
                    + (f"; {len(callers)} call(s) in other modules go there directly"
                       if callers else ""))

    def _redirected(self) -> list[sites.Site]:
        """The outside calls that go to the new home directly: none at easy, one module's
        (picked by the seed) at medium, every module's at hard."""
        if self.difficulty == "easy" or not self.caller_modules:
            return []
        if self.difficulty == "hard":
            return list(self.callers)
        return self.caller_modules[self.rng.choice(sorted(self.caller_modules))]

    def _redirect_callers(self, changes: dict[str, str | None],
                          callers: list[sites.Site]) -> None:
        """The calls in other modules go to the new home, as the class's own forwarding method
        does: `self.write(x)` -> `self.environment.write(self, x)` in a subclass,
        `ledger.headroom()` -> `ledger.columns.headroom(ledger)` on a typed receiver."""
        by_path: dict[str, list[sites.Site]] = {}
        for site in callers:
            path = self.context.path_of(site.scope)
            if path is None or path in changes:
                raise InjectionRefused(f"{site.scope} is in a module the move already edits")
            by_path.setdefault(path, []).append(site)
        for path, found in sorted(by_path.items()):
            tree = self.context.module(path)
            wrapper: MetadataWrapper | None = self.context.wrapper(path)
            typed = [site for site in found if (site.scope, site.line, site.col) in self.typed]
            if typed:  # `ledger.m(x)` -> `ledger.<via>.m(ledger, x)`, anywhere in the module
                assert self.via is not None
                tree, count = calls.hand_on(tree, typed, self.new_name, self.via, wrapper)
                wrapper = None  # positions of the edited tree: computed again
                if count != len(typed):
                    raise InjectionRefused(f"found {count} of the {len(typed)} calls to "
                                           f"{self.method_name} on a {self.cls_name} in {path}")
                found = [site for site in found if site not in typed]
            for holder in sorted({site.holder for site in found}):
                place = move.top_level(self.index, holder)
                node = move.find_class(tree, place[1]) if place is not None else None
                if node is None:
                    raise InjectionRefused(f"{holder} is not defined at the top level of {path}")
                group = [site for site in found if site.holder == holder]
                tree, count = calls.redirect_calls(tree, node, group, self.new_name, wrapper,
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


def _short(qualname: str) -> str:
    return ".".join(qualname.split(".")[-2:])
