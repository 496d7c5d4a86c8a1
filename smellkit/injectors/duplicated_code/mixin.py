"""Duplicated methods through mixins, when every heir of a method lives in its own module.

Heirs in the method's module (`mixin_local`): one unrelated heir per copy lists first a new mixin
module holding its copy (the first verbatim, the next with renamed locals), so the smell spans the
method's module and the new ones. Every file a case spans holds a real copy: no mixin only passes
the call on. The injector asks for one copy only (easy): several new modules holding the same
method for sibling classes of one module would be files made up for the count.

A mixin holds the copy only, and `__slots__ = ()` when the heir's classes
declare slots (`cst.slots`), so instances keep their layout and every other lookup goes on as
before; the heir lists it first among its bases. Its module imports what
the copy reads, and is refused when one of those imports could lead back to the heir's module.
"""

from __future__ import annotations

import ast
import random
import re
import textwrap
from typing import NamedTuple

import libcst as cst

from smellkit._internal import pyast
from smellkit.errors import InjectionRefused
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import edit
from smellkit.injectors.cst.imports import add_imports, merged
from smellkit.injectors.cst.slots import SLOTS_LINE, uses_slots
from smellkit.injectors.duplicated_code import copying
from smellkit.injectors.duplicated_code import helper as helping
from smellkit.injectors.duplicated_code.names import local_names, mixin_names

Made = tuple[dict[str, str | None], list[str]]
"""The changed files and the copies' qualnames."""


class _Mixin(NamedTuple):
    """A new mixin module beside the heir's: its path, module name, stem and class name."""

    path: str
    module: str
    stem: str
    class_name: str

    def base(self) -> cst.Arg:
        return cst.Arg(value=cst.Name(self.class_name),
                       comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))

    def import_line(self, package: str, relative: bool) -> tuple[str, str]:
        """The heir's module imports it relatively when it imports its package so."""
        return (self.module, f"from .{self.stem} import {self.class_name}"
                if package and relative else f"from {self.module} import {self.class_name}")


def _new_mixin(context: InjectionContext, helper: helping.Helper, heir: str,
               taken: set[str], rng: random.Random) -> _Mixin:
    """Names for a new mixin module beside `heir`'s module, made of the repository's words and
    free there; refused when there are none."""
    module = context.index.module_of[heir]
    facts = context.index.modules[module]
    if facts.is_package:
        raise InjectionRefused(f"{facts.path} is a package's `__init__`")
    if context.module(facts.path).default_indent != "    " or \
            context.module(helper.path).default_indent != "    ":
        raise InjectionRefused("only modules indented by four spaces get a mixin")
    stem, class_name = mixin_names(context, helper.name, heir, taken, rng,
                                   owner=helper.qualname.rpartition(".")[0].rpartition(".")[2])
    folder = facts.path.rpartition("/")[0]
    path = f"{folder}/{stem}.py" if folder else f"{stem}.py"
    package = module.rpartition(".")[0]
    return _Mixin(path, f"{package}.{stem}" if package else stem, stem, class_name)


def mixin_local(context: InjectionContext, helper: helping.Helper, heirs: list[str],
                copies: int, rng: random.Random) -> tuple[Made, list[str]]:
    """Heirs in the method's own module: `copies` unrelated heirs (in the order given) each list
    first a new mixin module holding a copy (the first verbatim, the next with renamed locals).
    Also returns the heirs that list a new mixin."""
    index = context.index
    module = index.module_of[helper.qualname]
    facts = index.modules[module]
    tree = context.module(facts.path)
    chosen: list[tuple[str, cst.ClassDef, int]] = []
    for heir in heirs:
        node = edit.find_definition(tree, [heir.rpartition(".")[2]])
        position = edit.top_index(tree, heir.rpartition(".")[2])
        related = any(heir in index.mro(other) or other in index.mro(heir)
                      for other, _, _ in chosen)  # one copy would hide the other's
        related = related or _patched(context, heir)
        if isinstance(node, cst.ClassDef) and node.bases and position is not None and \
                index.module_of.get(heir) == module and not related:
            chosen.append((heir, node, position))
        if len(chosen) == copies:
            break
    if len(chosen) < copies:
        raise InjectionRefused(f"`{helper.qualname}` has fewer than {copies} unrelated plain "
                               f"top-level heirs in {facts.path} to take a mixin (that no "
                               "module-level statement patches)")
    package = module.rpartition(".")[0]
    relative = _relative(context, module)
    taken: set[str] = set()
    changes: dict[str, str | None] = {}
    made: list[str] = []
    imports: list[tuple[str, str]] = []
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    for number, (heir, node, _) in enumerate(chosen):
        bases: list[cst.Arg] = []
        holder = _new_mixin(context, helper, heir, taken, rng)
        changes[holder.path] = _mixin_text(context, helper, module, holder.module,
                                           holder.class_name, rng, renamed=number > 0,
                                           slotted=uses_slots(context, [heir]))
        bases.append(holder.base())
        imports.append(holder.import_line(package, relative))
        replacements[node] = node.with_changes(bases=[*bases, *node.bases])
        made.append(f"{holder.module}.{holder.class_name}.{helper.name}")
    result = edit.replace(tree, replacements)
    first = min(position for _, _, position in chosen)
    changes[facts.path] = add_imports(result, tree, first, imports, module).code
    return (changes, made), [heir for heir, _, _ in chosen]


def _patched(context: InjectionContext, heir: str) -> bool:
    """Whether a module-level statement sets or deletes an attribute of the heir or of a class
    it inherits from (jinja2 deletes its undefined types' `__slots__` once they are built): the
    mixin's own `__slots__` and members would show through."""
    index = context.index
    for cls in index.mro(heir):
        module = index.module_of.get(cls)
        if module is None or cls not in index.classes:
            continue
        name = cls.rpartition(".")[2]
        for statement in context.module(index.modules[module].path).body:
            if isinstance(statement, (cst.ClassDef, cst.FunctionDef)):
                continue
            for node in edit.subtree(statement):
                if isinstance(node, (cst.Del, cst.AssignTarget, cst.AugAssign)):
                    for item in edit.subtree(node.target):
                        if isinstance(item, cst.Attribute) and \
                                isinstance(item.value, cst.Name) and item.value.value == name:
                            return True
    return False


def _relative(context: InjectionContext, module: str) -> bool:
    """Whether the module imports anything relatively (then a new sibling is imported so)."""
    return any(item.level for item in context.index.modules[module].imports)


def _class_text(class_name: str, members: list[cst.BaseStatement], slotted: bool,
                head: str = "") -> str:
    """A module holding one class with these members (first `__slots__ = ()` when
    `slotted`), after `head`."""
    skeleton = cst.parse_module(f"{head.rstrip()}\n\n\nclass {class_name}:\n    {SLOTS_LINE}\n"
                                if head else f"class {class_name}:\n    {SLOTS_LINE}\n")
    cls = skeleton.body[-1]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    if not slotted:  # the first member opens the body: no blank line above it
        members = [members[0].with_changes(leading_lines=[]), *members[1:]]
    body = cls.body.with_changes(body=[*(cls.body.body if slotted else ()), *members])
    return edit.replace(skeleton, {cls: cls.with_changes(body=body)}).code


def _mixin_text(context: InjectionContext, helper: helping.Helper, holder_module: str,
                mixin_module: str, class_name: str, rng: random.Random, *,
                renamed: bool = True, slotted: bool) -> str:
    """The new module: the imports the copy needs, then the mixin class with the copy (its
    locals renamed, or verbatim). A name only its annotations read that the mixin could not
    import without a cycle (`ctx: Context` of the heir's module) is imported for type checking,
    annotations postponed: what a person writes in such a module, and calls behave the same."""
    imports: list[str] = []
    typing_only: list[str] = []
    relative = _relative(context, holder_module)
    for name, meaning in sorted(helper.reads.items()):
        if meaning.statement is None or meaning.source is None:
            continue  # a builtin: nothing in the new module shadows it
        line = helping.relative(meaning.statement, meaning.source, mixin_module,
                                allowed=relative)
        if meaning.source == holder_module or \
                holder_module in helping.eager_reach(context, meaning.source):
            if name not in helper.annotation_only or "TYPE_CHECKING" in helper.reads:
                raise InjectionRefused(f"importing `{name}` into a mixin of {holder_module} "
                                       "could close an import cycle")
            typing_only.append(line)
            continue
        imports.append(line)
    facts = context.index.modules[helper.module]
    for name in sorted(_quoted_annotation_names(context, helper) - set(helper.reads)):
        bound = copying.binding(context.index, facts, name)
        if bound is not None and bound.statement is not None and bound.source is not None:
            typing_only.append(helping.relative(bound.statement, bound.source, mixin_module,
                                                allowed=relative))
            continue
        typed = [item for item in facts.imports if item.scope == facts.module
                 and item.bound == name and item.type_only and item.is_from]
        if len(typed) != 1:
            raise InjectionRefused(f"`{name}`, named in a quoted annotation, cannot be bound in a "
                                   f"mixin of {holder_module}")
        source, _, attribute = typed[0].target.rpartition(".")
        alias = "" if attribute == name else f" as {name}"
        typing_only.append(helping.relative(f"from {source} import {attribute}{alias}", source,
                                            mixin_module, allowed=relative))
    mapping = local_names(helper.locals_, context.module(helper.path).code_for_node(helper.node),
                          context.vocabulary.near(holder_module), rng) if renamed else {}
    if renamed and not mapping:  # modules differing only in the class name: plainly generated
        raise InjectionRefused(f"`{helper.qualname}` has no local to rename: a further mixin "
                               "would repeat the first byte for byte")
    head = "from __future__ import annotations\n\n" if helper.future or typing_only else ""
    # plain imports, then absolute, then relative ones, as modules are usually laid out
    imports.sort(key=lambda line: (line.startswith("from ."), line.startswith("from "), line))
    guard = "TYPE_CHECKING"
    if typing_only:
        typing = next((match for line in imports
                       if (match := re.fullmatch(r"import typing(?: as (\w+))?", line))), None)
        if typing is not None:  # `import typing as t`: the guard is `t.TYPE_CHECKING`
            guard = f"{typing[1] or 'typing'}.TYPE_CHECKING"
        else:
            head += "from typing import TYPE_CHECKING\n\n" if imports else \
                "from typing import TYPE_CHECKING\n"
    lines = merged(imports)
    head += "".join(("\n" if number and line.startswith("from .") and
                     not lines[number - 1].startswith("from .") else "") + f"{line}\n"
                    for number, line in enumerate(lines))
    if typing_only:
        head += f"\nif {guard}:\n" + "".join(f"    {line}\n" for line in merged(typing_only))
    copy = copying.renamed_copy(helper.node, helper.name, mapping).with_changes(
        leading_lines=[cst.EmptyLine(indent=False)])
    return _class_text(class_name, [copy], slotted, head)


def _quoted_annotation_names(context: InjectionContext, helper: helping.Helper) -> set[str]:
    """Names the copy's quoted annotations read (`t.List["Parameter"]`): a checker resolves them
    in the new module too, so it must bind them (for type checking)."""
    text = textwrap.dedent(context.module(helper.path).code_for_node(helper.node))
    function = pyast.parse(text).body[0]
    assert isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
    arguments = function.args
    annotations = [function.returns, *(item.annotation for item in (
        *arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg,
        arguments.kwarg) if item is not None)]
    annotations.extend(node.annotation for node in ast.walk(function)
                       if isinstance(node, ast.AnnAssign))
    found: set[str] = set()
    for annotation in annotations:
        for node in ast.walk(annotation) if annotation is not None else ():
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:
                    quoted = pyast.parse(node.value.strip(), mode="eval")
                except SyntaxError:
                    continue
                found.update(item.id for item in ast.walk(quoted) if isinstance(item, ast.Name))
    return found
