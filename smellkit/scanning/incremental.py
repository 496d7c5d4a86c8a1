"""A re-scan after a few files changed, without loading the project: the stored report, patched.

After files change, a scan normally loads every file's facts and computes the whole-program metrics
again: seconds on pandas, for a change of three lines. For the graphs-and-metrics scan (no
detectors: their findings are whole-program and are never patched) most of that is provably
unneeded when the stored graphs still hold for the changed files (`graphs.stored.graphs_hold`:
their graph inputs are the same but for lines and assignments to names nothing else mentions).
Then every value of every other file's rows is the same as before, and in a changed file's rows
only two kinds of value move besides radon's measures: a class's WMC (the CC of its methods) and
a method's NOAV (through the names it binds); both are sums over the file's own code
(`metrics.oo.own_code_parts`). So the changed files' rows are made again from their new facts,
with the other values carried over, and written in place of the old rows; the summary is
brought up to date. Anything else (a file added, removed, failing or sharing its module with
another, other options, a graph input changed) makes a full scan.

The stored report is located through a small record per project folder and options
(`LastScan`), written after every graphs-and-metrics scan; rows are found in its JSON text by
their path, which `model_dump_json(indent=2)` always writes at the same place in a row.
"""

from __future__ import annotations

import json
import pickle
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from smellkit.facts import FileFacts
from smellkit.metrics.rows import measure_values, module_values
from smellkit.models import Location, MetricRow, ScanSummary

if TYPE_CHECKING:
    from smellkit.project import FactCache, Survey

MAX_CHANGED = 32
"""More changed files than this: a full scan is about as quick and much simpler."""
_ROW = '\n      {\n        "location": {\n          "path": '
"""How a metric row starts in the report (rows are the only items at that depth)."""
_ROW_END = "\n      }"
_INDENT = "\n      "


class LastScan(NamedTuple):
    """What the last graphs-and-metrics scan of a folder with given options was made from."""

    report: str  # the stored report's blob name
    keys: dict[str, str]  # path -> content key, every surveyed file
    failed: frozenset[str]  # paths that gave a diagnostic instead of facts
    survey_diagnostics: str  # the discovery diagnostics, as JSON


def last_scan_name(options: str) -> str:
    return f"scan-last-{options}.pickle"


def remember(cache: FactCache, options: str, report: str, survey: Survey,
             failed: Sequence[str]) -> None:
    keys = {source.path: key for source, key, _ in survey.inventory.items}
    cache.put_blob(last_scan_name(options), pickle.dumps(
        LastScan(report, keys, frozenset(failed), _diagnostics_json(survey)),
        protocol=pickle.HIGHEST_PROTOCOL))


def _diagnostics_json(survey: Survey) -> str:
    return json.dumps([item.model_dump(mode="json") for item in survey.diagnostics])


def _load_last(cache: FactCache, options: str) -> LastScan | None:
    data = cache.get_blob(last_scan_name(options))
    if data is None:
        return None
    try:
        last = pickle.loads(data)
    except Exception:  # a damaged entry: scan in full
        return None
    return last if isinstance(last, LastScan) else None


class Patched(NamedTuple):
    summary: ScanSummary
    body: str  # the report's JSON text with the summary left out (`scanner._SUMMARY_HOLE`)
    failed: tuple[str, ...]


def patched_report(survey: Survey, options: str, graph_header: str) -> Patched | None:
    """The report of the repository as it is now, patched from the last one; None when a full
    scan is needed (the module doc says when)."""
    from smellkit.graphs import stored
    from smellkit.project.parsing import parse_file

    cache = survey.cache
    if cache is None:
        return None
    last = _load_last(cache, options)
    if last is None:
        return None
    items = survey.inventory.items
    if {source.path for source, _, _ in items} != set(last.keys) \
            or _diagnostics_json(survey) != last.survey_diagnostics:
        return None
    changed = [(source, key, data) for source, key, data in items
               if key != last.keys[source.path]]
    if not changed or len(changed) > MAX_CHANGED:
        return None
    modules = [source.module for source, _, _ in items]
    new_facts: list[FileFacts] = []
    old_facts: list[FileFacts] = []
    for source, _, data in changed:
        if not isinstance(data, bytes) or source.path in last.failed \
                or modules.count(source.module) > 1:
            return None
        facts = parse_file(source, data, survey.config.max_file_bytes, detailed=False)
        old = cache.get(last.keys[source.path], detailed=False)
        if not isinstance(facts, FileFacts) or not isinstance(old, FileFacts):
            return None
        new_facts.append(facts)
        old_facts.append(old)
    header = stored.load(cache, graph_header)
    order = tuple((source.path, source.module) for source, _, _ in items
                  if source.path not in last.failed)
    if header is None or not stored.graphs_hold(header, survey, order, new_facts, cache):
        return None
    blob = cache.get_blob(last.report)
    if blob is None:
        return None
    summary_text, _, body = blob.decode("utf-8", errors="replace").partition("\n")
    try:
        old_summary = ScanSummary.model_validate_json(summary_text)
    except ValueError:
        return None
    for old, new in zip(old_facts, new_facts):
        replaced = _replace_rows(body, old, new)
        if replaced is None:
            return None
        body = replaced
    cache.put_many((key, facts, None) for (_, key, _), facts in zip(changed, new_facts))
    lines = old_summary.lines + sum(new.measure.loc - old.measure.loc
                                    for old, new in zip(old_facts, new_facts))
    summary = old_summary.model_copy(update={
        "lines": lines, "files_parsed": len(changed),
        "files_from_cache": old_summary.files_parsed + old_summary.files_from_cache
        - len(changed),
        "seconds": round(time.perf_counter() - survey.started, 3)})
    return Patched(summary, body, tuple(sorted(last.failed)))


def _replace_rows(body: str, old: FileFacts, new: FileFacts) -> str | None:
    """`body` with the rows of `old`'s file remade from `new` (None when they do not match)."""
    from smellkit.graphs.index import Index
    from smellkit.metrics.oo import own_code_parts

    needle = _ROW + json.dumps(new.path) + ","
    spans: list[tuple[int, int]] = []
    start = body.find(needle)
    while start >= 0:
        end = body.find(_ROW_END, start + len(needle))
        if end < 0:
            return None
        spans.append((start + len(_INDENT), end + len(_ROW_END)))
        start = body.find(needle, end)
    selected = Index([new]).definitions
    measured = [definition for definition in new.definitions
                if definition.measure is not None
                and selected.get(definition.qualname) is definition]
    # the report lists a file's module row, then its classes' rows, then its functions' rows
    kept = [definition for definition in measured if definition.kind == "class"] + \
        [definition for definition in measured if definition.kind != "class"]
    if len(spans) != 1 + len(kept):
        return None
    before, after = own_code_parts(old), own_code_parts(new)
    rows = []
    for number, (start, end) in enumerate(spans):
        row = json.loads(body[start:end])
        values: dict[str, float | int | None] = row["values"]
        if number == 0:
            location = Location.model_construct(
                path=new.path, qualname=new.module, kind="module", start_line=1,
                end_line=max(1, new.measure.loc))
            values.update(module_values(new.measure))
        else:
            definition = kept[number - 1]
            if row["location"]["qualname"] != definition.qualname or definition.measure is None:
                return None
            location = Location.model_construct(
                path=new.path, qualname=definition.qualname, kind=definition.kind,
                start_line=definition.start_line, end_line=definition.end_line)
            values.update(measure_values(definition.measure))
            moved = "wmc" if definition.kind == "class" else "noav"
            value = values.get(moved)
            if isinstance(value, int) and definition.qualname in after:
                values[moved] = value - before.get(definition.qualname, 0) \
                    + after[definition.qualname]
        text = MetricRow.model_construct(location=location, values=values) \
            .model_dump_json(indent=2)
        rows.append(text.replace("\n", _INDENT))
    pieces: list[str] = []
    position = 0
    for (start, end), text in zip(spans, rows):
        pieces.append(body[position:start])
        pieces.append(text)
        position = end
    pieces.append(body[position:])
    return "".join(pieces)
