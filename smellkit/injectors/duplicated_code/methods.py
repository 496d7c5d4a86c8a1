"""Duplicated methods: subclasses in other modules get their own copy of a method they inherit.

A subclass S that inherits `K.m` unchanged can define an identical `m` without changing what any
call does, provided nothing between S and K in the method resolution order could provide `m`
(every class on the way is in the repository and defines no `m`, as a def or a class attribute),
the method has no `super()`, `__class__` or name-mangled names (they depend on the class the
code sits in), and every global it reads means the same object in S's module.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

import libcst as cst

from smellkit.config import is_test_path
from smellkit.errors import InjectionRefused
from smellkit.facts import Definition
from smellkit.graphs.index import Index
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import edit
from smellkit.injectors.cst.imports import add_imports, without_unused
from smellkit.injectors.duplicated_code import copying
from smellkit.injectors.duplicated_code import helper as helping
from smellkit.injectors.duplicated_code.detached import detached_candidates
from smellkit.injectors.duplicated_code.names import local_names
from smellkit.models import Candidate

LOCAL_HEIRS = ("a method whose subclasses all live in its own module: a copy would reach a "
               "second file only through a new mixin module, a file made up for the count")
"""SmellBench injects without creating files; a one-class module holding a verbatim copy of a
method for one heir is one no person writes."""
MAX_METHODS_PER_CLASS = 3
"""Copies of more methods of one class would all go to the same few subclasses: when the tests
do not run one there, they seldom run the others, and cases would repeat one another."""


def method_candidates(context: InjectionContext, smell: str,
                      cloned: dict[str, list[tuple[int, int]]],
                      sources: helping.Sources | None = None) -> Iterator[Candidate]:
    """Methods of at least six lines of code inherited unchanged by subclasses in other
    modules, whose text allows a copy (`helping.examine`). A method whose subclasses all live
    in its own module is none: its copy could reach a second file only through a new module
    made to hold it (`LOCAL_HEIRS`)."""
    sources = sources or helping.Sources(context)
    index = context.index
    for cls in sorted(index.classes):
        module = index.module_of.get(cls)
        if module is None or index.definitions[cls].parent != module:
            continue
        path = index.modules[module].path
        if is_test_path(path):
            continue
        heirs = [item for item in index.descendants(cls)
                 if (other := index.module_of.get(item)) not in (None, module)
                 and index.definitions[item].parent == other
                 and not is_test_path(index.modules[other].path)]
        members = index.children.get(cls, {})
        methods = [qualname for qualname in members.values()
                   if index.definitions[qualname].kind == "method"]
        detached = list(detached_candidates(
            context, smell, cls, [qualname for qualname in methods if _method_rule(
                index, index.definitions[qualname], members, cloned.get(path, ())) is None],
            sources))
        yield from detached
        if not heirs and any(index.module_of.get(item) == module
                             for item in index.descendants(cls)):
            # a copy could only reach a second file through a new module holding it for a
            # sibling class: a file made up for the count, at every difficulty
            context.discard(LOCAL_HEIRS, len(methods))
            continue
        if not heirs:
            context.discard("a method no subclass inherits", len(methods))
            continue
        found: list[Candidate] = []
        for name, qualname in sorted(members.items()):
            definition = index.definitions[qualname]
            if definition.kind != "method" or qualname in {
                    item.target.qualname for item in detached}:
                continue  # a copy where it is called is the real duplication
            rule = _method_rule(index, definition, members, cloned.get(path, ()))
            if rule is None and not any(_inherits(index, item, cls, name) for item in heirs):
                rule = ("overridden (or reachable another way) in every subclass that could "
                        "take a copy")
            if rule is not None:
                context.discard(rule)
                continue
            inheriting = sorted(item for item in heirs if _inherits(index, item, cls, name))
            lines = definition.end_line - definition.start_line + 1
            location = context.location(qualname)
            if location is None or not helping.copyable(context, qualname, sources):
                context.discard("its code cannot be copied as is (reads a rebound or unknown "
                                "name, super(), frames or globals)")
                continue
            modules = sorted({index.module_of[item] for item in inheriting})
            found.append(Candidate(
                smell=smell, target=location,
                reason=f"`{qualname}` ({lines} lines) is inherited unchanged by "
                       f"{len(inheriting)} subclass(es) in {len(modules)} other module(s): "
                       "each can get its own copy",
                files=(path, *(index.modules[item].path for item in modules)),
                data={"classes": inheriting}))
        found.sort(key=lambda item: (-len(set(index.call_graph.predecessors(
            item.target.qualname))) if item.target.qualname in index.call_graph else 0,
            item.target.end_line - item.target.start_line, item.target.qualname))
        if len(found) > MAX_METHODS_PER_CLASS:
            context.discard(f"a method of a class with more than {MAX_METHODS_PER_CLASS} "
                            "candidates (those called from most places kept, then the "
                            "shortest: the others' copies would land in the same subclasses)",
                            len(found) - MAX_METHODS_PER_CLASS)
        yield from found[:MAX_METHODS_PER_CLASS]


def _method_rule(index: Index, definition: Definition, members: dict[str, str],
                 cloned: Iterable[tuple[int, int]]) -> str | None:
    """The discovery rule that turns a method away, None when none does."""
    if definition.is_stub:
        return "a stub"
    if definition.end_line - definition.start_line + 1 < helping.MIN_CODE_LINES:
        return f"shorter than {helping.MIN_CODE_LINES} lines"
    if not set(definition.decorators) <= helping.PLAIN_DECORATORS or any(
            decorator.startswith(f"{definition.name}.") for member in members.values()
            for decorator in index.definitions[member].decorators):
        return "decorated (other than property, staticmethod, classmethod)"
    if any(start <= definition.end_line and end >= definition.start_line
           for start, end in cloned):
        return "already part of a group of duplicated code"
    return None


def _inherits(index: Index, cls: str, base: str, name: str) -> bool:
    """Whether `cls` gets `base.name` and nothing else could come first in its MRO: every class
    before `base` is in the repository, with only repository bases, and none binds `name`; and
    no class decorator, metaclass or `__init_subclass__` can see what the class body defines."""
    order = index.mro(cls)
    if base not in order or index.lookup_method(cls, name) != f"{base}.{name}" or \
            index.definitions[cls].decorators:
        return False
    if any(index.classes[item].metaclass or "__init_subclass__" in index.children.get(item, {})
           for item in order if item in index.classes):
        return False  # a hook that may read the class body
    for item in order[:order.index(base)]:
        info = index.classes.get(item)
        if info is None or any(attribute.name == name for attribute in info.attributes):
            return False
        if any(resolved not in index.classes for resolved in index.bases(item)):
            return False
    return True


def place_method(context: InjectionContext, helper: helping.Helper, cls: str,
                 role: str, rng: random.Random) -> tuple[str, str]:
    """S's module with the copy at the end of S's body (renamed locals unless `role` is
    `copy`)."""
    index = context.index
    module = index.module_of[cls]
    facts = index.modules[module]
    tree = context.module(facts.path)
    class_name = cls.rpartition(".")[2]
    position = edit.top_index(tree, class_name)
    node = edit.find_definition(tree, [class_name])
    if position is None or not isinstance(node, cst.ClassDef) or \
            not isinstance(node.body, cst.IndentedBlock):
        raise InjectionRefused(f"`{cls}` is not a plain top-level class of {facts.path}")
    if tree.default_indent != context.module(helper.path).default_indent:
        raise InjectionRefused(f"{facts.path} and {helper.path} indent differently")
    needs = helping.bindings(context, helper, module, index.definitions[cls].start_line)
    mapping = {} if role == "copy" else needs.free(local_names(
        helper.locals_, context.module(helper.path).code_for_node(helper.node),
        context.vocabulary.near(module), rng))
    added = copying.renamed_copy(needs.applied(helper.node), helper.name, mapping)
    added = added.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    body = node.body.with_changes(body=[*node.body.body, added])
    result = edit.replace(tree, {node: node.with_changes(body=body)})
    result = add_imports(result, tree, position, needs.imports, module, facts.is_package)
    return without_unused(context, module, tree, result).code, f"{cls}.{helper.name}"
