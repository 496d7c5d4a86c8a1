"""Reference values from radon's own visitors, one definition at a time, for parity tests."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import NamedTuple

from radon.visitors import ComplexityVisitor, HalsteadVisitor

from smellkit.metrics.complexity import CodeMeasure, measure_module


class Numbers(NamedTuple):
    cc: int
    cc_total: int
    h1: int
    h2: int
    n1: int
    n2: int


def radon_numbers(node: ast.AST) -> Numbers:
    """What radon reports for one def, one class or a whole module."""
    halstead = HalsteadVisitor.from_ast(node)
    complexity = ComplexityVisitor.from_ast(node)
    if isinstance(node, ast.ClassDef):
        block = complexity.classes[0]
        cc, cc_total = block.complexity, block.real_complexity
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        cc = cc_total = complexity.functions[0].complexity
    else:
        cc = cc_total = complexity.total_complexity
    return Numbers(cc, cc_total, halstead.distinct_operators, halstead.distinct_operands,
                   halstead.operators, halstead.operands)


def ours(measure: CodeMeasure) -> Numbers:
    return Numbers(measure.cc, measure.cc_total, measure.h1, measure.h2, measure.n1, measure.n2)


class Mismatch(NamedTuple):
    where: str
    radon: Numbers
    smellkit: Numbers


def compare(source: str, label: str = "<snippet>") -> tuple[int, list[Mismatch]]:
    """(units compared, mismatches) for the module and every def and class in `source`."""
    tree = ast.parse(source)
    module, measures = measure_module(tree, source)
    mismatches: list[Mismatch] = []
    units = 1
    expected = radon_numbers(tree)
    if ours(module) != expected:
        mismatches.append(Mismatch(f"{label}:module", expected, ours(module)))
    for node in _definitions(tree):
        units += 1
        expected = radon_numbers(node)
        got = measures.get((node.lineno, node.col_offset))
        actual = ours(got) if got is not None else Numbers(-1, -1, -1, -1, -1, -1)
        if actual != expected:
            mismatches.append(Mismatch(f"{label}:{node.lineno}:{node.name}", expected, actual))
    return units, mismatches


def _definitions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
