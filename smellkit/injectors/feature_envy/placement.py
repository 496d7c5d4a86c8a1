"""Where the feature envy injector puts a moved method and how the new code imports what it
needs: the mixin module a medium case adds (named after the method, in the holder module's
import style), the `TYPE_CHECKING` block the holder's module gains, and the names picked from
the repository's vocabulary."""

from __future__ import annotations

import random
import re

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.graphs.index import Index
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import move
from smellkit.injectors.cst.imports import insert_import, is_import_line
from smellkit.injectors.cst.slots import SLOTS_LINE, uses_slots
from smellkit.injectors.feature_envy import rewrite
from smellkit.injectors.naming import camel, meaningful, pick, words
from smellkit.models import Difficulty


class Placement:
    """The names, modules and imports of one injection's new code; `injection.Injection` sets
    the state below from the candidate."""

    context: InjectionContext
    rng: random.Random
    index: Index
    difficulty: Difficulty
    holder: str
    holder_module: str
    holder_name: str
    holder_path: str
    cls_module: str
    cls_name: str
    cls_path: str
    method_name: str
    new_name: str
    word: str
    """The collaborator's word (the attribute or the receiver's name) new names start from."""
    attribute: str | None
    argument: str | None
    via: str | None
    declared: bool

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
