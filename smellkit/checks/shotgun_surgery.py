"""Structural checks of shotgun surgery: the small responsibility is still written out no more
often than in the original.

- `shotgun_surgery.literal_copies` {value, max_copies}: the string is written out at most
  `max_copies` times outside tests, not counting the definitions of constants.
- `shotgun_surgery.helper_copies` {helper, max_copies}: the function is still a one-expression
  helper, and its expression is written out at most `max_copies` times in other modules.
- `shotgun_surgery.marker_copies` {decorator, max_copies}: the decorator still marks what it
  decorates, and its marks are written out by hand at most `max_copies` times in other modules.
- `shotgun_surgery.alias_copies` {alias, max_copies}: the name is still a type alias, and its
  expansion is written out in at most `max_copies` annotations of other modules.
"""

from __future__ import annotations

from typing import Any

from smellkit.analysis.context import Context
from smellkit.checks import check_kind
from smellkit.config import is_test_path
from smellkit.detectors.shotgun_surgery.aliases import aliases
from smellkit.detectors.shotgun_surgery.aliases import copies as alias_copies
from smellkit.detectors.shotgun_surgery.constants import string_constants
from smellkit.detectors.shotgun_surgery.helpers import Copies, helpers
from smellkit.detectors.shotgun_surgery.markers import copies as written_marks
from smellkit.detectors.shotgun_surgery.markers import markers


def count_copies(context: Context, value: str) -> int:
    """Literal occurrences of `value` outside tests, minus the definitions of constants."""
    definitions = string_constants(context).get(value, [])
    total = 0
    for facts in context.index.modules.values():
        if not is_test_path(facts.path):
            total += sum(1 for text, _ in facts.string_constants if text == value)
    return total - len(definitions)


@check_kind("shotgun_surgery.literal_copies")
def _literal_copies(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    """The value is written out no more often than in the original (outside constants)."""
    value, limit = str(params["value"]), int(params["max_copies"])
    copies = count_copies(context, value)
    return copies <= limit, f"{value!r} is written out {copies} times (at most {limit})"


@check_kind("shotgun_surgery.helper_copies")
def _helper_copies(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    """The helper is still there and its expression is not written out more than before."""
    qualname, limit = str(params["helper"]), int(params["max_copies"])
    helper = next((item for item in helpers(context) if item.qualname == qualname), None)
    if helper is None:
        return False, f"{qualname} is no longer a one-expression helper"
    copies = len(Copies(context).of(helper))
    return copies <= limit, f"{qualname}'s expression is written out {copies} times " \
                            f"(at most {limit})"


@check_kind("shotgun_surgery.marker_copies")
def _marker_copies(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    """The decorator is still there and its marks are not written out more than before."""
    qualname, limit = str(params["decorator"]), int(params["max_copies"])
    marker = next((item for item in markers(context) if item.qualname == qualname), None)
    if marker is None:
        return False, f"{qualname} is no longer a marking decorator"
    found = len(written_marks(context, marker))
    return found <= limit, f"{qualname}'s marks are written out {found} times (at most {limit})"


@check_kind("shotgun_surgery.alias_copies")
def _alias_copies(context: Context, params: dict[str, Any]) -> tuple[bool, str]:
    """The alias is still there and its expansion is not written out more than before."""
    qualname, limit = str(params["alias"]), int(params["max_copies"])
    alias = next((item for item in aliases(context) if item.qualname == qualname), None)
    if alias is None:
        return False, f"{qualname} is no longer a type alias"
    found = len(alias_copies(context, alias))
    return found <= limit, f"{qualname} is written out in {found} annotations (at most {limit})"
