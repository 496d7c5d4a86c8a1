"""Spreading a deep inlining over files: the pasted callees that live in the caller's own file
move to new sibling modules, so that the copies in the caller duplicate code of other files.

Real code mostly calls functions of its own module (every jinja2 candidate does), while SmellBench
measures difficulty by the files a smell spans. Moving a callee keeps what the code does:

- a method moves into a mixin class (no other member; `__slots__ = ()` when its class has slots)
  that its class inherits first, so the method is found right after the class itself in the MRO,
  as before, by the class and by every subclass;
- a module function moves as is and the caller's module imports it back, so every other caller
  and every `from module import name` still finds it.

A callee moves only when every global name it reads can be bound the same way in the new module:
a builtin, a copy of the (unconditional, run-time) import its module used, or a name of its own
module (or of another new module), imported inside the moved function, as code that would
otherwise import in a cycle does (`from .compiler import CompilerExit` in the method's body): the
new module needs nothing of the host when it is imported, so the host imports it with its other
imports. A name read where the function is defined (a default, an annotation) keeps the callee in
place. A class keeps its methods when it is decorated, a named tuple, typed dict, enum or
protocol, or names a method in its own body.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.graphs.builtin_names import BUILTIN_NAMES
from smellkit.injectors.cst.imports import (
    after_last_import,
    insert_import,
    merged,
    opening_block,
    reads,
)
from smellkit.injectors.cst.slots import SLOTS_LINE, uses_slots
from smellkit.injectors.deep_inlining.hints import hint_imports, hinted_names, type_checking_guard
from smellkit.injectors.deep_inlining.imports import import_line
from smellkit.injectors.deep_inlining.movable import Movability
from smellkit.injectors.deep_inlining.names import names_of
from smellkit.injectors.deep_inlining.scope import binds, free_names, import_time
from smellkit.injectors.naming import (
    MIN_WORD,
    Vocabulary,
    camel,
    meaningful,
    overlaps,
    pick,
    snake,
    usable,
    words,
)

if TYPE_CHECKING:
    pass

_Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement


@dataclass(frozen=True)
class Moved:
    """A callee moved out of the caller's file."""

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
    """The host module without the moved callees, importing them back."""
    files: dict[str, str] = field(default_factory=dict)
    """New module path -> text."""
    moved: list[Moved] = field(default_factory=list)


@dataclass
class _Group:
    callees: list[str]
    """What moves to this new module, in the order it was given."""
    path: str = ""
    module: str = ""
    functions: list[str] = field(default_factory=list)
    methods: dict[str, list[str]] = field(default_factory=dict)
    """Class qualname -> its moved methods."""
    mixins: dict[str, str] = field(default_factory=dict)
    """Class qualname -> the mixin's name."""
    imports: list[str] = field(default_factory=list)
    hinted: list[str] = field(default_factory=list)
    """Imports of names only string annotations read, under `guard`."""
    guard: str = "TYPE_CHECKING"
    late: dict[str, list[str]] = field(default_factory=dict)
    """Module -> the names the moved code reads from it, defined by the host or moved to
    another new module (imported inside the functions that read them)."""


class Spreader(Movability):
    """Moves callees of one host module into new sibling modules (what may move is decided by
    `Movability`)."""

    def spread(self, host_module: cst.Module, path: str, callees: Sequence[str],
               count: int, rng: random.Random) -> Spread:
        """Move `callees` (movable, of the module at `path`) into `count` new modules, dealt
        in turn from a seeded shuffle (so a chain's levels land in different files and cases
        differ); `host_module` is the host's new tree."""
        if len(callees) < count or count < 1:
            raise InjectionRefused(f"{count} new module(s) need as many movable callees, "
                                   f"{len(callees)} given")
        host = self.index.module_of[callees[0]]
        groups = self._groups(path, host, callees, count, rng)
        spread = Spread(host_module)
        future = [item for item in self.context.module(path).body
                  if isinstance(item, cst.SimpleStatementLine) and any(
                      isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name)
                      and small.module.value == "__future__" for small in item.body)]
        moved = {_short(name): group for group in groups for name in group.functions}
        for group in groups:
            body = self._group_body(host, group, moved)
            spread.files[group.path] = self._text(path, host, group, future, body)
            for name in group.functions:
                spread.moved.append(Moved(name, f"{group.module}.{_short(name)}", group.path,
                                          None))
            for cls, methods in group.methods.items():
                mixin = group.mixins[cls]
                spread.moved.extend(Moved(name, f"{group.module}.{mixin}.{_short(name)}",
                                          group.path, mixin) for name in methods)
        spread.module = self._host(host_module, host, groups)
        return spread

    def _groups(self, path: str, host: str, callees: Sequence[str], count: int,
                rng: random.Random) -> list[_Group]:
        """The new modules, each named from the words of what it holds (`_usage_format.py`
        holding `format_usage`) in the repository's module style, and its mixins from the
        words of their methods and class (`_UsageCommand`), never numbered."""
        order = list(callees)
        rng.shuffle(order)
        groups = [_Group(order[start::count]) for start in range(count)]
        folder = path.rpartition("/")[0]
        package = host if self.index.modules[host].is_package else host.rpartition(".")[0]
        vocabulary = self.context.vocabulary
        private = vocabulary.private_modules()
        taken = {*vocabulary.module_stems, *self._host_names(host),
                 *(_short(name) for name in callees)}
        for group in groups:
            stems = (snake(parts, private=private)
                     for parts in _word_lists(vocabulary, host, group.callees, rng))
            group.path = self.context.module_path(
                folder, (stem for stem in stems if usable(stem, taken)))
            stem = group.path.rpartition("/")[2][:-3]
            taken.add(stem)
            group.module = f"{package}.{stem}" if package else stem
            for callee in group.callees:
                self._place(group, callee, taken, rng)
        return groups

    def _host_names(self, host: str) -> set[str]:
        """Every name the host module binds at its top level or in its classes."""
        names = set(self.index.children.get(host, {}))
        for child in list(self.index.children.get(host, {}).values()):
            names.update(self.index.children.get(child, {}))
        names.update(item.bound for item in self.index.modules[host].imports)
        return names

    def _place(self, group: _Group, callee: str, taken: set[str], rng: random.Random) -> None:
        definition = self.index.definitions[callee]
        if definition.kind != "method":
            group.functions.append(callee)
            return
        cls = definition.parent
        group.methods.setdefault(cls, []).append(callee)
        if cls in group.mixins:
            return
        vocabulary = self.context.vocabulary
        head = [word for word in words(_short(cls)) if len(word) >= MIN_WORD][-1:]
        methods = [name for name in group.callees if self.index.definitions[name].parent == cls]
        own = [word for word in _own_words(methods) if not overlaps(word, head)]
        near = [word for word in vocabulary.near(self.index.module_of[cls])
                if word not in own and not overlaps(word, head)]
        options = [*vocabulary.combinations(head, own, rng, most=1),
                   *vocabulary.combinations(head, near, rng)]
        front = [parts for parts in options[:_MIXIN_CHOICES] if parts != head]
        rng.shuffle(front)  # two cases moving one method name their mixins apart
        options = [*front, *options[_MIXIN_CHOICES:]]
        name = pick((camel(parts, private=True) for parts in options if parts != head),
                    taken, what=f"a mixin of {_short(cls)}")
        taken.add(name)
        group.mixins[cls] = name

    def _group_body(self, host: str, group: _Group,
                    moved: dict[str, _Group]) -> list[_Statement]:
        """The new module's definitions, filling the group's imports: copies of the host's
        own imports first; last (see `_text`), the names the host defines and the functions
        moved to the other new modules."""
        body: list[_Statement] = []
        names = [*group.functions, *(name for methods in group.methods.values()
                                     for name in methods)]
        local: dict[str, list[str]] = {}
        for name in names:
            node = self.moved_def(name)
            early = free_names(node, definition_time=True)
            for free in sorted(free_names(node)):
                try:
                    self._require_binding(host, free, free in early)
                except InjectionRefused as refusal:
                    raise InjectionRefused(f"{name} cannot move: {refusal.message}") \
                        from refusal
                if free in moved and self.own(host, free):
                    if moved[free] is not group:
                        group.late.setdefault(moved[free].module, []).append(free)
                        local.setdefault(name, []).append(
                            f"from {self._relative(host, moved[free].module)} import {free}")
                elif self.own(host, free):
                    group.late.setdefault(host, []).append(free)
                    local.setdefault(name, []).append(
                        f"from {self._relative(host, host)} import {free}")
                elif not (self.index.resolve_name(host, free) or "").startswith("<builtin>."):
                    group.imports.append(self._copied_import(host, free, group.module))
        self._hints(host, group, names)

        def written(name: str) -> cst.FunctionDef:
            return _importing_first(self.moved_def(name), merged(local.get(name, [])))

        body.extend(written(name).with_changes(leading_lines=[]) for name in group.functions)
        for cls, methods in group.methods.items():
            # `__slots__` only where the host class's layout has them (`slots.uses_slots`)
            members: list[cst.BaseStatement] = [cst.parse_statement(f"{SLOTS_LINE}\n")] \
                if uses_slots(self.context, [cls]) else []
            members.extend(written(name).with_changes(
                leading_lines=[cst.EmptyLine(indent=False)] if members or index else [])
                for index, name in enumerate(methods))
            body.append(cst.ClassDef(name=cst.Name(group.mixins[cls]),
                                     body=cst.IndentedBlock(body=members)))
        return body

    def _hints(self, host: str, group: _Group, names: Sequence[str]) -> None:
        """The imports of the names only string annotations of the moved code read, for an
        `if TYPE_CHECKING:` block (and the import its guard reads)."""
        bound = {_short(name) for name in group.functions} | set(group.mixins.values())
        bound |= {name for names in group.late.values() for name in names}
        for line in group.imports:
            bound |= binds(cst.parse_statement(line + "\n"), top=True)
        missing = hinted_names(self.moved_def(name) for name in names) - bound
        missing -= {_short(name) for name in names}
        if not missing - BUILTIN_NAMES:
            return
        expression, reads = type_checking_guard(self.context, host)
        typing = next((found.group(1) or "typing" for line in group.imports
                       if (found := re.fullmatch(r"import typing(?: as (\w+))?", line))), None)
        if reads is None and typing is not None:  # the module's own `import typing as t`
            expression, reads = f"{typing}.TYPE_CHECKING", typing
        elif reads is None:
            group.imports.append("from typing import TYPE_CHECKING")
        elif reads not in bound:
            group.imports.extend(hint_imports(self.context, host, [reads], "."))
        group.guard = expression
        group.hinted = hint_imports(self.context, host, missing,
                                      self._relative(host, host))

    def _text(self, path: str, host: str, group: _Group,
              future: list[cst.SimpleStatementLine], body: list[_Statement]) -> str:
        """The new module: its imports, then its definitions."""
        module = self.context.module(path)
        opening = cst.Module(body=[item.with_changes(leading_lines=[]) for item in future])
        for line in sorted(set(group.imports)):  # grouped and ordered as isort does
            opening = insert_import(opening, line)
        header: list[_Statement] = list(opening.body)
        if group.hinted:
            indent = module.default_indent
            block = cst.parse_statement(f"if {group.guard}:\n" + "".join(
                f"{indent}{line}\n" for line in merged(group.hinted)))
            header.append(block.with_changes(leading_lines=[cst.EmptyLine()]))
        spaced = [item.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
                  for item in body]
        if header:
            header[0] = header[0].with_changes(leading_lines=[])
        elif spaced:
            spaced[0] = spaced[0].with_changes(leading_lines=[])
        return cst.Module(body=[*header, *spaced],
                          default_indent=module.default_indent,
                          default_newline=module.default_newline).code

    def _copied_import(self, host: str, name: str, module: str) -> str:
        """The host's import of `name`, for a sibling module: relative when the host's was
        (`from . import nodes` stays so), absolute otherwise."""
        line = import_line(self.context, host, name, module)  # refuses what cannot be copied
        for item in self.index.modules[host].imports:
            if item.scope == host and item.bound == name and item.is_from and item.level:
                source, _, attribute = item.target.rpartition(".")
                package = host if self.index.modules[host].is_package else \
                    host.rpartition(".")[0]
                for _ in range(item.level - 1):
                    package = package.rpartition(".")[0]
                if source != package and not source.startswith(package + "."):
                    return line
                inner = source[len(package) + 1:] if source != package else ""
                alias = f" as {name}" if attribute != name else ""
                return f"from {'.' * item.level}{inner} import {attribute}{alias}"
        return line

    def _relative(self, host: str, target: str) -> str:
        """How a sibling module of `host` names the module `target` in a `from` import."""
        package = host if self.index.modules[host].is_package else host.rpartition(".")[0]
        if not package or not any(item.level for item in self.index.modules[host].imports):
            return target  # the host imports its package absolutely: so do the new lines
        if target == package:
            return "."
        return "." + target[len(package) + 1:]

    def _imported_back(self, host: str, name: str, still: set[str]) -> bool:
        """Whether the host imports a moved function back: when it still reads it. A private
        one it no longer reads is not (the import would be unused, a tell); a public one, or
        one another module imports from the host, keeps the host's namespace, so it stays."""
        if name in still:
            return True
        if not name.startswith("_") or any(
                item.target == f"{host}.{name}" for facts in self.index.modules.values()
                for item in facts.imports):
            raise InjectionRefused(f"{name} is no longer used in {host} once pasted, yet others "
                                   "may import it from there: importing it back would be "
                                   "an unused import")
        return False

    def _host(self, module: cst.Module, host: str, groups: Sequence[_Group]) -> cst.Module:
        """The host without the moved callees, its classes inheriting their mixins first, and
        the moved names imported back before the first definition that needs them."""
        functions = {_short(name) for group in groups for name in group.functions}
        still = reads(module.with_changes(body=[
            item for item in module.body
            if not (isinstance(item, cst.FunctionDef) and item.name.value in functions)]))
        by_class: dict[str, tuple[set[str], list[str]]] = {}
        imports: list[str] = []
        for group in groups:
            names = [_short(name) for name in group.functions
                     if self._imported_back(host, _short(name), still)]
            for cls, methods in group.methods.items():
                removed, mixins = by_class.setdefault(_short(cls), (set(), []))
                removed.update(_short(name) for name in methods)
                mixins.append(group.mixins[cls])
                names.append(group.mixins[cls])
            if names:
                imports.append(f"from {self._relative(host, group.module)} import "
                               f"{', '.join(sorted(names))}")
        if not imports:
            return module.with_changes(body=[
                item for item in module.body
                if not (isinstance(item, cst.FunctionDef) and item.name.value in functions)])
        body: list[cst.BaseStatement] = []
        needed = len(module.body)  # the first statement that needs a moved name at import
        removed_before: list[int] = []  # moved functions, by their index in the original
        for number, item in enumerate(module.body):
            if isinstance(item, cst.FunctionDef) and item.name.value in functions:
                removed_before.append(number)
                continue
            if isinstance(item, cst.ClassDef) and item.name.value in by_class:
                needed = min(needed, number)
                item = _without(item, *by_class[item.name.value])
            elif functions & names_of(import_time(item)).used or (removed_before and _imports(
                    item)):  # an import may come back here for a moved name, in a cycle
                needed = min(needed, number)
            body.append(item)
        new = [cst.parse_statement(line + "\n") for line in imports]
        limit = needed - sum(1 for number in removed_before if number < needed)
        start, end = opening_block(body)
        if start < end <= limit:  # in the opening import block, where isort puts it
            result = module.with_changes(body=body)
            for line in imports:
                result = insert_import(result, line)
            return result
        position = after_last_import(body, limit)
        if position == 0:
            raise InjectionRefused(f"{host} has no top-level import before the moved definitions "
                                   "are needed to import them back after")
        return module.with_changes(body=[*body[:position], *new, *body[position:]])


def _importing_first(node: cst.FunctionDef, lines: Sequence[str]) -> cst.FunctionDef:
    """The function importing `lines` first thing in its body (after its docstring)."""
    if not lines or not isinstance(node.body, cst.IndentedBlock):
        return node
    body = list(node.body.body)
    at = 1 if body and _is_docstring(body[0]) else 0
    imports = [cst.parse_statement(line + "\n") for line in lines]
    return node.with_changes(body=node.body.with_changes(body=[*body[:at], *imports,
                                                               *body[at:]]))


def _imports(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body)



def _is_docstring(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
        isinstance(statement.body[0], cst.Expr) and isinstance(
            statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def _spaced(statement: cst.BaseStatement) -> cst.BaseStatement:
    """A definition after an inserted import keeps two blank lines before it."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and not any(
            line.comment for line in statement.leading_lines):
        return statement.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
    return statement


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


def _short(qualname: str) -> str:
    return qualname.rpartition(".")[2]


def _own_words(qualnames: Sequence[str]) -> list[str]:
    """The words of the definitions' names, each once, in order."""
    return list(dict.fromkeys(word for name in qualnames for word in words(_short(name))
                              if meaningful(word)))


_MIXIN_CHOICES = 24
"""Names a mixin is drawn from, at random: a class's own words make few, and two cases that
move a method of one class must not give their mixins one name (a tell across cases)."""


def _word_lists(vocabulary: Vocabulary, host: str, callees: Sequence[str],
                rng: random.Random) -> list[list[str]]:
    """Word lists for a new module holding `callees`: a callee's own name, its words paired,
    or one of them with a word used near it in the host module, in an order the seed and the
    case vary (two cases moving one helper name its module apart: a helper's own words make
    few pairs); then its words alone, then words near them."""
    found = [own for name in callees if 1 < len(own := [
        word for word in words(_short(name)) if meaningful(word)]) <= 3]
    own = _own_words(callees)
    found.extend(parts for parts in vocabulary.combinations([], own, rng) if len(parts) > 1)
    near = [word for word in vocabulary.near(host, *callees) if not overlaps(word, own)][:6]
    front = found[:8] + [[word, other] for word in own[:3] for other in near]
    rng.shuffle(front)
    found[:8] = front
    found.extend(vocabulary.combinations([], own, rng))
    found.extend(vocabulary.combinations([], vocabulary.near(host, *callees), rng))
    return found
