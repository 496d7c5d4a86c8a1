"""Locations (the JSON contract) of modules and definitions from their facts."""

from __future__ import annotations

from smellkit.facts import Definition, FileFacts
from smellkit.models import Location


def definition_location(facts: FileFacts, definition: Definition) -> Location:
    return Location(path=facts.path, qualname=definition.qualname,
                    kind=definition.kind,  # type: ignore[arg-type]
                    start_line=definition.start_line, end_line=definition.end_line)


def module_location(facts: FileFacts) -> Location:
    return Location(path=facts.path, qualname=facts.module, kind="module", start_line=1,
                    end_line=max(1, facts.measure.loc))
