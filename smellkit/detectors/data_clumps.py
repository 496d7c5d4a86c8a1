"""Data clumps: the same group of parameters (or fields) travelling together through several
signatures in several modules, where one object could carry them.

A *holder* is a function or method signature (without `self`/`cls`, `*args` and `**kwargs`), or
the fields of a class without an `__init__` of its own (the annotated class attributes of a
dataclass, a NamedTuple, a pydantic or attrs model). A clump is a set of at least `min-group-size`
names that at least `min-occurrences` holders in at least `min-modules` modules all have. It is
reported once, at its first holder by path and line; `related` lists the others; the evidence
names the parameters, the classes that already hold them all, and further names that at least
`min-occurrences` of its holders also take (`often_with`).

The rules, strongest first:

1. Exact names. Clumps are the closed sets of names (all the names a group of holders shares),
   found by counting the `min-group-size`-combinations of each holder's names, so `(a, b, c)` is
   never reported beside `(a, b, c, d)` when both occur in the same holders. A subset of a reported
   clump is reported on its own only when at least `min-occurrences` further holders have it (they
   lack the rest of the bigger clump); otherwise it is folded into the bigger one.
2. Renamed, by position (weaker, confidence lowered): a set of names shared by at least two
   holders but short of the thresholds is completed by holders that have its parameters at the
   same relative positions, at least one under the same name and every other one under a related
   name (one a prefix or suffix of the other, or sharing a word of three letters or more:
   `host`/`hostname`, `port`/`port_number`) with the same informative annotation (not only
   `Optional`, `Any`, `Union`...) or an equal default. `(host: str, port: int, timeout)` then
   matches `(hostname: str, port_number: int, timeout=5)`. Names found in more than
   `RENAMED_SCAN_LIMIT` holders are too common for this rule.

What is not a data clump here:

- Overrides of one method: a method and its overrides in subclasses (or the implementations of a
  method of one external base class) are one signature, counted once; so are the constructors of
  a class hierarchy. Typed overloads count once, by their implementation.
- Protocol signatures: dunder methods other than constructors (`__exit__(exc_type, exc, tb)`), and
  nested functions, which are mostly callbacks whose signature the caller fixes
  (`callback(ctx, param, value)`). So are functions that no code calls by name but that are handed
  over as values (`callback=read_config`, `{YEARLY: info.ydayset}`): they are left out. Methods
  handed over or named by a string (dispatch through `getattr(self, name)`), with the methods of
  their class hierarchy that have the same parameters, count as one occurrence. And the
  `(typ, value, tb)` triple of `sys.exc_info()` is not reported under any of its usual names.
- A second group at the same signature: a clump that starts where a reported one starts and shares
  two or more names with it is listed in that finding's `overlapping` evidence, not reported on
  its own (one finding per signature).
- Forwarding methods: a method whose body is one call that hands every one of its parameters on
  unchanged, under the same name, to a function (or a method of its own object) that takes them
  all (`Format.compact_decimal(number, format_type, fraction_digits)` returning
  `format_compact_decimal(number, format_type=format_type, ..., locale=self.locale)`) is a second
  door to that function, bound to the object's state, not another place the group travels: it
  counts as one occurrence with it. A method that does anything else besides (a branch, a second
  call) still counts, and so does a module-level function that forwards: on the labelled corpus
  such functions are a library's second API (attrs' `field` and `attrib`), whose shared options
  the labellers call a clump.
- Tests: pytest test functions and fixtures take their parameters by name from pytest.
- Names of one character: `(x, y, z)` or `(a, b, c)` says nothing about the domain, and most such
  triples are generic arithmetic; set `min-name-length = 1` to count them (a `Point` clump).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations
from math import comb
from typing import NamedTuple

from pydantic import Field

from smellkit.analysis.context import Context
from smellkit.analysis.smells import Smell
from smellkit.detectors.base import Detector, DetectorOptions, Example
from smellkit.facts import Alts, Attr, CallSite, Definition, DefRef, DictLit, Expr, Name, Seq
from smellkit.graphs.index import Index
from smellkit.models import Finding, Location, Severity

CONSTRUCTORS = frozenset({"__init__", "__new__", "__post_init__"})

GENERIC_BASES = frozenset({
    "object", "abc.ABC", "typing.Generic", "typing.Protocol", "typing_extensions.Protocol",
    "typing.NamedTuple", "typing.TypedDict", "typing_extensions.TypedDict", "enum.Enum",
    "enum.IntEnum", "enum.Flag", "enum.IntFlag", "enum.StrEnum",
})
"""External bases that say nothing about the methods a subclass defines."""

GENERIC_ANNOTATIONS = frozenset({
    "Any", "Optional", "Union", "List", "Dict", "Tuple", "Set", "FrozenSet", "Sequence",
    "Mapping", "MutableMapping", "Iterable", "Iterator", "Callable", "Type", "Literal", "object",
    "list", "dict", "tuple", "set", "type",
})
"""Annotations that say too little for two renamed parameters to be taken for one."""

EXC_INFO_ROLES = (
    frozenset({"typ", "type", "etype", "exc_type", "exctype", "exc_typ", "error_type"}),
    frozenset({"value", "val", "exc", "evalue", "exc_value", "exc_val", "error", "exception"}),
    frozenset({"tb", "traceback", "exc_tb", "exc_traceback", "trace"}),
)
"""The names Python code gives the three parts of `sys.exc_info()`."""

PARTIAL_TARGETS = frozenset({"functools.partial", "functools.partialmethod"})
"""Callables that call their first argument later with the signature it has."""
PARTIAL_NAME = "partial"
PARTIAL = frozenset({PARTIAL_NAME, "method:partial", "method:partialmethod"})

_PARAMETER_KINDS = frozenset({"positional_only", "positional", "keyword_only"})
_MAX_NAMES = 40
"""Names of a holder beyond this many are ignored (their combinations grow too fast)."""
_MAX_COMBINATIONS = 10_000
"""At most this many combinations per holder: its first names only, for large groups."""
RENAMED_SCAN_LIMIT = 200
"""A clump whose names occur in more holders than this is not completed by renamed matches."""


class DataClumpsOptions(DetectorOptions):
    min_group_size: int = Field(
        default=3, ge=2, le=8, description="A clump has at least this many parameters or "
        "fields.")
    min_occurrences: int = Field(
        default=3, ge=2, description="A clump occurs in at least this many signatures or "
        "classes (overrides of one method count once).")
    min_modules: int = Field(
        default=2, ge=1, description="Its occurrences are spread over at least this many modules.")
    min_name_length: int = Field(
        default=2, ge=1, description="Parameters with shorter names are ignored: `(x, y, z)` is "
        "generic arithmetic more often than a domain concept.")
    renamed: bool = Field(
        default=True, description="Complete a clump one occurrence short with holders that have "
        "its parameters at the same positions under related names with the same annotations or "
        "defaults (lower confidence).")
    include_fields: bool = Field(
        default=True, description="Count the annotated fields of classes without their own "
        "__init__ (dataclasses, NamedTuples, models) as holders.")


class Holder(NamedTuple):
    """A signature or a class's fields: where a clump can occur."""

    qualname: str
    key: str  # holders with one key are one occurrence (a method and its overrides)
    module: str
    path: str
    line: int
    names: tuple[str, ...]  # in order
    annotations: tuple[tuple[str, ...], ...]
    defaults: tuple[Expr | None, ...]
    is_class: bool
    forwards: bool = False  # a forwarding method: its key is that of the function it calls


class _Table:
    """The holders, their names indexed."""

    def __init__(self, holders: Sequence[Holder]):
        self.holders = holders
        self.names = [frozenset(holder.names) for holder in holders]
        self.by_name: dict[str, list[int]] = defaultdict(list)
        for number, holder in enumerate(holders):
            for name in holder.names:
                self.by_name[name].append(number)

    def occurrences(self, group: Iterable[int]) -> list[int]:
        """The first holder of each key among `group`: a method and its overrides count once (a
        forwarding method with the function it forwards to, which stands for both)."""
        seen: set[str] = set()
        found: list[int] = []
        for number in sorted(group, key=lambda number: (self.holders[number].forwards, number)):
            key = self.holders[number].key
            if key not in seen:
                seen.add(key)
                found.append(number)
        return sorted(found)


class Clump(NamedTuple):
    names: frozenset[str]
    holders: tuple[int, ...]  # indexes into the holder list, one per key (exact names)
    renamed: tuple[tuple[int, tuple[str, ...]], ...] = ()  # (holder, its names in clump order)
    overlapping: tuple[Clump, ...] = ()  # smaller clumps folded in: same first holder, 2+ names

    def first(self) -> int:
        return min([*self.holders, *(number for number, _ in self.renamed)])


class DataClumps(Detector[DataClumpsOptions]):
    """Groups of parameters or fields that keep occurring together."""

    smell = Smell(
        name="data_clumps",
        description=("At least 3 parameters (or fields) that occur together in at least 3 "
                     "signatures across at least 2 modules, overrides of one method counted once; "
                     "renamed occurrences match by position, annotation and default."),
        phrases=(
            "a data clump: the same group of values passed around together instead of as one "
            "object",
            "a data clump: a group of parameters that always travel together through several "
            "signatures",
        ),
        needs_call_graph=False,
    )
    Options = DataClumpsOptions

    def detect(self, context: Context) -> Iterable[Finding]:
        table = _Table(self.holders(context.index, _uses(context.index)))
        for clump in self.clumps(table):
            finding = self._finding(context, table, clump)
            if finding is not None:
                yield finding

    # -- holders -------------------------------------------------------------------------------

    def holders(self, index: Index, uses: Uses | None = None) -> list[Holder]:
        """Every signature and field set with at least `min-group-size` names, in a stable order;
        with `uses`, functions only handed over as values are left out (their callers fix their
        signature)."""
        options = self.options
        found: list[Holder] = []
        methods: dict[tuple[str, frozenset[str]], list[int]] = defaultdict(list)
        dispatched: set[tuple[str, frozenset[str]]] = set()
        for facts in sorted(index.modules.values(), key=lambda item: item.path):
            chosen: dict[str, Definition] = {}
            for definition in facts.definitions:
                if definition.kind in ("function", "method"):
                    current = chosen.get(definition.qualname)
                    if current is None or not _is_overload(definition):
                        chosen[definition.qualname] = definition  # overloads: the implementation
            for definition in chosen.values():
                handed_over = uses is not None and uses.handed_over(definition)
                if handed_over and definition.kind != "method":
                    continue  # a callback: its caller fixes the signature
                holder = self._signature(index, facts.module, facts.path, definition)
                if holder is None:
                    continue
                if definition.kind == "method":
                    family = (_hierarchy_root(index, definition.parent), frozenset(holder.names))
                    methods[family].append(len(found))
                    if handed_over:
                        dispatched.add(family)
                found.append(holder)
            if options.include_fields:
                for info in facts.classes:
                    if "__init__" in index.children.get(info.qualname, {}):
                        continue
                    names = [(attribute.name, attribute.annotation, attribute.value)
                             for attribute in info.attributes
                             if attribute.kind == "class" and attribute.annotation
                             and self._counts(attribute.name) and not attribute.name.isupper()]
                    declared = index.definitions.get(info.qualname)
                    if len(names) >= options.min_group_size and declared is not None:
                        found.append(Holder(
                            info.qualname, info.qualname, facts.module, facts.path,
                            declared.start_line, *_columns(names), is_class=True))
        for family in dispatched:  # dispatched by name, with their same-signature siblings
            for number in methods[family]:
                found[number] = found[number]._replace(
                    key=f"{family[0]}.<dispatched({', '.join(sorted(family[1]))})>")
        _fold_forwarding_methods(index, found)
        found.sort(key=lambda holder: (holder.path, holder.line, holder.qualname))
        return found

    def _counts(self, name: str) -> bool:
        return len(name) >= self.options.min_name_length and not name.startswith("__")

    def _signature(self, index: Index, module: str, path: str,
                   definition: Definition) -> Holder | None:
        name = definition.name
        if _is_dunder(name) and name not in CONSTRUCTORS:
            return None
        if name.startswith("test") and (name.startswith("test_") or name == "test"):
            return None
        if any(decorator.endswith("fixture") for decorator in definition.decorators):
            return None
        params = definition.params
        if definition.kind == "method" and params and "staticmethod" not in definition.decorators:
            params = params[1:]
        kept = [(param.name, param.annotation, param.default) for param in params
                if param.kind in _PARAMETER_KINDS and self._counts(param.name)]
        if len(kept) < self.options.min_group_size:
            return None
        key = definition.qualname
        if definition.kind == "method":
            key = _override_key(index, definition)
        return Holder(definition.qualname, key, module, path, definition.start_line,
                      *_columns(kept[:_MAX_NAMES]), is_class=False)

    # -- clumps ---------------------------------------------------------------------------------

    def clumps(self, table: _Table) -> list[Clump]:
        """The clumps to report, biggest first, each with its occurrences."""
        options = self.options
        holders = table.holders
        size = options.min_group_size
        limit = max(n for n in range(size, _MAX_NAMES + 1) if comb(n, size) <= _MAX_COMBINATIONS)
        triples: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for number, holder in enumerate(holders):
            for triple in combinations(sorted(holder.names[:limit]), size):
                triples[triple].append(number)
        closures: dict[tuple[int, ...], frozenset[str]] = {}
        for owners in triples.values():
            if len(owners) >= 2:
                key = tuple(owners)
                if key not in closures:
                    # a holder with all of the closure's names has the triple: it is in `owners`
                    closures[key] = frozenset.intersection(*(table.names[n] for n in owners))
        candidates: list[Clump] = []
        for group, names in closures.items():
            occurrences = table.occurrences(group)
            if len(occurrences) < 2:
                continue  # one method and its overrides
            clump = Clump(names, tuple(occurrences))
            if not self._enough(holders, clump):
                if not options.renamed:
                    continue
                clump = self._complete(table, clump)
                if not self._enough(holders, clump):
                    continue
            candidates.append(clump)
        ordered = sorted(candidates, key=lambda clump: (
            -len(clump.names), -len(clump.holders) - len(clump.renamed), sorted(clump.names)))
        reported: list[Clump] = []
        for clump in ordered:
            covered: set[str] = set()
            for bigger in reported:
                if clump.names < bigger.names:
                    covered.update(holders[number].key for number in bigger.holders)
            if covered and sum(holders[number].key not in covered for number in clump.holders) \
                    < options.min_occurrences:
                continue  # folded into a bigger clump
            if _is_exc_info(clump.names):
                continue
            reported.append(clump)
        return _fold_overlapping(reported)

    def _enough(self, holders: Sequence[Holder], clump: Clump) -> bool:
        options = self.options
        occurrences = [*clump.holders, *(number for number, _ in clump.renamed)]
        modules = {holders[number].module for number in occurrences}
        return len(occurrences) >= options.min_occurrences and len(modules) >= options.min_modules

    def _complete(self, table: _Table, clump: Clump) -> Clump:
        """Add holders that have the clump's parameters at the same positions, renamed."""
        holders = table.holders
        reference = holders[clump.holders[0]]
        order = [name for name in reference.names if name in clump.names]
        positions = {name: reference.names.index(name) for name in order}
        known = {holders[number].key for number in clump.holders}
        nearby = sorted({number for name in order for number in table.by_name.get(name, ())})
        if len(nearby) > RENAMED_SCAN_LIMIT:
            return clump  # names too common to tell a renamed occurrence from a coincidence
        found: list[tuple[int, tuple[str, ...]]] = []
        for number in nearby:
            holder = holders[number]
            if holder.key in known or holder.is_class != reference.is_class:
                continue
            for anchor in order:
                if anchor not in holder.names:
                    continue
                shift = holder.names.index(anchor) - positions[anchor]
                match = _aligned(reference, holder, order, positions, shift)
                if match is not None:
                    found.append((number, match))
                    known.add(holder.key)
                    break
        return clump._replace(renamed=tuple(found))

    # -- findings --------------------------------------------------------------------------------

    def _finding(self, context: Context, table: _Table, clump: Clump) -> Finding | None:
        options = self.options
        holders = table.holders
        occurrences = sorted([*clump.holders, *(number for number, _ in clump.renamed)])
        renamed = dict(clump.renamed)
        reference = holders[clump.holders[0]]
        order = [name for name in reference.names if name in clump.names]
        locations: list[Location] = []
        for number in occurrences:
            location = context.location(holders[number].qualname)
            if location is None:
                return None
            locations.append(location)
        modules = sorted({holders[number].module for number in occurrences})
        count = len(occurrences)
        extra = len(clump.names) - options.min_group_size
        severity: Severity
        if count >= 3 * options.min_occurrences or (count >= 2 * options.min_occurrences
                                                    and extra >= 2):
            severity = "error"
        elif count > options.min_occurrences or extra >= 1:
            severity = "warning"
        else:
            severity = "info"
        classes = [holders[number].qualname for number in clump.holders
                   if holders[number].is_class]
        confidence = 0.75 + 0.05 * min(extra, 2) + 0.05 * min(count - options.min_occurrences, 2)
        confidence -= 0.25 * len(renamed) / count
        if classes:
            confidence += 0.05
        also = self._extensions(table, clump)
        names = ", ".join(order)
        where = ", ".join(holders[number].qualname for number in occurrences[:3])
        if count > 3:
            where += f" and {count - 3} more"
        holder_note = f"; {classes[0]} already holds them" if classes else ""
        renamed_note = f" ({len(renamed)} of them renamed)" if renamed else ""
        holders_word = "signatures and classes" if any(
            holders[number].is_class for number in occurrences) else "signatures"
        overlapping = [self._overlap(table, other) for other in clump.overlapping]
        overlap_note = "; overlapping it here: " + ", ".join(
            f"({', '.join(item['parameters'])}) in {item['occurrences']}"  # type: ignore[arg-type]
            for item in overlapping) if overlapping else ""
        message = (f"Parameters ({names}) travel together through {count} {holders_word} in "
                   f"{len(modules)} modules{renamed_note}: {where}{holder_note}{overlap_note}")
        return Finding(
            smell=self.name, location=locations[0], severity=severity,
            confidence=round(max(0.1, min(1.0, confidence)), 2), message=message,
            evidence={
                "rule": (f"{options.min_group_size}+ names shared by {options.min_occurrences}+ "
                         f"signatures in {options.min_modules}+ modules"
                         + ("; renamed occurrences matched by position" if renamed else "")),
                "parameters": order,
                "occurrences": count,
                "exact_occurrences": len(clump.holders),
                "modules": len(modules),
                "renamed": {holders[number].qualname: list(names_there)
                            for number, names_there in clump.renamed},
                "classes_with_these_fields": classes,
                "often_with": also,
                "overlapping": overlapping,
            },
            related=tuple(locations[1:]))

    def _overlap(self, table: _Table, clump: Clump) -> dict[str, object]:
        """A clump folded into another found at the same signature: its names and holders."""
        holders = table.holders
        reference = holders[clump.first()]
        occurrences = sorted([*clump.holders, *(number for number, _ in clump.renamed)])
        return {"parameters": [name for name in reference.names if name in clump.names],
                "occurrences": len(occurrences),
                "holders": [holders[number].qualname for number in occurrences]}

    def _extensions(self, table: _Table, clump: Clump) -> dict[str, int]:
        """Further names that at least `min-occurrences` of the clump's holders also take."""
        counts: dict[str, int] = defaultdict(int)
        for number in clump.holders:
            for name in table.names[number] - clump.names:
                counts[name] += 1
        return {name: counts[name] for name in sorted(counts, key=lambda n: (-counts[n], n))
                if counts[name] >= self.options.min_occurrences}


class Uses(NamedTuple):
    """How the project refers to functions and methods: by qualname, or `method:m` for `obj.m`."""

    called: frozenset[str]
    mentioned: frozenset[str]  # read as a value (or, for methods, named by a string)

    def handed_over(self, definition: Definition) -> bool:
        """Whether the function is never called by name but handed over as a value."""
        if definition.name in CONSTRUCTORS:
            return False
        by_name = f"method:{definition.name}"
        if definition.qualname in self.called or by_name in self.called:
            return False
        return definition.qualname in self.mentioned or (
            definition.kind == "method" and by_name in self.mentioned)


def _uses(index: Index) -> Uses:
    """Functions and methods that no code calls by name but that are handed over as values
    (`callback=read_config`, `{YEARLY: info.ydayset}`) or, for methods, named by a string
    (dispatch through `getattr(self, name)`): the code that calls them fixes their signature.

    Functions are named by qualname (bare names resolved where they are read); methods by their
    name alone, as `obj.method` is read, with a `method:` prefix."""
    called: set[str] = set()
    mentioned: set[str] = set()
    stored: set[str] = set()
    for facts in index.modules.values():
        for call in facts.calls:
            if call.implicit:
                continue
            callees = set(_references(index, call.scope, call.func))
            called.update(callees)
            if callees & PARTIAL and call.args:  # partial(f, ...) calls f later as it is
                called.update(_references(index, call.scope, call.args[0]))
            for argument in (*call.args, *(value for _, value in call.kwargs)):
                mentioned.update(_references(index, call.scope, argument))
        for assignment in facts.assignments:
            if isinstance(assignment.target, Name) and isinstance(assignment.value,
                                                                  (Name, DefRef)):
                continue  # a `def`, or an alias (`ib = attrib`) called under its new name
            mentioned.update(_references(index, assignment.scope, assignment.value))
        for returned in facts.returns:
            mentioned.update(_references(index, returned.scope, returned.value))
        mentioned.update(f"method:{access.attr}" for access in facts.accesses
                         if not access.called and not access.write)
        stored.update(f"method:{access.attr}" for access in facts.accesses if access.write)
        exported = set(facts.dunder_all or ())
        mentioned.update(f"method:{value}" for value, _ in facts.string_constants
                         if value.isidentifier() and value not in exported)
    # `obj.validate` read where some object stores a `validate` of its own is not the method
    return Uses(frozenset(called), frozenset(mentioned - stored))


def _references(index: Index, scope: str, expr: Expr) -> Iterator[str]:
    """What a value expression names: the qualnames of bare names, `method:m` for `obj.m`,
    through displays and alternatives; `partial` for a call of `functools.partial`."""
    if isinstance(expr, Name):
        target = index.resolve_name(scope, expr.id)
        if target is not None:
            yield PARTIAL_NAME if target in PARTIAL_TARGETS else target
    elif isinstance(expr, Attr):
        yield f"method:{expr.attr}"
    elif isinstance(expr, DefRef):
        yield expr.qualname
    elif isinstance(expr, (Alts, Seq)):
        for item in expr.options if isinstance(expr, Alts) else expr.items:
            yield from _references(index, scope, item)
    elif isinstance(expr, DictLit):
        for _, value in expr.items:
            yield from _references(index, scope, value)


def _columns(items: Sequence[tuple[str, tuple[str, ...], Expr | None]]) -> \
        tuple[tuple[str, ...], tuple[tuple[str, ...], ...], tuple[Expr | None, ...]]:
    return (tuple(item[0] for item in items), tuple(item[1] for item in items),
            tuple(item[2] for item in items))


def _is_overload(definition: Definition) -> bool:
    return any(decorator in ("overload", "typing.overload", "typing_extensions.overload")
               for decorator in definition.decorators)


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _override_key(index: Index, definition: Definition) -> str:
    """One key for a method and all its overrides: the topmost class of the repository that
    defines it, or the external base class whose method it implements."""
    cls = definition.parent
    name = definition.name
    look_for = CONSTRUCTORS if name in CONSTRUCTORS else frozenset({name})
    root = cls
    external: list[str] = []
    for ancestor in index.mro(cls)[1:]:
        if ancestor in index.classes:
            if look_for & index.children.get(ancestor, {}).keys():
                root = ancestor
        elif not ancestor.startswith("<builtin>.") and ancestor not in GENERIC_BASES:
            external.append(ancestor)
    if root == cls and external:
        return f"{'|'.join(sorted(external))}.{'<init>' if name in CONSTRUCTORS else name}"
    return f"{root}.{'<init>' if name in CONSTRUCTORS else name}"


def _fold_forwarding_methods(index: Index, holders: list[Holder]) -> None:
    """Give each forwarding method the key of the function it forwards to (through chains of
    them; a loop of forwarding methods keeps its own keys), so the two count as one occurrence."""
    by_qualname = {holder.qualname: number for number, holder in enumerate(holders)
                   if not holder.is_class}
    calls: dict[str, list[CallSite]] = defaultdict(list)
    for facts in index.modules.values():
        for call in facts.calls:
            if not call.implicit and call.scope in by_qualname:
                calls[call.scope].append(call)
    targets: dict[int, int] = {}
    for qualname, number in by_qualname.items():
        target = _forwarded_to(index, holders[number], calls.get(qualname, ()))
        if target is not None and target in by_qualname and target != qualname:
            targets[number] = by_qualname[target]
    for number in targets:
        seen = {number}
        current = targets[number]
        while current in targets and current not in seen:
            seen.add(current)
            current = targets[current]
        if current not in seen:
            holders[number] = holders[number]._replace(key=holders[current].key, forwards=True)


def _forwarded_to(index: Index, holder: Holder, calls: Sequence[CallSite]) -> str | None:
    """The function a thin method forwards all its parameters to, under their own names (one
    statement, one call, no branch); None if the holder is not such a method."""
    definition = index.definitions.get(holder.qualname)
    measure = definition.measure if definition is not None else None
    if definition is None or definition.kind != "method" or measure is None or \
            measure.lloc > 2 or measure.cc > 1 or len(calls) != 1:
        return None
    (call,) = calls
    passed = {arg.id for arg in call.args if isinstance(arg, Name)}
    passed.update(name for name, value in call.kwargs
                  if isinstance(value, Name) and value.id == name)
    if not set(holder.names) <= passed:
        return None
    target: str | None = None
    if isinstance(call.func, Name):
        target = index.resolve_name(call.scope, call.func.id)
    elif isinstance(call.func, Attr) and isinstance(call.func.base, Name) and \
            call.func.base.id in ("self", "cls"):
        target = index.lookup_method(definition.parent, call.func.attr)
    target = index.resolve_dotted(target) or target if target is not None else None
    if target is None or target not in index.definitions:
        return None
    params = {param.name for param in index.definitions[target].params}
    return target if set(holder.names) <= params else None


def _fold_overlapping(clumps: Sequence[Clump]) -> list[Clump]:
    """One finding per signature: a clump that starts at the holder of an earlier one and shares
    two or more names with it is listed in that one's evidence, not reported on its own."""
    kept: list[Clump] = []
    for clump in clumps:
        for number, earlier in enumerate(kept):
            if earlier.first() == clump.first() and len(earlier.names & clump.names) >= 2:
                kept[number] = earlier._replace(overlapping=(*earlier.overlapping, clump))
                break
        else:
            kept.append(clump)
    return kept


def _is_exc_info(names: frozenset[str]) -> bool:
    """`(typ, value, tb)`: Python's exception triple, whose shape `sys.exc_info()`, `__exit__`
    and logging hooks fix; no object of the project's own would carry it."""
    return len(names) == 3 and all(names & role for role in EXC_INFO_ROLES)


def _hierarchy_root(index: Index, cls: str) -> str:
    """The topmost class of the repository that `cls` derives from (`cls` itself if none)."""
    return next((ancestor for ancestor in reversed(index.mro(cls)) if ancestor in index.classes),
                cls)


def _informative(annotation: tuple[str, ...]) -> bool:
    """Whether an annotation names a type of its own, not only `Optional`, `Any`, `t.Union`..."""
    return any(name.rpartition(".")[2] not in GENERIC_ANNOTATIONS for name in annotation)


def _related(first: str, second: str) -> bool:
    """Names that plausibly mean the same: one extends the other, or they share a word."""
    short, long = sorted((first, second), key=len)
    if len(short) >= 3 and (long.startswith(short) or long.endswith(short)):
        return True
    words = {word for word in first.split("_") if len(word) >= 3}
    return bool(words & {word for word in second.split("_") if len(word) >= 3})


def _aligned(reference: Holder, holder: Holder, order: Sequence[str],
             positions: dict[str, int], shift: int) -> tuple[str, ...] | None:
    """The holder's names for the clump at `shift`, or None if a position does not match."""
    names: list[str] = []
    for name in order:
        at = positions[name] + shift
        if not 0 <= at < len(holder.names):
            return None
        other = holder.names[at]
        if other != name:
            here = positions[name]
            same_type = _informative(reference.annotations[here]) and \
                reference.annotations[here] == holder.annotations[at]
            same_default = reference.defaults[here] is not None and \
                reference.defaults[here] == holder.defaults[at]
            if not (same_type or same_default) or other in order or not _related(name, other):
                return None
        names.append(other)
    if all(other != name for other, name in zip(names, order)):
        return None
    return tuple(names)


# -- examples -------------------------------------------------------------------------------

DataClumps.examples = (
    Example(
        "Connection settings passed one by one to functions of three modules.",
        {"net/client.py": "def connect(host, port, timeout, retries=3):\n"
                          "    return (host, port, timeout, retries)\n",
         "net/server.py": "def listen(host, port, timeout):\n    return (host, port, timeout)\n",
         "net/probe.py": "class Probe:\n"
                         "    def ping(self, host, port, timeout, count=1):\n"
                         "        return host, port, timeout, count\n"},
        ("net.client.connect",)),
    Example(
        "A dataclass and two functions share three fields; the dataclass is the first holder.",
        {"geo/area.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass Area:\n"
                        "    latitude: float\n    longitude: float\n    radius_km: float\n",
         "geo/search.py": "def nearby(latitude, longitude, radius_km, kind=None):\n"
                          "    return []\n",
         "geo/render.py": "def draw_circle(canvas, latitude, longitude, radius_km):\n"
                          "    return canvas\n"},
        ("geo.area.Area",)),
    Example(
        "Overrides of one method repeat its signature: one occurrence, not three.",
        {"shapes/base.py": "class Shape:\n"
                           "    def draw(self, canvas, origin, scale):\n"
                           "        raise NotImplementedError\n",
         "shapes/circle.py": "from shapes.base import Shape\n\n\nclass Circle(Shape):\n"
                             "    def draw(self, canvas, origin, scale):\n        return canvas\n",
         "shapes/square.py": "from shapes.base import Shape\n\n\nclass Square(Shape):\n"
                             "    def draw(self, canvas, origin, scale):\n        return canvas\n"},
        ()),
    Example(
        "Context-manager exits and *args/**kwargs wrappers are protocol, not clumps.",
        {"a.py": "class A:\n    def __exit__(self, exc_type, exc_value, traceback):\n"
                 "        return None\n\n\n"
                 "def wrap(request, *args, **kwargs):\n    return request\n",
         "b.py": "class B:\n    def __exit__(self, exc_type, exc_value, traceback):\n"
                 "        return None\n\n\n"
                 "def wrap(request, *args, **kwargs):\n    return request\n",
         "c.py": "class C:\n    def __exit__(self, exc_type, exc_value, traceback):\n"
                 "        return None\n"},
        ()),
)
