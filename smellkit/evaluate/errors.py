"""The errors of evaluation inputs: a file that cannot be read at all.

Problems with single records (a bad line, a missing field, a duplicate) are values, not these
exceptions, so one bad prediction never hides the others.
"""

from __future__ import annotations

from smellkit.errors import SmellkitError


class EvaluateError(SmellkitError):
    """An input to `smellkit evaluate` cannot be used at all."""


class InputFormatError(EvaluateError):
    """A whole predictions or dataset file is in none of the formats smellkit reads."""

    exit_code = 2


class TreeDiffError(EvaluateError):
    """Two folders could not be compared (a file unreadable, git missing or failing)."""
