"""The values of a report's metric row that its own code decides (radon's measures), by name."""

from __future__ import annotations

from smellkit.metrics.complexity import CodeMeasure


def measure_values(measure: CodeMeasure) -> dict[str, float | int | None]:
    return {
        "cc": measure.cc, "loc": measure.loc, "lloc": measure.lloc, "sloc": measure.sloc,
        "comments": measure.comments, "blank": measure.blank, "docstring_lines": measure.multi,
        "halstead_volume": round(measure.volume, 2),
        "halstead_difficulty": round(measure.difficulty, 2),
        "halstead_effort": round(measure.effort, 2),
    }


def module_values(measure: CodeMeasure) -> dict[str, float | int | None]:
    """A module's row adds the maintainability index."""
    values = measure_values(measure)
    values["mi"] = round(measure.mi, 2)
    return values
