"""Ground-truth recovery: did the result bring back, in any name, what the smell took away?

The *missing* definitions are the original's functions, methods and classes whose qualified
names the smelly version lacks (inlined helpers, methods moved away, the parameter object). They
are matched one to one to the definitions the result added or changed, by the similarity of
their normalised trees:

- a definition's tree is flattened in pre-order into a token sequence of node types; the names a
  restoration is free to choose (functions, classes, parameters, variables, imported names) are
  left out, constants become their type (`<str>`, `<int>`), attribute names are kept (they name
  the data the code works on, which a faithful restoration keeps: `self.balance`);
- similarity is difflib's `SequenceMatcher.ratio` of two sequences (2 * matching tokens / total
  tokens), 1.0 for equal trees;
- pairs at or above `THRESHOLD` are taken greedily, most similar first (ties by name), each
  definition at most once; a class only matches a class and a function only a function.

This is SmellBench's callee precision and recall without CodeBLEU's string matching: a restored
helper under another name with other variable names still counts, an unrelated function does not
(tests/evaluate/test_recovery.py holds both sides of the threshold).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher

from smellkit._internal import pyast
from smellkit.facts import Definition

THRESHOLD = 0.7
"""Least similarity of a match. Measured on the 338 functions of at least three statements in
the injector fixtures and click 8.1.7: a copy with every name and literal changed scores 1.0;
a copy with one statement removed scores 0.91 at the median and at least 0.7 in 90% of cases;
11,066 random pairs of different functions within 2x of each other in size score 0.35 at the
median, 0.60 at the 99th percentile, and 0.3% reach 0.7 (near-clones such as click's
`get_binary_stdout` and `get_binary_stderr`). Lowering it to 0.6 keeps 95% of the edited
copies but triples the unrelated matches; raising it to 0.8 loses 18% of the edited copies.
`tests/evaluate/test_recovery.py` holds both sides of it on the fixtures."""

_NAME_FIELDS = frozenset({"id", "arg", "name", "asname", "module", "names", "ctx", "kind",
                          "type_comment", "level"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def tokens(node: ast.AST) -> tuple[str, ...]:
    """The normalised pre-order token sequence of a tree (see the module docstring)."""
    out: list[str] = []
    pending: list[ast.AST] = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, ast.Constant):
            out.append(f"<{type(current.value).__name__}>")
            continue
        if isinstance(current, ast.Attribute):
            out.append(f"Attribute.{current.attr}")
        elif isinstance(current, (ast.expr_context, ast.alias)):
            continue
        else:
            out.append(type(current).__name__)
        children: list[ast.AST] = []
        for name, value in ast.iter_fields(current):
            if name in _NAME_FIELDS:
                continue
            if isinstance(value, ast.AST):
                children.append(value)
            elif isinstance(value, list):
                children.extend(item for item in value if isinstance(item, ast.AST))
        pending.extend(reversed(children))
    return tuple(out)


def similarity(first: tuple[str, ...], second: tuple[str, ...], floor: float = 0.0) -> float:
    """2 * matching tokens / total tokens (difflib's ratio), 1.0 for two equal sequences; 0.0
    as soon as difflib's cheap upper bounds show it is below `floor`."""
    if first == second:
        return 1.0
    matcher = SequenceMatcher(None, first, second, autojunk=False)
    if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
        return 0.0
    return matcher.ratio()


@dataclass(frozen=True)
class Shape:
    """A definition as recovery compares it."""

    qualname: str
    is_class: bool
    tokens: tuple[str, ...]


def shapes(text: str, definitions: Iterable[Definition]) -> dict[str, Shape]:
    """The shapes of some definitions of one file, found in its tree by line and column.
    Raises SyntaxError (or ValueError) when the text does not parse."""
    wanted = {(item.start_line, item.col): item for item in definitions if item.kind != "lambda"}
    if not wanted:
        return {}
    found: dict[str, Shape] = {}
    for node in ast.walk(pyast.parse(text)):
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            definition = wanted.get((node.lineno, node.col_offset))
            if definition is not None and definition.qualname not in found:
                found[definition.qualname] = Shape(definition.qualname,
                                                   isinstance(node, ast.ClassDef), tokens(node))
    return found


def match(missing: Mapping[str, Shape], candidates: Mapping[str, Shape],
          threshold: float = THRESHOLD) -> list[tuple[str, str, float]]:
    """Greedy one-to-one matches (missing qualname, candidate qualname, similarity), most
    similar first; only pairs of one kind at or above `threshold`."""
    scored: list[tuple[float, str, str]] = []
    for lost in missing.values():
        for found in candidates.values():
            if lost.is_class != found.is_class:
                continue
            ratio = similarity(lost.tokens, found.tokens, threshold)
            if ratio >= threshold:
                scored.append((ratio, lost.qualname, found.qualname))
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    used_lost: set[str] = set()
    used_found: set[str] = set()
    pairs: list[tuple[str, str, float]] = []
    for ratio, lost_name, found_name in scored:
        if lost_name in used_lost or found_name in used_found:
            continue
        used_lost.add(lost_name)
        used_found.add(found_name)
        pairs.append((lost_name, found_name, ratio))
    return pairs


@dataclass(frozen=True)
class Recovery:
    precision: float | None
    recall: float | None
    f1: float | None
    pairs: tuple[tuple[str, str, float], ...] = ()


def recovery(missing: Mapping[str, Shape], added: Mapping[str, Shape],
             changed: Mapping[str, Shape]) -> Recovery:
    """Precision, recall and F1 of the matches of `missing` among the result's `added`
    definitions (names the smelly version lacks) and `changed` ones (edited in place).

    recall = matches / missing; precision = matches / (added + changed definitions that
    matched): a definition the smelly version already had and the result edited (the target a
    fix shortens) is no claim to have brought anything back unless it matches. Precision is
    None without any such candidate; F1 is 0 when recall is 0. All three are None when nothing
    is missing."""
    if not missing:
        return Recovery(None, None, None)
    pairs = match(missing, {**changed, **added})
    matched = {found for _, found, _ in pairs}
    considered = len(added) + len(matched - set(added))
    recall = len(pairs) / len(missing)
    precision = len(pairs) / considered if considered else None
    if not recall:
        f1: float | None = 0.0
    else:
        assert precision is not None  # a match is a candidate
        f1 = 2 * precision * recall / (precision + recall)
    return Recovery(precision, recall, f1, tuple(pairs))
