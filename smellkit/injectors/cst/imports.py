"""Imports in modules being edited: where the opening import block ends, adding imports there,
merging names into an existing `from` import, and dropping the imports an edit left unused.
Every injector adds imports through these."""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import libcst as cst

from smellkit._internal import pyast
from smellkit.errors import InjectionRefused
from smellkit.injectors.cst import edit

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def is_import_line(line: cst.CSTNode) -> bool:
    """A top-level line holding imports only."""
    return isinstance(line, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in line.body)


def is_docstring(line: cst.CSTNode) -> bool:
    return (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
            and isinstance(line.body[0], cst.Expr)
            and isinstance(line.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def after_last_import(body: Sequence[cst.BaseStatement], limit: int | None = None, *,
                      any_import: bool = False) -> int:
    """The position right after the last top-level import line among `body[:limit]`, 0 when
    there is none. `any_import` counts a line that mixes an import with other statements."""
    position = 0
    for number, line in enumerate(body[:limit]):
        if is_import_line(line) or (any_import and isinstance(line, cst.SimpleStatementLine)
                                    and any(isinstance(small, (cst.Import, cst.ImportFrom))
                                            for small in line.body)):
            position = number + 1
    return position


def opening_block(body: Sequence[cst.BaseStatement]) -> tuple[int, int]:
    """Where the opening block of import lines starts (after a docstring) and ends."""
    start = 1 if body and is_docstring(body[0]) else 0
    end = start
    while end < len(body) and is_import_line(body[end]):
        end += 1
    return start, end


def insert_import(module: cst.Module, statement: str) -> cst.Module:
    """The module with an import where isort (and ruff's `I001`) puts it in the opening import
    block: in the group of its section (`__future__`, the standard library, the group already
    importing its top-level package, relative imports), plain `import x` lines before
    `from x import y` ones, sorted by module; a new group of its own where its section has
    none. After the docstring, a blank line between, when the module imports nothing yet."""
    body = list(module.body)
    start, end = opening_block(body)
    new = cst.parse_statement(statement)
    if end == start:  # the first import: a blank line below the docstring
        if start:
            new = new.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        return module.with_changes(body=[*body[:start], new, *body[start:]])
    groups: list[list[int]] = []
    for position in range(start, end):
        if not groups or any(line.comment is None for line in body[position].leading_lines):
            groups.append([])  # a blank line opens a group (the first one opens the block)
        groups[-1].append(position)
    key = _order(new)
    section = _section(new)
    mixed = len(groups) == 1 and len({_section(body[position])[0] for position in groups[0]}) > 1
    same = groups[0] if mixed else next(  # one mixed group: the module does not split them
        (group for group in groups if any(_section(body[position]) == section
                                          for position in group)), None)
    if same is None and section[0] in (0, 1, 4):  # the standard library, `__future__`, relative
        same = next((group for group in groups
                     if all(_section(body[position])[0] == section[0] for position in group)),
                    None)
    if same is None:  # a group of its own, before the first group of a later section
        later = next((group for group in groups if _section(body[group[0]])[0] > section[0]),
                     None) if section[0] in (0, 1, 4) else None
        if later is None:
            new = new.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
            return module.with_changes(body=[*body[:end], new, *body[end:]])
        first = body[later[0]]
        new = new.with_changes(leading_lines=first.leading_lines)
        body[later[0]] = first.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        return module.with_changes(body=[*body[:later[0]], new, *body[later[0]:]])
    at = next((position for position in same if _order(body[position]) > key), None)
    if at is None:
        at = same[-1] + 1
    elif at == same[0]:  # the new line opens the group: it takes the group's leading lines
        new = new.with_changes(leading_lines=body[at].leading_lines)
        body[at] = body[at].with_changes(leading_lines=[])
    return module.with_changes(body=[*body[:at], new, *body[at:]])


def _parts(line: cst.CSTNode) -> tuple[bool, int, str]:
    """An import line's style (`from`), relative level and module name."""
    assert isinstance(line, cst.SimpleStatementLine)
    small = line.body[0]
    code = cst.Module([]).code_for_node
    if isinstance(small, cst.ImportFrom):
        return True, len(small.relative), code(small.module) if small.module else ""
    assert isinstance(small, cst.Import)
    return False, 0, code(small.names[0].name)


def _section(line: cst.CSTNode) -> tuple[int, str]:
    """isort's section of an import line, with its top-level package: 0 `__future__`, 1 the
    standard library, 2 any other absolute import, 4 a relative one."""
    _, level, name = _parts(line)
    top = name.partition(".")[0]
    if level:
        return 4, "."
    if top == "__future__":
        return 0, top
    return (1 if top in sys.stdlib_module_names else 2), top


def _order(line: cst.CSTNode) -> tuple[int, bool, int, str]:
    """isort's order: by section, then plain imports first, the furthest relative level
    first, then the module name, ignoring case."""
    is_from, level, name = _parts(line)
    return _section(line)[0], is_from, -level, name.lower()


def add_imports(result: cst.Module, original: cst.Module, position: int,
                imports: list[tuple[str, str]], module: str,
                package: bool = False, *, in_order: bool = False) -> cst.Module:
    """`imports` added to a top-level `from` import of the same module before `position` when
    there is one (last among its names; `in_order`: in their isort place when the names are
    sorted so), else after the last top-level import before `position` (of `original`)."""
    if not imports:
        return result
    rest = list(imports)
    for number, statement in enumerate(original.body[:position]):
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        small = statement.body[0]
        if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
            continue
        source = edit.absolute_module(original, small, module, package)
        # only `from` imports join it: a plain `import docutils.utils` beside
        # `from docutils import nodes` stays a line of its own
        joining = [(item, text) for item, text in rest
                   if item == source and text.startswith("from ")]
        same = [text.partition(" import ")[2] for _, text in joining]
        if not same:
            continue
        names = [original.code_for_node(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
                 for alias in small.names]
        spec = "." * len(small.relative) + (
            original.code_for_node(small.module) if small.module is not None else "")
        (text,) = merged([f"from {spec} import {name}"
                          for name in _extended(names, sorted(set(same) - set(names)),
                                                in_order)],
                         ordered=False)
        new = edit.statement(original, text, 0).with_changes(
            leading_lines=statement.leading_lines,
            trailing_whitespace=statement.trailing_whitespace)
        body: list[cst.BaseStatement] = list(result.body)
        body[number] = new
        result = result.with_changes(body=body)
        rest = [item for item in rest if item not in joining]
    if not rest:
        return result
    after = after_last_import(original.body, position, any_import=True) or position
    if after == opening_block(original.body)[1] > opening_block(original.body)[0]:
        for text in merged([text for _, text in rest]):  # in the opening block: where isort
            result = insert_import(result, text)        # puts them
        return result
    return edit.insert_top(result, after, [edit.statement(original, text, 0)
                                           for text in merged([text for _, text in rest])])


def _extended(names: list[str], new: list[str], in_order: bool = True) -> list[str]:
    """`names` of a `from` import with `new` ones added: each in its isort place when
    `in_order` and the names are sorted as isort sorts them, else last (the module keeps an
    order of its own)."""
    keys = [isort_key(name.split()[0]) for name in names]
    if not in_order or keys != sorted(keys):
        return [*names, *new]
    return sorted([*names, *new], key=lambda name: isort_key(name.split()[0]))


def merged(imports: list[str], ordered: bool = True) -> list[str]:
    """One `from X import a, b` per module X, in the order the modules first appear; the names
    sorted when `ordered`, else as given. A line too long for the repository is wrapped with
    the rest of the edit's new lines (`restyle.restyle`), at its line length."""
    groups: dict[str, list[str]] = {}
    for statement in imports:
        head, separator, imported = statement.partition(" import ")
        if head.startswith("from "):
            groups.setdefault(head + separator, []).append(imported)
        else:
            groups.setdefault(statement, [])
    lines = []
    for head, names in groups.items():
        names = sorted(names) if ordered else names
        lines.append(head + ", ".join(names) if names else head)
    return lines


def reads(module: cst.Module) -> set[str]:
    """Names the module reads, as pyflakes counts uses of an import: names outside import
    statements (attribute and keyword names aside), and the words of string annotations and
    of `__all__` entries."""
    found: set[str] = set()
    stores: set[int] = set()  # names bound, not read: a parameter, a def, an assignment target

    def store(target: cst.CSTNode | None) -> None:
        if isinstance(target, cst.Name):
            stores.add(id(target))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                store(element.value)
        elif isinstance(target, cst.StarredElement):
            store(target.value)

    class Collect(cst.CSTVisitor):
        def visit_Param(self, node: cst.Param) -> None:
            store(node.name)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            store(node.name)

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            store(node.name)

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            store(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if node.value is not None:
                store(node.target)

        def visit_For(self, node: cst.For) -> None:
            store(node.target)

        def visit_CompFor(self, node: cst.CompFor) -> None:
            store(node.target)

        def visit_AsName(self, node: cst.AsName) -> None:
            store(node.name)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            store(node.target)

        def visit_Import(self, node: cst.Import) -> bool:
            return False

        def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
            return False

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if id(node) not in stores:
                found.add(node.value)

        def visit_Annotation(self, node: cst.Annotation) -> None:
            found.update(_words_of_strings(node))

        def visit_Assign(self, node: cst.Assign) -> None:
            if any(isinstance(target.target, cst.Name) and target.target.value == "__all__"
                   for target in node.targets):
                found.update(_words_of_strings(node.value))

    for statement in module.body:
        statement.visit(Collect())
    return found


def _words_of_strings(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_SimpleString(self, inner: cst.SimpleString) -> None:
            found.update(_IDENTIFIER.findall(inner.value))

    node.visit(Collect())
    return found


def bound_name(alias: cst.ImportAlias) -> str:
    """The name an import alias binds (`import a.b` binds `a`)."""
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return cst.Module([]).code_for_node(alias.name).split(".")[0]


@lru_cache(maxsize=32)
def _unused_imports(code: str) -> frozenset[str]:
    """The imports pyflakes reports unused, as it names them (`.utils.echo`, `a as b`)."""

    from pyflakes.checker import Checker
    from pyflakes.messages import UnusedImport

    try:
        tree = pyast.parse(code)
    except (SyntaxError, ValueError):
        return frozenset()
    return frozenset(str(message.message_args[0]) for message in Checker(tree).messages
                     if isinstance(message, UnusedImport))


def _flakes_name(small: cst.Import | cst.ImportFrom, alias: cst.ImportAlias) -> str:
    """How pyflakes names the import of one alias."""
    code = cst.Module([]).code_for_node
    name = code(alias.name)
    if isinstance(small, cst.ImportFrom):
        source = "." * len(small.relative) + (code(small.module) if small.module else "")
        name = f"{source}.{name}" if source and not source.endswith(".") else source + name
    if alias.asname is not None:
        name += f" as {code(alias.asname.name)}"
    return name


def left_unused(original: cst.Module, new: cst.Module) -> frozenset[str]:
    """The imports `new` leaves unused that `original` used, as pyflakes names them."""
    return _unused_imports(new.code) - _unused_imports(original.code)


def drop_unused(original: cst.Module, new: cst.Module) -> tuple[cst.Module, list[str]]:
    """`new` without the top-level imports it leaves unused that `original` used (an edit that
    redirected or pasted away every use), and the names dropped. An import the original left
    unused stays: it was the repository's own (a re-export, a side effect)."""
    unused = left_unused(original, new)
    if not unused:
        return new, []
    return _drop_aliases(new, lambda small, alias: _flakes_name(small, alias) in unused)


def _drop_aliases(module: cst.Module,
                  doomed: Callable[[cst.Import | cst.ImportFrom, cst.ImportAlias], bool],
                  ) -> tuple[cst.Module, list[str]]:
    """`module` without the top-level import aliases `doomed` picks (a statement left empty
    goes, its comments carried to the next one), and the names they bound."""
    dropped: list[str] = []
    body: list[cst.BaseStatement] = []
    carried: list[cst.EmptyLine] = []  # the blank lines and comments of a dropped line
    for statement in module.body:
        if carried:
            if any(line.comment is None for line in statement.leading_lines):
                # the next statement brings its own blank lines: two runs would stack up
                carried = [line for line in carried if line.comment is not None]
            statement = statement.with_changes(leading_lines=[*carried,
                                                              *statement.leading_lines])
            carried = []
        if not is_import_line(statement):
            body.append(statement)
            continue
        assert isinstance(statement, cst.SimpleStatementLine)
        smalls: list[cst.BaseSmallStatement] = []
        for small in statement.body:
            assert isinstance(small, (cst.Import, cst.ImportFrom))
            if isinstance(small.names, cst.ImportStar):
                smalls.append(small)
                continue
            kept = []
            for alias in small.names:
                if doomed(small, alias):
                    dropped.append(bound_name(alias))
                else:
                    kept.append(alias)
            if len(kept) == len(small.names):
                smalls.append(small)
            elif kept:
                # the last name ends as the old last did: a trailing comma before `)` stays
                kept[-1] = kept[-1].with_changes(comma=small.names[-1].comma)
                smalls.append(small.with_changes(names=kept))
        if smalls:
            smalls[-1] = smalls[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            body.append(statement.with_changes(body=smalls))
        else:
            carried = list(statement.leading_lines)
    if not dropped:
        return module, []
    return module.with_changes(body=body), dropped


def _names_used(module: cst.Module) -> set[str]:
    """Names the module reads outside its top-level import statements (the heads of dotted
    names included; the words of quoted annotations and of assigned strings, as `__all__`,
    too; docstrings and other strings not)."""
    import re

    found: set[str] = set()
    for statement in module.body:
        if is_import_line(statement) and "__all__" not in cst.Module(body=[statement]).code:
            continue
        for node in _walk(statement):
            if isinstance(node, cst.Name):
                found.add(node.value)
            elif isinstance(node, (cst.Annotation, cst.Assign)):  # quoted types, `__all__`
                found.update(word for item in _walk(node) if isinstance(item, cst.SimpleString)
                             for word in re.findall(r"[A-Za-z_]\w*", item.value))
    return found


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    stack = [node]
    while stack:
        item = stack.pop()
        yield item
        stack.extend(item.children)


def drop_unused_imports(module: cst.Module, before: cst.Module,
                        keep: Iterable[str] = ()) -> cst.Module:
    """The module without the top-level imports that an edit left unused: names `before` read
    outside its imports and `module` no longer reads (so imports that were already unused, or
    kept on purpose as re-exports, stay), except `keep` (names other modules import from it)."""
    used_before = _names_used(before)
    used = _names_used(module)
    kept = set(keep)
    gone = {name for name in used_before - used if name not in kept}
    if not gone:
        return module
    return _drop_aliases(module, lambda small, alias: bound_name(alias) in gone)[0]


def without_unused(context: InjectionContext, module: str, original: cst.Module,
                   new: cst.Module) -> cst.Module:
    """`new` (module `module`) without the top-level imports the edit left unused (calls
    redirected, code pasted or moved away); refused when another module imports such a name from
    this one (a re-export the repository relies on)."""
    result, dropped = drop_unused(original, new)
    exported = reexported(context, module, original)
    for name in dropped:
        if name in exported:
            raise InjectionRefused(f"`{name}` would be left unused in "
                                   f"{context.index.modules[module].path}, yet other modules "
                                   "import it from there")
    return result


def reexported(context: InjectionContext, module: str, tree: cst.Module) -> set[str]:
    """Names other code may import from the module: those another module (or a test) imports
    from it, and those its module-level lists of names spell out (`__all__`, or a table of
    names that generated code imports, like a template runtime's `exported = ["auto_aiter"]`).
    An edit must keep each of them bound there."""
    found = {item.target.rpartition(".")[2] for facts in context.index.modules.values()
             for item in facts.imports if item.target.rpartition(".")[0] == module}
    for statement in tree.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign,
                                                      cst.AugAssign)) else None
            if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
                found.update(element.value.evaluated_value for element in value.elements
                             if isinstance(element.value, cst.SimpleString)
                             and isinstance(element.value.evaluated_value, str))
    return found


def isort_key(name: str) -> tuple[int, str]:
    """Where isort and ruff (`order-by-type`, their default) put an imported name in a `from`
    import: CONSTANTS, then Classes, then the rest, each case-insensitively."""
    if len(name) > 1 and name.isupper():
        return 0, name.lower()
    return (1 if name.lstrip("_")[:1].isupper() else 2), name.lower()


def with_name(module: cst.Module, line: cst.SimpleStatementLine, small: cst.ImportFrom,
              name: str, width: int = 88) -> cst.SimpleStatementLine:
    """The `from` import `line` (holding `small` alone) with `name` added: in its sorted place
    when the names are sorted as isort sorts them, else last; wrapped in parentheses, one name
    a line, when it outgrows `width` or was wrapped already. Refused when the statement holds a
    comment (rewriting would lose it)."""
    if isinstance(small.names, cst.ImportStar):
        raise InjectionRefused("a star import has no names to extend")
    if "#" in module.code_for_node(small):
        raise InjectionRefused("the import to extend holds a comment")
    names = [module.code_for_node(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
             for alias in small.names]
    keys = [isort_key(module.code_for_node(alias.name)) for alias in small.names]
    position = len(names)
    if keys == sorted(keys):
        position = next((number for number, key in enumerate(keys)
                         if key > isort_key(name)), len(names))
    names.insert(position, name)
    spec = "." * len(small.relative) + (
        module.code_for_node(small.module) if small.module is not None else "")
    head = f"from {spec} import "
    text = head + ", ".join(names)
    if small.lpar is not None or len(text) > width:
        text = head + "(\n" + "".join(f"    {item},\n" for item in names) + ")"
    new = edit.statement(module, text, 0)
    assert isinstance(new, cst.SimpleStatementLine)
    return new.with_changes(leading_lines=line.leading_lines,
                            trailing_whitespace=line.trailing_whitespace)


def _from_lines(module: cst.Module) -> list[tuple[int, cst.SimpleStatementLine, cst.ImportFrom]]:
    """The module's top-level lines holding one `from` import (not `__future__`), in order."""
    found = []
    for number, line in enumerate(module.body):
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            small = line.body[0]
            if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar) \
                    and not (small.module is not None and not small.relative and
                             module.code_for_node(small.module) == "__future__"):
                found.append((number, line, small))
    return found


def one_name_per_line(module: cst.Module) -> bool:
    """Whether the module writes one `from` import per name (`force-single-line`): no `from`
    import names two, and some module is imported by two of them."""
    lines = _from_lines(module)
    if any(len(small.names) > 1 for _, _, small in lines  # type: ignore[arg-type]
           ) or not lines:
        return False
    written = [module.code_for_node(small.module) if small.module is not None else ""
               for _, _, small in lines]
    return len(set(written)) < len(written)


def insert_from_import(module: cst.Module, name: str, source: str, where: str,
                       package: bool) -> cst.Module:
    """`module` (the module `where`) with `from <source> import <name>` among its `from`
    imports of the same top-level package, in sorted place by module and name, written
    relative when those imports are."""
    lines = _from_lines(module)
    root = source.split(".")[0]
    own = [(number, line, small) for number, line, small in lines
           if edit.absolute_module(module, small, where, package).split(".")[0] == root]
    relative = bool(own) and all(small.relative for _, _, small in own)
    spec = source
    if relative:
        base = where.split(".")[:len(where.split(".")) - (0 if package else 1)]
        parts = source.split(".")
        common = 0
        while common < min(len(base), len(parts)) and base[common] == parts[common]:
            common += 1
        spec = "." * (len(base) - common + 1) + ".".join(parts[common:])
    written = [(edit.absolute_module(module, small, where, package),
                module.code_for_node(small.names[0].name))  # type: ignore[index]
               for _, _, small in own]
    by_type = all(left[0] != right[0] or isort_key(left[1]) <= isort_key(right[1])
                  for left, right in itertools.pairwise(written))
    order: Callable[[str], tuple[int, str]] = isort_key if by_type else \
        (lambda text: (0, text.lower()))  # one case-insensitive order (reorder-python-imports)
    key = (source, order(name))
    position = None
    for (number, _, _), (theirs_module, theirs_name) in zip(own, written, strict=True):
        theirs = (theirs_module, order(theirs_name))
        if theirs > key:
            position = number
            break
    new = edit.statement(module, f"from {spec} import {name}", 0)
    body = list(module.body)
    if position is None:
        position = own[-1][0] + 1 if own else after_last_import(body)
        return module.with_changes(body=[*body[:position], new, *body[position:]])
    following = body[position]
    new = new.with_changes(leading_lines=following.leading_lines)
    body[position] = following.with_changes(leading_lines=())
    return module.with_changes(body=[*body[:position], new, *body[position:]])
