"""Dead copies: the earlier version of a function kept beside it after its last caller moved on.

Code a person leaves behind is rarely a wrapper that only forwards; it is the old body of a
function that was rewritten, or of a caller that was switched to the rewrite, still calling the
other old pieces. A copy here is that: the function's body before its late revisions
(`variants`; its docstring dropped, as a kept-around draft has none) under the name it had
(`names`: `_record_error` beside `store_error`), right above its replacement, with
every call into the other pieces of the same dead cluster pointed at their copies, through the
import the module already uses: the same `from` import (the new name in its sorted place), the
same module alias (`pricing._lookup_tax`), or the same import inside the function.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import NamedTuple

import libcst as cst

from smellkit.errors import InjectionRefused
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import edit
from smellkit.injectors.cst.imports import (
    insert_from_import,
    is_docstring,
    one_name_per_line,
    with_name,
)
from smellkit.injectors.dead_code import graft
from smellkit.injectors.dead_code.variants import earlier_version

MAX_LINES = 40
"""Longer functions are not copied: a reader wades through pages of duplicate for one case."""


class Link(NamedTuple):
    """How the code of `caller` names `callee` (a top-level function of another module)."""

    caller: str
    callee: str
    style: str
    """name (a module-level `from` import), local (one inside the caller), attribute (`m.g`
    after importing g's module as m), reexport (a `from` import of g through a package that
    re-exports it), package (`p.g` through such a package), method (`x.m(...)`: a method of
    a class of another module that the caller's class inherits, called on `self`, or on an
    object always of that class: `_always_of`)."""
    bound: str  # the name, or the module alias, the caller's code reads


def link(context: InjectionContext, caller: str, callee: str) -> Link | None:
    """How `caller` reaches `callee`, or None when no unaliased import of it (or of its module)
    serves the caller."""
    index = context.index
    caller_module, callee_module = index.module_of.get(caller), index.module_of.get(callee)
    if caller_module is None or callee_module is None:
        return None
    definition = index.definitions[callee]
    name = definition.name
    if definition.kind == "method":
        # only a method the caller's own class inherits (`self.m(...)`): an earlier version on
        # one class of many the object could be (wtforms' `DummyTranslations` among real
        # translations) would fail on the others
        owner = index.class_of.get(caller)
        cls = index.class_of.get(callee)
        inherited = owner is not None and cls in index.mro(owner)
        if cls is None or not (inherited or _always_of(context, caller, cls, name)):
            return None
        return Link(caller, callee, "method", name)
    imports = [item for item in index.modules[caller_module].imports
               if not item.type_only and "." not in item.bound
               and item.scope in (caller_module, caller)]
    for item in imports:
        top = item.scope == caller_module
        if item.is_from and item.target == callee and item.bound == name:
            return Link(caller, callee, "name" if top else "local", name)
        if item.target == callee_module and top:
            return Link(caller, callee, "attribute", item.bound)
    for item in imports:  # through a package that re-exports it
        if item.scope != caller_module:
            continue
        if item.is_from and item.bound == name and index.resolve_dotted(item.target) == callee:
            return Link(caller, callee, "reexport", name)
        facts = index.modules.get(item.target)
        if facts is not None and facts.is_package and item.target != callee_module and \
                index.resolve_dotted(f"{item.target}.{name}") == callee:
            return Link(caller, callee, "package", item.bound)
    return None


def _always_of(context: InjectionContext, caller: str, cls: str, name: str) -> bool:
    """Whether an earlier version of `cls.name` serves the object the caller calls `name` on:
    no class of the repository outside the lineage of `cls` has a member of that name (a
    subclass inherits the earlier version too; wtforms' `gettext` is also `Field`'s and
    `DefaultTranslations`'s, so the object may be other translations), or the caller builds the
    object itself (`error_store = ErrorStore()`) or takes it annotated with the class
    (`error_store: ErrorStore`), a class nothing derives from."""
    index = context.index
    lineage = {*index.mro(cls), *index.descendants(cls)}
    if not any(name in index.children.get(other, {}) or
               any(attribute.name == name for attribute in info.attributes)
               for other, info in index.classes.items() if other not in lineage):
        return True
    if index.descendants(cls):
        return False
    definition = index.definitions[caller]
    lines = context.source(index.modules[index.module_of[caller]].path).splitlines()
    text = "\n".join(lines[definition.start_line - 1:definition.end_line])
    short = cls.rpartition(".")[2]
    return f"{short}(" in text or re.search(rf":\s*{re.escape(short)}\b", text) is not None


class Redirect(cst.CSTTransformer):
    """Point the names (style name/local) and module attributes (style attribute) of callees
    at their copies; keyword names and other attributes are left as written."""

    def __init__(self, links: Sequence[tuple[Link, str]]):
        super().__init__()
        self.names = {item.bound: new for item, new in links
                      if item.style in ("name", "local", "reexport")}
        self.attributes = {(item.bound, item.callee.rpartition(".")[2]): (new, item.style)
                           for item, new in links if item.style in ("attribute", "package")}
        self.methods = {item.bound: new for item, new in links if item.style == "method"}
        self.hits = 0
        self.used: set[str] = set()
        """The new names the node now reads."""

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        new = self.names.get(updated_node.value)
        if new is None:
            return updated_node
        self.hits += 1
        self.used.add(new)
        return updated_node.with_changes(value=new)

    def leave_Attribute(self, original_node: cst.Attribute,
                        updated_node: cst.Attribute) -> cst.BaseExpression:
        value = original_node.value
        if isinstance(value, cst.Name):
            found = self.attributes.get((value.value, original_node.attr.value))
            if found is not None:
                self.hits += 1
                new, style = found
                self.used.add(new)
                if style == "package":  # the package does not re-export the copy
                    return cst.Name(new)
                return updated_node.with_changes(attr=cst.Name(new))
        method = self.methods.get(original_node.attr.value)
        if method is not None:
            self.hits += 1
            self.used.add(method)
            return updated_node.with_changes(attr=cst.Name(method))
        if original_node.attr.value in self.names:
            self.hits -= 1  # `x.g` is no use of the name `g`
        return updated_node.with_changes(attr=original_node.attr)

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        if original_node.keyword is not None and original_node.keyword.value in self.names:
            self.hits -= 1
        return updated_node.with_changes(keyword=original_node.keyword)


def redirected(node: cst.CSTNode, links: Sequence[tuple[Link, str]]) -> tuple[cst.CSTNode, bool]:
    """`node` with its references to the callees of `links` pointed at their copies, and
    whether it referred to every one of them."""
    visitor = Redirect(links)
    result = node.visit(visitor)
    assert isinstance(result, cst.CSTNode)
    return result, visitor.hits > 0 and {new for _, new in links} <= visitor.used


def parameter_names(function: cst.FunctionDef) -> set[str]:
    params = function.params
    found = {param.name.value for param in [*params.posonly_params, *params.params,
                                            *params.kwonly_params]}
    found.update(item.name.value for item in (params.star_arg, params.star_kwarg)
                 if isinstance(item, cst.Param))
    return found


def add_copy(context: InjectionContext, tree: cst.Module, qualname: str, new: str,
             links: Sequence[tuple[Link, str]], rng: random.Random) -> cst.Module:
    """`tree` (the module of `qualname`) with the earlier version of the function, named `new`,
    right above it: its late revisions undone as the seed picks (`variants`), its calls of
    `links`' callees redirected."""
    index = context.index
    module = index.module_of[qualname]
    parts = edit.relative_parts(qualname, module) or []
    function = edit.find_definition(tree, parts)
    if not isinstance(function, cst.FunctionDef) or \
            not isinstance(function.body, cst.IndentedBlock):
        raise InjectionRefused(f"`{qualname}` is not a plain def in its module")
    definition = index.definitions[qualname]
    if definition.end_line - definition.start_line + 1 > MAX_LINES:
        raise InjectionRefused(f"`{qualname}` is longer than {MAX_LINES} lines")
    if any(_decorator(tree, item) not in ("staticmethod", "classmethod")
           for item in function.decorators):
        raise InjectionRefused(f"`{qualname}` is decorated: a copy could be registered too")
    shadowed = parameter_names(function) & {item.bound for item, _ in links}
    if shadowed:
        raise InjectionRefused(f"`{qualname}` has a parameter named `{sorted(shadowed)[0]}`")
    body = list(function.body.body)
    if len(body) > 1 and is_docstring(body[0]):
        body = body[1:]
        body[0] = body[0].with_changes(leading_lines=())
    copy, every = redirected(function.with_changes(
        name=cst.Name(new), body=function.body.with_changes(body=body)), links)
    if links and not every:
        raise InjectionRefused(f"`{qualname}` does not name each of its callees in the "
                               "cluster in writing")
    assert isinstance(copy, cst.FunctionDef)
    copy, _ = earlier_version(copy, [new for _, new in links], rng,
                              context.house_style.line_length - 4 * (len(parts) - 1),
                              parts[-2] if len(parts) > 1 else None)
    if copy.with_changes(name=function.name).deep_equals(
            function.with_changes(body=function.body.with_changes(body=body))):
        raise InjectionRefused(f"the earlier version of `{qualname}` would be its verbatim "
                               "twin: no late revision to undo, no call to redirect")
    nested = len(parts) > 1
    blank = [cst.EmptyLine(indent=False)] * (1 if nested else 2)
    # right above its replacement, which was written below it; the comments above the
    # original stay on top. Below it, the copy's tail and the lines after it would make the
    # longest match for the original's tail, and a diff would show the copy's head inserted
    # into the original (12 of 28 marshmallow and WTForms cases; above: 1, where difflib's
    # autojunk splits the blocks at blank lines)
    pair = [copy.with_changes(leading_lines=function.leading_lines),
            function.with_changes(leading_lines=blank)]
    top = edit.top_index(tree, parts[0])
    if top is None:
        raise InjectionRefused(f"`{qualname}` is not in a top-level statement")
    body = list(tree.body)
    if not nested:
        body[top:top + 1] = pair
        return tree.with_changes(body=body)
    owner = body[top]
    if not isinstance(owner, cst.ClassDef) or not isinstance(owner.body, cst.IndentedBlock):
        raise InjectionRefused(f"`{qualname}` is not a method of a class")
    members = list(owner.body.body)
    position = next(number for number, item in enumerate(members) if item is function)
    members[position:position + 1] = pair
    # the class is a top-level statement: swapping it there spares a walk of the whole tree
    body[top] = owner.with_changes(body=owner.body.with_changes(body=members))
    return tree.with_changes(body=body)


def _decorator(tree: cst.Module, decorator: cst.Decorator) -> str:
    return tree.code_for_node(decorator.decorator)


def import_copy(context: InjectionContext, tree: cst.Module, item: Link, new: str) -> cst.Module:
    """`tree` (the caller's module) importing the copy `new` of the callee where it imports the
    callee: in the same statement when it is a plain module-level one naming several, else in a
    statement of its own, in sorted place (a callee reached through a re-exporting package:
    from its own module, which alone defines the copy)."""
    if item.style in ("attribute", "local", "method"):
        return tree
    index = context.index
    caller_module = index.module_of[item.caller]
    callee_module = index.module_of[item.callee]
    package = index.modules[caller_module].is_package
    if item.style in ("reexport", "package"):
        return insert_from_import(tree, new, callee_module, caller_module, package)
    found = graft.import_statement(tree, item.bound, callee_module, caller_module, package)
    if found is not None and len(found[0].body) == 1:
        line, small = found
        if one_name_per_line(tree):
            return insert_from_import(tree, new, callee_module, caller_module, package)
        return edit.replace(tree, {line: with_name(tree, line, small, new)})
    nested = found or graft.nested_import(tree, item.bound, callee_module, caller_module,
                                          package)
    if nested is None:
        raise InjectionRefused(f"the import of `{item.bound}` in {caller_module} is not a "
                               "module-level statement")
    line, small = nested
    spec = "." * len(small.relative) + (
        tree.code_for_node(small.module) if small.module is not None else "")
    added = cst.parse_statement(f"from {spec} import {new}", config=tree.config_for_parsing)
    result = tree.visit(graft.After(line, added))
    assert isinstance(result, cst.Module)
    return result
