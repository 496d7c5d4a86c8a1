"""Inlining a collaborator class into the class that holds it (the god class injector's codemod).

`self.<attr> = C(args)` becomes `self._init_<attr>(args)`, `C.__init__`'s body runs there, the
fields and methods of `C` join the holder as `_<attr>_<name>`, `self.<attr>.<member>` becomes
`self._<attr>_<member>`, and the holder's module no longer imports `C`. A private `C` is
deleted; a public one stays where it is, unused by the repository, for code outside it (its
tests, its users) that may still import it. Anything else that touches the
collaborator object as a whole (passing `self.<attr>` on, `type(self)` in `C`) is refused: the
object would no longer exist.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import move
from smellkit.injectors.cst.edit import subtree
from smellkit.injectors.cst.imports import insert_import


@dataclass(frozen=True)
class Collaborator:
    """`holder` creates an instance of `cls` in method `scope` and keeps it in `attribute`."""

    holder: str
    attribute: str
    cls: str
    scope: str


class _RenameSelf(cst.CSTTransformer):
    """`self.<member>` -> `self.<new name>`; any other use of the bare `self` is recorded."""

    def __init__(self, self_name: str, names: dict[str, str]):
        self.self_name = self_name
        self.names = names
        self.receivers: set[int] = set()
        self.unknown: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name) and node.value.value == self.self_name:
            self.receivers.add(id(node.value))

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute
                        ) -> cst.Attribute:
        value = original_node.value
        if isinstance(value, cst.Name) and value.value == self.self_name:
            new = self.names.get(original_node.attr.value)
            if new is None:
                self.unknown.add(original_node.attr.value)
                return updated_node
            return updated_node.with_changes(attr=cst.Name(new))
        return updated_node


def _bare_self(function: cst.FunctionDef, self_name: str, receivers: set[int]) -> bool:
    params = {id(item) for item in subtree(function.params)}
    return any(isinstance(node, cst.Name) and node.value == self_name and id(node) not in params
               and id(node) not in receivers for node in subtree(function.body))


class _Holder(cst.CSTTransformer):
    """In the holder's methods: the creation becomes the init call, member uses are renamed."""

    def __init__(self, attribute: str, cls_name: str, scope: str, init: str,
                 names: dict[str, str]):
        self.attribute, self.cls_name, self.scope, self.init = attribute, cls_name, scope, init
        self.names = names
        self.selves: list[str | None] = []
        self.methods: list[str] = []
        self.created = 0
        self.problem: str | None = None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if not self.selves:
            params = node.params.params
            self.selves.append(params[0].name.value if params and not node.decorators else None)
            self.methods.append(node.name.value)
        else:
            self.selves.append(self.selves[-1])
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef,
                          updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.selves.pop()
        return updated_node

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return not self.selves

    def _is_held(self, node: cst.BaseExpression) -> bool:
        return (bool(self.selves) and self.selves[-1] is not None
                and isinstance(node, cst.Attribute) and node.attr.value == self.attribute
                and isinstance(node.value, cst.Name) and node.value.value == self.selves[-1])

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
        (first, *rest) = original_node.body
        if (len(self.selves) == 1 and not rest and isinstance(first, cst.Assign)
                and len(first.targets) == 1 and self._is_held(first.targets[0].target)
                and isinstance(first.value, cst.Call) and isinstance(first.value.func, cst.Name)
                and first.value.func.value == self.cls_name
                and self.methods[-1] == self.scope.rpartition(".")[2]):
            self.created += 1
            self_name = self.selves[-1] or "self"
            call = first.value.with_changes(func=cst.Attribute(
                value=cst.Name(self_name), attr=cst.Name(self.init)))
            return updated_node.with_changes(body=[cst.Expr(call)])
        return updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute
                        ) -> cst.BaseExpression:
        if self._is_held(original_node.value):
            new = self.names.get(original_node.attr.value)
            if new is None:
                self.problem = f"self.{self.attribute}.{original_node.attr.value} is no member"
                return updated_node
            self_name = self.selves[-1] or "self"
            return cst.Attribute(value=cst.Name(self_name), attr=cst.Name(new))
        return updated_node


def _held_uses(node: cst.CSTNode, attribute: str) -> int:
    return sum(1 for item in subtree(node) if isinstance(item, cst.Attribute)
               and item.attr.value == attribute and isinstance(item.value, cst.Name))


def inline(context: InjectionContext, holder: str, collaborators: list[Collaborator]
           ) -> tuple[dict[str, str | None], list[str]]:
    """The new texts of the files involved, and the names the holder gained. Raises
    `InjectionRefused`."""
    index = context.index
    place = move.top_level(index, holder)
    holder_path = context.path_of(holder)
    if place is None or holder_path is None:
        raise InjectionRefused(f"{holder} is not defined at the top level of its module")
    holder_module, holder_name = place
    _require_sturdy_holder(context, holder)
    trees: dict[str, cst.Module] = {holder_path: context.module(holder_path)}
    taken = move.members(index, holder)
    added: list[str] = []
    for item in collaborators:
        cls_place = move.top_level(index, item.cls)
        cls_path = context.path_of(item.cls)
        if cls_place is None or cls_path is None:
            raise InjectionRefused(f"{item.cls} is not defined at the top level of its module")
        cls_module, cls_name = cls_place
        if cls_path not in trees:
            trees[cls_path] = context.module(cls_path)
        cls_tree = trees[cls_path]
        cls_node = move.find_class(cls_tree, cls_name)
        if cls_node is None:
            raise InjectionRefused(f"{item.cls} is not where the index puts it")
        word = item.attribute.strip("_") or "part"
        names: dict[str, str] = {}
        info = index.classes[item.cls]
        for member in [*(attribute.name for attribute in info.attributes),
                       *index.children.get(item.cls, {})]:
            names[member] = f"_init_{word}" if member == "__init__" \
                else f"_{word}_{member.lstrip('_')}"
        clash = sorted((set(names.values()) & taken) | (set(names.values()) & set(added)))
        if clash:
            raise InjectionRefused(f"{holder} already has {', '.join(clash)}")
        postponed = move.has_future_annotations(cls_tree) and move.has_future_annotations(
            trees[holder_path])
        moved_methods: list[cst.BaseStatement] = []
        top_imports: list[str] = []
        for statement in cls_node.body.body:
            if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
                    and isinstance(statement.body[0], cst.Expr):
                continue  # the docstring
            if not isinstance(statement, cst.FunctionDef):
                raise InjectionRefused(f"{item.cls} has a class-level statement")
            if cls_name in move.names_in(statement):
                raise InjectionRefused(f"{item.cls}.{statement.name.value} names its own class")
            self_name = statement.params.params[0].name.value if statement.params.params else ""
            kept = context.wrapper(cls_path) if cls_tree is context.module(cls_path) else None
            moved = move.move_method(index, cls_module, cls_tree, statement, holder_module,
                                     replacement=cst.Name(self_name), postponed=postponed,
                                     wrapper=kept)
            renamer = _RenameSelf(self_name, names)
            function = moved.function.visit(renamer)
            assert isinstance(function, cst.FunctionDef)
            if renamer.unknown:
                raise InjectionRefused(f"{item.cls}.{statement.name.value} reads "
                                       f"{', '.join(sorted(renamer.unknown))}, not a member")
            if _bare_self(moved.function, self_name, renamer.receivers):
                raise InjectionRefused(f"{item.cls}.{statement.name.value} uses its instance as a "
                                       "whole")
            new_name = names[statement.name.value]
            method = move.as_method_of_class(function, new_name)
            moved_methods.append(method)
            top_imports.extend(moved.imports)
        if "__init__" not in names:
            raise InjectionRefused(f"{item.cls} has no __init__ to inline")
        holder_tree = trees[holder_path]
        holder_node = move.find_class(holder_tree, holder_name)
        if holder_node is None:
            raise InjectionRefused(f"{holder} is not where the index puts it")
        rewriter = _Holder(item.attribute, cls_name, item.scope, names["__init__"], names)
        body = holder_node.body.visit(rewriter)
        assert isinstance(body, cst.BaseSuite)
        if rewriter.problem:
            raise InjectionRefused(rewriter.problem)
        if rewriter.created != 1:
            raise InjectionRefused(f"{holder} creates {item.cls} {rewriter.created} times in the "
                                   "form `self.<attr> = C(...)`")
        new_holder = holder_node.with_changes(body=body)
        if _held_uses(new_holder, item.attribute):
            raise InjectionRefused(f"{holder} uses self.{item.attribute} as a whole")
        new_holder = move.append_to_class(new_holder, moved_methods)
        holder_tree = move.replace_node(holder_tree, holder_node, new_holder)
        holder_tree = _drop_import(holder_tree, cls_name)
        for line in dict.fromkeys(top_imports):
            holder_tree = insert_import(holder_tree, line)
        trees[holder_path] = holder_tree
        if cls_name.startswith("_"):  # a public class stays: code outside may still use it
            cls_tree = trees[cls_path]
            old = move.find_class(cls_tree, cls_name)
            assert old is not None
            trees[cls_path] = move.replace_node(cls_tree, old, cst.RemoveFromParent())
        added.extend(names.values())
    return {path: tree.code for path, tree in trees.items()
            if tree is not context.module(path)}, added


STATE_HOOKS = frozenset({
    "__slots__", "__setattr__", "__delattr__", "__getstate__", "__setstate__", "__reduce__",
    "__reduce_ex__", "__copy__", "__deepcopy__",
})
"""Members through which a class controls or exposes its instance attributes by name: renamed
or new attributes would behave differently there."""


def _require_sturdy_holder(context: InjectionContext, holder: str) -> None:
    """Refused when the holder cannot take new instance attributes safely."""
    index = context.index
    if index.definitions[holder].decorators:
        raise InjectionRefused(f"{holder} is decorated (a dataclass or the like decides its "
                               "attributes)")
    base = move.unsafe_base(index, holder)
    if base is not None:
        raise InjectionRefused(f"{holder} inherits from {base}, whose members are unknown")
    for cls in index.mro(holder):
        info = index.classes.get(cls)
        names = set(index.children.get(cls, {}))
        if info is not None:
            names.update(item.name for item in info.attributes)
        hooks = sorted(names & STATE_HOOKS)
        if hooks:
            raise InjectionRefused(f"{cls} defines {', '.join(hooks)}")


def _drop_import(module: cst.Module, name: str) -> cst.Module:
    """The module without its top-level `from x import <name>` (other names kept)."""
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        small = statement.body[0]
        if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
            continue
        kept = [alias for alias in small.names
                if not (isinstance(alias.name, cst.Name) and alias.name.value == name
                        and alias.asname is None)]
        if len(kept) == len(small.names):
            continue
        if not kept:
            body = list(module.body)
            at = body.index(statement)
            if at + 1 < len(body):  # the blank lines above it stay, above the next statement
                after = body[at + 1]
                body[at + 1] = after.with_changes(
                    leading_lines=[*statement.leading_lines, *after.leading_lines])
            return module.with_changes(body=[*body[:at], *body[at + 1:]])
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return move.replace_node(module, small, small.with_changes(names=kept))
    raise InjectionRefused(f"no `from ... import {name}` to remove")
