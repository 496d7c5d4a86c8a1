"""Task instructions in three settings, from templates with seeded variety.

open: the smell type only; guided: plus the files (SmellBench's guided setting); targeted: plus the
class or method. An instruction names what is wrong and where to look, never what the original code
looked like, so it cannot leak the ground truth.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from smellkit.models import InstructionSetting, Target

SMELL_PHRASES: dict[str, tuple[str, ...]] = {
    "feature_envy": (
        "a method that works more with another class's data than with its own",
        "feature envy: behaviour that lives far from the data it uses",
    ),
    "god_class": (
        "a god class that has taken on responsibilities belonging elsewhere",
        "a class that does too much: several unrelated responsibilities in one place",
    ),
    "data_clumps": (
        "data clumps: the same group of values passed around together instead of as one object",
        "a group of parameters that always travel together through several signatures",
    ),
    "shotgun_surgery": (
        "shotgun surgery: one small responsibility spread over many places, so a change to it "
        "means edits in many files",
        "a piece of knowledge that is duplicated across files instead of living in one place",
    ),
    "dead_code": (
        "dead code: definitions or branches that can never run or are never used",
        "code that nothing reaches any more",
    ),
    "interface_segregation": (
        "an interface that forces its implementers or clients to depend on methods they do not use",
        "a base class or protocol that is too wide for the classes that implement or use it",
    ),
    "deep_inlining": (
        "a long method that has inlined work which deserves functions of its own",
        "a method that mixes several responsibilities in one long body",
    ),
    "duplicated_code": (
        "duplicated code: the same logic written out more than once",
        "copies of one piece of logic that should be shared",
    ),
}

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


def instructions(smell: str, description: str, files: Sequence[str], targets: Sequence[Target],
                 rng: random.Random) -> dict[InstructionSetting, str]:
    """The open, guided and targeted instruction for one injection."""
    phrase = rng.choice(SMELL_PHRASES.get(smell, (description,)))
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
