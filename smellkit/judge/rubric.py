"""The rubric and the prompt templates: data files in the package (`data/`), versioned.

`rubric-<v>.json` holds the four general dimensions with anchors at 10/8/6/4/2/0, three
criteria per smell with bands 9-10/7-8/5-6/3-4/0-2, the difficulty context and the cross-check's
thresholds; `prompt-<v>.md` and `analysis-<v>.md` are `string.Template` texts split into a
system and a user message by `<!-- system -->` / `<!-- user -->` lines. Every verdict stores
`VERSION` and the hash of the exact prompt it was given, so a changed rubric never mixes with
old verdicts in a cache or a table.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from string import Template

from pydantic import BaseModel, ConfigDict

from smellkit.judge.errors import JudgeError

VERSION = "1"
GENERAL = ("smell_elimination", "cross_file_coordination", "structural_soundness",
           "code_quality")
"""The four general dimensions, always required in a reply, in SmellBench's key spelling."""
SHORT = {"smell_elimination": "SE", "cross_file_coordination": "CC",
         "structural_soundness": "SS", "code_quality": "CQ"}
BAND_FIELDS = ("excellent", "good", "acceptable", "below_average", "poor")
"""SmellBench's names of the bands 9-10 / 7-8 / 5-6 / 3-4 / 0-2 of a criterion."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Dimension(_Frozen):
    key: str
    title: str
    question: str
    anchors: dict[str, str]


class Criterion(_Frozen):
    """A smell-specific or per-case criterion, scored 0-10 in five bands."""

    name: str
    description: str
    bands: dict[str, str]

    @property
    def key(self) -> str:
        return criterion_key(self.name)


class SmellRubric(_Frozen):
    criteria: tuple[Criterion, Criterion, Criterion]


class Thresholds(_Frozen):
    high: float
    """A score at or above this is a claim that the dimension succeeded."""
    low: float
    """A score at or below this is a claim that it failed."""
    cap: float
    """The highest adjusted score a dimension keeps when the evidence shows it failed."""
    floor: float
    """The lowest adjusted score when the evidence proves it succeeded."""


class Rubric(_Frozen):
    version: str
    general: tuple[Dimension, ...]
    bands: tuple[str, ...]
    smells: dict[str, SmellRubric]
    difficulty: dict[str, str]
    thresholds: Thresholds

    def criteria(self, smell: str) -> tuple[Criterion, ...]:
        entry = self.smells.get(smell)
        if entry is None:
            raise JudgeError(f"the rubric has no criteria for smell {smell!r}",
                             hint=f"known: {', '.join(self.smells)}")
        return entry.criteria


def criterion_key(name: str) -> str:
    """A criterion's key in a reply, as SmellBench spells it (`name.lower()`, spaces to `_`),
    with anything else that is not a letter or digit also made `_`, so a key the model spells
    with other punctuation still matches."""
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


def _text(name: str) -> str:
    folder = resources.files("smellkit.judge").joinpath("data")
    return folder.joinpath(name).read_text(encoding="utf-8")


@cache
def rubric(version: str = VERSION) -> Rubric:
    """The rubric of `version` (`data/rubric-<version>.json`)."""
    try:
        return Rubric.model_validate(json.loads(_text(f"rubric-{version}.json")))
    except FileNotFoundError as error:
        raise JudgeError(f"no rubric of version {version!r}", hint=f"use {VERSION}") from error


@cache
def template(kind: str, version: str = VERSION) -> tuple[Template, Template]:
    """The (system, user) templates of `kind` (`prompt` or `analysis`)."""
    text = _text(f"{kind}-{version}.md")
    system, _, user = text.partition("<!-- user -->")
    return (Template(system.replace("<!-- system -->", "").strip()),
            Template(user.strip()))
