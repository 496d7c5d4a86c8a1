"""Where the imports an edit added go, and how they are written: every block of imports holding
an added one (a module's opening block, a function's local imports, an `if TYPE_CHECKING:`
block, a new module's imports) comes out as the repository's isort would leave it.

An added import is written relative or absolute as the module writes its own modules' imports
(as the repository does, when the module has none), joins the `from` import of its module when
there is one (one name a line under `force-single-line`), and goes to its sorted place in its
section: `__future__`, the standard library, other packages, the repository's own, relative
imports; a section of its own, set apart by a blank line, when the block has none. The human
lines stay where they are. A new function-local block is followed by a blank line when the
file's own local blocks are.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from smellkit._internal import pyast
from smellkit.injectors.cst import edit, windows
from smellkit.injectors.cst.house import HouseStyle
from smellkit.injectors.cst.imports import is_import_line, isort_key
from smellkit.injectors.cst.layout import added_lines

FUTURE, STANDARD, THIRD_PARTY, FIRST_PARTY, LOCAL = range(5)
"""isort's sections, in order."""

_EMPTY = cst.Module(body=[])


@dataclass
class _Block:
    """A run of import lines in one body, and which of them the edit added."""

    owner: cst.Module | cst.IndentedBlock
    start: int
    end: int
    added: list[bool] = field(default_factory=list)


def _body(owner: cst.Module | cst.IndentedBlock) -> Sequence[cst.BaseStatement]:
    return owner.body


def _leading(statement: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    """The blank lines and comments above a statement (every statement kind has them)."""
    lines: Sequence[cst.EmptyLine] = getattr(statement, "leading_lines", ())
    return lines


class _Blocks(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, lines: set[int]):
        super().__init__()
        self.lines = lines
        self.blocks: list[_Block] = []

    def _scan(self, owner: cst.Module | cst.IndentedBlock) -> None:
        body = _body(owner)
        position = 0
        while position < len(body):
            if not is_import_line(body[position]):
                position += 1
                continue
            end = position
            while end < len(body) and is_import_line(body[end]):
                end += 1
            added = []
            for statement in body[position:end]:
                span = self.get_metadata(PositionProvider, statement)
                added.append(any(line in self.lines
                                 for line in range(span.start.line, span.end.line + 1)))
            if any(added):
                self.blocks.append(_Block(owner, position, end, added))
            position = end

    def visit_Module(self, node: cst.Module) -> None:
        self._scan(node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._scan(node)


def section(line: cst.SimpleStatementLine, first_party: frozenset[str]) -> int:
    """isort's section of an import line."""
    small = line.body[0]
    if isinstance(small, cst.ImportFrom):
        if small.relative:
            return LOCAL
        name = _EMPTY.code_for_node(small.module) if small.module is not None else ""
    else:
        assert isinstance(small, cst.Import)
        name = _EMPTY.code_for_node(small.names[0].name)
    top = name.partition(".")[0]
    if top == "__future__":
        return FUTURE
    if top in first_party:
        return FIRST_PARTY
    return STANDARD if top in sys.stdlib_module_names else THIRD_PARTY


def sort_key(line: cst.SimpleStatementLine, style: HouseStyle
             ) -> tuple[int, bool, int, str, tuple[int, str]]:
    """isort's (and ruff's) order: by section, plain `import x` before `from x import y`, the
    furthest relative level first, the module ignoring case, then the first name."""
    small = line.body[0]
    if isinstance(small, cst.ImportFrom):
        name = _EMPTY.code_for_node(small.module) if small.module is not None else ""
        first = "" if isinstance(small.names, cst.ImportStar) else \
            _EMPTY.code_for_node(small.names[0].name)
        member = _member_key(first, style)
        return (section(line, style.first_party), True, -len(small.relative), name.lower(),
                member)
    assert isinstance(small, cst.Import)
    return (section(line, style.first_party), False, 0,
            _EMPTY.code_for_node(small.names[0].name).lower(), (0, ""))


def _member_key(name: str, style: HouseStyle) -> tuple[int, str]:
    """isort's order of the names in one `from` import."""
    return isort_key(name) if style.order_by_type else (0, name.lower())


def _single(line: cst.BaseStatement) -> cst.ImportFrom | cst.Import | None:
    if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and \
            isinstance(line.body[0], (cst.Import, cst.ImportFrom)):
        return line.body[0]
    return None


def _first_party_from(small: cst.ImportFrom, tree: cst.Module, module: str, package: bool,
                      first_party: frozenset[str]) -> str | None:
    """The absolute module a `from` import of the repository's own code names, else None."""
    if isinstance(small.names, cst.ImportStar):
        return None
    target = edit.absolute_module(tree, small, module, package)
    return target if small.relative or target.partition(".")[0] in first_party else None


def relative_spec(module: str, package: bool, target: str) -> str | None:
    """`target` as module `module` (a package's `__init__` when `package`) imports it
    relatively (`..base`), None when they share no top-level package."""
    parts = module.split(".")
    base = parts if package else parts[:-1]
    wanted = target.split(".")
    common = 0
    while common < min(len(base), len(wanted)) and base[common] == wanted[common]:
        common += 1
    if common == 0:
        return None
    return "." * (len(base) - common + 1) + ".".join(wanted[common:])


def _rewritten(line: cst.SimpleStatementLine, tree: cst.Module, module: str, package: bool,
               style: HouseStyle, relative: bool | None, single: bool
               ) -> list[cst.SimpleStatementLine]:
    """An added import line written in the house style: relative or absolute, one name a line
    when `single`."""
    small = line.body[0]
    if not isinstance(small, cst.ImportFrom):
        return [line]
    target = _first_party_from(small, tree, module, package, style.first_party)
    if target is not None and relative is not None and bool(small.relative) != relative:
        spec = relative_spec(module, package, target) if relative else target
        if spec is not None and target:
            dots = len(spec) - len(spec.lstrip("."))
            name = spec[dots:]
            small = small.with_changes(
                relative=[cst.Dot() for _ in range(dots)],
                module=cst.parse_expression(name) if name else None,
                whitespace_after_import=cst.SimpleWhitespace(" "),
                whitespace_after_from=cst.SimpleWhitespace(" "))
            assert isinstance(small, cst.ImportFrom)
    names = small.names
    if not isinstance(names, cst.ImportStar) and "#" not in tree.code_for_node(small):
        order = sorted(names, key=lambda alias: _member_key(
            tree.code_for_node(alias.name), style))
        names = [alias.with_changes(comma=place.comma) for alias, place in zip(
            order, names, strict=True)]
        small = small.with_changes(names=names)
    if not isinstance(names, cst.ImportStar) and len(names) > 1 and not single and \
            _renames(small) and not all(alias.asname for alias in names):
        plain = [alias for alias in names if alias.asname is None]
        renamed = [alias for alias in names if alias.asname is not None]
        return [line.with_changes(body=[small.with_changes(names=[
            *plain[:-1], plain[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])])] + [
            line.with_changes(body=[small.with_changes(
                names=[alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)], lpar=None,
                rpar=None)], leading_lines=[]) for alias in renamed]
    if single and not isinstance(names, cst.ImportStar) and len(names) > 1:
        return [line.with_changes(body=[small.with_changes(
            names=[alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)], lpar=None, rpar=None)],
            leading_lines=line.leading_lines if number == 0 else [])
            for number, alias in enumerate(names)]
    return [line.with_changes(body=[small])]


def _renames(small: cst.ImportFrom) -> bool:
    """Whether a `from` import renames a name (`x as y`): isort keeps those on lines of their
    own (`combine-as-imports` is off by default)."""
    return not isinstance(small.names, cst.ImportStar) and any(
        alias.asname is not None for alias in small.names)


def _merge(block: list[cst.BaseStatement], line: cst.SimpleStatementLine, tree: cst.Module,
           width: int) -> bool:
    """`line`'s names joined to the `from` import of the same module in `block` (in place);
    False when there is none to join."""
    from smellkit.errors import InjectionRefused
    from smellkit.injectors.cst.imports import with_name

    small = line.body[0]
    if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar) or \
            _renames(small):
        return False
    spec = tree.code_for_node(small.module) if small.module is not None else ""
    for number, other in enumerate(block):
        theirs = _single(other)
        if not isinstance(theirs, cst.ImportFrom) or isinstance(theirs.names, cst.ImportStar) \
                or _renames(theirs) \
                or len(theirs.relative) != len(small.relative) or (
                    tree.code_for_node(theirs.module) if theirs.module is not None else ""
                ) != spec:
            continue
        assert isinstance(other, cst.SimpleStatementLine)
        present = {tree.code_for_node(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
                   for alias in theirs.names}
        merged = other
        try:
            for alias in small.names:
                text = tree.code_for_node(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
                if text not in present:
                    current = merged.body[0]
                    assert isinstance(current, cst.ImportFrom)
                    merged = with_name(tree, merged, current, text, width)
                    present.add(text)
        except InjectionRefused:  # a star import or a comment: a line of its own
            return False
        block[number] = merged
        return True
    return False


def _blank() -> list[cst.EmptyLine]:
    return [cst.EmptyLine(indent=False)]


def _opens_group(line: cst.BaseStatement) -> bool:
    return any(empty.comment is None for empty in _leading(line))


def _insert(block: list[cst.BaseStatement], line: cst.SimpleStatementLine,
            style: HouseStyle) -> None:
    """`line` put in its sorted place in `block` (in place), in its section's group or in a
    group of its own."""
    if not block:
        block.append(line)
        return
    groups: list[list[int]] = []
    for position, statement in enumerate(block):
        if not groups or _opens_group(statement):
            groups.append([])
        groups[-1].append(position)
    sections = [{section(block[position], style.first_party)  # type: ignore[arg-type]
                 for position in group} for group in groups]
    own = section(line, style.first_party)
    key = sort_key(line, style)
    mixed = len(groups) == 1 and len(sections[0]) > 1  # the module does not split sections
    chosen: int | None = 0 if mixed else next((number for number, found in enumerate(sections)
                                   if own in found), None)
    if chosen is None:  # a group of its own, before the first group of a later section
        later = next((number for number, found in enumerate(sections) if min(found) > own),
                     None)
        if later is None:
            block.append(line.with_changes(leading_lines=_blank()))
            return
        opens = groups[later][0]
        block.insert(opens, line.with_changes(leading_lines=_leading(block[opens])))
        block[opens + 1] = block[opens + 1].with_changes(leading_lines=_blank())
        return
    group = groups[chosen]
    at = next((position for position in group
               if sort_key(block[position], style) > key), None)  # type: ignore[arg-type]
    if at is None:
        block.insert(group[-1] + 1, line.with_changes(leading_lines=[]))
    elif at == group[0]:  # the new line opens the group and takes its leading lines
        block.insert(at, line.with_changes(leading_lines=_leading(block[at])))
        block[at + 1] = block[at + 1].with_changes(leading_lines=[])
    else:
        block.insert(at, line.with_changes(leading_lines=[]))


def _arranged(block: _Block, tree: cst.Module, module: str, package: bool, style: HouseStyle,
              relative: bool | None, single: bool) -> list[cst.BaseStatement]:
    """The block's lines with the added ones written and placed in the house style."""
    body = _body(block.owner)[block.start:block.end]
    kept: list[cst.BaseStatement] = []
    new: list[cst.SimpleStatementLine] = []
    carried: Sequence[cst.EmptyLine] = ()  # the blank line that opened a group, say
    for statement, added in zip(body, block.added, strict=True):
        if added and _single(statement) is not None:
            assert isinstance(statement, cst.SimpleStatementLine)
            new.extend(_rewritten(statement, tree, module, package, style, relative, single))
            carried = carried or _leading(statement)
            continue
        if carried and kept and not _leading(statement):
            statement = statement.with_changes(leading_lines=carried)
        carried = ()
        kept.append(statement)
    if not new:
        return list(body)
    opening = _leading(body[0])
    if kept and kept[0] is not body[0]:  # the block opened with an added line
        kept[0] = kept[0].with_changes(leading_lines=opening)
    if not kept:  # a block of added lines only: sorted from scratch
        new.sort(key=lambda line: sort_key(line, style))
        result: list[cst.BaseStatement] = []
        for line in new:
            if not single and _merge(result, line, tree, style.line_length):
                continue
            gap = bool(result) and section(line, style.first_party) != section(
                result[-1], style.first_party)  # type: ignore[arg-type]
            result.append(line.with_changes(
                leading_lines=_blank() if gap else (opening if not result else [])))
        return result
    for line in sorted(new, key=lambda line: sort_key(line, style)):
        if single or not _merge(kept, line, tree, style.line_length):
            _insert(kept, line, style)
    return kept


def place_added_imports(text: str, before: str | None, style: HouseStyle, module: str,
                        package: bool = False) -> str:
    """`text` (module `module`, whose text was `before`; None: a new module) with the imports
    its edit added placed and written in the house style (see the module's docstring). Each
    block of imports is edited on its own (`windows.py`): the rest stays byte for byte."""
    added = added_lines(before, text)
    lines = text.splitlines(keepends=True)
    if not added or not any(word in text for word in ("import ", "from ")):
        return text
    tree = pyast.parse(text)
    blocks = windows.import_runs(tree)
    touched = [run for run in blocks if any(run.start <= number <= run.end for number in added)]
    if not touched:
        return text
    relative = _writes_relative(tree, added, module, package, style)
    single = style.force_single_line
    if single is None:
        single = before is not None and _one_name_per_line(pyast.parse(before))
    gaps = windows.local_gaps(lines, [run for run in blocks if run not in touched])
    local_gap = sum(gaps) * 2 > len(gaps) if gaps else bool(style.local_gap)
    for run in sorted(touched, key=lambda item: -item.start):
        window = windows.Window(run.start, run.end)
        source, offset = windows.cut(lines, window)
        inside = {number - run.start + 1 + offset for number in added
                  if run.start <= number <= run.end}
        try:
            edited = _place(cst.parse_module(source), inside, module, package, style,
                            relative, single)
        except cst.ParserSyntaxError:
            continue
        new_block = all(number in added for number in range(run.start, run.end + 1))
        lines = _spaced(lines, run, new_block, local_gap)
        lines = windows.paste(lines, window, edited, offset)
    return "".join(lines)


def _spaced(lines: list[str], run: windows.ImportRun, new_block: bool,
            local_gap: bool) -> list[str]:
    """`lines` with the statement after an import block set apart as isort sets it at the top
    level (two blank lines before a `def` or `class`, one before anything else), and as the
    file's other local blocks are inside a function."""
    if run.following is None:
        return lines
    blanks = windows.blank_lines(lines, run.end, run.following)
    if run.end + blanks + 1 != run.following:  # a comment between: left as it is
        return lines
    wanted = 2 if run.definition else 1
    if run.nested:  # isort wants nothing there: the file's habit decides
        wanted = 1 if new_block and local_gap else 0
    if blanks >= wanted:
        return lines
    newline = windows.newline_of(lines[run.end - 1])
    return [*lines[:run.end], *([newline] * (wanted - blanks)), *lines[run.end:]]


def _writes_relative(tree: ast.Module, added: set[int], module: str, package: bool,
                     style: HouseStyle) -> bool | None:
    """Whether the module's own lines import the repository's modules relatively (the
    repository's habit when they do not import any)."""
    relative = absolute = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.lineno not in added:
            if node.level:
                relative += 1
            elif (node.module or "").partition(".")[0] in style.first_party:
                absolute += 1
    if relative == absolute:
        return style.relative if relative == 0 else bool(style.relative)
    return relative > absolute


def _one_name_per_line(tree: ast.Module) -> bool:
    """Whether the module writes one `from` import per name (`force-single-line`): none names
    two, and some module is imported by two of them (a renaming import is on a line of its own
    either way)."""
    found = [node for node in tree.body if isinstance(node, ast.ImportFrom)
             and node.module != "__future__" and not any(alias.asname for alias in node.names)]
    if not found or any(len(node.names) > 1 for node in found):
        return False
    written = [(node.level, node.module) for node in found]
    return len(set(written)) < len(written)


def _place(tree: cst.Module, added: set[int], module: str, package: bool, style: HouseStyle,
           relative: bool | None, single: bool) -> str:
    """The source of a cut-out block of imports with its added lines placed."""
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    found = _Blocks(added)
    wrapper.visit(found)
    owners: dict[int, list[tuple[_Block, list[cst.BaseStatement]]]] = {}
    for block in found.blocks:
        owners.setdefault(id(block.owner), []).append(
            (block, _arranged(block, tree, module, package, style, relative, single)))

    class Place(cst.CSTTransformer):
        def _rebuilt(self, original: cst.Module | cst.IndentedBlock,
                     updated: cst.Module | cst.IndentedBlock) -> list[cst.BaseStatement]:
            body = list(_body(updated))
            for block, lines in sorted(owners.get(id(original), []),
                                       key=lambda item: -item[0].start):
                body[block.start:block.end] = lines
            return body

        def leave_Module(self, original_node: cst.Module,
                         updated_node: cst.Module) -> cst.Module:
            return updated_node.with_changes(body=self._rebuilt(original_node, updated_node))

        def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                                updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
            if id(original_node) not in owners:
                return updated_node
            return updated_node.with_changes(body=self._rebuilt(original_node, updated_node))

    result = tree.visit(Place())
    assert isinstance(result, cst.Module)
    return result.code
