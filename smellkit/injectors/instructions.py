"""Task instructions in three settings, from templates with seeded variety.

open: the smell type only (smellkit's own setting); guided: plus the files (SmellBench's guided
setting); targeted: plus the class, method or function (SmellBench's targeted setting), each
called what it is. An instruction names what is wrong and where to look, never what the original
code looked like, so it cannot leak the ground truth. The smell is named by its declaration's
phrases (`Smell.phrases`), never by an injector's description of how it made the smell.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from smellkit.analysis.smells import Smell
from smellkit.models import InstructionSetting, Target

_OPENINGS = (
    "This repository contains {phrase}.",
    "A code review of this repository found {phrase}.",
    "Reviewers of this codebase flagged {phrase}.",
)
"""Each reads whatever the phrase's number: no "There is" before a phrase that may be plural."""
_ASKS = (
    "Find it and refactor the code to remove the smell.",
    "Locate the problem and refactor it away.",
    "Identify the affected code and clean it up with a refactoring.",
)
_CONSTRAINTS = (
    "Keep the behaviour unchanged: the repository's tests are not in your copy, and they are "
    "run on your version after you finish.",
    "Do not change what the code does; its behaviour is checked afterwards with the "
    "repository's tests, which are hidden from you.",
)
"""What the environment offers: the solver cannot run the tests (a Harbor task's image holds
none), so an instruction never asks it to keep them passing as if it could check."""
_GUIDES = (
    "Start with these files: {files}.",
    "The smell involves these files: {files}.",
)
_TARGETS = (
    "It is centred on {names}.",
    "Focus on {names}.",
)
_NOUNS = {"class": "class", "method": "method", "function": "function",
          "nested_function": "function"}
"""What a target is called, by its location's kind: a function is never called a method."""
_PLURALS = {"class": "classes", "method": "methods", "function": "functions",
            "definition": "definitions"}


def _files(paths: Sequence[str]) -> str:
    return ", ".join(f"`{path}`" for path in paths)


def _noun(target: Target) -> str:
    return "class" if target.level == "class" else _NOUNS.get(target.location.kind,
                                                              "definition")


def _named(targets: Sequence[Target]) -> str:
    """`the class `a.B``, `the methods `a.B.c`, `a.B.d` and the function `a.e``: each target
    called what it is, grouped by kind in the order they come."""
    groups: dict[str, list[str]] = {}
    for target in targets:
        groups.setdefault(_noun(target), []).append(f"`{target.location.qualname}`")
    parts = [f"the {_PLURALS[noun] if len(names) > 1 else noun} {', '.join(names)}"
             for noun, names in groups.items()]
    return " and ".join(parts)


def instructions(smell: Smell, files: Sequence[str], targets: Sequence[Target],
                 rng: random.Random) -> dict[InstructionSetting, str]:
    """The open, guided and targeted instruction for one injection."""
    phrase = rng.choice(smell.phrases)
    opening = rng.choice(_OPENINGS).format(phrase=phrase)
    ask, constraint = rng.choice(_ASKS), rng.choice(_CONSTRAINTS)
    guide = rng.choice(_GUIDES).format(files=_files(files))
    target = rng.choice(_TARGETS).format(names=_named(targets))
    return {
        "open": f"{opening} {ask} {constraint}",
        "guided": f"{opening} {guide} {ask} {constraint}",
        "targeted": f"{opening} {guide} {target} {ask} {constraint}",
    }
