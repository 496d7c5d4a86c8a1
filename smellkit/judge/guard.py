"""Text in a prediction addressed to its evaluator ("ignore the rubric", "give this a 10", "as
the reviewer you must"), found deterministically, and the patch with it taken out.

Only what the patch adds is read (an agent answers for its own lines), and only its comments,
strings and docstrings, found with `tokenize` over each hunk's result side (indentation left
out); a hunk that does not tokenize on its own (it starts inside a docstring) is read line by
line. The sanitised patch
drops each added line whose flagged text is all it holds (a comment line, a docstring line) and
cuts a flagged trailing comment off a code line; a flag inside a string on a code line is left
(removing it would change the code) and reported. Patches are rendered the same way whether or
not anything was removed (`normal_patch`), so a patch whose only difference from another is
such text sanitises to exactly the other's text.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict
from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, PatchedFile, PatchSet

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(text, re.I)) for name, text in (
        ("ignore_instructions", r"\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(rubric|"
                                r"instructions?|previous|above|guidelines|criteria|prompt)\b"),
        ("asks_for_score", r"\b(give|assign|award|rate|score|grade|mark)\s+(this|it|me|us|"
                           r"the (patch|change|refactoring|code|diff|solution|submission|fix))"
                           r"\b[^.\n]{0,20}(\b10\b|\bten\b|full marks|perfect|maximum|highest|"
                           r"top)"),
        ("score_claim", r"\b(score|rating|grade|smell_elimination|code_quality)\s*[:=]\s*"
                        r"(10|9|ten)\b"),
        ("addresses_evaluator", r"\b(as|dear|attention|note to|to) (the |a |an |any )?(ai |llm "
                                r")?(reviewer|evaluator|grader|judge|assessor)s?\b"),
        ("instructs_evaluator", r"\b(reviewers?|evaluators?|graders?|judges?|language models?|"
                                r"llms?)\b,?\s+(you\s+)?(must|should|shall|need to|have to|"
                                r"are required to|are instructed to)\b"),
        ("claims_verdict", r"\b(this|the) (patch|refactoring|change|code|diff|solution|fix) "
                           r"(is|has been) (perfect|flawless|complete(ly correct)?|verified|"
                           r"approved|fully correct)\b"),
        ("prompt_markup", r"</?(candidate_diff|smelly_code|system|instructions?)>|"
                          r"\bsystem prompt\b|\bnew instructions\b"),
    ))
"""Each pattern's name and regex; a match in a comment, string or docstring is a finding."""


class GuardFinding(BaseModel):
    """One piece of text aimed at the judge, where it is and which pattern caught it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    line: int
    """Line number on the result side."""
    where: str
    """`comment`, `string` (docstrings included) or `line` (a hunk that did not tokenize)."""
    pattern: str
    text: str


def _matches(text: str) -> list[str]:
    return [name for name, pattern in PATTERNS if pattern.search(text)]


@dataclass
class _Added:
    """An added line and what the guard decided about it."""

    number: int
    findings: list[GuardFinding] = field(default_factory=list)
    drop: bool = False
    cut_at: int | None = None
    """Column of a flagged trailing comment to cut off."""


def _scan_hunk(path: str, hunk: Hunk) -> dict[int, _Added]:
    """Findings on the hunk's added lines, by result line number."""
    result = [line for line in hunk if line.line_type in (" ", "+")]
    added = {line.target_line_no: _Added(line.target_line_no) for line in result
             if line.line_type == "+" and line.target_line_no is not None}
    if not added:
        return added
    first = result[0].target_line_no or 0
    # Indentation is left out: a hunk starts and ends at any depth, which tokenize would
    # refuse; comments and strings are found the same without it.
    raw = [line.value.rstrip("\n") for line in result]
    indents = [len(text) - len(text.lstrip()) for text in raw]
    text = "".join(line.lstrip() + "\n" for line in raw)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        tokens = []
    if not tokens:
        for line in result:
            if line.line_type == "+" and line.target_line_no in added:
                entry = added[line.target_line_no]
                entry.findings += [GuardFinding(path=path, line=entry.number, where="line",
                                                pattern=name, text=line.value.strip())
                                   for name in _matches(line.value)]
                entry.drop = bool(entry.findings) and line.value.lstrip().startswith("#")
        return added
    lines = text.splitlines()
    for token in tokens:
        if token.type not in (tokenize.COMMENT, tokenize.STRING):
            continue
        if not _matches(token.string):
            continue
        (row, column), (end_row, _) = token.start, token.end
        # each line of a long string for itself; all of them when the text spans lines
        own = {offset: _matches(part) for offset, part in
               enumerate(token.string.split("\n"), start=row)}
        spanning = not any(own.values())
        for offset in range(row, end_row + 1):
            found = added.get(first + offset - 1)
            names = _matches(token.string) if spanning else own.get(offset, [])
            if found is None or not names:
                continue
            entry = found
            source = lines[offset - 1]
            where = "comment" if token.type == tokenize.COMMENT else "string"
            entry.findings += [GuardFinding(path=path, line=entry.number, where=where,
                                            pattern=name, text=source.strip()) for name in names]
            if token.type == tokenize.COMMENT and source[:column].strip():
                entry.cut_at = column + indents[offset - 1]
            elif token.type == tokenize.COMMENT or _only_string(source, token, offset):
                entry.drop = True
    return added


def _only_string(source: str, token: tokenize.TokenInfo, offset: int) -> bool:
    """Whether line `offset` of a string token holds nothing but the string's text (a
    docstring line, a line inside a multi-line string)."""
    (row, column), (end_row, end_column) = token.start, token.end
    before = source[:column] if offset == row else ""
    after = source[end_column:] if offset == end_row else ""
    return not before.strip() and not after.split("#")[0].strip()


@dataclass(frozen=True)
class Guarded:
    """The guard's answer for one patch."""

    findings: tuple[GuardFinding, ...]
    patch: str
    """The patch as the judge sees it: normalised, and without the flagged lines."""
    normal: str
    """The patch normalised, nothing removed."""


def _path(patched: PatchedFile) -> str:
    return patched.path


def _render(patched_files: list[tuple[PatchedFile, list[tuple[Hunk, list[str]]]]]) -> str:
    out: list[str] = []
    for patched, hunks in patched_files:
        out += [f"--- {patched.source_file}\n", f"+++ {patched.target_file}\n"]
        shift = 0
        for hunk, lines in hunks:
            added = sum(1 for line in lines if line.startswith("+"))
            removed = sum(1 for line in lines if line.startswith("-"))
            context = sum(1 for line in lines if line.startswith(" "))
            target_start = hunk.target_start + shift
            shift += (added + context) - hunk.target_length
            header = f" {hunk.section_header}" if hunk.section_header else ""
            out.append(f"@@ -{hunk.source_start},{removed + context} "
                       f"+{target_start},{added + context} @@{header}\n")
            out += lines
    return "".join(out)


def _line_text(line_type: str, value: str) -> str:
    if line_type == "\\":
        return "\\ No newline at end of file\n"
    return f"{line_type}{value}" if value.endswith("\n") else f"{line_type}{value}\n"


def guard(patch: str) -> Guarded:
    """Find judge-aimed text in what `patch` adds and render it with and without that text. A
    patch unidiff cannot read is scanned line by line and shown as it is."""
    try:
        parsed = PatchSet(patch)
    except UnidiffParseError:
        parsed = None
    if not parsed:
        loose = tuple(
            GuardFinding(path="", line=number, where="line", pattern=name, text=line.strip())
            for number, line in enumerate(patch.splitlines(), start=1)
            if line.startswith("+") and not line.startswith("+++")
            for name in _matches(line))
        return Guarded(findings=loose, patch=patch, normal=patch)
    findings: list[GuardFinding] = []
    clean: list[tuple[PatchedFile, list[tuple[Hunk, list[str]]]]] = []
    normal: list[tuple[PatchedFile, list[tuple[Hunk, list[str]]]]] = []
    for patched in parsed:
        clean_hunks, normal_hunks = [], []
        for hunk in patched:
            decided = _scan_hunk(_path(patched), hunk)
            kept, every = [], []
            for line in hunk:
                text = _line_text(line.line_type, line.value)
                every.append(text)
                entry = decided.get(line.target_line_no) \
                    if line.line_type == "+" and line.target_line_no is not None else None
                if entry is not None and entry.findings:
                    findings += entry.findings
                    if entry.drop:
                        continue
                    if entry.cut_at is not None:
                        text = "+" + line.value[:entry.cut_at].rstrip() + "\n"
                kept.append(text)
            normal_hunks.append((hunk, every))
            clean_hunks.append((hunk, kept))
        clean.append((patched, clean_hunks))
        normal.append((patched, normal_hunks))
    return Guarded(findings=tuple(findings), patch=_render(clean), normal=_render(normal))


def normal_patch(patch: str) -> str:
    """`patch` rendered as the judge is shown it (headers `--- a/x` `+++ b/x`, recounted hunks)."""
    return guard(patch).normal
