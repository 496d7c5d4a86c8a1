"""`scan`: a repository in, a `ScanResult` out (the library call behind `smellkit scan`).

A re-scan of an unchanged repository with the same options returns the stored result: the only work
is reading and hashing the files. Any change of content, options or version makes a new key.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from smellkit._internal.collector import paused_gc
from smellkit._internal.forking import MIN_DEFINITIONS, STANDBY_FILES, Background, standing_by
from smellkit._version import __version__
from smellkit.graphs.stored import GraphCache, header_name
from smellkit.metrics.rows import measure_values, module_values
from smellkit.models import (
    Finding,
    Location,
    MetricRow,
    ScanMetrics,
    ScanResult,
    ScanSummary,
    Severity,
)
from smellkit.project import Inventory, Project, Survey
from smellkit.project.options import LoadOptions, PathInput
from smellkit.scanning import incremental
from smellkit.scanning.baseline import new_findings, read_baseline

if TYPE_CHECKING:
    from smellkit.graphs.index import Index


class MetricTables(NamedTuple):
    """The whole-program metrics by qualified name: what `collect_metrics` adds to each row."""

    classes: dict[str, Any]
    methods: dict[str, Any]
    functions: dict[str, Any]
    modules: dict[str, Any]


class _Done(NamedTuple):
    """What a `_Detect` run gives back."""

    tables: MetricTables | None
    findings: list[Finding]
    analyses: list[object]  # the values of its `early` analyses, in order


class _Detect:
    """Some detectors, optionally the metric tables, and analyses of the index that other
    detectors will need: the work of one forked child."""

    def __init__(self, smells: list[str], min_severity: Severity, *, measure: bool = False,
                 early: Sequence[Callable[[Index], object]] = ()):
        self.smells = smells
        self.min_severity = min_severity
        self.measure = measure
        self.early = early

    def __call__(self, project: Project) -> _Done:
        from smellkit.detectors.runner import run_detectors

        found = run_detectors(project, self.smells, min_severity=self.min_severity) \
            if self.smells else []
        analyses = [project.index.derived(analysis) for analysis in self.early]
        return _Done(metric_tables(project) if self.measure else None, found, analyses)


def _detect_and_measure(project: Project, chosen: list[str] | None, min_severity: Severity,
                        announce: Callable[[str], None],
                        then: Callable[[], object] | None = None) \
        -> tuple[list[Finding], MetricTables | None, Background[Any, Any]]:
    """All findings, sorted, and the metric tables. On big code two forked children share the
    work: one runs the detectors that need no call graph (`Smell.needs_call_graph`) while it is
    built, the other computes the metric tables while the remaining detectors run here (no
    detector goes with the tables: on pandas they alone take about as long as the other
    detectors together). Each side's findings are the same as in one run: detectors are
    independent, and the order is a sort.
    `then` runs after the second child's work (in that child, when there is one); the caller
    joins the returned child at the end."""
    from smellkit.detectors import registry
    from smellkit.detectors.runner import sort_key
    from smellkit.metrics import coupling, oo  # noqa: F401 - imported before any fork

    index = project.index
    classes = {cls.name: cls for cls in registry.select(chosen)}  # unknown names fail here
    names = list(classes)
    big = len(index.definitions) >= MIN_DEFINITIONS
    early = [name for name in names if not classes[name].smell.needs_call_graph]
    here = [name for name in names if classes[name].smell.needs_call_graph]
    analyses = [analysis for name in here for analysis in classes[name].early] if big \
        else []
    first = Background.start(_Detect(early, min_severity, early=analyses), project,
                             fork=big and bool(early or analyses))
    try:
        announce("resolving calls")
        index.calls  # noqa: B018 - built here so the stage shows while it runs
        if big:  # what both sides need, built once before the second fork
            index.attribute_graph  # noqa: B018
            index.import_graph  # noqa: B018
            index.class_graph  # noqa: B018
        done = first.result()  # usually done by now on big code: the solver takes longer
        first.join()
        early_found = done.findings
        for analysis, value in zip(analyses, done.analyses):
            index.provide(analysis, value)
        second = Background.start(_Detect([], min_severity, measure=True), project, fork=big,
                                  then=then)
        try:
            announce("detecting smells")
            found = _Detect(here, min_severity)(project).findings
        except BaseException:
            second.cancel()
            raise
    except BaseException:
        first.cancel()
        raise
    tables = second.result().tables
    found.extend(early_found)
    found.sort(key=sort_key)
    return found, tables, second


def metric_tables(project: Project) -> MetricTables:
    from smellkit.metrics.coupling import function_metrics, module_metrics
    from smellkit.metrics.oo import class_metrics, method_metrics

    index = project.index
    return MetricTables(class_metrics(index), method_metrics(index), function_metrics(index),
                        module_metrics(index))


def collect_metrics(project: Project, tables: MetricTables | None = None) -> ScanMetrics:
    """Metric rows for every module, class and function, in path then line order.

    The rows are built without validation (`model_construct`): every value comes typed from
    the facts and the metric tables, and on a large repository validating the tens of thousands
    of rows and locations again costs more than computing them."""
    index = project.index
    per_class, per_method, per_function, per_module = tables or metric_tables(project)
    row, location = MetricRow.model_construct, Location.model_construct
    modules: list[MetricRow] = []
    classes: list[MetricRow] = []
    functions: list[MetricRow] = []
    for facts in sorted(project.files, key=lambda item: item.path):
        path = facts.path
        values = module_values(facts.measure)
        if facts.module in per_module:
            values.update(per_module[facts.module]._asdict())
        modules.append(row(location=location(
            path=path, qualname=facts.module, kind="module", start_line=1,
            end_line=max(1, facts.measure.loc)), values=values))
        for definition in facts.definitions:
            if definition.measure is None or index.definitions.get(definition.qualname) \
                    is not definition:
                continue
            values = measure_values(definition.measure)
            qualname = definition.qualname
            here = location(path=path, qualname=qualname, kind=definition.kind,
                            start_line=definition.start_line, end_line=definition.end_line)
            if definition.kind == "class":
                if qualname in per_class:
                    values.update(per_class[qualname]._asdict())
                classes.append(row(location=here, values=values))
            else:
                for table in (per_function, per_method):
                    if qualname in table:
                        values.update(table[qualname]._asdict())
                functions.append(row(location=here, values=values))
    return ScanMetrics(modules=tuple(modules), classes=tuple(classes),
                       functions=tuple(functions))


_SUMMARY_HOLE = '"summary": null'


class ScanRequest(LoadOptions):
    """What to scan and how: the load options, and what to report. Built by keyword
    (`ScanRequest(path=..., smells=[...])`, or `ScanRequest.of(path, **fields)`)."""

    smells: tuple[str, ...] | None = None
    """Only these detectors; None: all of them; empty: none (graphs and metrics only)."""
    min_severity: Severity = "info"
    baseline: Path | None = None
    """Leave out the findings recorded in this baseline file."""
    stage: Callable[[str], None] | None = None
    """Told when a long stage after parsing starts."""


class _Prepared(NamedTuple):
    survey: Survey
    known: frozenset[str]
    chosen: list[str] | None
    blob: str | None  # the stored report's name in the cache, when there is a cache
    options: str  # a digest of everything but the files' contents that shapes the report


def _prepare(request: ScanRequest) -> _Prepared:
    known = read_baseline(request.baseline) if request.baseline is not None else frozenset()
    survey = Survey.take(request)
    chosen = None if request.smells is None else sorted(request.smells)
    options = (__version__, survey.config.model_dump_json(), str(request.path),
               repr(chosen), request.min_severity, *sorted(known), *_side_files(survey.root))
    key = survey.inventory.key(*options)
    return _Prepared(survey, known, chosen, f"scan-{key}.json" if survey.cache else None,
                     Inventory([]).key(str(survey.root.resolve()), *options))


def _patched(prepared: _Prepared) -> tuple[ScanSummary, str] | None:
    """After a few files changed, the last graphs-and-metrics report patched (see
    `smellkit.scanning.incremental`), stored as this run's; None when it takes a full scan."""
    survey = prepared.survey
    if prepared.chosen != [] or survey.cache is None or prepared.blob is None:
        return None
    patched = incremental.patched_report(survey, prepared.options,
                                         header_name(survey, __version__))
    if patched is None:
        return None
    survey.cache.put_blob(
        prepared.blob, f"{patched.summary.model_dump_json()}\n{patched.body}".encode())
    incremental.remember(survey.cache, prepared.options, prepared.blob, survey, patched.failed)
    return patched.summary, patched.body


def _stored(prepared: _Prepared) -> tuple[ScanSummary, str] | None:
    """The stored report (summary refreshed for this run, JSON text with a hole for it)."""
    if prepared.survey.cache is None or prepared.blob is None:
        return None
    data = prepared.survey.cache.get_blob(prepared.blob)
    if data is None:
        return None
    summary_text, _, body = data.decode("utf-8", errors="replace").partition("\n")
    try:
        old = ScanSummary.model_validate_json(summary_text)
    except ValueError:  # a damaged or foreign entry: compute the report again
        return None
    if _SUMMARY_HOLE not in body:
        return None
    summary = old.model_copy(update={
        "files_parsed": 0, "files_from_cache": old.files,
        "seconds": round(time.perf_counter() - prepared.survey.started, 3)})
    return summary, body


def _summary_block(summary: ScanSummary) -> str:
    """The summary as it stands, indented, inside a report dumped with `indent=2`."""
    return '"summary": ' + summary.model_dump_json(indent=2).replace("\n", "\n  ")


def _fill(body: str, summary: ScanSummary) -> str:
    return body.replace(_SUMMARY_HOLE, _summary_block(summary), 1)


def _compute(prepared: _Prepared, request: ScanRequest) -> tuple[ScanResult, str]:
    """The report, and its JSON text as `--format json` prints it; stored for the next run."""
    def announce(name: str) -> None:
        if request.stage is not None:
            request.stage(name)

    survey = prepared.survey
    child: Background[Any, Any] | None = None
    # forked while this process is small, to run astroid while the call graph is built
    with standing_by(len(survey.inventory.items) >= STANDBY_FILES) as standby, \
            paused_gc(freeze=False):
        project = Project.from_survey(survey, progress=request.progress,
                                      detailed=prepared.chosen != [])
        project.index.standby = standby
        graphs = GraphCache(survey, survey.cache, __version__) if survey.cache else None
        if graphs is not None:
            graphs.attach(project.files, project.index)
        save = None if graphs is None else partial(graphs.save, project.files, project.index)
        try:
            findings: list[Finding] = []
            tables = None
            if prepared.chosen is None or prepared.chosen:
                found, tables, child = _detect_and_measure(
                    project, prepared.chosen, request.min_severity, announce,
                    None if graphs is None or graphs.reused else save)
                findings = new_findings(found, prepared.known)
                if graphs is not None and graphs.reused and save is not None:
                    save()  # reused graphs: a new header only
            else:
                announce("resolving calls")
                project.index.calls  # noqa: B018 - built here so the stage shows while it runs
                if save is not None:  # the graphs' resolution: a tenth of a second on pandas
                    save()
            announce("measuring")
            result = build_result(project, findings, tables)
            text = result.model_dump_json(indent=2)
            if survey.cache is not None and prepared.blob is not None:
                body = text.replace(_summary_block(result.summary), _SUMMARY_HOLE, 1)
                survey.cache.put_blob(
                    prepared.blob, f"{result.summary.model_dump_json()}\n{body}".encode())
                if prepared.chosen == []:
                    parsed = {facts.path for facts in project.files}
                    incremental.remember(survey.cache, prepared.options, prepared.blob, survey,
                                         [source.path for source, _, _ in survey.inventory.items
                                          if source.path not in parsed])
        finally:
            if child is not None:
                child.join()  # it may still be saving the graphs
    return result, text


def scan(path: PathInput | LoadOptions = ".", **options: Any) -> ScanResult:
    """Scan a repository: smells (all when `smells` is None, none when empty), metrics, import
    cycles, call-graph resolution and diagnostics. Findings in the `baseline` file are left out.
    `options` are `ScanRequest` fields: `smells`, `min_severity`, `baseline`, and the load
    options (`include_tests`, `exclude`, `jobs`, `cache_dir`, `use_cache`, `progress`, ...)."""
    return run_scan(ScanRequest.of(path, **options))


def run_scan(request: ScanRequest) -> ScanResult:
    """`scan` for a prepared request."""
    prepared = _prepare(request)
    stored = _stored(prepared) or _patched(prepared)
    if stored is not None:
        summary, body = stored
        with paused_gc(freeze=False):
            return ScanResult.model_validate_json(_fill(body, summary))
    return _compute(prepared, request)[0]


def scan_json(request: ScanRequest) -> str:
    """`scan` as the JSON text `--format json` prints; a stored report is passed through without
    being rebuilt as models, which is most of the cost of an unchanged re-scan."""
    prepared = _prepare(request)
    stored = _stored(prepared) or _patched(prepared)
    if stored is not None:
        summary, body = stored
        return _fill(body, summary)
    return _compute(prepared, request)[1]


def _side_files(root: Path) -> list[str]:
    """Files outside the inventory that detectors read (entry points, test references)."""
    stamps = []
    base = root if root.is_dir() else root.parent
    for name in ("pyproject.toml", "setup.cfg", "setup.py"):
        try:
            stamps.append(f"{name}:{(base / name).stat().st_mtime_ns}")
        except OSError:
            continue
    return stamps


def build_result(project: Project, findings: Sequence[Finding] = (),
                 tables: MetricTables | None = None) -> ScanResult:
    """The scan report of a loaded project (`tables`: its metric tables, when already known)."""
    from smellkit.graphs.imports import import_cycles

    index = project.index
    calls = index.calls
    metrics = collect_metrics(project, tables)
    cycles = import_cycles(index.import_graph)
    definitions = [d for facts in project.files for d in facts.definitions]
    summary = ScanSummary(
        root=str(project.root),
        files=project.stats.discovered,
        files_parsed=project.stats.parsed,
        files_from_cache=project.stats.from_cache,
        files_with_errors=project.stats.failed,
        modules=len(project.files),
        classes=sum(1 for d in definitions if d.kind == "class"),
        functions=sum(1 for d in definitions if d.kind not in ("class", "lambda")),
        lines=sum(facts.measure.loc for facts in project.files),
        call_edges=calls.graph.number_of_edges(),
        call_sites=calls.call_sites,
        call_sites_unresolved=calls.unresolved,
        import_cycles=len(cycles),
        findings=len(findings),
        seconds=round(time.perf_counter() - project.started, 3),
    )
    diagnostics = sorted(project.diagnostics, key=lambda d: (d.path, d.line or 0, d.code))
    return ScanResult(version=__version__, summary=summary, findings=tuple(findings),
                      metrics=metrics, diagnostics=tuple(diagnostics),
                      import_cycles=tuple(cycles))
