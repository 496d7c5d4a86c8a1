"""Structural metrics of the code a case involves, in one version, and how much of the gap
between the smelly and the original figures a result closed.

The *involved code* of a version is a set of qualified names (modules and definitions): for the
smelly version the targets, the locations, what the injection added (names the original lacks)
and the definitions of both versions that the ground truth changes (the injection's edits
outside the named locations: a helper's expression written out in a function no location
names); for the original the same names where they exist plus what the injection removed (names
the smelly version lacks); for a result the same names where they exist plus what it added
(names the smelly version lacks). So the oracle's result measures exactly as the original and
an empty patch exactly as the smelly code. The units are the outermost of those names (a method
of an involved class is counted with the class); a module holds every definition of its file.

Per version:

- `cc`: the sum of cyclomatic complexity (radon's rules) of every function, method and nested
  function inside the units (each once);
- `mi`: the mean maintainability index of those functions (None without any);
- `sloc`: the sum of source lines of the units (a module: its whole file);
- `wmc`, `cbo`: the sums over the classes inside the units of Weighted Methods per Class and of
  Coupling Between Objects (`smellkit.metrics.oo`); `lcom4`: their maximum (None without a
  class). Sums over nothing are 0: a fix that deletes the involved code has none of it;
- `fan_out`: the distinct names of the repository (modules, definitions, module variables) that
  the modules holding the units import (efferent coupling by name). Shotgun surgery leaves every
  other figure unchanged: a constant, helper or decorator written out in many places instead of
  imported shows here;
- `calls`: the call sites written in the units (decorator applications not counted): a helper's
  expression copied into its callers (`len(strip_ansi(x))` for `term_len(x)`) adds calls that no
  other figure sees;
- `tokens`: the code tokens (names, operators, literals) of the units' source: the size of what a
  reader reads, which grows when a helper's body is written out in place of a call to it
  (`_ansi_re.sub("", text)` for `strip_ansi(text)`) even where lines and calls stay the same.
"""

from __future__ import annotations

import io
import textwrap
import tokenize
from collections.abc import Iterable, Mapping

from smellkit.analysis.context import Context
from smellkit.evaluate.signals.localize import within
from smellkit.facts import Definition

METRICS = ("cc", "mi", "wmc", "lcom4", "cbo", "sloc", "fan_out", "calls", "tokens")
_FUNCTION_KINDS = frozenset({"function", "method", "nested_function"})
_EPSILON = 1e-9

Values = dict[str, float | None]


def outermost(names: Iterable[str], context: Context) -> list[str]:
    """The names not inside another of them, sorted."""
    index = context.index
    chosen = sorted(set(names))
    modules = {name for name in chosen if name in index.modules}

    def inside(name: str, other: str) -> bool:
        return name != other and within(name, index.module_of.get(name), other,
                                        other in modules)

    return [name for name in chosen if not any(inside(name, other) for other in chosen)]


def _contents(units: list[str], context: Context) -> list[Definition]:
    """Every definition inside the units, each once, in qualname order."""
    index = context.index
    by_module: dict[str, list[str]] = {}
    for unit in units:
        by_module.setdefault(index.scope_module(unit), []).append(unit)
    found: dict[str, Definition] = {}
    for module, inner in by_module.items():
        facts = index.modules.get(module)
        for definition in facts.definitions if facts is not None else ():
            qualname = definition.qualname
            if index.definitions.get(qualname) is definition and any(
                    within(qualname, module, unit, unit == module) for unit in inner):
                found[qualname] = definition
    return [found[name] for name in sorted(found)]


def measure(context: Context, names: Iterable[str]) -> Values:
    """The metrics (see the module docstring) of the code under `names` that exists here."""
    index = context.index
    present = [name for name in names if name in index.definitions or name in index.modules]
    units = outermost(present, context)
    contents = _contents(units, context)
    functions = [item for item in contents
                 if item.kind in _FUNCTION_KINDS and item.measure is not None]
    classes = [item.qualname for item in contents if item.kind == "class"]
    sloc = 0
    for unit in units:
        if unit in index.modules:
            sloc += index.modules[unit].measure.sloc
        else:
            measured = index.definitions[unit].measure
            sloc += measured.sloc if measured is not None else 0
    values: Values = {
        "cc": float(sum(item.measure.cc for item in functions if item.measure is not None)),
        "mi": (sum(item.measure.mi for item in functions if item.measure is not None)
               / len(functions)) if functions else None,
        "sloc": float(sloc),
    }
    per_class = context.class_metrics if classes else {}
    rows = [per_class[name] for name in classes if name in per_class]
    values["wmc"] = float(sum(row.wmc for row in rows))
    values["cbo"] = float(sum(row.cbo for row in rows))
    values["lcom4"] = float(max(row.lcom4 for row in rows)) if rows else None
    values["fan_out"] = float(len(_imported_definitions(context, units)))
    values["calls"] = float(_call_sites(context, units))
    values["tokens"] = float(sum(_tokens(context, unit) for unit in units))
    return {metric: values[metric] for metric in METRICS}


def _imported_definitions(context: Context, units: list[str]) -> set[str]:
    index = context.index
    found: set[str] = set()
    for module in {index.scope_module(unit) for unit in units}:
        facts = index.modules.get(module)
        for item in facts.imports if facts is not None else ():
            if not item.type_only and (item.target in index.definitions
                                       or item.target in index.modules
                                       or item.target.rpartition(".")[0] in index.modules):
                found.add(item.target)
    return found


def gap_closed(original: Mapping[str, float | None], smelly: Mapping[str, float | None],
               result: Mapping[str, float | None]) -> float | None:
    """The mean over metrics with a gap (smelly != original, all three known) of
    (smelly - result) / (smelly - original), each clamped to [-1, 1]: 1 is the original's
    figure (going past it closes no more than the whole gap, so one overshooting metric cannot
    make up for another left open), 0 the smelly one, -1 the gap made twice as wide or worse.
    None when no metric has a gap."""
    shares: list[float] = []
    for metric in METRICS:
        before, after, now = smelly.get(metric), original.get(metric), result.get(metric)
        if before is None or after is None or now is None or abs(before - after) <= _EPSILON:
            continue
        share = (before - now) / (before - after)
        shares.append(min(1.0, max(-1.0, share)))
    return sum(shares) / len(shares) if shares else None


def _call_sites(context: Context, units: list[str]) -> int:
    index = context.index
    count = 0
    for module in {index.scope_module(unit) for unit in units}:
        facts = index.modules.get(module)
        inner = [unit for unit in units if index.scope_module(unit) == module]
        for call in facts.calls if facts is not None else ():
            if not call.implicit and any(within(call.scope, module, unit, unit == module)
                                         for unit in inner):
                count += 1
    return count


_CODE_TOKENS = frozenset({tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.STRING})


def _tokens(context: Context, unit: str) -> int:
    index = context.index
    facts = index.modules.get(index.scope_module(unit))
    if facts is None:
        return 0
    lines = context.lines(facts.path)
    if unit not in index.modules:
        definition = index.definitions[unit]
        lines = lines[definition.start_line - 1:definition.end_line]
    text = textwrap.dedent("".join(line if line.endswith("\n") else line + "\n"
                                   for line in lines))
    try:
        return sum(1 for token in tokenize.generate_tokens(io.StringIO(text).readline)
                   if token.type in _CODE_TOKENS)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return len(text.split())  # a span that does not tokenize alone: words, roughly
