"""Interface segregation, injected: widen an interface with the roles of its implementers.

A candidate is an interface of the repository (an abstract base, a base whose methods raise
`NotImplementedError`, or a protocol with explicit implementers) with two or more concrete
implementers, some of which (the donors) have public methods of their own that no other class of
the family defines (a role). The injection declares one donor's role (or every donor's, when each
would stub the others') in the interface, raising `NotImplementedError` so nothing becomes
abstract and every class stays instantiable, and gives every implementer that lacks a method a
stub that raises too: a fat interface whose implementers are forced to "implement" what they do
not support. The implementers that must stub a third of the widened interface are counted first
(the detector's rule needs two). Calling such a method on them failed before (no attribute)
and fails now (not implemented); a method whose name appears in a string anywhere (`getattr`,
`hasattr`) is never chosen, so lookups by name behave as before.

- easy: stubs written in each implementer's body.
- medium: stubs inherited from a mixin in a new module, put first in the implementers' bases,
  their parameters renamed and given defaults.
- hard: the stubs split over two mixins in two new modules (one per role when there are two);
  the donors' real methods and the interface's own methods are the red herrings.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from typing import Any

from smellkit.detectors._usage import is_test_path
from smellkit.detectors.interface_segregation import (
    InterfaceSegregation,
    InterfaceSegregationOptions,
)
from smellkit.injectors._interface_segregation_edit import (
    ClassEdit,
    EditRefused,
    FileEdit,
    apply,
    find_function,
    signature,
)
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions, Skip
from smellkit.injectors.checks import check_kind
from smellkit.models import Candidate, Difficulty, StructuralCheck

_NEUTRAL = frozenset({"object", "builtins.object", "<builtin>.object", "abc.ABC", "ABC",
                      "typing.Generic", "Generic", "typing.Protocol", "Protocol",
                      "typing_extensions.Protocol"})
MAX_HOISTED = 4


class InterfaceSegregationInjectorOptions(InjectorOptions):
    pass


class InterfaceSegregationInjector(Injector[InterfaceSegregationInjectorOptions]):
    """Fold one implementer's role into the interface, stubbed by every other implementer."""

    name = "interface_segregation"
    description = ("An interface widened with methods only one implementer supports: the others "
                   "are forced to stub them (raise NotImplementedError).")
    Options = InterfaceSegregationInjectorOptions

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        index = context.index
        detector = InterfaceSegregation(InterfaceSegregationOptions())
        found = {finding.location.qualname for finding in detector.detect(context.analysis)}
        strings = {value for facts in index.modules.values()
                   for value, _ in facts.string_constants}
        for qualname, interface in sorted(detector.interfaces(context.analysis, 1).items()):
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
            implementers = sorted(interface.implementers)
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
                       if _role_method(context, child, name, strings) and name not in attributes
                       and not any(name in index.children.get(cls, {}) for cls in others)]
                if own:
                    donors[donor] = own[:MAX_HOISTED]
            if not donors:
                continue
            location = context.location(qualname)
            if location is None:
                continue
            files = sorted({path, *(context.path_of(cls) or path for cls in implementers)})
            yield Candidate(
                smell=self.name, target=location, files=tuple(files),
                reason=(f"{qualname.rpartition('.')[2]} is an interface ({interface.kind}, "
                        f"{len(interface.methods)} method(s)) with {len(implementers)} concrete "
                        f"implementers; {len(donors)} of them have public methods of their own "
                        f"(a role) that could be folded into it: "
                        + ", ".join(f"{donor.rpartition('.')[2]}.{{{', '.join(names)}}}"
                                    for donor, names in sorted(donors.items())[:3])),
                data={"methods": sorted(interface.methods), "implementers": implementers,
                      "donors": donors})

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit | Skip:
        interface = candidate.target.qualname
        size = len(candidate.data["methods"])
        donors: dict[str, list[str]] = candidate.data["donors"]
        implementers: list[str] = candidate.data["implementers"]
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
            plan = _stub_plan(context, interface, implementers, roles)
            if isinstance(plan, str):
                reasons.append(plan)
                continue
            share = -(-(size + len(methods)) // 3)  # a third of the widened interface
            stubbing = [cls for cls in implementers
                        if _stubs_reaching(context, cls, interface, methods, plan) >= share]
            if len(stubbing) < 2:
                reasons.append(f"folding in {label}'s role, only {len(stubbing)} implementer(s) "
                               f"would stub {share} or more of its methods")
                continue
            try:
                return _edit(context, interface, roles, plan, difficulty)
            except EditRefused as error:
                reasons.append(error.message)
        return Skip("; ".join(sorted(set(reasons))[:3]) or "no donor")


def _role_method(context: InjectionContext, qualname: str, name: str, strings: set[str]) -> bool:
    """A public, plain method (no decorator, a real body) whose name is never spelled as a
    string (`getattr(obj, "name")`)."""
    definition = context.index.definitions.get(qualname)
    return (definition is not None and definition.kind == "method" and not definition.decorators
            and not name.startswith("_") and not definition.is_stub and name not in strings
            and not definition.is_async)


def _below(context: InjectionContext, cls: str, interface: str) -> list[str]:
    order = context.index.mro(cls)
    return order[:order.index(interface)] if interface in order else order


def _stub_plan(context: InjectionContext, interface: str, implementers: list[str],
               roles: dict[str, list[str]]) -> dict[str, list[str]] | str:
    """Which classes get a stub of which method: each implementer that does not get the method
    from a class below the interface (a real definition, or a stub given to an ancestor)."""
    index = context.index
    plan: dict[str, list[str]] = {}
    for cls in sorted(implementers, key=lambda name: len(index.mro(name))):
        below = _below(context, cls, interface)
        info = index.classes.get(cls)
        if info is None:
            return f"{cls} is not a class of the repository"
        for donor, methods in roles.items():
            if donor in below:
                continue
            for name in methods:
                if any(name in index.children.get(ancestor, {}) or name in plan.get(ancestor, [])
                       for ancestor in below):
                    continue
                if any(attribute.name == name for attribute in info.attributes):
                    return f"{cls} sets an attribute named {name}"
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


def _edit(context: InjectionContext, interface: str, roles: dict[str, list[str]],
          plan: dict[str, list[str]], difficulty: Difficulty) -> Edit:
    index = context.index
    edits: dict[str, FileEdit] = {}

    def class_edit(qualname: str) -> ClassEdit:
        path = context.path_of(qualname)
        module = index.module_of.get(qualname)
        if path is None or module is None:
            raise EditRefused(f"{qualname} has no file")
        parts = tuple(qualname[len(module) + 1:].split("."))
        return edits.setdefault(path, FileEdit()).classes.setdefault(parts, ClassEdit())

    signatures: dict[str, tuple[str, str]] = {}
    for donor, role in roles.items():
        donor_module = index.module_of[donor]
        donor_tree = context.module(context.path_of(donor) or "")
        for name in role:
            node = find_function(donor_tree, [*donor[len(donor_module) + 1:].split("."), name])
            if node is None:
                raise EditRefused(f"{donor}.{name} is not a plain method")
            signatures[name] = (signature(node.params, rename=False),
                                signature(node.params, rename=True))
    methods = [name for role in roles.values() for name in role]

    def stub(name: str, renamed: bool, indent: str = "") -> str:
        return (f"{indent}def {name}({signatures[name][1 if renamed else 0]}):\n"
                f"{indent}    raise NotImplementedError\n")

    class_edit(interface).methods.extend(stub(name, False) for name in methods)
    short = interface.rpartition(".")[2]
    new_files: dict[str, str | None] = {}
    involved: list[str] = [f"{donor}.{name}" for donor, role in roles.items() for name in role]
    explicit: dict[str, list[str]] = {cls: list(names) for cls, names in plan.items()}
    if difficulty != "easy":
        if len(roles) > 1:
            groups = list(roles.values())
        elif difficulty == "hard":
            groups = [methods[:len(methods) // 2], methods[len(methods) // 2:]]
        else:
            groups = [methods]
        folder = (context.path_of(interface) or "").rpartition("/")[0]
        package = index.module_of[interface].rpartition(".")[0]
        if index.modules[index.module_of[interface]].is_package:
            package = index.module_of[interface]
        modules = len(groups) if difficulty == "hard" else 1
        sources: dict[str, list[str]] = {}
        for number, group in enumerate(groups):
            suffix = ("Defaults", "Extras")[min(number, 1)] + (str(number) if number > 1 else "")
            mixin = f"{short}{suffix}"
            if number < modules:
                stem = f"_{_snake(short)}_{_snake(suffix)}"
                new_path = context.free_path(folder, stem)
                while new_path in sources:
                    new_path = context.free_path(folder, f"{stem}_{len(sources)}")
                sources[new_path] = []
            path = list(sources)[-1]
            module_name = (f"{package}." if package else "") + path.rpartition("/")[2][:-3]
            sources[path].append(f"class {mixin}:\n    __slots__ = ()\n\n"
                                 + "\n".join(stub(name, True, "    ") for name in group))
            involved.extend(f"{module_name}.{mixin}.{name}" for name in group)
            for cls in plan:
                if not set(group) <= set(explicit[cls]) or any(
                        base not in index.classes and base not in _NEUTRAL
                        for base in index.bases(cls)):  # NamedTuple, Enum...: stubs in the body
                    continue
                module = index.module_of[cls]
                if mixin in index.children.get(module, {}) or \
                        mixin in index.scope_imports.get(module, {}):
                    raise EditRefused(f"{mixin} is already a name in {module}")
                class_edit(cls).mixins.append(mixin)
                edits[context.path_of(cls) or ""].imports.append(
                    f"from {module_name} import {mixin}")
                explicit[cls] = [name for name in explicit[cls] if name not in group]
        for path, classes in sources.items():
            new_files[path] = (f'"""Shared behaviour of {short} implementations."""\n\n\n'
                               + "\n\n".join(classes))
    for cls, names in explicit.items():
        if names:
            class_edit(cls).methods.extend(stub(name, difficulty != "easy") for name in names)
            involved.extend(f"{cls}.{name}" for name in names)
    herrings: list[str] = []
    if difficulty != "easy":
        herrings = [f"{donor}.{name}" for donor, role in roles.items() for name in role]
    if difficulty == "hard":
        herrings.extend(sorted(f"{interface}.{name}"
                               for name in index.children.get(interface, {}))[:2])
    changes: dict[str, str | None] = {}
    for path, file_edit in edits.items():
        changes[path] = apply(context.module(path), file_edit)
    changes.update(new_files)
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
                involved=tuple(dict.fromkeys([*stubbed, *involved])),
                red_herrings=tuple(herrings),
                summary=f"folded {', '.join(methods)} into {interface}; stubbed in "
                        + ", ".join(stubbed))


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


# -- checks ---------------------------------------------------------------------------------------


def _stub_like(context: Any, qualname: str) -> bool:
    definition = context.index.definitions.get(qualname)
    if definition is None:
        return False
    if definition.is_stub:
        return True
    return InterfaceSegregation(InterfaceSegregationOptions()).raises(context, definition)


@check_kind("interface_segregation.not_required")
def _not_required(context: Any, params: dict[str, Any]) -> tuple[bool, str]:
    """The interface (if it still exists) declares none of the methods as abstract or raising:
    a role it does not need was moved out of it."""
    interface = params["interface"]
    children = context.index.children.get(interface, {})
    required = [name for name in params["methods"] if name in children and (
        _stub_like(context, children[name]) or any(
            "abstract" in decorator for decorator in
            context.index.definitions[children[name]].decorators))]
    if required:
        return False, f"{interface} still requires {', '.join(required)}"
    return True, f"{interface} does not require {', '.join(params['methods'])}"


@check_kind("interface_segregation.no_stubs")
def _no_stubs(context: Any, params: dict[str, Any]) -> tuple[bool, str]:
    """None of the classes gets one of the methods from a stub (its own or inherited)."""
    index = context.index
    stubs = []
    for cls in params["classes"]:
        if cls not in index.classes:
            continue
        for name in params["methods"]:
            found = index.lookup_method(cls, name)
            if found is not None and _stub_like(context, found):
                stubs.append(f"{cls.rpartition('.')[2]}.{name}")
    if stubs:
        return False, f"stubbed: {', '.join(stubs[:5])}"
    return True, "no stubs left"
