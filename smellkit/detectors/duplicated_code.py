"""Duplicated code: clones of type 1 (the same code up to layout and comments) and type 2 (the same
up to identifiers, attribute names and literals), across files and within one, as clone groups.

Every body of every file is fingerprinted where the file is parsed (`facts.fingerprints`): one
exact and one normal hash per statement, a compound statement hashed from its header and its
bodies. A clone is a run of consecutive statements of one body whose normal hashes equal those of a
run elsewhere; the runs of a clone group agree statement by statement.

How the groups are found without comparing every pair of statements: each statement also carries
the hash of its *anchor window*, the shortest run starting there that is heavy enough (see
`fingerprints.WINDOW_WEIGHT`). Runs that share an anchor are grown to the right together, the group
splitting where its members' next statements differ; a group is kept only where it cannot grow to
the left either (else it is found from an earlier anchor) and when each of its runs has at least
`min-lines` lines of code (decorators, signature continuation lines and docstrings of definitions
do not count; blank and comment lines inside do). Groups whose every run lies inside a run of a
larger reported group (the bodies of two cloned functions, part of a cloned block) are not
reported again; a part of a clone that also occurs somewhere else is (it is a group of its own).

The clone type is 1 when every run's exact hashes agree too, else 2. A run that is exactly one
function or class is reported at that definition; other runs at their lines, under the qualname of
the definition that encloses them (kind `statement`). The location is the first run by path and
line; `related` has the others.

What is not a clone here:

- Imports, docstrings, typing overloads, `...` stubs, `if TYPE_CHECKING:` blocks: declarations.
- Data tables, constants and annotations outside functions: they match only when equal, not when
  they have the same shape (two tables of settings are not a copy); equal tables of literals are
  data, not logic, and are not reported either (below).
- Repetitions: a run of several statements with fewer than three different forms (eight asserts
  of one shape), here and inside a body.
- Anything with fewer than `min-lines` lines of code (default 6): a five-line `__exit__`
  signature around a one-line body is one line of code. Also anything lighter than the anchor
  window (a few trivial statements), whatever its length.
- A renamed pair (type 2, two copies) shorter than `min-lines-renamed` (8) made of fewer than
  `min-statements-renamed` (3) statements: one error raise, `__repr__` or deprecation shim over
  six lines shares a shape, not logic (on the labelled corpus nearly all such pairs were judged
  false, the longer or denser ones true).
- Boilerplate: copies whose every statement is a one-line definition (a `def` line and a one-line
  body: visitor stubs, one-line wrappers and accessors), an alias (`depart_note =
  depart_admonition`) or a table of literals; and copies whose every statement is a call of one
  and the same function (blocks of `add_argument` calls).
- Copies that each lie in an installable project of their own (a folder below the root with a
  `setup.py`, `setup.cfg` or `pyproject.toml`, such as the examples of a library): each project
  must stand alone.

Known limits: type 2 compares punctuation and structure inside expressions, so it does not tell
`a and b` from `a or b` or `x in y` from `x not in y`; see `facts.fingerprints` for the others.
Clones of type 3 (statements added or removed) are out of scope.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import pairwise
from pathlib import PurePosixPath
from typing import NamedTuple

from pydantic import Field

from smellkit.analysis.context import Context
from smellkit.analysis.smells import Smell
from smellkit.detectors.base import Detector, DetectorOptions, Example
from smellkit.facts import (
    Attr,
    CallSite,
    Const,
    Definition,
    DictLit,
    Expr,
    FileFacts,
    Name,
    Seq,
)
from smellkit.facts.fingerprints import MIN_LINES, STATEMENT_WEIGHT, WINDOW_WEIGHT, size_of
from smellkit.models import Finding, Location, Severity

MIN_SHAPES = 3
"""A clone of several statements needs this many different statement forms (normal hashes)."""


class DuplicatedCodeOptions(DetectorOptions):
    min_lines: int = Field(
        default=6, ge=MIN_LINES, description="Each copy must have at least this many lines of "
        "code (decorators, signature continuation lines and docstrings of definitions do not "
        f"count; blank and comment lines inside it do); at least {MIN_LINES}.")
    min_occurrences: int = Field(
        default=2, ge=2, description="Report a clone group only when the code occurs at least "
        "this many times.")
    min_lines_renamed: int = Field(
        default=8, ge=MIN_LINES, description="A renamed copy (type 2) that occurs only twice "
        "and has fewer lines of code than this is reported only when it holds at least "
        "`min-statements-renamed` statements: one or two statements spread over six lines (two "
        "error raises, two `__repr__`s) share a shape, not logic. Identical copies and groups "
        "of three or more need only `min-lines`.")
    min_statements_renamed: int = Field(
        default=3, ge=1, description="See `min-lines-renamed`; statements of the copy's own "
        "block (a loop with its body is one).")
    exact_only: bool = Field(
        default=False, description="Report only clones of type 1 (identical up to layout and "
        "comments), not renamed copies (type 2).")


class _File(NamedTuple):
    facts: FileFacts
    spans: memoryview  # first and last line of each statement
    exact: memoryview
    normal: memoryview

    def hidden(self) -> dict[int, int]:
        """Statement index -> its lines that are not code (decorators, signature, docstrings)."""
        values = memoryview(self.facts.fingerprints.hidden).cast("i")
        return dict(zip(values[0::2], values[1::2]))


class _Run(NamedTuple):
    """Where a clone's copy starts: a file, a statement index, the bounds of its block."""

    file: int
    start: int
    block_first: int
    block_stop: int
    scope: str


class _Group(NamedTuple):
    runs: tuple[_Run, ...]
    length: int  # statements


class DuplicatedCode(Detector[DuplicatedCodeOptions]):
    """Runs of statements that occur more than once, identical or renamed."""

    smell = Smell(
        name="duplicated_code",
        description=("Clone groups of type 1 (identical up to layout and comments) and type 2 "
                     "(identical up to names and literals) of at least 6 lines, across files and "
                     "within one; each group is reported once, at its first copy."),
        phrases=(
            "duplicated code: the same logic written out more than once",
            "duplicated code: one piece of logic that exists in several copies instead of being "
            "shared",
        ),
        smellbench_name="Duplicated",
        needs_call_graph=False,
    )
    Options = DuplicatedCodeOptions

    def detect(self, context: Context) -> Iterable[Finding]:
        files = [_File(facts, memoryview(facts.fingerprints.spans).cast("i"),
                       memoryview(facts.fingerprints.exact).cast("I"),
                       memoryview(facts.fingerprints.normal).cast("q"))
                 for facts in sorted(context.index.files, key=lambda f: f.path)
                 if facts.fingerprints.blocks]
        groups = self._groups(files)
        yield from self._report(context, files, groups)

    # -- finding the groups ----------------------------------------------------------------

    def _groups(self, files: Sequence[_File]) -> list[_Group]:
        counts: Counter[int] = Counter()
        anchors = [memoryview(item.facts.fingerprints.anchors).cast("q") for item in files]
        for values in anchors:
            counts.update(values)
        counts.pop(0, None)
        shared = {anchor for anchor, count in counts.items() if count > 1}
        min_span = self.options.min_lines - 1
        by_anchor: dict[int, list[_Run]] = {}
        for number, item in enumerate(files):
            values = anchors[number]
            if shared.isdisjoint(values):
                continue
            blocks = item.facts.fingerprints.blocks
            firsts = [block.first for block in blocks]
            spans = item.spans
            for index in [index for index, value in enumerate(values) if value in shared]:
                block = blocks[bisect_right(firsts, index) - 1]
                if spans[2 * block.stop - 1] - spans[2 * index] < min_span:
                    continue  # the rest of the block is too short for a clone
                by_anchor.setdefault(values[index], []).append(
                    _Run(number, index, block.first, block.stop, block.scope))
        found: list[_Group] = []
        for runs in by_anchor.values():
            if not self._left_maximal(files, runs):
                continue  # every copy grows to the left: found from the earlier anchor
            length = self._window(files, runs[0])
            self._grow(files, _separate(runs, length), length, found)
        return found

    @staticmethod
    def _window(files: Sequence[_File], run: _Run) -> int:
        """Statements in the anchor window of `run` (its anchor is that of its first statement)."""
        normal = files[run.file].normal
        total = 0
        index = run.start
        while index < run.block_stop and total < WINDOW_WEIGHT:
            total += size_of(normal[index]) + STATEMENT_WEIGHT
            index += 1
        return index - run.start

    @staticmethod
    def _left_maximal(files: Sequence[_File], runs: Sequence[_Run]) -> bool:
        """Whether the runs do not all continue to the left with equal statements."""
        before: int | None = None
        for run in runs:
            if run.start == run.block_first:
                return True
            value = files[run.file].normal[run.start - 1]
            if before is None:
                before = value
            elif value != before:
                return True
        return False

    def _grow(self, files: Sequence[_File], runs: list[_Run], length: int,
              found: list[_Group]) -> None:
        """Extend runs that agree so far, splitting where their next statements differ."""
        stack = [(runs, length)]
        while stack:
            members, size = stack.pop()
            if len(members) < 2:
                continue
            while True:
                buckets: dict[int, list[_Run]] = {}
                for run in members:
                    if run.start + size < run.block_stop:
                        buckets.setdefault(files[run.file].normal[run.start + size], []).append(
                            run)
                continuing = [bucket for bucket in buckets.values() if len(bucket) > 1]
                if (len(continuing) == 1 and len(continuing[0]) == len(members)
                        and not _overlap(members, size + 1)):
                    size += 1
                    continue
                break
            if self._left_maximal(files, members):
                found.append(_Group(tuple(members), size))
            for bucket in continuing:
                stack.append((_separate(bucket, size + 1), size + 1))

    # -- reporting ---------------------------------------------------------------------------

    def _report(self, context: Context, files: Sequence[_File],
                groups: list[_Group]) -> Iterable[Finding]:
        options = self.options
        candidates = []
        hidden: dict[int, dict[int, int]] = {}
        kinds = _StatementKinds(context, files)
        projects = _projects(context, files)
        for group in groups:
            if len(group.runs) < options.min_occurrences:
                continue
            if len({projects[run.file] for run in group.runs}) == len(group.runs) > 1 and \
                    len(set(projects.values())) > 1:
                continue  # each copy in a project of its own (examples with their setup.py)
            if kinds.boilerplate(group.runs[0], group.length):
                continue
            spans = [self._span(files, run, group.length) for run in group.runs]
            if min(end - start for start, end in spans) + 1 < options.min_lines:
                continue
            lines = min(end - start + 1 - self._not_code(files, hidden, run, group.length)
                        for run, (start, end) in zip(group.runs, spans))
            if lines < options.min_lines:
                continue
            first = group.runs[0]
            shapes = set(files[first.file].normal[first.start:first.start + group.length])
            if len(shapes) < min(MIN_SHAPES, group.length):
                continue  # a repetition (six asserts of one form), not a copied block
            exact = {bytes(files[run.file].exact[run.start:run.start + group.length])
                     for run in group.runs}
            clone_type = 1 if len(exact) == 1 else 2
            if options.exact_only and clone_type != 1:
                continue
            if clone_type == 2 and len(group.runs) < 3 and lines < options.min_lines_renamed \
                    and group.length < options.min_statements_renamed:
                continue  # a short renamed pair of a few long statements: a shared shape
            order = sorted(range(len(group.runs)),
                           key=lambda i: (files[group.runs[i].file].facts.path, spans[i][0]))
            candidates.append((lines, group, spans, clone_type, order))
        candidates.sort(key=lambda item: (-item[0], -len(item[1].runs), _first(files, item)))
        reported: dict[int, list[tuple[int, int]]] = {}
        for lines, group, spans, clone_type, order in candidates:
            if all(any(start >= known[0] and end <= known[1]
                       for known in reported.get(run.file, ()))
                   for run, (start, end) in zip(group.runs, spans)):
                continue  # inside a larger clone already reported
            for run, span in zip(group.runs, spans):
                reported.setdefault(run.file, []).append(span)
            locations = [self._location(context, files, group.runs[i], spans[i], group.length)
                         for i in order]
            yield self._finding(locations, lines, len(group.runs), group.length, clone_type)

    @staticmethod
    def _span(files: Sequence[_File], run: _Run, length: int) -> tuple[int, int]:
        spans = files[run.file].spans
        return spans[2 * run.start], spans[2 * (run.start + length) - 1]

    @staticmethod
    def _not_code(files: Sequence[_File], hidden: dict[int, dict[int, int]], run: _Run,
                  length: int) -> int:
        """Lines of a copy that are not code: decorators, signature continuation lines and
        docstrings of the definitions in it."""
        if run.file not in hidden:
            hidden[run.file] = files[run.file].hidden()
        not_code = hidden[run.file]
        if not not_code:
            return 0
        return sum(not_code.get(index, 0) for index in range(run.start, run.start + length))

    @staticmethod
    def _location(context: Context, files: Sequence[_File], run: _Run, span: tuple[int, int],
                  length: int) -> Location:
        facts = files[run.file].facts
        start, end = span
        if length == 1:  # one statement: a whole definition when it is one
            for definition in facts.definitions:
                if (definition.parent == run.scope and definition.end_line == end
                        and start <= definition.start_line <= end
                        and definition.kind in ("class", "function", "method",
                                                "nested_function")):
                    found = context.location(definition.qualname)
                    if found is not None and found.path == facts.path:
                        return found
        return context.line_location(run.scope, facts.path, start, end_line=end)

    def _finding(self, locations: list[Location], lines: int, occurrences: int,
                 statements: int, clone_type: int) -> Finding:
        options = self.options
        first, others = locations[0], locations[1:]
        ratio = lines / options.min_lines
        severity: Severity
        if ratio >= 4 or (occurrences >= 4 and ratio >= 2):
            severity = "error"
        elif ratio >= 1.5 or occurrences >= 3 or clone_type == 1:
            severity = "warning"
        else:
            severity = "info"
        confidence = (0.9 if clone_type == 1 else 0.7) + min(0.1, 0.02 * (ratio - 1))
        named = ", ".join(_describe(location) for location in others[:3])
        if len(others) > 3:
            named += f" and {len(others) - 3} more"
        kind = ("identical" if clone_type == 1 else
                "identical up to names and literals")
        message = (f"{_describe(first)} is duplicated in {named} ({lines} lines, "
                   f"{kind}; clone type {clone_type})")
        return Finding(
            smell=self.name, location=first, severity=severity,
            confidence=round(min(1.0, confidence), 2), message=message,
            evidence={
                "rule": f"type-{clone_type} clone of >= {options.min_lines} lines occurring >= "
                        f"{options.min_occurrences} times",
                "clone_type": clone_type,
                "lines": lines,
                "statements": statements,
                "occurrences": occurrences,
                "spans": [[location.path, location.start_line, location.end_line]
                          for location in locations],
            },
            related=tuple(others))


class _StatementKinds:
    """What the statements of a clone are, where that decides whether it is worth reporting."""

    def __init__(self, context: Context, files: Sequence[_File]):
        self.context = context
        self.files = files
        self._definitions: dict[int, dict[tuple[str, int], Definition]] = {}
        self._data: dict[int, set[int]] = {}
        self._calls: dict[int, dict[int, CallSite]] = {}

    def boilerplate(self, run: _Run, length: int) -> bool:
        """Whether the copy only repeats a shape, not logic: every statement a one-line
        definition (stubs, one-line wrappers and accessors: a `def` line and a one-line body),
        an alias or a table of literals; or every statement a call of one and the same function
        (a block of `add_argument` calls)."""
        indexes = range(run.start, run.start + length)
        if all(self._one_line_definition(run, index) or self._data_table(run.file, index)
               for index in indexes):
            return True
        callees = {self._callee(run.file, index) for index in indexes}
        return len(callees) == 1 and None not in callees

    def _callee(self, file: int, index: int) -> str | None:
        """The name of the function an expression statement calls (`parser.add_argument`)."""
        item = self.files[file]
        if file not in self._calls:
            first: dict[int, CallSite] = {}
            for site in item.facts.calls:
                if not site.implicit and (site.line not in first
                                          or site.col < first[site.line].col):
                    first[site.line] = site
            self._calls[file] = first
        line = item.spans[2 * index]
        call = self._calls[file].get(line)
        lines = self.context.lines(item.facts.path)
        if call is None or not 0 < line <= len(lines):
            return None
        text = lines[line - 1]
        if len(text) - len(text.lstrip()) != call.col:
            return None  # the call is part of the statement (`x = f()`), not all of it
        if isinstance(call.func, Attr):
            return call.func.attr
        return call.func.id if isinstance(call.func, Name) else None

    def _one_line_definition(self, run: _Run, index: int) -> bool:
        item = self.files[run.file]
        if run.file not in self._definitions:
            self._definitions[run.file] = {
                (definition.parent, definition.end_line): definition
                for definition in item.facts.definitions
                if definition.kind in ("function", "method", "nested_function")}
        first, last = item.spans[2 * index], item.spans[2 * index + 1]
        definition = self._definitions[run.file].get((run.scope, last))
        if definition is None or not first <= definition.start_line <= last:
            return False
        hidden = item.hidden().get(index, 0)
        return last - first + 1 - hidden <= 2

    def _data_table(self, file: int, index: int) -> bool:
        item = self.files[file]
        if file not in self._data:
            self._data[file] = {assignment.line for assignment in item.facts.assignments
                                if (isinstance(assignment.value, (DictLit, Seq))
                                    and _literal(assignment.value))
                                or (isinstance(assignment.target, Name)
                                    and isinstance(assignment.value, (Name, Attr)))}
        return item.spans[2 * index] in self._data[file]


def _literal(value: Expr) -> bool:
    """A constant, or a display holding only constants and displays."""
    if isinstance(value, Const):
        return True
    if isinstance(value, Seq):
        return all(_literal(item) for item in value.items)
    if isinstance(value, DictLit):
        return all(_literal(item) for _, item in value.items)
    return False


def _projects(context: Context, files: Sequence[_File]) -> dict[int, str]:
    """Per file, the folder of the installable project it belongs to: the nearest folder with a
    `setup.py`, `setup.cfg` or `pyproject.toml` below the scanned root, else the root ("")."""
    root = context.project.root
    marked: dict[str, bool] = {}

    def is_project(folder: str) -> bool:
        if folder not in marked:
            marked[folder] = root.is_dir() and any(
                (root / folder / name).is_file()
                for name in ("setup.py", "setup.cfg", "pyproject.toml"))
        return marked[folder]

    found: dict[int, str] = {}
    for number, item in enumerate(files):
        parts = PurePosixPath(item.facts.path).parts[:-1]
        found[number] = next((folder for folder in (
            "/".join(parts[:end]) for end in range(len(parts), 0, -1)) if is_project(folder)), "")
    return found


def _separate(runs: list[_Run], length: int) -> list[_Run]:
    """The runs without those overlapping an earlier one of the same block at this length."""
    ordered = sorted(runs, key=lambda run: (run.file, run.start))
    kept: list[_Run] = []
    for run in ordered:
        if kept and kept[-1].file == run.file and kept[-1].block_first == run.block_first \
                and kept[-1].start + length > run.start:
            continue
        kept.append(run)
    return kept


def _overlap(runs: Sequence[_Run], length: int) -> bool:
    ordered = sorted(runs, key=lambda run: (run.file, run.start))
    return any(left.file == right.file and left.block_first == right.block_first
               and left.start + length > right.start
               for left, right in pairwise(ordered))


def _first(files: Sequence[_File], item: tuple[int, _Group, list[tuple[int, int]], int,
                                               list[int]]) -> tuple[str, int]:
    _, group, spans, _, order = item
    index = order[0]
    return files[group.runs[index].file].facts.path, spans[index][0]


def _describe(location: Location) -> str:
    if location.kind == "statement":
        return f"{location.qualname} (lines {location.start_line}-{location.end_line})"
    return location.qualname


# -- examples -------------------------------------------------------------------------------

_REPORT = '''
def monthly_report(orders, month):
    """Totals of one month."""
    selected = [order for order in orders if order.month == month]
    total = 0
    for order in selected:
        total += order.amount * (1 - order.discount)
    average = total / len(selected) if selected else 0
    lines = [f"{order.id}: {order.amount:.2f}" for order in selected]
    lines.append(f"total {total:.2f}, average {average:.2f}")
    return "\\n".join(lines)
'''

_RENAMED = '''
def weekly_summary(sales, week):
    """Totals of one week."""
    chosen = [sale for sale in sales if sale.week == week]
    amount = 0
    for sale in chosen:
        amount += sale.price * (1 - sale.rebate)
    mean = amount / len(chosen) if chosen else 0
    rows = [f"{sale.id}: {sale.price:.2f}" for sale in chosen]
    rows.append(f"sum {amount:.2f}, mean {mean:.2f}")
    return "\\n".join(rows)
'''

_DIFFERENT = '''
def weekly_summary(sales, week):
    """Totals of one week, by customer."""
    chosen = {}
    for sale in sales:
        if sale.week != week:
            continue
        chosen.setdefault(sale.customer, []).append(sale.price)
    rows = []
    for customer, prices in sorted(chosen.items()):
        rows.append(f"{customer}: {sum(prices):.2f}")
    return "\\n".join(rows)
'''

DuplicatedCode.examples = (
    Example("A function copied into another module unchanged (type 1).",
            {"shop/reports.py": _REPORT,
             "shop/admin/export.py": "import csv\n" + _REPORT},
            ("shop.admin.export.monthly_report",)),
    Example("A copy with every name changed (type 2), reported at the first file's function.",
            {"shop/reports.py": _REPORT, "shop/weekly.py": _RENAMED},
            ("shop.reports.monthly_report",)),
    Example("Two functions with the same purpose but different statements are not clones.",
            {"shop/reports.py": _REPORT, "shop/weekly.py": _DIFFERENT}, ()),
    Example("The same imports and a short helper in two modules: too small to count.",
            {"app/a.py": "import os\nimport sys\nfrom pathlib import Path\n\n\n"
                         "def here():\n    return Path(__file__).parent\n",
             "app/b.py": "import os\nimport sys\nfrom pathlib import Path\n\n\n"
                         "def here():\n    return Path(__file__).parent\n"}, ()),
)
