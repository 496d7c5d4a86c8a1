"""How the rewritten function measures up: whether the detector's rule reports it (and, when
not, how close it came), and whether its pasted lines keep to the repository's line length once
wrapped as the build wraps them."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import libcst as cst

from smellkit._internal import pyast
from smellkit.detectors.deep_inlining import DeepInlining, DeepInliningOptions
from smellkit.errors import InjectionRefused
from smellkit.facts import extract
from smellkit.injectors.cst.house import line_limit
from smellkit.injectors.cst.layout import wrap_added_lines

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext

_DETECTOR = DeepInlining(DeepInliningOptions())
_MEASURE = DeepInlining(DeepInliningOptions(min_cc=1, min_depth=1, min_blocks=1, min_coverage=0))
"""The rule without its thresholds on complexity and blocks: it measures any long function."""


@dataclass(frozen=True)
class Judged:
    """The rule's verdict on the function, and the measures a near miss is compared by."""

    flagged: bool
    sized: bool
    """Long and complex enough: what is missing, if anything, is blocks."""
    coverage: float
    """The share of its code lines in blocks the rule counts."""

    def worse_than(self, best: Judged | None) -> bool:
        """Whether the last helper pasted took the function further from the rule: the size
        was already there and the share of counting blocks fell (a body reading many of the
        caller's names is no block the rule counts, so it only dilutes the others)."""
        return best is not None and best.sized and self.coverage < best.coverage


def judge(context: InjectionContext, path: str, qualname: str, text: str) -> Judged:
    """The detector's rule on the function in the new text of its file."""
    facts = context.index.modules[context.index.module_of[qualname]]
    try:
        tree = pyast.parse(text)
    except SyntaxError:
        return Judged(flagged=False, sized=False, coverage=0.0)
    new = extract(tree, text, path, facts.module, facts.is_package)
    if any(definition.qualname == qualname for definition, *_ in _DETECTOR.judge(new)):
        return Judged(flagged=True, sized=True, coverage=1.0)
    rule = _DETECTOR.options
    definition = next((item for item in new.definitions if item.qualname == qualname), None)
    shape = next((item for item in new.shapes if item.qualname == qualname), None)
    if definition is None or definition.measure is None or shape is None:
        return Judged(flagged=False, sized=False, coverage=0.0)
    sized = definition.measure.sloc >= rule.min_sloc and (
        definition.measure.cc - shape.asserts >= rule.min_cc or shape.max_depth >= rule.min_depth)
    coverage = next((share for item, *_, share in _MEASURE.judge(new)
                     if item.qualname == qualname), 0.0)
    return Judged(flagged=False, sized=sized, coverage=coverage)


def flagged(context: InjectionContext, path: str, qualname: str, text: str) -> bool:
    """Whether the detector's rule reports the function in the new text of its file."""
    return judge(context, path, qualname, text).flagged


def alone(context: InjectionContext, qualname: str, function: cst.FunctionDef) -> str:
    """The text of a module holding only the function (in its classes, so its qualname is the
    same): the rule judges a function by its own code, and printing a whole big module for
    every trial would cost far more."""
    module = context.index.module_of[qualname]
    node: cst.FunctionDef | cst.ClassDef = function.with_changes(leading_lines=[])
    for name in reversed(qualname[len(module) + 1:].split(".")[:-1]):
        node = cst.ClassDef(name=cst.Name(name), body=cst.IndentedBlock(body=[node]))
    return cst.Module(body=[node]).code


def within_limit(context: InjectionContext, qualname: str, original: cst.FunctionDef,
                 function: cst.FunctionDef) -> None:
    """Refused when a pasted line stays longer than the repository's line length once the
    build has wrapped it (a call's arguments, a condition in brackets): a long string or a
    long `for` header cannot be wrapped (lines of the function as it was are its own)."""
    if context not in _LIMITS:
        _LIMITS[context] = line_length([context.source(facts.path)
                                        for facts in context.index.modules.values()])
    limit = _LIMITS[context]
    before = alone(context, qualname, original)
    after = alone(context, qualname, function)
    with suppress(cst.ParserSyntaxError, SyntaxError, ValueError, RecursionError):
        after = wrap_added_lines(after, before, limit)  # else measured as it is
    kept = set(before.splitlines())  # long already: not ours
    longest = max((len(line) for line in after.splitlines()
                   if not line.lstrip().startswith("#") and line not in kept), default=0)
    if longest > limit:
        raise InjectionRefused(f"a pasted line of {qualname} would be {longest} columns long, "
                               f"over the repository's {limit}")


def line_length(sources: Sequence[str]) -> int:
    """The line length a repository keeps to: what 99% of its lines of code stay within,
    rounded up to the usual settings (79, 88, 99, 100, 120); a few long lines (a URL, a
    `# type: ignore`) do not make every length right."""
    lengths = sorted(len(line) for source in sources for line in source.splitlines()
                     if line.strip() and not line.lstrip().startswith("#"))
    if not lengths:
        return 79
    kept = lengths[min(len(lengths) - 1, int(len(lengths) * 0.99))]
    return next((usual for usual in (79, 88, 99, 100, 120) if kept <= usual),
                max(kept, line_limit("")))


_LIMITS: WeakKeyDictionary[InjectionContext, int] = WeakKeyDictionary()
"""The line length of each repository."""
