"""How the feature envy injector's moved method imports what it needs in its new home: imports
in the holder module's style, the `TYPE_CHECKING` block that module gains, and the name the
method gives the object it now receives, from the repository's vocabulary."""

from __future__ import annotations

import random
import re

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.graphs.index import Index
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import move
from smellkit.injectors.cst.imports import insert_import, is_import_line
from smellkit.injectors.naming import pick, words
from smellkit.models import Difficulty


class Placement:
    """The names and imports of one injection's new code; `injection.Injection` sets the state
    below from the candidate."""

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
