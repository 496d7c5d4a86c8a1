"""Structural checks of duplicated code.

- `duplicated_code.not_cloned` {qualname}: the definition is gone, or no clone group the
  duplicated-code detector reports includes code of it.
"""

from __future__ import annotations

from typing import Any

from smellkit.analysis.context import Context
from smellkit.checks import check_kind
from smellkit.models import Finding


def _findings(context: Context) -> list[Finding]:
    from smellkit.detectors.runner import run_detectors

    return run_detectors(context, ["duplicated_code"], respect_suppressions=False)


def clone_spans(context: Context) -> dict[str, list[tuple[int, int]]]:
    """The lines of every clone the detector reports on this version, by path."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for finding in context.derived(_findings):
        for location in (finding.location, *finding.related):
            spans.setdefault(location.path, []).append((location.start_line, location.end_line))
    return spans


@check_kind("duplicated_code.not_cloned")
def not_cloned(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    """Passes when the definition is gone or no clone group includes code of it."""
    qualname: str = params["qualname"]
    if qualname not in context.index.definitions:
        return True, f"{qualname} is not defined"
    for finding in context.derived(_findings):
        for location in (finding.location, *finding.related):
            if location.qualname == qualname or location.qualname.startswith(qualname + "."):
                return False, f"{qualname} is duplicated: {finding.message}"
    return True, f"{qualname} is not part of a clone group"
