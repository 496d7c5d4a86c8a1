"""The hard duplicated method when the heirs of a method live in two modules only: one heir gets
a copy, another gets it from a new mixin module (a second copy, renamed where the detector still
sees it), and a third heir gets a method that only delegates to `super()` (the red herring).

The mixin has `__slots__ = ()` and no other member, so instances keep their layout and every
other lookup goes on as before; the heir lists it first among its bases. Its module imports what
the copy reads, and is refused when one of those imports could lead back to the heir's module.
"""

from __future__ import annotations

import random

import libcst as cst

from smellkit.injectors import _dead_code_cst as edit
from smellkit.injectors import _duplicated_code_copy as copying
from smellkit.injectors import _duplicated_code_helper as helping
from smellkit.injectors._duplicated_code_methods import place_method
from smellkit.injectors.base import InjectionContext, Skip

Made = tuple[dict[str, str | None], list[str], str]
"""The changed files, the copies' qualnames, the red herring's qualname."""


def mixin_hard(context: InjectionContext, helper: helping.Helper, heirs: list[str],
               rng: random.Random) -> Made | Skip:
    index = context.index
    params = helper.node.params.params
    if helper.decorator is not None or helper.node.asynchronous is not None or \
            not params or params[0].name.value != "self":
        return Skip(f"`{helper.qualname}` is not a plain method a look-alike can delegate to")
    by_module: dict[str, list[str]] = {}
    for heir in heirs:
        by_module.setdefault(index.module_of[heir], []).append(heir)
    options = [(module, first, second) for module, classes in sorted(by_module.items())
               for first in classes for second in classes if first != second]
    rng.shuffle(options)
    refusal = Skip(f"the heirs of `{helper.qualname}` are not three classes in two modules")
    for module, holder, herring in options:
        for other in sorted(by_module):
            if other == module:
                continue
            for heir in by_module[other]:
                copied = place_method(context, helper, heir, "copy")
                if isinstance(copied, Skip):
                    refusal = copied
                    continue
                mixed = _with_mixin(context, helper, module, holder, herring)
                if isinstance(mixed, Skip):
                    refusal = mixed
                    continue
                changes, mixin = mixed
                changes[index.modules[other].path] = copied[0]
                return changes, [copied[1], mixin], f"{herring}.{helper.name}"
    return refusal


def _with_mixin(context: InjectionContext, helper: helping.Helper, module: str, holder: str,
                herring: str) -> tuple[dict[str, str | None], str] | Skip:
    """The new mixin module, and `module` with `holder` inheriting it first and `herring`
    delegating; the mixin copy's qualname."""
    index = context.index
    facts = index.modules[module]
    if facts.is_package:
        return Skip(f"{facts.path} is a package's `__init__`")
    tree = context.module(facts.path)
    if tree.default_indent != "    " or context.module(helper.path).default_indent != "    ":
        return Skip("only modules indented by four spaces get a mixin")
    base = helper.name.strip("_") or "method"
    class_name = "_" + "".join(part.title() for part in base.split("_")) + "Mixin"
    folder = facts.path.rpartition("/")[0]
    path = context.free_path(folder, f"_{base.lower()}_mixin")
    stem = path.rpartition("/")[2].removesuffix(".py")
    package = module.rpartition(".")[0]
    mixin_module = f"{package}.{stem}" if package else stem
    source = context.source(facts.path)
    if not edit.name_free(source, class_name) or not edit.name_free(source, stem):
        return Skip(f"`{class_name}` or `{stem}` is already a name in {facts.path}")
    text = _mixin_text(context, helper, module, mixin_module, class_name)
    if isinstance(text, Skip):
        return text
    nodes = {name: edit.find_definition(tree, [name.rpartition(".")[2]])
             for name in (holder, herring)}
    first, second = nodes[holder], nodes[herring]
    if not isinstance(first, cst.ClassDef) or not isinstance(second, cst.ClassDef) or \
            not first.bases or not isinstance(second.body, cst.IndentedBlock):
        return Skip(f"`{holder}` or `{herring}` is not a plain top-level class")
    mixin_base = cst.Arg(value=cst.Name(class_name),
                         comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    delegate = cst.parse_statement(
        f"def {helper.name}(self, *args, **kwargs):\n"
        f"    return super().{helper.name}(*args, **kwargs)\n",
        config=tree.config_for_parsing).with_changes(
        leading_lines=[cst.EmptyLine(indent=False)])
    result = edit.replace(tree, {
        first: first.with_changes(bases=[mixin_base, *first.bases]),
        second: second.with_changes(body=second.body.with_changes(
            body=[*second.body.body, delegate]))})
    position = edit.top_index(tree, holder.rpartition(".")[2])
    assert position is not None
    result = helping.add_imports(result, tree, position, [
        (mixin_module, f"from .{stem} import {class_name}" if package else
         f"from {stem} import {class_name}")], module)
    return ({facts.path: result.code, path: text},
            f"{mixin_module}.{class_name}.{helper.name}")


def _mixin_text(context: InjectionContext, helper: helping.Helper, holder_module: str,
                mixin_module: str, class_name: str) -> str | Skip:
    """The new module: the imports the copy needs, then the mixin class with the copy."""
    imports: list[str] = []
    for name, meaning in sorted(helper.reads.items()):
        if meaning.statement is None or meaning.source is None:
            continue  # a builtin: nothing in the new module shadows it
        if meaning.source == holder_module or \
                holder_module in helping.eager_reach(context, meaning.source):
            return Skip(f"importing `{name}` into a mixin of {holder_module} could close an "
                        "import cycle")
        imports.append(helping.relative(meaning.statement, meaning.source, mixin_module))
    mapping = copying.new_names(
        helper.locals_, context.module(helper.path).code_for_node(helper.node))
    head = "from __future__ import annotations\n\n" if helper.future else ""
    head += "".join(f"{line}\n" for line in helping.merged(imports))
    skeleton = cst.parse_module(f"{head}\n\nclass {class_name}:\n    __slots__ = ()\n")
    cls = skeleton.body[-1]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    copy = copying.renamed_copy(helper.node, helper.name, mapping).with_changes(
        leading_lines=[cst.EmptyLine(indent=False)])
    body = cls.body.with_changes(body=[*cls.body.body, copy])
    return edit.replace(skeleton, {cls: cls.with_changes(body=body)}).code
