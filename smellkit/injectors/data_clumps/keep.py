"""Data-clump injection of the second kind: fields passed beside the object they come from.

A function that takes a parameter object and reads some of its fields, but also uses the object
in other ways (calls its methods, hands it on), cannot lose the object. The smelly version still
passes it, and passes the 3-4 fields it reads as extra parameters computed at every call site
(`compile_rules(env, env.block_start_string, ...)`), the function reading its parameters
instead of the fields. Once three such signatures in two modules carry the same fields, they
travel together: a data clump.

Why it is sound: a field read at the call site has the value the function would have read later
when nothing can assign the field in between. So every field is assigned only in constructors,
anywhere in the repository (by attribute name, whatever the receiver); the function never
assigns to its parameter or through it, and uses no `setattr`, `delattr`, `vars` or `__dict__`;
the parameter's annotation names the class alone (never `Optional`), so the call-site object is
an instance with its fields set; and every call of the function is known and passes the object
as a plain name or attribute chain (evaluated once more per field, without effects). Not seen:
`setattr` with a computed name in other functions (jinja2's `Environment.overlay` sets fields of
a fresh copy that way, before any call reads them).
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import combinations

from smellkit.facts import UNKNOWN, Definition, FileFacts, Name
from smellkit.injectors.data_clumps.plan import (
    CONSTRUCTORS,
    SAFE_DECORATORS,
    Planner,
    Taker,
    class_fields,
)

_DYNAMIC = re.compile(r"\b(setattr|delattr|vars)\s*\(|__dict__")
_MAX_READS = 12


def keep_takers(planner: Planner, cls: str) -> dict[str, Taker]:
    """Functions that take `cls`, read at least two stable fields of it, and whose every call
    is known."""
    found: dict[str, Taker] = {}
    for facts, definition in planner.annotated.get(cls, ()):
        taker = _keep_taker(planner, facts, definition, cls)
        if taker is not None:
            found[taker.qualname] = taker
    for qualname in list(found):
        if not planner.plan_sites(found[qualname], found):
            del found[qualname]
    return found


def _keep_taker(planner: Planner, facts: FileFacts, definition: Definition,
                cls: str) -> Taker | None:
    index = planner.index
    name = definition.name
    if definition.kind not in ("function", "method") or definition.is_async or \
            name.startswith("__") or name.startswith("test") or \
            not set(definition.decorators) <= SAFE_DECORATORS:
        return None
    first = 1 if definition.kind == "method" and "staticmethod" not in \
        definition.decorators else 0
    chosen = [param for param in definition.params[first:]
              if planner.param_class(definition, param.name) == cls]
    if len(chosen) != 1:
        return None
    param = chosen[0]
    if len(param.annotation) > 1 or param.default is not None or param.kind not in (
            "positional", "positional_only", "keyword_only"):
        return None
    if definition.kind == "method" and planner.overridden(definition):
        return None
    if any(item.scope == definition.qualname and item.target == Name(param.name)
           and not (item.value == UNKNOWN and item.annotation == param.annotation
                    and item.line <= definition.start_line + len(definition.params))
           for item in facts.assignments):  # (the parameter's own binding aside)
        return None  # rebound: a later read may be of another object
    text = planner.span(facts.path, definition)
    if _DYNAMIC.search(text):
        return None
    annotated = re.search(rf"(?<![\w.]){re.escape(param.name)}\s*:\s*(['\"]?)([\w.]+)\1\s*[,)=]",
                          text)
    if not param.annotation and re.search(
            rf"\b{re.escape(param.name)}\s+is\s+(not\s+)?None\b|\bif\s+(not\s+)?"
            rf"{re.escape(param.name)}\b|\b{re.escape(param.name)}\s+(or|and)\b", text):
        return None  # typed by its callers, yet it may be missing: the function checks
    if param.annotation and (annotated is None or annotated.group(2).rpartition(".")[2]
                             != cls.rpartition(".")[2]):
        return None  # `Optional[C]`, `C | None`: the object may be missing
    fields = class_fields(index, cls)
    reads: set[str] = set()
    for access in facts.accesses:
        if access.scope != definition.qualname or access.receiver != Name(param.name):
            continue
        if access.write:
            return None
        if access.called or access.attr not in fields or access.attr.startswith("_"):
            continue
        member = index.member(cls, access.attr)
        if member is not None and index.definitions[member].kind != "class":
            continue  # a method or property
        if not {scope.rpartition(".")[2] for scope in planner.writes.get(access.attr, ())} \
                <= CONSTRUCTORS:
            continue  # assigned after construction somewhere: reading it earlier could differ
        reads.add(access.attr)
    if len(reads) < 2:
        return None
    return Taker(definition, facts.path, param.name, param.kind, frozenset(reads))


def keep_clumps(takers: dict[str, Taker], min_fields: int, max_fields: int,
                min_functions: int) -> list[tuple[frozenset[str], dict[str, Taker]]]:
    """Field sets read by at least `min_functions` takers in at least two modules, each the
    largest set (up to `max_fields`) those takers share."""
    counts: Counter[tuple[str, ...]] = Counter()
    for taker in takers.values():
        for group in combinations(sorted(taker.reads)[:_MAX_READS], min_fields):
            counts[group] += 1
    found: dict[frozenset[str], dict[str, Taker]] = {}
    for group, count in sorted(counts.items()):
        if count < min_functions:
            continue
        sharing = {name: taker for name, taker in takers.items() if set(group) <= taker.reads}
        if len({taker.path for taker in sharing.values()}) < 2:
            continue
        common = frozenset.intersection(*(taker.reads for taker in sharing.values()))
        clump = common if len(common) <= max_fields else frozenset(group)
        found.setdefault(clump, sharing)
    return sorted(found.items(), key=lambda item: sorted(item[0]))
