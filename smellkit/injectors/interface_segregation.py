"""Interface segregation, injected: widen an interface with the role of one of its implementers.

A candidate is an interface of the repository (an abstract base, a base whose methods raise
`NotImplementedError`, or a protocol with explicit implementers) with two or more concrete
implementers, one of which (the donor) has public methods of its own that no other class of the
family defines. The injection declares those methods in the interface (raising
`NotImplementedError`, so nothing becomes abstract and every class stays instantiable) and gives
every other implementer stubs that raise too: a fat interface whose implementers are forced to
"implement" what they do not support. Calling such a method on them failed before (no attribute)
and fails now (not implemented); a method whose name appears in a string anywhere (`getattr`,
`hasattr`) is never chosen, so lookups by name behave as before.

- easy: stubs written in each implementer's body.
- medium: stubs inherited from a mixin in a new module, put first in the implementers' bases,
  their parameters renamed and given defaults.
- hard: the stubs split over two mixins in two new modules; the donor's real methods and the
  interface's own methods are the red herrings.
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
        wanted = 2 if difficulty == "hard" else 1
        options = sorted(donors)
        rng.shuffle(options)
        reasons: list[str] = []
        for donor in options:
            methods = donors[donor]
            if len(methods) < wanted:
                reasons.append(f"{donor} has fewer than {wanted} methods to fold in")
                continue
            needed = -(-size // 2)  # stubs must be at least a third of the widened interface
            if len(methods) < needed:
                reasons.append(f"{donor} has {len(methods)} method(s), {needed} needed")
                continue
            stubbed = _stub_classes(context, interface, implementers, donor, methods)
            if isinstance(stubbed, str):
                reasons.append(stubbed)
                continue
            inheriting = [cls for cls in implementers
                          if _gets_stubs(context, cls, interface, methods, stubbed)]
            if len(inheriting) < 2:
                reasons.append(f"only {len(inheriting)} implementer(s) besides {donor} would "
                               "stub the role")
                continue
            try:
                return _edit(context, interface, donor, methods, stubbed, difficulty)
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


def _stub_classes(context: InjectionContext, interface: str, implementers: list[str],
                  donor: str, methods: list[str]) -> list[str] | str:
    """The implementers that get the stubs: those that inherit none of the methods from a class
    below the interface (their subclasses inherit the stubs)."""
    index = context.index
    chosen: list[str] = []
    for cls in sorted(implementers, key=lambda name: len(index.mro(name))):
        order = index.mro(cls)
        below = order[:order.index(interface)] if interface in order else order
        if donor in below:
            continue
        if any(ancestor in chosen for ancestor in below):
            continue
        provided = [name for name in methods
                    if any(name in index.children.get(ancestor, {}) for ancestor in below)]
        if provided:
            return f"{cls} already has {provided[0]}"
        info = index.classes.get(cls)
        if info is None or any(attribute.name in methods for attribute in info.attributes):
            return f"{cls} sets an attribute named like a method to fold in"
        chosen.append(cls)
    return chosen


def _gets_stubs(context: InjectionContext, cls: str, interface: str, methods: list[str],
                stubbed: list[str]) -> bool:
    """Whether every method reaches this implementer from a stubbed class (its own stubs or
    inherited ones), not from a real definition in between."""
    index = context.index
    order = index.mro(cls)
    below = order[:order.index(interface)] if interface in order else order
    for name in methods:
        provider = next((ancestor for ancestor in below if ancestor in stubbed
                         or name in index.children.get(ancestor, {})), None)
        if provider not in stubbed:
            return False
    return True


def _edit(context: InjectionContext, interface: str, donor: str, methods: list[str],
          stubbed: list[str], difficulty: Difficulty) -> Edit:
    index = context.index
    edits: dict[str, FileEdit] = {}

    def class_edit(qualname: str) -> ClassEdit:
        path = context.path_of(qualname)
        module = index.module_of.get(qualname)
        if path is None or module is None:
            raise EditRefused(f"{qualname} has no file")
        parts = tuple(qualname[len(module) + 1:].split("."))
        return edits.setdefault(path, FileEdit()).classes.setdefault(parts, ClassEdit())

    donor_module = index.module_of[donor]
    donor_tree = context.module(context.path_of(donor) or "")
    signatures: dict[str, tuple[str, str]] = {}
    for name in methods:
        node = find_function(donor_tree, [*donor[len(donor_module) + 1:].split("."), name])
        if node is None:
            raise EditRefused(f"{donor}.{name} is not a plain method")
        signatures[name] = (signature(node.params, rename=False),
                            signature(node.params, rename=True))
    declared = class_edit(interface)
    declared.methods.extend(f"def {name}({signatures[name][0]}):\n    raise NotImplementedError\n"
                            for name in methods)
    short = interface.rpartition(".")[2]
    new_files: dict[str, str | None] = {}
    herrings: list[str] = []
    involved: list[str] = [f"{donor}.{name}" for name in methods]
    if difficulty == "easy":
        for cls in stubbed:
            class_edit(cls).methods.extend(
                f"def {name}({signatures[name][0]}):\n    raise NotImplementedError\n"
                for name in methods)
            involved.extend(f"{cls}.{name}" for name in methods)
    else:
        groups = [methods] if difficulty == "medium" else [methods[:len(methods) // 2],
                                                             methods[len(methods) // 2:]]
        path = context.path_of(interface) or ""
        folder = path.rpartition("/")[0]
        package = index.module_of[interface].rpartition(".")[0]
        if index.modules[index.module_of[interface]].is_package:
            package = index.module_of[interface]
        mixins: list[tuple[str, str]] = []
        for number, group in enumerate(groups):
            stem = f"_{_snake(short)}_{'defaults' if number == 0 else 'extras'}"
            new_path = context.free_path(folder, stem)
            module_name = (f"{package}." if package else "") + new_path.rpartition("/")[2][:-3]
            mixin = f"{short}{'Defaults' if number == 0 else 'Extras'}"
            for cls in stubbed:
                if mixin in index.children.get(index.module_of[cls], {}) or mixin in \
                        index.scope_imports.get(index.module_of[cls], {}):
                    raise EditRefused(f"{mixin} is already a name in {index.module_of[cls]}")
            body = "\n".join(
                f"    def {name}({signatures[name][1]}):\n        raise NotImplementedError\n"
                for name in group)
            new_files[new_path] = (
                f'"""Shared behaviour of {short} implementations."""\n\n\n'
                f"class {mixin}:\n    __slots__ = ()\n\n{body}")
            mixins.append((mixin, module_name))
            involved.extend(f"{module_name}.{mixin}.{name}" for name in group)
        for cls in stubbed:
            if any(base not in index.classes and base not in _NEUTRAL
                   for base in index.bases(cls)):  # NamedTuple, Enum...: stubs in the body
                class_edit(cls).methods.extend(
                    f"def {name}({signatures[name][1]}):\n    raise NotImplementedError\n"
                    for name in methods)
                continue
            class_edit(cls).mixins.extend(mixin for mixin, _ in mixins)
            edits[context.path_of(cls) or ""].imports.extend(
                f"from {module_name} import {mixin}" for mixin, module_name in mixins)
        herrings = [f"{donor}.{name}" for name in methods]
        if difficulty == "hard":
            herrings.extend(sorted(f"{interface}.{name}" for name in index.children.get(
                interface, {}))[:2])
    changes: dict[str, str | None] = {}
    for path, file_edit in edits.items():
        changes[path] = apply(context.module(path), file_edit)
    changes.update(new_files)
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
                summary=f"folded {donor}'s {', '.join(methods)} into {interface}; stubbed in "
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
