"""Interface segregation, injected: widen an interface with the roles of its implementers.

A candidate is a family of the repository: an interface (an abstract base, a base whose methods
raise `NotImplementedError`, or a protocol with explicit implementers) or a plain base whose
subclasses override its methods (it serves as one: a visitor base, a loader base), with two or more
concrete implementers, some of which (the donors) have public methods of their own that no other
class of the family defines (a role). The injection declares one donor's role (or every donor's,
when each would stub the others') in the base, abstract, so the implementers that lack it must
opt out explicitly, as a codebase with a fat interface does: an override of each folded-in method
that only raises `NotImplementedError` (spelled as the repository spells it, with or without the
call), with the donor's annotations (`typed.py`). A handful of them: at most `MAX_HOISTED`
methods folded in, overridden by the tops of the family that lack them (at most `MAX_FORCED`).
A declaration that only raises (a base that is not abstract) forces nothing: every implementer
inherits it, so an override that raises again would repeat it, and such a family is refused.

A plain base that nothing instantiates (jinja2's `NodeVisitor`) is first made abstract
(`abc.ABC`), the methods folded in declared abstract: a fat interface forces every implementer
that lacks them to opt out, which a base that only raises does not (its implementers inherit the
raise). At most `MAX_FORCED` classes are forced; beyond that, or when the base is called by name,
it stays plain. An intermediate base nothing instantiates (`NodeTransformer`) may stay abstract,
its subclasses opting out in their own modules, when the difficulty needs their files.

An abstract base that declares private abstract hooks (marshmallow's `FieldABC._serialize`)
takes a private role too. An abstract base declares the methods folded in abstract, as it
declares its own; then every class it would leave abstract (the tops of the family below it,
marshmallow's `Field`) opts out, so all stay instantiable.

The implementers that refuse a third of the widened interface are counted first (the
detector's rule needs two), and the widened interface must reach the detector's minimum size. A
method whose name is spelled in a string anywhere, or starts or ends with a string that looks
like a name prefix or suffix (`"visit_"`: a name built for `getattr`), is never chosen, so a
lookup by name behaves as before. A family with a `__getattr__` that answers any name is refused
(the new methods would hide it); one that only forwards to another object (wtforms' `FormField`
to its form) is not, unless another class of the repository has one of the names.

Only the classes an abstract declaration would leave abstract write an opt-out; no class that
already inherits a method of that name, concrete or raising, gets an override. The smell spans
the files the case changes: the interface's and those of the implementers that opt out, 2 files
at easy, 3 or more at medium, 4 or more at hard (with the donors' real methods and the base's
own methods as red herrings). A family that does not reach across enough modules is refused at
that difficulty rather than given new modules, or untouched clients, to span.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

import libcst as cst

from smellkit.config import is_test_path
from smellkit.detectors.interface_segregation import (
    InterfaceSegregation,
    InterfaceSegregationOptions,
)
from smellkit.errors import InjectionRefused
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.interface_segregation.edit import (
    ClassEdit,
    FileEdit,
    apply,
    find_function,
    postponed,
)
from smellkit.injectors.interface_segregation.family import (
    abstract_decorator,
    abstract_spelling,
    bases,
    called_names,
    family_of,
    forwarded,
    role_method,
    spelled,
)
from smellkit.injectors.interface_segregation.typed import Signature, raise_statement, signature
from smellkit.models import Candidate, Difficulty, StructuralCheck

_NEUTRAL = frozenset({"object", "builtins.object", "<builtin>.object", "abc.ABC", "ABC",
                      "typing.Generic", "Generic", "typing.Protocol", "Protocol",
                      "typing_extensions.Protocol"})
MAX_HOISTED = 3
"""Methods of one role folded into the interface, at most."""
MAX_FORCED = 6
"""Classes a plain base made abstract may force to opt out, at most: a family bigger than that
(wtforms' `Field`, with a dozen direct subclasses) would get walls of stubs."""


class InterfaceSegregationInjectorOptions(InjectorOptions):
    pass


class InterfaceSegregationInjector(Injector[InterfaceSegregationInjectorOptions]):
    """Fold one implementer's role into the interface, stubbed by every other implementer."""

    smell = InterfaceSegregation.smell
    description = ("An interface widened with methods only one implementer supports: the others "
                   "are forced to stub them (raise NotImplementedError).")
    Options = InterfaceSegregationInjectorOptions
    edits_only_stubs = True  # declarations and opt-outs that only raise (or pass)

    def sized_paths(self, candidate: Candidate) -> tuple[str, ...]:
        """The interface's file and its implementers': the opt-outs are written there, so a
        family whose base sits in a short module (jinja2's 92-line visitor.py) and whose
        implementers in long ones qualifies."""
        return tuple(candidate.data.get("written", (candidate.target.path,)))

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        index = context.index
        detector = InterfaceSegregation(InterfaceSegregationOptions())
        found = {finding.location.qualname for finding in detector.detect(context.analysis)}
        strings = spelled(index)
        called = called_names(index)
        interfaces = detector.interfaces(context.analysis, 1)
        families = {qualname: (item.kind, sorted(item.methods), sorted(item.implementers))
                    for qualname, item in interfaces.items()}
        families.update({qualname: ("base", [], implementers)
                         for qualname, implementers in bases(context, set(interfaces))})
        for qualname, (kind, methods, implementers) in sorted(families.items()):
            path = context.path_of(qualname)
            location = context.location(qualname)
            if path is None or location is None or is_test_path(path):
                context.discard("an interface in the tests")
                continue
            if qualname in found:
                context.discard("already reported as an interface its implementers stub")
                continue
            decorators = getattr(index.definitions.get(qualname), "decorators", ())
            if any(decorator.rpartition(".")[2] == "runtime_checkable"
                   for decorator in decorators):
                # isinstance() checks its methods: adding one changes behaviour
                context.discard("a runtime-checkable protocol (isinstance checks its methods)")
                continue
            order = index.mro(qualname)
            if any(base not in index.classes and base not in _NEUTRAL for base in order[1:]):
                context.discard("a base from outside the repository (it may define anything)")
                continue
            if len(implementers) < 2:
                context.discard("fewer than 2 concrete implementers")
                continue
            family = sorted({ancestor for cls in index.descendants(qualname)
                             for ancestor in index.mro(cls)} | set(order))
            attributes = {attribute.name for cls in family
                          for attribute in getattr(index.classes.get(cls), "attributes", ())}
            hooks = abstract_decorator(context, qualname) if kind == "abc" else None
            # the methods folded in are declared as the interface declares its own
            abstract = abstract_decorator(context, qualname, private=False) \
                if kind == "abc" else None
            convert = abstract_spelling(context, qualname, family, called) \
                if kind == "base" else None
            donors: dict[str, list[str]] = {}
            for donor in implementers:
                others = [cls for cls in family
                          if cls != donor and donor not in index.mro(cls)]
                own = [name for name, child in sorted(index.children.get(donor, {}).items())
                       if role_method(context, child, name, strings, private=bool(hooks))
                       and name not in attributes
                       and not any(name in index.children.get(cls, {}) for cls in others)]
                if own:
                    donors[donor] = own
            if not donors:
                context.discard("no implementer has public methods of its own (a role) to "
                                "fold in")
                continue
            written = sorted({path, *(context.path_of(cls) or path for cls in implementers)})
            if len(written) < 2:
                context.discard("the interface and its implementers share one module")
                continue
            what = ("a base its subclasses override" if kind == "base"
                    else f"an interface ({kind}, {len(methods)} method(s))")
            yield Candidate(
                smell=self.name, target=location, files=tuple(written),
                reason=(f"{qualname.rpartition('.')[2]} is {what} with {len(implementers)} "
                        f"concrete implementers; {len(donors)} of them have public "
                        "methods of their own (a role) that could be folded into it: "
                        + ", ".join(f"{donor.rpartition('.')[2]}.{{{', '.join(names[:3])}"
                                    f"{', ...' if len(names) > 3 else ''}}}"
                                    for donor, names in sorted(donors.items())[:3])),
                data={"methods": methods, "implementers": implementers, "donors": donors,
                      "family": family_of(context, qualname),
                      "abstract": abstract, "written": written,
                      "convert": list(convert) if convert else None,
                      "uncalled": [cls for cls in family
                                   if cls.rpartition(".")[2] not in called]})

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        interface = candidate.target.qualname
        size = len(candidate.data["methods"])
        donors: dict[str, list[str]] = candidate.data["donors"]
        implementers: list[str] = candidate.data["implementers"]
        family: list[str] = candidate.data.get("family", implementers)
        abstract: str | None = candidate.data.get("abstract")
        convert: list[str | None] | None = candidate.data.get("convert")
        uncalled = set(candidate.data.get("uncalled", ()))
        # a plain base is first made abstract (its implementers are forced to opt out), then
        # left as it is (only the implementers with a role of their own opt out)
        variants: list[tuple[str | None, list[str | None] | None]] = \
            [(str(convert[1]), convert), (None, None)] if convert else [(abstract, None)]
        least = InterfaceSegregationOptions().min_methods
        singles = sorted(donors)
        rng.shuffle(singles)
        choices = [[donor] for donor in singles] + ([sorted(donors)] if len(donors) > 1 else [])
        reasons: list[str] = []
        for chosen in choices:
            roles = {donor: _role(donors[donor], rng) for donor in chosen}
            methods = [name for role in roles.values() for name in role]
            label = " and ".join(donor.rpartition(".")[2] for donor in chosen)
            if difficulty == "hard" and len(methods) < 2:
                reasons.append(f"hard needs two methods to fold in; {label} has one")
                continue
            if size + len(methods) < least:
                reasons.append(f"folding in {label}'s role makes an interface of "
                               f"{size + len(methods)} method(s); the detector needs {least}")
                continue
            try:
                plan = _stub_plan(context, interface, family, roles)
            except InjectionRefused as refusal:
                reasons.append(refusal.message)
                continue
            share = -(-(size + len(methods)) // 3)  # a third of the widened interface
            stubbing = [cls for cls in implementers if len(plan.get(cls, [])) >= share]
            if len(stubbing) < 2:
                reasons.append(f"folding in {label}'s role, only {len(stubbing)} implementer(s) "
                               f"would refuse {share} or more of its methods")
                continue
            for declared, conversion in variants:
                try:
                    return _edit(context, interface, roles, plan, set(donors),
                                 Abstraction(declared, conversion, uncalled), difficulty, rng)
                except InjectionRefused as error:
                    reasons.append(error.message)
        raise InjectionRefused("; ".join(sorted(set(reasons))[:3]) or "no donor")


def _role(methods: list[str], rng: random.Random) -> list[str]:
    """The donor's methods folded in: all of them, or `MAX_HOISTED` the seed picks (jinja2's
    code generator has dozens), in the donor's order."""
    if len(methods) <= MAX_HOISTED:
        return methods
    return sorted(rng.sample(methods, MAX_HOISTED), key=methods.index)


def _below(context: InjectionContext, cls: str, interface: str) -> list[str]:
    order = context.index.mro(cls)
    return order[:order.index(interface)] if interface in order else order


def _stub_plan(context: InjectionContext, interface: str, family: list[str],
               roles: dict[str, list[str]]) -> dict[str, list[str]]:
    """Which classes refuse which method: each class of the family that does not get the method
    from a real definition below the interface (it gets the interface's raise, or the refusal of
    a class in between that opts out)."""
    index = context.index
    plan: dict[str, list[str]] = {}
    for cls in sorted(family, key=lambda name: (len(index.mro(name)), name)):
        below = _below(context, cls, interface)
        if cls not in index.classes:
            raise InjectionRefused(f"{cls} is not a class of the repository")
        for donor, methods in roles.items():
            if donor in below:
                continue
            for name in methods:
                if any(name in index.children.get(ancestor, {}) for ancestor in below):
                    continue
                if any(attribute.name == name for ancestor in below
                       for attribute in getattr(index.classes.get(ancestor), "attributes", ())):
                    raise InjectionRefused(f"{cls} sets an attribute named {name}")
                plan.setdefault(cls, []).append(name)
    return plan


def _stubbers(context: InjectionContext, interface: str, difficulty: Difficulty,
              required: list[str]) -> list[str]:
    """The implementers that opt out explicitly: the `required` ones, those an abstract
    declaration would leave abstract (the tops of the family's classes that lack the methods),
    whatever the difficulty. No other class writes an opt-out: it already inherits the
    interface's declaration (a raise) or a real method, and an identical override there would
    only repeat it. The opt-outs must reach the modules the difficulty spans (easy: one module
    besides the interface's, medium two or more, hard three or more); a family whose opt-outs
    do not is refused at that difficulty (the span counts only files the case changes)."""
    if not required:
        raise InjectionRefused(
            "a declaration that only raises is inherited by every implementer: an opt-out "
            "there would repeat it, so nothing beside the interface would change")
    spanned = {context.path_of(interface), *(context.path_of(cls) for cls in required)}
    wanted = {"easy": 1, "medium": 2, "hard": 3}[difficulty]
    if difficulty == "easy" and len(spanned) > 2:
        raise InjectionRefused(f"the classes that must opt out of an abstract declaration span "
                               f"{len(spanned)} modules; an easy case spans 2")
    if len(spanned) < wanted + 1:
        raise InjectionRefused(
            f"{difficulty} needs implementers that opt out in {wanted} module(s) besides the "
            f"interface's (classes an abstract declaration would leave abstract); the family "
            f"has {len(spanned) - 1}")
    return sorted(required)


def _getattr_refusal(context: InjectionContext, classes: Iterable[str],
                     roles: dict[str, list[str]]) -> str | None:
    """Why a `__getattr__` of the family forbids declaring the roles' methods, if it does.

    `__getattr__` runs only when the normal lookup fails, so a declared method hides it for that
    name. One that answers any name (wtforms' `Flags` answers None) would change behaviour; one
    that forwards to another object (`return getattr(self.form, name)`) answered these names only
    if that object had them, which none of the repository's other classes do."""
    index = context.index
    lines = {cls for donor in roles for cls in [*index.mro(donor), *index.descendants(donor)]}
    names = {name for role in roles.values() for name in role}
    for cls in sorted(classes):
        getter = index.children.get(cls, {}).get("__getattr__")
        if getter is None:
            continue
        if not forwarded(context, getter):
            return (f"{cls} answers missing attributes with __getattr__; declared methods "
                    "would hide it")
        for other, info in sorted(index.classes.items()):
            if other in lines:
                continue
            clash = names & ({attribute.name for attribute in info.attributes}
                             | set(index.children.get(other, {})))
            if clash:
                return (f"{cls} forwards missing attributes with __getattr__ and "
                        f"{other} has {sorted(clash)[0]}: a declared method would hide it")
    return None


def _abstract_body(context: InjectionContext, interface: str, raising: str) -> str:
    """The body the interface gives its abstract methods (`pass`, `...`), so the ones folded in
    read as its own; `raising` (the repository's raise) when they differ or say more (a
    docstring)."""
    index = context.index
    module = index.module_of.get(interface)
    tree = context.module(context.path_of(interface) or "")
    if module is None:
        return raising
    bodies: set[str] = set()
    for name, child in index.children.get(interface, {}).items():
        if not any(decorator.rpartition(".")[2] == "abstractmethod"
                   for decorator in index.definitions[child].decorators):
            continue
        node = find_function(tree, [*interface[len(module) + 1:].split("."), name])
        body = node.body if node is not None else None
        if isinstance(body, cst.IndentedBlock) and len(body.body) == 1:
            bodies.add(tree.code_for_node(body.body[0]).strip())
        else:
            bodies.add("")
    if len(bodies) == 1 and bodies <= {"pass", "..."}:
        return bodies.pop()
    return raising


@dataclass(frozen=True)
class Abstraction:
    """How the methods folded in are declared."""

    decorator: str | None
    """The spelling of `abstractmethod` they get; None: they only raise."""
    conversion: list[str | None] | None = None
    """For a plain base made abstract: the base it gets (`abc.ABC`), the decorator, and the
    import its module needs (or None)."""
    uncalled: set[str] = field(default_factory=set)
    """Classes of the family never called by name: one with subclasses may stay abstract."""


def _forced(context: InjectionContext, interface: str, plan: dict[str, list[str]],
            abstraction: Abstraction, difficulty: Difficulty) -> list[str]:
    """The classes an abstract declaration forces to opt out: the tops of the family's classes
    that lack the methods (their subclasses inherit the opt-out). A top never called by name
    whose subclasses live in another module (jinja2's `NodeTransformer`, a base of
    `Optimizer`) may stay abstract instead, its subclasses opting out, when the difficulty
    needs the modules they add."""
    if abstraction.decorator is None:
        return []
    index = context.index
    home = context.path_of(interface)
    wanted = {"easy": 1, "medium": 2, "hard": 3}[difficulty]
    opened: set[str] = set()

    def tops(open_: set[str]) -> list[str]:
        return [cls for cls in sorted(plan) if cls not in open_ and not any(
            ancestor in plan and ancestor not in open_
            for ancestor in _below(context, cls, interface)[1:])]

    def span(classes: list[str]) -> set[str | None]:
        return {home, *(context.path_of(cls) for cls in classes)}

    current = tops(opened)
    while difficulty != "easy" and len(span(current)) <= wanted:
        widened = None
        for top in current:
            below = [cls for cls in plan if top in index.mro(cls)[1:]]
            if top not in abstraction.uncalled or not below:
                continue
            trial = tops(opened | {top})
            if len(span(trial)) > len(span(current)) and len(trial) <= len(current) + 1:
                widened = top
                break
        if widened is None:
            break
        opened.add(widened)
        current = tops(opened)
    if abstraction.conversion is not None and len(current) > MAX_FORCED:
        raise InjectionRefused(
            f"made abstract, {interface.rpartition('.')[2]} would force {len(current)} classes "
            f"to opt out; a handful is at most {MAX_FORCED}")
    return current


def _edit(context: InjectionContext, interface: str, roles: dict[str, list[str]],
          plan: dict[str, list[str]], donors: set[str], abstraction: Abstraction,
          difficulty: Difficulty, rng: random.Random) -> Edit:
    """The widened interface and the opt-outs. With an abstract declaration (the interface's
    spelling of `abstractmethod`) the methods are declared abstract, as the interface declares
    its own hooks, and every class that would be left abstract (the tops of the family's
    classes that lack them) opts out explicitly, so all stay instantiable. A plain base
    converted gets `abc.ABC` as its base first."""
    index = context.index
    abstract = abstraction.decorator
    refusal = _getattr_refusal(context, {ancestor for member in [interface, *plan]
                                         for ancestor in index.mro(member)}, roles)
    if refusal is not None:
        raise InjectionRefused(refusal)
    edits: dict[str, FileEdit] = {}

    def class_edit(qualname: str) -> ClassEdit:
        path = context.path_of(qualname)
        module = index.module_of.get(qualname)
        if path is None or module is None:
            raise InjectionRefused(f"{qualname} has no file")
        parts = tuple(qualname[len(module) + 1:].split("."))
        return edits.setdefault(path, FileEdit()).classes.setdefault(parts, ClassEdit())

    nodes: dict[str, tuple[str, cst.FunctionDef]] = {}
    kinds: dict[str, str] = {}
    for donor, role in roles.items():
        donor_module = index.module_of[donor]
        donor_tree = context.module(context.path_of(donor) or "")
        for name in role:
            node = find_function(donor_tree, [*donor[len(donor_module) + 1:].split("."), name])
            if node is None:
                raise InjectionRefused(f"{donor}.{name} is not a plain method")
            # a static or class method is declared as one (`Loader.key(name)` stays valid)
            kinds[name] = "".join(
                f"@{decorator}\n" for decorator in index.definitions[f"{donor}.{name}"].decorators)
            nodes[name] = donor_module, node
    methods = [name for role in roles.values() for name in role]
    raising = raise_statement(context)
    hook_body = _abstract_body(context, interface, raising) if abstract else raising

    def declaration(cls: str, name: str, declared: bool = False) -> str:
        """The method as `cls` declares it, with the donor's annotations where they can be
        bound in its module (the imports that takes are added to its file's edit)."""
        module = index.module_of[cls]
        path = context.path_of(cls) or ""
        typed: Signature = signature(context, *nodes[name], module,
                                     index.definitions[cls].start_line,
                                     postponed(context.module(path)))
        edits.setdefault(path, FileEdit()).type_imports.extend(typed.type_imports)
        if declared and abstract:
            return f"{kinds[name]}@{abstract}\n{typed.text}    {hook_body}\n"
        return f"{kinds[name]}{typed.text}    {raising}\n"

    class_edit(interface).methods.extend(declaration(interface, name, True) for name in methods)
    short = interface.rpartition(".")[2]
    if abstraction.conversion is not None:
        base, _, line = abstraction.conversion
        class_edit(interface).mixins.append(str(base))
        if line is not None:
            edits[context.path_of(interface) or ""].imports.append(line)
    tops = _forced(context, interface, plan, abstraction, difficulty)
    stubbers = _stubbers(context, interface, difficulty, tops)
    involved: list[str] = []
    for cls in stubbers:
        class_edit(cls).methods.extend(declaration(cls, name) for name in plan[cls])
        involved.extend(f"{cls}.{name}" for name in plan[cls])
    herrings: list[str] = []
    if difficulty != "easy":
        herrings = [f"{donor}.{name}" for donor, role in roles.items() for name in role]
    if difficulty == "hard":
        herrings.extend(sorted(f"{interface}.{name}"
                               for name in index.children.get(interface, {}))[:2])
    changes: dict[str, str | None] = {}
    for path, file_edit in edits.items():
        changes[path] = apply(context.module(path), file_edit)
    stubbed = sorted(plan)
    checks = (
        StructuralCheck(kind="no_finding", description=f"{short} is no longer reported as an "
                        "interface its implementers stub",
                        params={"smell": "interface_segregation", "qualnames": [interface]}),
        StructuralCheck(kind="interface_segregation.not_required",
                        description=f"{short} does not require {', '.join(methods)} of its "
                        "implementers (no abstract or raising declaration)",
                        params={"interface": interface, "methods": methods}),
        StructuralCheck(kind="interface_segregation.no_stubs",
                        description=f"{', '.join(cls.rpartition('.')[2] for cls in stubbed)} "
                        f"do not stub {', '.join(methods)}",
                        params={"classes": stubbed, "methods": methods}),
    )
    return Edit(changes=changes, targets=((interface, "class"),), checks=checks,
                involved=tuple(dict.fromkeys([*stubbers, *involved])),
                red_herrings=tuple(herrings),
                summary=f"folded {', '.join(methods)} into {interface}; "
                        f"{', '.join(stubbers)} opt out of them")
