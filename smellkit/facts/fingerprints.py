"""Clone fingerprints: two hashes of every statement of every body, computed where the file is
parsed, so that the duplicated-code detector compares statements of all files without the trees.

Each body (module, class, function, branch, loop, handler, case) is split into runs of statements
at imports, `global`/`nonlocal`, docstrings and other constant-only expression statements, typing
overloads, `...` stubs and `if TYPE_CHECKING:` blocks (declarations, never part of a clone). A run
spanning at least `MIN_LINES` lines is kept as a `StatementBlock`; per statement it has:

- `exact` (type 1): a hash of the statement's text without comments and whitespace, so layout,
  indentation and comments do not matter but every name and literal does; the name of a
  definition is left out (a copied function must be renamed to exist next to the original);
- `normal` (type 2): a hash of the same text with names, keywords, numbers and string contents
  removed (only punctuation and operators are left), with the statement's node type;
- its first and last line, and (in `hidden`) the lines inside it that are not code: decorators,
  signature lines after the first, docstrings; a clone's size is counted in lines of code.

A compound statement is hashed from its header's text and the hashes of its bodies (so nested
statements keep their kinds); a body shorter than `MIN_LINES` lines, or a compound statement
shorter than `MIN_LINES + 1` lines, is hashed as one text plus the kinds of the statements directly
in it. Things that look alike without being copies match only when exactly equal (their normal
hash is their exact one): data tables (a display spanning three lines or more), constants and
annotations outside functions, declarations, and bodies of four statements or more that repeat one
or two statement forms (eight asserts of one shape).

Known limits of the normal hash: keyword operators are not in it (`a and b` equals `a or b`,
`x in y` equals `x not in y`); the kinds of statements nested deeper than one level inside a
short compound statement are not either; and it reads text, so a renamed copy whose short compound
statements are wrapped differently does not match.

Hashing the text, not the tree, is a speed decision: a Python-level walk over every expression node
of pandas costs about as much as parsing it, while the text takes a few C-level passes per file
(`re.sub`, `bytes.translate`, `bytes.split`) and one step per statement. The text is tokenized only
roughly (a `#` inside a string also starts a "comment"), which is harmless: equal code still gives
equal hashes, and the cut is the same in every copy.

`anchors` holds, for each statement, the hash of the shortest run starting there whose weight (the
size of the normal text, `size_of(hash)`, plus `STATEMENT_WEIGHT` per statement) reaches
`WINDOW_WEIGHT`, or 0 where the rest of the block is lighter: two copies share the anchor of their
first statement, so the detector finds candidates by counting anchors. The arrays are packed into
`bytes` (read them with `memoryview(data).cast(code)`) to keep the facts small and fast to unpickle.
Hashes are deterministic across processes (CRC-32 of bytes, then tuple hashes of integers, never
`hash()` of a string), so cached facts compare with fresh ones; change `FACTS_SCHEMA` in facts.py
whenever the hashing changes.
"""

from __future__ import annotations

import ast
import re
import sys
import zlib
from array import array
from typing import NamedTuple

MIN_LINES = 4
"""Blocks spanning fewer lines are not kept: no clone shorter than this can be reported."""

STATEMENT_WEIGHT = 4
"""Weight of one statement in an anchor window, on top of the length of its normal text."""

WINDOW_WEIGHT = 20
"""Weight an anchor window must reach; clones lighter than this have no anchor and are not found."""


class StatementBlock(NamedTuple):
    """A run of consecutive statements of one body (bodies are split at imports and docstrings)."""

    scope: str  # qualname of the enclosing definition (or the module), as facts.py names it
    first: int  # index of its first statement in the arrays of `Fingerprints`
    stop: int  # index after its last statement


class Fingerprints(NamedTuple):
    """The blocks of one file; per statement of all blocks, packed arrays (native byte order)."""

    blocks: tuple[StatementBlock, ...]
    spans: bytes  # array("i"): first and last line of each statement, interleaved
    hidden: bytes  # array("i"): (statement, lines) for statements with lines that are not code
    exact: bytes  # array("I"): type-1 hash of each statement (32 bits)
    normal: bytes  # array("q"): type-2 hash of each statement
    anchors: bytes  # array("q"): hash of the anchor window starting at each statement, 0 if none


NO_FINGERPRINTS = Fingerprints((), b"", b"", b"", b"", b"")
"""What facts extracted without detail hold."""


# --------------------------------------------------------------------------------------------
# Text normalisation.

_COMMENT = re.compile(rb"#[^\n]*")
_STRING = re.compile(rb"\"[^\"\n]*\"|'[^'\n]*'")
"""A one-line string in the normal text (where only its punctuation is left)."""
_WORD = bytes(code for code in range(256)
              if code >= 128 or chr(code).isalnum() or chr(code) == "_") + b"\\"
"""Deleted from the normal text: names, keywords, numbers, string contents... and backslashes."""


def normalised_lines(source: str | bytes) -> tuple[list[bytes], list[bytes]]:
    """The exact and the normal text of every line, numbered as the parser numbers them."""
    data = source.encode("utf-8", "surrogateescape") if isinstance(source, str) else source
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    exact = _COMMENT.sub(b"", data).translate(None, b" \t\f")
    normal = _STRING.sub(b'""', exact.translate(None, _WORD))
    return exact.split(b"\n"), normal.split(b"\n")


# --------------------------------------------------------------------------------------------
# Statements.

_SIMPLE, _SEPARATOR, _EXPRESSION, _ASSIGNMENT, _ANNOTATION, _DEFINITION, _COMPOUND = range(7)

_INFO: dict[type[ast.AST], tuple[int, int]] = {}
"""Statement class -> (kind, code): how it is hashed, and a number for its type."""
_BODIES: dict[type[ast.AST], tuple[str, ...]] = {}
for _name in sorted(dir(ast)):
    _cls = getattr(ast, _name)
    if not (isinstance(_cls, type) and issubclass(_cls, ast.stmt) and _cls is not ast.stmt):
        continue
    _BODIES[_cls] = tuple(field for field in ("body", "orelse", "finalbody", "handlers", "cases")
                          if field in _cls._fields)
    if _cls in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        _kind = _DEFINITION
    elif _cls in (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal):
        _kind = _SEPARATOR
    elif _cls is ast.Expr:
        _kind = _EXPRESSION
    elif _cls is ast.Assign:
        _kind = _ASSIGNMENT
    elif _cls is ast.AnnAssign:
        _kind = _ANNOTATION
    else:
        _kind = _COMPOUND if _BODIES[_cls] else _SIMPLE
    _INFO[_cls] = (_kind, zlib.crc32(_name.encode()))

_DEFINITIONS = frozenset((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
_DISPLAYS = frozenset((ast.List, ast.Tuple, ast.Set, ast.Dict))
_LITERALS = _DISPLAYS | {ast.Constant}

SIZE_SHIFT = 40
"""A hash keeps the size of its normal text above this bit: `size_of(hash)`."""
_LOW = (1 << SIZE_SHIFT) - 1
_MAX_SIZE = (1 << (63 - SIZE_SHIFT)) - 1


def size_of(statement_hash: int) -> int:
    """The length of the text a statement hash was taken from (normal text for normal hashes)."""
    return statement_hash >> SIZE_SHIFT


def _is_docstring(node: ast.stmt) -> bool:
    return (type(node) is ast.Expr and type(node.value) is ast.Constant
            and isinstance(node.value.value, str))


def _signature_lines(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
                     start: int) -> int:
    """Lines of a definition's header that are not code: its decorators, and the lines of its
    signature after the first."""
    body = node.body
    first = body[0].lineno if body else (node.end_lineno or start) + 1
    return max(0, first - start - 1)


def _docstring_lines(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    first = node.body[0] if node.body else None
    if first is None or not _is_docstring(first):
        return 0
    return (first.end_lineno or first.lineno) - first.lineno + 1


def _is_declaration(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    """A typing overload, or a stub whose body is `...`: a declaration, not code."""
    for decorator in node.decorator_list:
        if ((type(decorator) is ast.Name and decorator.id == "overload")
                or (type(decorator) is ast.Attribute and decorator.attr == "overload")):
            return True
    body = node.body
    if body and _is_docstring(body[0]):
        body = body[1:]
    return (len(body) == 1 and type(body[0]) is ast.Expr
            and type(body[0].value) is ast.Constant
            and body[0].value.value is Ellipsis)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return ((type(test) is ast.Name and test.id == "TYPE_CHECKING")
            or (type(test) is ast.Attribute and test.attr == "TYPE_CHECKING"))


class _Fingerprinter:
    def __init__(self, exact_lines: list[bytes], normal_lines: list[bytes]):
        self.exact_lines = exact_lines
        self.normal_lines = normal_lines
        self.pending: list[tuple[str, list[int], list[int], dict[int, int], list[int], list[int],
                                 int, int]] = []
        """The runs to keep: (scope, lists of the body, first and stop index of the run)."""

    def text(self, start: int, end: int, code: int, defines: str = "") -> tuple[int, int]:
        """Exact and normal hash of lines `start..end`; `defines`: the name of the definition
        they start, left out of the exact hash (a copied function is renamed to exist)."""
        exact = b"".join(self.exact_lines[start - 1:end])
        if defines:
            name = defines.encode()
            exact = exact.replace(b"def" + name, b"def", 1).replace(b"class" + name, b"class", 1)
        normal = b"".join(self.normal_lines[start - 1:end])
        return (zlib.crc32(exact, code) | (len(exact) & _MAX_SIZE) << SIZE_SHIFT,
                zlib.crc32(normal, code) | (len(normal) & _MAX_SIZE) << SIZE_SHIFT)

    def body(self, statements: list[ast.stmt], scope: str, docstring: bool = False,
             in_function: bool = False) -> tuple[int, int, int]:
        """Hash every statement of one body and keep its long runs as blocks.

        `docstring`: the body may start with one; `in_function`: the body runs in a function
        (outside one, assignments of constants and annotations are declarations, not code).
        Returns the body's exact and normal hash and its lines that are not code (`_hidden`)."""
        exact_lines = self.exact_lines
        normal_lines = self.normal_lines
        crc32 = zlib.crc32
        starts: list[int] = []
        ends: list[int] = []
        exact: list[int] = []
        normal: list[int] = []
        cuts: list[int] = []
        hidden_at: dict[int, int] = {}
        hidden_total = 0
        if docstring and statements and _is_docstring(statements[0]):
            first = statements[0]
            hidden_total = (first.end_lineno or first.lineno) - first.lineno + 1
            statements = statements[1:]
        if not statements:
            return 0, 0, hidden_total
        first = statements[0]
        top = first.lineno
        if type(first) in _DEFINITIONS and first.decorator_list:  # type: ignore[attr-defined]
            top = first.decorator_list[0].lineno  # type: ignore[attr-defined]
        bottom: int = statements[-1].end_lineno  # type: ignore[assignment]
        if bottom - top < MIN_LINES - 1:
            # too short to hold a block: hashed as one text, with the kinds of its statements
            exact_hash, normal_hash = self.text(top, bottom, 0)
            kinds = hash(tuple([_INFO[type(node)][1] for node in statements]))
            size = (normal_hash >> SIZE_SHIFT) + STATEMENT_WEIGHT * len(statements)
            return exact_hash, hash((normal_hash, kinds)) & _LOW | size << SIZE_SHIFT, \
                hidden_total
        for node in statements:
            kind, code = _INFO[type(node)]
            start = node.lineno
            end = node.end_lineno or start
            if kind >= _DEFINITION:
                hidden = 0
                if kind == _DEFINITION:
                    if node.decorator_list:  # type: ignore[attr-defined]
                        start = node.decorator_list[0].lineno  # type: ignore[attr-defined]
                    hidden = _signature_lines(node, start)  # type: ignore[arg-type]
                if end - start >= MIN_LINES:
                    exact_hash, normal_hash, inner = self.compound(node, kind, start, end, code,
                                                                   scope, in_function)
                    hidden += inner
                else:
                    exact_hash, normal_hash = self.small(node, start, end, code)
                    if kind == _DEFINITION:
                        hidden += _docstring_lines(node)  # type: ignore[arg-type]
                if kind == _DEFINITION and _is_declaration(node):  # type: ignore[arg-type]
                    normal_hash = exact_hash  # a declaration: only the same one is a copy
                    cuts.append(len(exact))
                elif type(node) is ast.If and _is_type_checking(node):
                    cuts.append(len(exact))
                if hidden:
                    hidden_at[len(exact)] = hidden
                    hidden_total += hidden
            elif start == end:
                line = exact_lines[start - 1]
                exact_hash = crc32(line, code) | len(line) << SIZE_SHIFT
                line = normal_lines[start - 1]
                normal_hash = crc32(line, code) | len(line) << SIZE_SHIFT
            else:
                exact_hash, normal_hash = self.text(start, end, code)
            if kind <= _SIMPLE:
                pass
            elif kind == _SEPARATOR:
                cuts.append(len(exact))
            elif kind <= _ANNOTATION:
                value = type(node.value)  # type: ignore[attr-defined]
                if value in _LITERALS:
                    if kind == _EXPRESSION and value is ast.Constant:
                        cuts.append(len(exact))  # a docstring, `...`
                    elif end > start + 1 or (not in_function and value is ast.Constant):
                        normal_hash = exact_hash  # data: only the same data is a clone
                elif kind == _ANNOTATION and not in_function:
                    normal_hash = exact_hash  # a declaration of a field
            starts.append(start)
            ends.append(end)
            exact.append(exact_hash)
            normal.append(normal_hash)
        count = len(exact)
        cuts.append(count)
        first_index = 0
        for cut in cuts:
            if cut > first_index and ends[cut - 1] - starts[first_index] >= MIN_LINES - 1:
                self.pending.append((scope, starts, ends, hidden_at, exact, normal, first_index,
                                     cut))
            first_index = cut + 1
        exact_hash = hash(tuple(exact))
        # a repetition of one or two forms (eight asserts): only the same repetition is a copy;
        # three statements of two forms (write, loop, write) are a body, not a repetition
        repetition = count >= 4 and len(set(normal)) < 3
        normal_hash = exact_hash if repetition else hash(tuple(normal))
        size = min((sum(normal) >> SIZE_SHIFT) + STATEMENT_WEIGHT * count, _MAX_SIZE)
        return exact_hash, normal_hash & _LOW | size << SIZE_SHIFT, hidden_total

    def compound(self, node: ast.stmt, kind: int, start: int, end: int, code: int,
                 scope: str, in_function: bool) -> tuple[int, int, int]:
        """Hashes of a statement with bodies (its header's text, then each body's hashes), and
        the lines inside that are not code."""
        name = ""
        if kind == _DEFINITION:
            name = node.name  # type: ignore[attr-defined]
            scope = f"{scope}.{name}"
            in_function = type(node) is not ast.ClassDef
        exact_parts = [code]
        normal_parts = [code]
        hidden = 0
        if type(node) is ast.Match:
            header_end = node.cases[0].pattern.lineno - 1 if node.cases else end
        else:
            first_body: list[ast.stmt] = node.body  # type: ignore[attr-defined]
            header_end = first_body[0].lineno - 1 if first_body else end
        if header_end >= start:
            exact_hash, normal_hash = self.text(start, header_end, 0, name)
            exact_parts.append(exact_hash)
            normal_parts.append(normal_hash)
        for field in _BODIES[type(node)]:
            items = getattr(node, field)
            if field == "handlers" or field == "cases":
                for item in items:
                    head = item.lineno if field == "handlers" else item.pattern.lineno
                    head_end = item.body[0].lineno - 1
                    if head_end >= head:
                        exact_hash, normal_hash = self.text(head, head_end, 0)
                        exact_parts.append(exact_hash)
                        normal_parts.append(normal_hash)
                    exact_hash, normal_hash, inner = self.body(item.body, scope, False,
                                                               in_function)
                    exact_parts.append(exact_hash)
                    normal_parts.append(normal_hash)
                    hidden += inner
            elif items:
                exact_hash, normal_hash, inner = self.body(items, scope, kind == _DEFINITION,
                                                           in_function)
                exact_parts.append(exact_hash)
                normal_parts.append(normal_hash)
                hidden += inner
        size = min(sum(normal_parts[1:]) >> SIZE_SHIFT, _MAX_SIZE)  # (plus carries: harmless)
        return (hash(tuple(exact_parts)) & _LOW | size << SIZE_SHIFT,
                hash(tuple(normal_parts)) & _LOW | size << SIZE_SHIFT, hidden)

    def small(self, node: ast.stmt, start: int, end: int, code: int) -> tuple[int, int]:
        """Hashes of a compound statement too short to hold a block: its whole text, and for the
        normal hash the types of the statements directly inside (the text lost their keywords)."""
        name = node.name if type(node) in _DEFINITIONS else ""  # type: ignore[attr-defined]
        exact_hash, normal_hash = self.text(start, end, code, name)
        inner = [normal_hash]
        for field in _BODIES[type(node)]:
            for item in getattr(node, field):
                if field == "handlers" or field == "cases":
                    inner.extend([_INFO[type(child)][1] for child in item.body])
                else:
                    inner.append(_INFO[type(item)][1])
            inner.append(0)
        return exact_hash, hash(tuple(inner)) & _LOW | normal_hash & ~_LOW

    def assemble(self) -> Fingerprints:
        """The kept runs as blocks over packed arrays, with their anchors."""
        blocks: list[StatementBlock] = []
        spans: list[int] = []
        hidden: list[int] = []
        exact: list[int] = []
        normal: list[int] = []
        anchors: list[int] = []
        new_block = _new_block
        for scope, starts, ends, hidden_at, run_exact, run_normal, first, stop in self.pending:
            offset = len(exact)
            blocks.append(new_block(StatementBlock, (scope, offset, offset + stop - first)))
            pairs = [0] * (2 * (stop - first))
            pairs[0::2] = starts[first:stop]
            pairs[1::2] = ends[first:stop]
            spans += pairs
            if hidden_at:
                for index, lines in hidden_at.items():
                    if first <= index < stop:
                        hidden.append(offset + index - first)
                        hidden.append(lines)
            exact += run_exact[first:stop]
            run = run_normal[first:stop]
            normal += run
            anchors += _anchors(run)
        return Fingerprints(tuple(blocks), array("i", spans).tobytes(),
                            array("i", hidden).tobytes(), _low_halves(array("q", exact)),
                            array("q", normal).tobytes(), array("q", anchors).tobytes())


_new_block = tuple.__new__
"""Builds a `StatementBlock` without the Python-level `__new__` of named tuples."""


def _anchors(normal: list[int]) -> list[int]:
    """Per statement, the hash of the shortest run from it reaching `WINDOW_WEIGHT`, else 0.

    A statement heavy enough alone is its own window, and its normal hash its anchor."""
    count = len(normal)
    found = [0] * count
    end = 0
    total = 0
    for start in range(count):
        while end < count and total < WINDOW_WEIGHT:
            total += (normal[end] >> SIZE_SHIFT) + STATEMENT_WEIGHT
            end += 1
        if total < WINDOW_WEIGHT:
            break
        found[start] = normal[start] if end == start + 1 else hash(tuple(normal[start:end])) or 1
        total -= (normal[start] >> SIZE_SHIFT) + STATEMENT_WEIGHT
    return found


def _low_halves(values: array[int]) -> bytes:
    """The low 32 bits of each 64-bit value, as array("I") bytes, by a C-level slice."""
    halves = memoryview(values).cast("B").cast("I")
    return bytes(halves[0::2] if sys.byteorder == "little" else halves[1::2])


def fingerprint_module(tree: ast.Module, source: str | bytes, module: str = "") -> Fingerprints:
    """The statement blocks of a parsed module whose source text is `source`.

    `module` prefixes the scope qualnames (`module.Class.method`); the text is needed because the
    hashes are taken from it (see the module docstring).
    """
    fingerprinter = _Fingerprinter(*normalised_lines(source))
    fingerprinter.body(tree.body, module, docstring=True)
    return fingerprinter.assemble()
