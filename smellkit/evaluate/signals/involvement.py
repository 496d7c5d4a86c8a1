"""What a case involves: the places a fix is expected to touch, and those it may touch.

All names are qualified names of the smelly version unless said otherwise.

- *Involved locations*: the case's targets and locations. A module location holds its whole
  file; a definition holds itself and what is nested in it (`localize.within`).
- *The fix*: what the ground-truth patch touches on both sides (the oracle's own `touched`),
  known when the original is.
- A touched name is *involved* when it is inside an involved location, inside a definition the
  fix touches, or is a module whose module-level code the fix touches or whose file is an
  involved file (the imports of a file the smell spans are part of fixing it); but never when
  it is inside a red herring (look-alike code to leave alone, often inside an involved class).
- *Involved files*: the files the smelly patch touched (`Case.files`; the smelly patch's files
  for a SmellBench record) and the files of the involved locations.

A location or target the fix leaves alone (the function a data clump flows into, an
implementation an interface split keeps) cannot be required of a prediction: `la` and
`loc_recall` count only those the fix touches, all of them when there is no fix.
"""

from __future__ import annotations

from dataclasses import dataclass

from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.patches.parse import PatchFormatError, parse_patch
from smellkit.evaluate.signals.localize import Side, Touched, within

CLASS_LEVEL_SMELLS = frozenset({"god_class", "interface_segregation"})
"""Smells localized at class level when a case does not say (SmellBench records)."""


@dataclass(frozen=True)
class Container:
    """A place by name: a module holds its file, a definition what is nested in it."""

    qualname: str
    is_module: bool
    path: str = ""

    def holds(self, name: str, module: str | None) -> bool:
        return within(name, module, self.qualname, self.is_module)

    def hit(self, names: dict[str, str]) -> bool:
        """Some name (qualname -> its module) is this place or inside it."""
        return any(self.holds(name, module) for name, module in names.items())


@dataclass(frozen=True)
class Involvement:
    targets: tuple[Container, ...]
    """What `la` requires: each target the fix touches (each target without a fix, or when the
    fix touches none); the target's class for a class-level target."""
    locations: tuple[Container, ...]
    """Targets and locations, each once."""
    expected: tuple[Container, ...]
    """The locations `loc_recall` counts: those the fix touches (all without a fix)."""
    fix_holds: tuple[Container, ...]
    """The definitions the fix touches."""
    exact: frozenset[str]
    """Modules whose module-level code is involved."""
    files: frozenset[str]
    """The involved files (relative to the source folder)."""
    files_involved: int
    red_herrings: tuple[Container, ...]
    """Red herrings a prediction should leave alone: the case's, minus those that are also
    involved locations or that the fix itself touches."""

    def involved(self, name: str, module: str | None) -> bool:
        """Whether a touched name is one the case involves; never inside a red herring."""
        if any(item.holds(name, module) for item in self.red_herrings):
            return False
        return name in self.exact or any(
            item.holds(name, module) for item in (*self.locations, *self.fix_holds))


def _smellkit_places(case: EvalCase, smelly: Side) \
        -> tuple[tuple[Container, ...], tuple[Container, ...]]:
    assert case.case is not None
    class_of = smelly.project.index.class_of
    targets = []
    for target in case.case.targets:
        location = target.location
        qualname = location.qualname
        if target.level == "class" and location.kind not in ("class", "module"):
            qualname = class_of.get(qualname, qualname)
        targets.append(Container(qualname, location.kind == "module", location.path))
    places = {item.qualname: Container(item.qualname, item.kind == "module", item.path)
              for item in (*(target.location for target in case.case.targets),
                           *case.case.locations)}
    return tuple(targets), tuple(places.values())


def _smellbench_places(case: EvalCase, smelly: Side, prefix: str,
                       errors: list[str]) -> tuple[Container, ...]:
    """SmellBench's `file::Class.func` targets (or bare qualnames), at the smell's level."""
    index = smelly.project.index
    found: list[Container] = []
    for text in case.targets:
        path, _, name = text.rpartition("::") if "::" in text else ("", "", text)
        path = path.removeprefix(prefix)
        module = smelly.module(path) if path else None
        qualname = f"{module}.{name}" if module and name else module or name
        if qualname in smelly.modules:
            found.append(Container(qualname, True, smelly.path_of(qualname) or path))
        elif qualname in index.definitions:
            if case.smell in CLASS_LEVEL_SMELLS and qualname in index.class_of:
                qualname = index.class_of[qualname]
            found.append(Container(qualname, False,
                                   smelly.path_of(index.module_of[qualname]) or path))
        else:
            errors.append(f"localization: target {text!r} is not defined in the smelly code")
    return tuple(found)


def involvement(case: EvalCase, prefix: str, smelly: Side, original: Side | None,
                fix: Touched | None, errors: list[str]) -> Involvement:
    """The case's involvement (see the module docstring); problems go to `errors`."""
    if case.case is not None:
        targets, locations = _smellkit_places(case, smelly)
        files = set(case.case.files)
        herrings = case.case.red_herrings
    else:
        targets = locations = _smellbench_places(case, smelly, prefix, errors)
        herrings = ()
        try:
            changes = parse_patch(case.smelly_patch) if case.smelly_patch.strip() else ()
        except PatchFormatError as error:
            errors.append(f"scope: the smelly patch: {error}")
            changes = ()
        files = {path.removeprefix(prefix) for change in changes for path in change.paths
                 if path.startswith(prefix)}
    fix_names = fix.names if fix is not None else {}
    modules = smelly.modules | (original.modules if original is not None else set())
    fix_holds = tuple(Container(name, False) for name in fix_names if name not in modules)
    exact = {name for name in fix_names if name in modules}
    for side in (smelly, original):
        if side is not None:
            exact.update(module for module in map(side.module, files) if module is not None)
    located = {item.qualname for item in locations}

    def fixed(items: tuple[Container, ...]) -> tuple[Container, ...]:
        return tuple(item for item in items if item.hit(fix_names))

    return Involvement(
        targets=fixed(targets) or targets, locations=locations,
        expected=fixed(locations) or locations, fix_holds=fix_holds, exact=frozenset(exact),
        files=frozenset(files | {item.path for item in locations if item.path}),
        files_involved=len(files),
        red_herrings=tuple(
            Container(item.qualname, item.kind == "module", item.path) for item in herrings
            if item.qualname not in located
            and not Container(item.qualname, item.kind == "module").hit(fix_names)))
