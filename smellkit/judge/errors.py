"""The judge's errors: an input that cannot be used at all, an extra that is not installed, a
judge server that cannot be reached. A bad verdict of one prediction is a value on its row."""

from __future__ import annotations

from smellkit.errors import SmellkitError


class JudgeError(SmellkitError):
    """`smellkit judge` or `smellkit crosscheck` cannot run at all."""


class JudgeExtraMissing(JudgeError):
    """The `judge` extra (openai, scikit-learn, scipy) is not installed."""

    exit_code = 2

    def __init__(self, missing: str):
        self.missing = missing
        super().__init__(f"{missing} is not installed",
                         hint="install smellkit[judge] for the LLM judge and its statistics")


class VerdictFormatError(JudgeError):
    """A verdict file from another judge is in none of the formats `smellkit crosscheck` reads."""

    exit_code = 2


class ServerError(JudgeError):
    """The judge's server refused every attempt (bad key, unknown model, a bad request)."""

    exit_code = 6
