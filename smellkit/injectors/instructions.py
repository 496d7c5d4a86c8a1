"""Task instructions in three settings, from templates with seeded variety.

open: the smell type only; guided: plus the files (SmellBench's guided setting); targeted: plus the
class or method. An instruction names what is wrong and where to look, never what the original code
looked like, so it cannot leak the ground truth. The smell is named by its declaration's phrases
(`Smell.phrases`), never by an injector's description of how it made the smell.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from smellkit.analysis.smells import Smell
from smellkit.models import InstructionSetting, Target

_OPENINGS = (
    "This repository contains {phrase}.",
    "A code review of this repository found {phrase}.",
    "There is {phrase} somewhere in this codebase.",
)
_ASKS = (
    "Find it and refactor the code to remove the smell.",
    "Locate the problem and refactor it away.",
    "Identify the affected code and clean it up with a refactoring.",
)
_CONSTRAINTS = (
    "Keep the behaviour unchanged: the existing tests must still pass.",
    "The public behaviour must not change, and the test suite must keep passing.",
)
_GUIDES = (
    "Start with these files: {files}.",
    "The smell involves these files: {files}.",
)
_TARGETS = (
    "It is centred on the {level} `{names}`.",
    "Focus on the {level} `{names}`.",
)


def _files(paths: Sequence[str]) -> str:
    return ", ".join(f"`{path}`" for path in paths)


def instructions(smell: Smell, files: Sequence[str], targets: Sequence[Target],
                 rng: random.Random) -> dict[InstructionSetting, str]:
    """The open, guided and targeted instruction for one injection."""
    phrase = rng.choice(smell.phrases)
    opening = rng.choice(_OPENINGS).format(phrase=phrase)
    ask, constraint = rng.choice(_ASKS), rng.choice(_CONSTRAINTS)
    guide = rng.choice(_GUIDES).format(files=_files(files))
    classes = all(target.level == "class" for target in targets)
    level = ("classes" if classes else "methods") if len(targets) > 1 else (
        "class" if classes else "method")
    names = "`, `".join(target.location.qualname for target in targets)
    target = rng.choice(_TARGETS).format(level=level, names=names)
    return {
        "open": f"{opening} {ask} {constraint}",
        "guided": f"{opening} {guide} {ask} {constraint}",
        "targeted": f"{opening} {guide} {target} {ask} {constraint}",
    }
