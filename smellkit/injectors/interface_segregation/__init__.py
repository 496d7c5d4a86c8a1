"""Interface segregation, injected: widen an interface with the roles of its implementers.

A candidate is a family of the repository: an interface (an abstract base, a base whose methods
raise `NotImplementedError`, or a protocol with explicit implementers) or a plain base whose
subclasses override its methods (it serves as one: a visitor base, a loader base), with two or
more concrete implementers, some of which (the donors) have public methods of their own that no
other class of the family defines (a role). The injection declares one donor's role (or every
donor's, when each would stub the others') in the base, raising `NotImplementedError` so nothing
becomes abstract and every class stays instantiable, and makes some of the other implementers
opt out explicitly, as a codebase with a fat interface does: an override of each folded-in
method that only raises `NotImplementedError`. A handful of them: at most `MAX_HOISTED` methods
folded in, overridden by at most `MAX_STUBBERS[difficulty]` implementers (the others inherit the
base's raise, which the detector counts as a stub too).

The implementers that refuse a third of the widened interface are counted first (the
detector's rule needs two), and the widened interface must reach the detector's minimum size. A
method whose name is spelled in a string anywhere, or starts or ends with a string that looks
like a name prefix or suffix (`"visit_"`: a name built for `getattr`), is never chosen, so a
lookup by name behaves as before; a family with a `__getattr__` is refused (the new methods would
hide it).

The smell spans the interface's file and the files of the implementers that opt out: 2 files at
easy (one implementer module), 3 or more at medium, 4 or more at hard (with the donors' real
methods and the base's own methods as red herrings). A family that does not reach across enough
modules is refused at that difficulty rather than given new modules to span.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

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
    signature,
)
from smellkit.injectors.interface_segregation.family import (
    bases,
    family_of,
    role_method,
    spelled,
)
from smellkit.models import Candidate, Difficulty, StructuralCheck

_NEUTRAL = frozenset({"object", "builtins.object", "<builtin>.object", "abc.ABC", "ABC",
                      "typing.Generic", "Generic", "typing.Protocol", "Protocol",
                      "typing_extensions.Protocol"})
MAX_HOISTED = 3
"""Methods of one role folded into the interface, at most."""
MAX_STUBBERS: dict[Difficulty, int] = {"easy": 2, "medium": 3, "hard": 4}
"""Implementers that write their opt-outs out, at most: a handful, not the whole family."""


class InterfaceSegregationInjectorOptions(InjectorOptions):
    pass


class InterfaceSegregationInjector(Injector[InterfaceSegregationInjectorOptions]):
    """Fold one implementer's role into the interface, stubbed by every other implementer."""

    smell = InterfaceSegregation.smell
    description = ("An interface widened with methods only one implementer supports: the others "
                   "are forced to stub them (raise NotImplementedError).")
    Options = InterfaceSegregationInjectorOptions

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        index = context.index
        detector = InterfaceSegregation(InterfaceSegregationOptions())
        found = {finding.location.qualname for finding in detector.detect(context.analysis)}
        strings = spelled(index)
        interfaces = detector.interfaces(context.analysis, 1)
        families = {qualname: (item.kind, sorted(item.methods), sorted(item.implementers))
                    for qualname, item in interfaces.items()}
        families.update({qualname: ("base", [], implementers)
                         for qualname, implementers in bases(context, set(interfaces))})
        for qualname, (kind, methods, implementers) in sorted(families.items()):
            path = context.path_of(qualname)
            if path is None or is_test_path(path) or qualname in found:
                continue
            decorators = getattr(index.definitions.get(qualname), "decorators", ())
            if any(decorator.rpartition(".")[2] == "runtime_checkable"
                   for decorator in decorators):
                continue  # isinstance() checks its methods: adding one changes behaviour
            order = index.mro(qualname)
            if any(base not in index.classes and base not in _NEUTRAL for base in order[1:]):
                continue  # a base from outside may define anything
            if len(implementers) < 2:
                continue
            family = sorted({ancestor for cls in index.descendants(qualname)
                             for ancestor in index.mro(cls)} | set(order))
            attributes = {attribute.name for cls in family
                          for attribute in getattr(index.classes.get(cls), "attributes", ())}
            donors: dict[str, list[str]] = {}
            for donor in implementers:
                others = [cls for cls in family
                          if cls != donor and donor not in index.mro(cls)]
                own = [name for name, child in sorted(index.children.get(donor, {}).items())
                       if role_method(context, child, name, strings) and name not in attributes
                       and not any(name in index.children.get(cls, {}) for cls in others)]
                if own:
                    donors[donor] = own[:MAX_HOISTED]
            if not donors:
                continue
            location = context.location(qualname)
            if location is None:
                continue
            files = sorted({path, *(context.path_of(cls) or path for cls in implementers)})
            what = ("a base its subclasses override" if kind == "base"
                    else f"an interface ({kind}, {len(methods)} method(s))")
            yield Candidate(
                smell=self.name, target=location, files=tuple(files),
                reason=(f"{qualname.rpartition('.')[2]} is {what} with {len(implementers)} "
                        f"concrete implementers; {len(donors)} of them have public methods of "
                        "their own (a role) that could be folded into it: "
                        + ", ".join(f"{donor.rpartition('.')[2]}.{{{', '.join(names)}}}"
                                    for donor, names in sorted(donors.items())[:3])),
                data={"methods": methods, "implementers": implementers, "donors": donors,
                      "family": family_of(context, qualname)})

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        interface = candidate.target.qualname
        size = len(candidate.data["methods"])
        donors: dict[str, list[str]] = candidate.data["donors"]
        implementers: list[str] = candidate.data["implementers"]
        family: list[str] = candidate.data.get("family", implementers)
        least = InterfaceSegregationOptions().min_methods
        singles = sorted(donors)
        rng.shuffle(singles)
        choices = [[donor] for donor in singles] + ([sorted(donors)] if len(donors) > 1 else [])
        reasons: list[str] = []
        for chosen in choices:
            roles = {donor: donors[donor] for donor in chosen}
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
            stubbing = [cls for cls in implementers
                        if _stubs_reaching(context, cls, interface, methods, plan) >= share]
            if len(stubbing) < 2:
                reasons.append(f"folding in {label}'s role, only {len(stubbing)} implementer(s) "
                               f"would refuse {share} or more of its methods")
                continue
            try:
                return _edit(context, interface, roles, plan, difficulty, rng)
            except InjectionRefused as error:
                reasons.append(error.message)
        raise InjectionRefused("; ".join(sorted(set(reasons))[:3]) or "no donor")


def _below(context: InjectionContext, cls: str, interface: str) -> list[str]:
    order = context.index.mro(cls)
    return order[:order.index(interface)] if interface in order else order


def _stub_plan(context: InjectionContext, interface: str, family: list[str],
               roles: dict[str, list[str]]) -> dict[str, list[str]]:
    """Which classes refuse which method: each class of the family that does not get the method
    from a class below the interface (a real definition, or a refusal given to an ancestor)."""
    index = context.index
    plan: dict[str, list[str]] = {}
    for cls in sorted(family, key=lambda name: (len(index.mro(name)), name)):
        below = _below(context, cls, interface)
        info = index.classes.get(cls)
        if info is None:
            raise InjectionRefused(f"{cls} is not a class of the repository")
        for donor, methods in roles.items():
            if donor in below:
                continue
            for name in methods:
                if any(name in index.children.get(ancestor, {}) or name in plan.get(ancestor, [])
                       for ancestor in below):
                    continue
                if any(attribute.name == name for attribute in info.attributes):
                    raise InjectionRefused(f"{cls} sets an attribute named {name}")
                plan.setdefault(cls, []).append(name)
    return plan


def _stubs_reaching(context: InjectionContext, cls: str, interface: str, methods: list[str],
                    plan: dict[str, list[str]]) -> int:
    """How many of the methods reach this implementer from a stub (its own or inherited), not
    from a real definition in between."""
    index = context.index
    count = 0
    for name in methods:
        for ancestor in _below(context, cls, interface):
            if name in plan.get(ancestor, []):
                count += 1
                break
            if name in index.children.get(ancestor, {}):
                break
    return count


def _stubbers(context: InjectionContext, interface: str, plan: dict[str, list[str]],
              difficulty: Difficulty, rng: random.Random) -> list[str]:
    """The implementers that opt out explicitly: a few classes of the plan, so that the interface
    and their modules span the files the difficulty asks for (easy: one module besides the
    interface's; medium two or more; hard three or more), in an order the seed varies."""
    home = context.path_of(interface)
    by_path: dict[str, list[str]] = {}
    for cls in sorted(plan):
        path = context.path_of(cls)
        if path is not None and path != home:
            by_path.setdefault(path, []).append(cls)
    paths = sorted(by_path)
    rng.shuffle(paths)
    wanted = {"easy": 1, "medium": 2, "hard": 3}[difficulty]
    if len(paths) < wanted:
        raise InjectionRefused(
            f"{difficulty} needs implementers that opt out in {wanted} module(s) besides the "
            f"interface's; the family has {len(paths)}")
    most = MAX_STUBBERS[difficulty]
    chosen: list[str] = []
    for path in paths[:wanted]:  # one class per module first, then more of the same modules
        chosen.append(rng.choice(by_path[path]))
    spare = [cls for path in paths[:wanted] for cls in by_path[path] if cls not in chosen]
    rng.shuffle(spare)
    chosen.extend(spare[:max(0, most - len(chosen))])
    return sorted(chosen)


def _edit(context: InjectionContext, interface: str, roles: dict[str, list[str]],
          plan: dict[str, list[str]], difficulty: Difficulty, rng: random.Random) -> Edit:
    index = context.index
    if any("__getattr__" in index.children.get(cls, {}) for cls in
           {ancestor for member in [interface, *plan] for ancestor in index.mro(member)}):
        raise InjectionRefused("a class of the family answers missing attributes with "
                               "__getattr__; declared methods would hide it")
    edits: dict[str, FileEdit] = {}

    def class_edit(qualname: str) -> ClassEdit:
        path = context.path_of(qualname)
        module = index.module_of.get(qualname)
        if path is None or module is None:
            raise InjectionRefused(f"{qualname} has no file")
        parts = tuple(qualname[len(module) + 1:].split("."))
        return edits.setdefault(path, FileEdit()).classes.setdefault(parts, ClassEdit())

    signatures: dict[str, str] = {}
    for donor, role in roles.items():
        donor_module = index.module_of[donor]
        donor_tree = context.module(context.path_of(donor) or "")
        for name in role:
            node = find_function(donor_tree, [*donor[len(donor_module) + 1:].split("."), name])
            if node is None:
                raise InjectionRefused(f"{donor}.{name} is not a plain method")
            # a static or class method is declared as one (`Loader.key(name)` stays valid)
            kinds = "".join(f"@{decorator}\n"
                            for decorator in index.definitions[f"{donor}.{name}"].decorators)
            signatures[name] = f"{kinds}def {name}({signature(node.params)}):\n"
    methods = [name for role in roles.values() for name in role]

    def declaration(name: str) -> str:
        return f"{signatures[name]}    raise NotImplementedError\n"

    class_edit(interface).methods.extend(declaration(name) for name in methods)
    short = interface.rpartition(".")[2]
    stubbers = _stubbers(context, interface, plan, difficulty, rng)
    involved: list[str] = []
    for cls in stubbers:
        class_edit(cls).methods.extend(declaration(name) for name in plan[cls])
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
