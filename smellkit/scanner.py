"""`scan`: a repository in, a `ScanResult` out (the library call behind `smellkit scan`).

A re-scan of an unchanged repository with the same options returns the stored result: the only work
is reading and hashing the files. Any change of content, options or version makes a new key.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

from smellkit import __version__
from smellkit.facts import Definition, FileFacts
from smellkit.metrics.complexity import CodeMeasure
from smellkit.models import (
    Location,
    MetricRow,
    ScanMetrics,
    ScanResult,
    ScanSummary,
)
from smellkit.project import ProgressCallback, Project, Survey

_KIND_OF_DEFINITION = {"class": "class", "function": "function", "method": "method",
                       "nested_function": "nested_function", "lambda": "lambda"}


def definition_location(facts: FileFacts, definition: Definition) -> Location:
    return Location(path=facts.path, qualname=definition.qualname,
                    kind=_KIND_OF_DEFINITION[definition.kind],  # type: ignore[arg-type]
                    start_line=definition.start_line, end_line=definition.end_line)


def module_location(facts: FileFacts) -> Location:
    return Location(path=facts.path, qualname=facts.module, kind="module", start_line=1,
                    end_line=max(1, facts.measure.loc))


def _measure_values(measure: CodeMeasure) -> dict[str, float | int | None]:
    return {
        "cc": measure.cc, "loc": measure.loc, "lloc": measure.lloc, "sloc": measure.sloc,
        "comments": measure.comments, "blank": measure.blank, "docstring_lines": measure.multi,
        "halstead_volume": round(measure.volume, 2),
        "halstead_difficulty": round(measure.difficulty, 2),
        "halstead_effort": round(measure.effort, 2),
    }


def collect_metrics(project: Project) -> ScanMetrics:
    """Metric rows for every module, class and function, in path then line order."""
    from smellkit.metrics.oo import class_metrics, method_metrics, module_metrics

    index = project.index
    per_class = class_metrics(index)
    per_method = method_metrics(index)
    per_module = module_metrics(index)
    modules: list[MetricRow] = []
    classes: list[MetricRow] = []
    functions: list[MetricRow] = []
    for facts in sorted(project.files, key=lambda item: item.path):
        values = _measure_values(facts.measure)
        values["mi"] = round(facts.measure.mi, 2)
        if facts.module in per_module:
            values.update(per_module[facts.module].values())
        modules.append(MetricRow(location=module_location(facts), values=values))
        for definition in facts.definitions:
            if definition.measure is None or index.definitions.get(definition.qualname) \
                    is not definition:
                continue
            values = _measure_values(definition.measure)
            if definition.kind == "class":
                if definition.qualname in per_class:
                    values.update(per_class[definition.qualname].values())
                classes.append(MetricRow(location=definition_location(facts, definition),
                                         values=values))
            else:
                if definition.qualname in per_method:
                    values.update(per_method[definition.qualname].values())
                functions.append(MetricRow(location=definition_location(facts, definition),
                                           values=values))
    return ScanMetrics(modules=tuple(modules), classes=tuple(classes),
                       functions=tuple(functions))


def scan(
    path: str | os.PathLike[str] = ".",
    *,
    include_tests: bool | None = None,
    exclude: Iterable[str] = (),
    jobs: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
    progress: ProgressCallback | None = None,
) -> ScanResult:
    """Scan a repository: metrics, import cycles, call-graph resolution and diagnostics."""
    survey = Survey.take(path, include_tests=include_tests, exclude=tuple(exclude), jobs=jobs,
                         cache_dir=cache_dir, use_cache=use_cache)
    result_key = survey.inventory.key(__version__, survey.config.model_dump_json(),
                                      str(Path(path)))
    if survey.cache is not None:
        stored = survey.cache.get_blob(f"scan-{result_key}.json")
        if stored is not None:
            cached = ScanResult.model_validate_json(stored)
            summary = cached.summary.model_copy(update={
                "files_parsed": 0, "files_from_cache": cached.summary.files,
                "seconds": round(time.perf_counter() - survey.started, 3)})
            return cached.model_copy(update={"summary": summary})
    project = Project.from_survey(survey, progress=progress)
    result = build_result(project)
    if survey.cache is not None:
        survey.cache.put_blob(f"scan-{result_key}.json", result.model_dump_json().encode())
    return result


def build_result(project: Project) -> ScanResult:
    """The scan report of a loaded project."""
    from smellkit.graphs.imports import import_cycles

    index = project.index
    calls = index.calls
    metrics = collect_metrics(project)
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
        findings=0,
        seconds=round(time.perf_counter() - project.started, 3),
    )
    diagnostics = sorted(project.diagnostics, key=lambda d: (d.path, d.line or 0, d.code))
    return ScanResult(version=__version__, summary=summary, findings=(), metrics=metrics, diagnostics=tuple(diagnostics),
                      import_cycles=tuple(cycles))
