"""Size and complexity per function and module, from the tree the fact pass already parsed.

Cyclomatic complexity (McCabe 1976) and Halstead's counts (Halstead 1977) come from radon's visitors
run on that same `ast` tree; raw line counts are read from the source text directly because radon's
raw analysis tokenizes the file again, which costs more than parsing it.
"""

from __future__ import annotations

import ast
import math
from typing import NamedTuple

from radon.visitors import ComplexityVisitor, HalsteadVisitor


class CodeMeasure(NamedTuple):
    """Counts of one function, class or module; derived metrics are properties."""

    cc: int  # cyclomatic complexity (radon's rules)
    loc: int  # physical lines
    lloc: int  # logical lines: statements
    sloc: int  # source lines: not blank, not comment-only, not docstring
    comments: int  # comment-only lines
    multi: int  # lines of docstrings
    blank: int
    h1: int  # distinct operators
    h2: int  # distinct operands
    n1: int  # total operators
    n2: int  # total operands

    @property
    def volume(self) -> float:
        """Halstead volume V = N log2(h)."""
        vocabulary = self.h1 + self.h2
        return (self.n1 + self.n2) * math.log2(vocabulary) if vocabulary else 0.0

    @property
    def difficulty(self) -> float:
        """Halstead difficulty D = h1/2 * N2/h2."""
        return (self.h1 * self.n2) / (2 * self.h2) if self.h2 else 0.0

    @property
    def effort(self) -> float:
        return self.difficulty * self.volume

    @property
    def mi(self) -> float:
        """Maintainability index as radon computes it (0-100, comments counted with docstrings)."""
        if self.volume <= 0 or self.sloc <= 0:
            return 100.0
        comment_percent = (self.comments + self.multi) / self.sloc * 100
        raw = (171 - 5.2 * math.log(self.volume) - 0.23 * self.cc - 16.2 * math.log(self.sloc)
               + 50 * math.sin(math.sqrt(2.46 * math.radians(comment_percent))))
        return min(max(0.0, raw * 100 / 171.0), 100.0)


class _LineKinds(NamedTuple):
    blank: frozenset[int]
    comments: frozenset[int]
    docstrings: frozenset[int]


def _line_kinds(tree: ast.Module, lines: list[str]) -> _LineKinds:
    docstring_lines: set[int] = set()
    string_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            end = node.end_lineno or node.lineno
            if end > node.lineno:
                string_lines.update(range(node.lineno + 1, end + 1))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(
                node.value.value, str):
            docstring_lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    blank: set[int] = set()
    comments: set[int] = set()
    for number, text in enumerate(lines, start=1):
        stripped = text.strip()
        if number in string_lines and number not in docstring_lines:
            continue
        if not stripped:
            if number not in docstring_lines:
                blank.add(number)
        elif stripped.startswith("#"):
            comments.add(number)
    return _LineKinds(frozenset(blank), frozenset(comments), frozenset(docstring_lines))


def _count(kinds: _LineKinds, start: int, end: int, statements: int, cc: int,
           halstead: HalsteadVisitor) -> CodeMeasure:
    span = range(start, end + 1)
    blank = sum(1 for n in span if n in kinds.blank)
    comments = sum(1 for n in span if n in kinds.comments)
    multi = sum(1 for n in span if n in kinds.docstrings)
    loc = end - start + 1
    return CodeMeasure(
        cc=cc, loc=loc, lloc=statements, sloc=max(0, loc - blank - comments - multi),
        comments=comments, multi=multi, blank=blank,
        h1=halstead.distinct_operators, h2=halstead.distinct_operands,
        n1=halstead.operators, n2=halstead.operands)


def measure_module(tree: ast.Module, source: str) -> tuple[CodeMeasure, dict[tuple[int, int],
                                                                             CodeMeasure]]:
    """The module's measure and one per function and class, keyed by (line, column)."""
    lines = source.splitlines()
    kinds = _line_kinds(tree, lines)
    complexity = ComplexityVisitor.from_ast(tree)
    cc_by_position: dict[tuple[int, int], int] = {}
    for block in complexity.blocks:
        cc_by_position[(block.lineno, block.col_offset)] = block.complexity
        for method in getattr(block, "methods", ()):
            cc_by_position[(method.lineno, method.col_offset)] = method.complexity
        for closure in getattr(block, "closures", ()):
            cc_by_position[(closure.lineno, closure.col_offset)] = closure.complexity
    measures: dict[tuple[int, int], CodeMeasure] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            position = (node.lineno, node.col_offset)
            statements = sum(1 for child in ast.walk(node) if isinstance(child, ast.stmt)) - 1
            measures[position] = _count(
                kinds, node.lineno, node.end_lineno or node.lineno, statements,
                cc_by_position.get(position, 1), HalsteadVisitor.from_ast(node))
    statements = sum(1 for child in ast.walk(tree) if isinstance(child, ast.stmt))
    module = _count(kinds, 1, max(1, len(lines)), statements, complexity.total_complexity,
                    HalsteadVisitor.from_ast(tree))
    return module, measures
