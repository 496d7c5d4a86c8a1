"""The judge's prompt, in SmellBench's structure: the smell and its description, the smell
analysis, the candidate diff and the smelly code around it (both delimited as data), the rubric
(four general dimensions with anchors, the smell's three criteria, the case's criteria, the
difficulty context) and the JSON to answer with. The text comes from the package's versioned
template (`data/prompt-<v>.md`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from smellkit.judge.analysis import SmellAnalysis
from smellkit.judge.reply import Expected
from smellkit.judge.rubric import VERSION, Criterion, rubric, template


@dataclass(frozen=True)
class Prompt:
    messages: list[dict[str, str]]
    expected: Expected
    schema: dict[str, Any]
    version: str = VERSION


def _criteria(criteria: tuple[Criterion, ...]) -> str:
    if not criteria:
        return "(none for this case)"
    blocks = []
    for item in criteria:
        bands = "\n".join(f"  - {band}: {text}" for band, text in item.bands.items())
        blocks.append(f"**{item.name}** (`{item.key}`): {item.description}\n{bands}")
    return "\n\n".join(blocks)


def _general() -> str:
    blocks = []
    for dimension in rubric().general:
        anchors = "\n".join(f"  - {score}: {text}" for score, text in dimension.anchors.items())
        blocks.append(f"**{dimension.title}** (`{dimension.key}`): {dimension.question}\n"
                      f"{anchors}")
    return "\n\n".join(blocks)


_TAGS = re.compile(r"<(/?)(candidate_diff|smelly_code)>", re.I)


def _data(text: str) -> str:
    """`text` with the data delimiters defused, so a submission cannot close its own data
    block early (`</candidate_diff>` becomes `<-/candidate_diff>`)."""
    return _TAGS.sub(lambda match: "<" + ("-/" if match.group(1) else "-") + match.group(2)
                     + ">", text)


def build_prompt(*, smell: str, description: str, difficulty: str, analysis: SmellAnalysis,
                 diff: str, code: str) -> Prompt:
    """The messages for one candidate. `diff` is the guarded, normalised patch."""
    spec = rubric()
    specific = spec.criteria(smell)
    case = tuple(dict((item.key, item) for item in analysis.criteria).values())
    expected = Expected(specific={item.key: item.name for item in specific},
                        case={item.key: item.name for item in case})
    values = {
        "smell": smell, "description": description, "analysis": analysis.text,
        "diff": _data(diff.rstrip("\n")) or "(empty: the candidate changed nothing)",
        "code": _data(code),
        "general": _general(), "specific": _criteria(specific), "case_criteria": _criteria(case),
        "difficulty": spec.difficulty.get(difficulty, "(not recorded)"),
        "shape": expected.shape()}
    system, user = template("prompt")
    messages = [{"role": "system", "content": system.substitute(values)},
                {"role": "user", "content": user.substitute(values)}]
    return Prompt(messages=messages, expected=expected, schema=expected.schema())
