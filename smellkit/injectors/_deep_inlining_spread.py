"""Spreading a deep inlining over files: the pasted helpers that live in the caller's own file
move to new sibling modules, so that the copies in the caller duplicate code of other files.

Real code mostly calls helpers of its own module (every jinja2 candidate does), while SmellBench
measures difficulty by the files a smell spans. Moving a helper keeps what the code does:

- a method moves into a mixin class (`__slots__ = ()`, no other member) that its class inherits
  first, so the method is found right after the class itself in the MRO, as before, by the class
  and by every subclass;
- a module function moves as is and the caller's module imports it back, so every other caller
  and every `from module import name` still finds it.

A helper moves only when every global name it reads can be bound the same way in the new module:
a builtin, a copy of the (unconditional, run-time) import its module used, or another function
moved along. One that reads a definition or a variable of its own module is left in place (the
new module would have to import its importer back). A class keeps its methods when it is
decorated, a named tuple, typed dict, enum or protocol, or names a method in its own body.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from smellkit.facts import Name as NameExpr
from smellkit.injectors._deep_inlining_exits import Refused
from smellkit.injectors._deep_inlining_imports import import_line
from smellkit.injectors._deep_inlining_inline import names_of

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext

_Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement
_SPECIAL_BASES = frozenset({"NamedTuple", "TypedDict", "Enum", "IntEnum", "StrEnum", "Flag",
                            "IntFlag", "Protocol"})


@dataclass(frozen=True)
class Moved:
    """A helper moved out of the caller's file."""

    qualname: str
    """Where it was defined (the original)."""
    new_qualname: str
    """Where it is defined in the smelly version."""
    path: str
    """The new module's file."""
    mixin: str | None
    """The mixin class that holds it (methods), None for a module function."""


@dataclass
class Spread:
    module: cst.Module
    """The host module without the moved helpers, importing them back."""
    files: dict[str, str] = field(default_factory=dict)
    """New module path -> text."""
    moved: list[Moved] = field(default_factory=list)


@dataclass
class _Group:
    path: str
    module: str
    suffix: str
    functions: list[str] = field(default_factory=list)
    methods: dict[str, list[str]] = field(default_factory=dict)
    """Class qualname -> its moved methods."""
    mixins: dict[str, str] = field(default_factory=dict)
    """Class qualname -> the mixin's name."""


class Spreader:
    """Moves helpers of one host module into new sibling modules."""

    def __init__(self, context: InjectionContext):
        self.context = context
        self.index = context.index
        self._refusals: dict[str, str | None] = {}

    def refusal(self, qualname: str, host: str) -> str | None:
        """Why this helper cannot move out of `host` (its caller's module), None if it can."""
        key = f"{host}|{qualname}"
        if key not in self._refusals:
            self._refusals[key] = self._refuse(qualname, host)
        return self._refusals[key]

    def _refuse(self, qualname: str, host: str) -> str | None:
        definition = self.index.definitions.get(qualname)
        if definition is None or self.index.module_of.get(qualname) != host:
            return "not defined in the caller's module"
        if self.index.star_imports.get(host):
            return f"{host} has a star import"
        owner = definition.parent
        if definition.kind == "method":
            cls = self.index.definitions.get(owner)
            if cls is None or cls.parent != host:
                return "a method of a nested class"
            if cls.decorators:
                return f"{cls.name} is decorated"
            info = self.index.classes.get(owner)
            bases = [base.rpartition(".")[2] for base in (info.base_names if info else ())]
            if _SPECIAL_BASES & set(bases):
                return f"{cls.name} is a named tuple, typed dict, enum or protocol"
        elif owner != host:
            return "a nested function"
        try:
            node = self._def(qualname)
            if definition.kind == "method":
                self._class_keeps_name(owner, definition.name)
        except Refused as error:
            return error.message
        for name in sorted(_free_names(node)):
            reason = self._binding(host, name)
            if reason is not None:
                return reason
        return None

    def _binding(self, host: str, name: str) -> str | None:
        if self.index.children.get(host, {}).get(name) is not None:
            return f"reads {name}, defined in {host}"
        facts = self.index.modules[host]
        if any(item.scope == host and item.target == NameExpr(name)
               for item in facts.assignments):
            return f"reads {name}, module state of {host}"
        if any(item.scope == host and item.bound == name for item in facts.imports):
            try:
                import_line(self.context, host, name, host + "._new")
            except Refused as error:
                return error.message
            return None
        found = self.index.resolve_name(host, name)
        if found is not None and found.startswith("<builtin>."):
            return None
        return f"cannot tell what {name} means in {host}"

    def _def(self, qualname: str) -> cst.FunctionDef:
        host = self.index.module_of[qualname]
        module = self.context.module(self.context.path_of(qualname) or "")
        parts = qualname[len(host) + 1:].split(".")
        body: Sequence[cst.BaseStatement] = module.body
        for position, part in enumerate(parts):
            found = [item for item in body if isinstance(item, (cst.FunctionDef, cst.ClassDef))
                     and item.name.value == part]
            if len(found) != 1:
                raise Refused(f"{part} is defined {len(found)} times where {qualname} is")
            (item,) = found
            if position == len(parts) - 1:
                if not isinstance(item, cst.FunctionDef):
                    raise Refused(f"{qualname} is not a function")
                return item
            if not isinstance(item.body, cst.IndentedBlock):
                raise Refused(f"{qualname} is in a one-line class")
            body = item.body.body
        raise Refused(f"{qualname} not found")

    def _class_keeps_name(self, cls: str, name: str) -> None:
        """Refused when the class body names the method outside its own `def` (an alias, a
        property built from it, a decorator): it would no longer be bound there."""
        node = self._def_class(cls)
        assert isinstance(node.body, cst.IndentedBlock)
        others: list[cst.CSTNode] = []
        for item in node.body.body:
            if isinstance(item, cst.FunctionDef):
                others.extend(item.decorators)
                if item.name.value == name:
                    continue
                others.extend([item.params])
            else:
                others.append(item)
        if name in names_of(others).used:
            raise Refused(f"the body of {cls} names {name}")

    def _def_class(self, cls: str) -> cst.ClassDef:
        host = self.index.module_of[cls]
        module = self.context.module(self.context.path_of(cls) or "")
        name = cls[len(host) + 1:]
        found = [item for item in module.body if isinstance(item, cst.ClassDef)
                 and item.name.value == name]
        if len(found) != 1 or not isinstance(found[0].body, cst.IndentedBlock):
            raise Refused(f"class {cls} is not one plain top-level class")
        return found[0]

    # -- the move -------------------------------------------------------------------------------

    def spread(self, host_module: cst.Module, path: str, helpers: Sequence[str],
               count: int) -> Spread:
        """Move `helpers` (movable, of the module at `path`) into `count` new modules, in turn
        (so a chain's levels land in different files); `host_module` is the host's new tree."""
        if len(helpers) < count or count < 1:
            raise Refused(f"{count} new module(s) need as many movable helpers, "
                          f"{len(helpers)} given")
        host = self.index.module_of[helpers[0]]
        groups = self._groups(path, host, helpers, count)
        spread = Spread(host_module)
        future = [item for item in self.context.module(path).body
                  if isinstance(item, cst.SimpleStatementLine) and any(
                      isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name)
                      and small.module.value == "__future__" for small in item.body)]
        for group in groups:
            lines, body = self._group_body(host, group)
            spread.files[group.path] = self._text(path, group, future, lines, body)
            for name in group.functions:
                spread.moved.append(Moved(name, f"{group.module}.{_short(name)}", group.path,
                                          None))
            for cls, methods in group.methods.items():
                mixin = group.mixins[cls]
                spread.moved.extend(Moved(name, f"{group.module}.{mixin}.{_short(name)}",
                                          group.path, mixin) for name in methods)
        spread.module = self._host(host_module, host, groups)
        return spread

    def _groups(self, path: str, host: str, helpers: Sequence[str], count: int) -> list[_Group]:
        folder, _, name = path.rpartition("/")
        stem = folder.rpartition("/")[2] if name == "__init__.py" else name[:-3]
        package = host if self.index.modules[host].is_package else host.rpartition(".")[0]
        groups: list[_Group] = []
        number = 0
        while len(groups) < count:
            number += 1
            suffix = "" if number == 1 else f"_{number}"
            new = f"{folder}/_{stem.strip('_')}_steps{suffix}.py".lstrip("/")
            if (self.context.root / new).exists():
                continue
            module_name = new.rpartition("/")[2][:-3]
            groups.append(_Group(new, f"{package}.{module_name}" if package else module_name,
                                 suffix.strip("_")))
        for position, helper in enumerate(helpers):
            group = groups[position % count]
            definition = self.index.definitions[helper]
            if definition.kind == "method":
                cls = definition.parent
                group.methods.setdefault(cls, []).append(helper)
                group.mixins.setdefault(cls, f"_{_short(cls).strip('_')}Steps{group.suffix}")
            else:
                group.functions.append(helper)
        return groups

    def _group_body(self, host: str,
                    group: _Group) -> tuple[list[str], list[_Statement]]:
        lines: list[str] = []
        body: list[_Statement] = []
        names = [*group.functions, *(name for methods in group.methods.values()
                                     for name in methods)]
        for name in names:
            for free in sorted(_free_names(self._def(name))):
                reason = self._binding(host, free)
                if reason is not None:
                    raise Refused(f"{name} cannot move: {reason}")
                if not (self.index.resolve_name(host, free) or "").startswith("<builtin>."):
                    lines.append(import_line(self.context, host, free, group.module))
        functions = [self._def(name).with_changes(leading_lines=[]) for name in group.functions]
        body.extend(functions)
        for cls, methods in group.methods.items():
            members: list[cst.BaseStatement] = [cst.parse_statement("__slots__ = ()\n")]
            members.extend(self._def(name).with_changes(leading_lines=[cst.EmptyLine(indent=False)])
                           for name in methods)
            body.append(cst.ClassDef(name=cst.Name(group.mixins[cls]),
                                     body=cst.IndentedBlock(body=members)))
        return list(dict.fromkeys(lines)), body

    def _text(self, path: str, group: _Group, future: list[cst.SimpleStatementLine],
              lines: list[str], body: list[_Statement]) -> str:
        host = self.context.module(path)
        names = [*(_short(name) for name in group.functions), *group.mixins.values()]
        header: list[_Statement] = [item.with_changes(leading_lines=[]) for item in future]
        header.extend(cst.parse_statement(line + "\n") for line in sorted(
            lines, key=lambda line: (line.startswith("from "), line)))
        if header:
            header[0] = header[0].with_changes(leading_lines=[cst.EmptyLine()])
        spaced = [item.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
                  for item in body]
        docstring = cst.parse_statement(f'"""Shared steps: {", ".join(names)}."""\n')
        return cst.Module(body=[docstring, *header, *spaced], default_indent=host.default_indent,
                          default_newline=host.default_newline).code

    def _host(self, module: cst.Module, host: str, groups: Sequence[_Group]) -> cst.Module:
        """The host without the moved helpers, its classes inheriting their mixins first, and
        the moved names imported back before the first definition that needs them."""
        functions = {_short(name) for group in groups for name in group.functions}
        by_class: dict[str, tuple[set[str], list[str]]] = {}
        imports: list[str] = []
        for group in groups:
            names = [_short(name) for name in group.functions]
            for cls, methods in group.methods.items():
                removed, mixins = by_class.setdefault(_short(cls), (set(), []))
                removed.update(_short(name) for name in methods)
                mixins.append(group.mixins[cls])
                names.append(group.mixins[cls])
            local = group.module.rpartition(".")[2]
            relative = "." if self.index.modules[host].is_package or "." in host else ""
            imports.append(f"from {relative}{local} import {', '.join(sorted(names))}")
        body: list[cst.BaseStatement] = []
        first_needed: int | None = None
        for item in module.body:
            if isinstance(item, cst.FunctionDef) and item.name.value in functions:
                first_needed = len(body) if first_needed is None else first_needed
                continue
            if isinstance(item, cst.ClassDef) and item.name.value in by_class:
                first_needed = len(body) if first_needed is None else first_needed
                item = _without(item, *by_class[item.name.value])
            body.append(item)
        position = 0
        for number, statement in enumerate(body[:first_needed]):
            if isinstance(statement, cst.SimpleStatementLine) and all(
                    isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body):
                position = number + 1
        if position == 0:
            raise Refused(f"{host} has no top-level import before the moved helpers to import "
                          "them back after")
        new = [cst.parse_statement(line + "\n") for line in imports]
        return module.with_changes(body=[*body[:position], *new, *body[position:]])


def _without(node: cst.ClassDef, removed: set[str], mixins: list[str]) -> cst.ClassDef:
    assert isinstance(node.body, cst.IndentedBlock)
    kept = [item for item in node.body.body
            if not (isinstance(item, cst.FunctionDef) and item.name.value in removed)]
    if not kept:
        kept = [cst.SimpleStatementLine([cst.Pass()])]
    bases = [cst.Arg(cst.Name(name)) for name in mixins]
    old = list(node.bases)
    args = [arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            for arg in bases[:-1]]
    if old:
        args.append(bases[-1].with_changes(comma=cst.Comma(
            whitespace_after=cst.SimpleWhitespace(" "))))
        args.extend(old)
    else:
        args.append(bases[-1])
    changes: dict[str, object] = {"bases": args, "body": node.body.with_changes(body=kept)}
    if not old and not node.keywords:
        changes["lpar"] = cst.LeftParen()
        changes["rpar"] = cst.RightParen()
    elif not old:
        args[-1] = args[-1].with_changes(comma=cst.Comma(
            whitespace_after=cst.SimpleWhitespace(" ")))
        changes["bases"] = args
    return node.with_changes(**changes)


def _free_names(node: cst.FunctionDef) -> set[str]:
    """Global names a definition reads: in its body, defaults and annotations (evaluated where
    it is defined)."""
    found = names_of([node.params, node.body, *([node.returns] if node.returns else [])])
    params = {param.name.value for param in [*node.params.params, *node.params.kwonly_params,
                                             *node.params.posonly_params]}
    for star in (node.params.star_arg, node.params.star_kwarg):
        if isinstance(star, cst.Param):
            params.add(star.name.value)
    return found.used - found.bound - params


def _short(qualname: str) -> str:
    return qualname.rpartition(".")[2]


