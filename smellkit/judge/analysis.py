"""The "smell analysis" a judge reads before the candidate (SmellBench's pre-step), and the code
around the smell it is shown.

By default the analysis is deterministic, written from the case record: what was injected where
(targets, every involved location, the files, the red herrings, the structural checks), what a
fix must achieve, and per-case criteria made from those facts. A SmellBench record brings its
own `smell_analysis` and `custom_rubrics`, which are used as they are. With `--analysis model`
a model writes it instead (`model_analysis`), from the smell diff as SmellBench does; its reply
is validated and cached per case like any other request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.patches.parse import PatchFormatError, normal_folder, parse_patch
from smellkit.judge.rubric import BAND_FIELDS, Criterion, rubric
from smellkit.models import Location

if TYPE_CHECKING:
    from smellkit.judge.client import JudgeClient

CODE_LINES = 400
"""The most lines of smelly code a prompt shows (the diff itself is always shown whole)."""
BANDS = ("9-10", "7-8", "5-6", "3-4", "0-2")


class SmellAnalysis(BaseModel):
    """What the judge is told about the smell of one case, and the case's own criteria."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    criteria: tuple[Criterion, ...] = ()
    source: str
    """`case_record`, `smellbench_record` or `model:<name>`."""


def _where(location: Location) -> str:
    return f"`{location.qualname}` ({location.kind}, {location.path}:{location.start_line}-" \
           f"{location.end_line})"


def involved_files(case: EvalCase) -> tuple[str, ...]:
    """The files (repository-relative) the smelly patch touched: those a fix may need to change."""
    prefix = normal_folder(case.source_path)
    files: Sequence[str] = case.case.files if case.case is not None else ()
    if not files and case.smelly_patch.strip():
        try:
            files = [path for change in parse_patch(case.smelly_patch) for path in change.paths]
        except PatchFormatError:
            files = ()
    return tuple(dict.fromkeys(f"{prefix}/{path}" if prefix else path for path in files))


def _criterion(name: str, description: str, *bands: str) -> Criterion:
    return Criterion(name=name, description=description, bands=dict(zip(BANDS, bands)))


def _targets_criterion(targets: str) -> Criterion:
    return _criterion(
        "Targets Restructured", f"The smell is removed at every target: {targets}.",
        "Every target restructured so the smell is gone there.",
        "Every target changed; one keeps a trace of the smell.",
        "Some targets restructured, others untouched.", "Targets touched only cosmetically.",
        "No target changed.")


def _files_criterion(files: Sequence[str]) -> Criterion:
    return _criterion(
        "Files Coordinated", "Every file the smell spans is updated consistently: "
        + ", ".join(f"`{path}`" for path in files) + ".",
        "Every file updated consistently.", "One small inconsistency.",
        "One file that needed a change missed.", "Several files missed.",
        "Only one file changed.")


def _case_criteria(case: EvalCase) -> tuple[Criterion, ...]:
    injected = case.case
    if injected is None:  # a SmellBench record without its own rubrics: targets and files
        found = [_targets_criterion(", ".join(f"`{target}`" for target in case.targets))] \
            if case.targets else []
        files = involved_files(case)
        if len(files) > 1:
            found.append(_files_criterion(files))
        return tuple(found)
    targets = ", ".join(f"`{target.location.qualname}`" for target in injected.targets)
    found = [_targets_criterion(targets)]
    if injected.checks:
        checks = "; ".join(check.description for check in injected.checks)
        found.append(_criterion(
            "Structure Restored", f"The refactored code has this structure: {checks}.",
            "Every point holds.", "All but a minor point hold.", "About half hold.",
            "Few hold.", "None holds."))
    if injected.red_herrings:
        herrings = ", ".join(f"`{location.qualname}`" for location in injected.red_herrings)
        found.append(_criterion(
            "Red Herrings Left Alone",
            f"Look-alike code that is not smelly is left unchanged: {herrings}.",
            "None of it changed.", "One touched harmlessly (formatting).",
            "One changed in substance.", "Several changed.", "Treated as the smell throughout."))
    else:
        found.append(_files_criterion(involved_files(case)))
    return tuple(found)


def _from_smellbench(case: EvalCase) -> SmellAnalysis | None:
    text = case.extra.get("smell_analysis")
    if not isinstance(text, str) or not text.strip():
        return None
    criteria = []
    for item in case.extra.get("custom_rubrics") or []:
        try:
            rubric_item = CustomRubric.model_validate(item)
        except ValidationError:
            continue
        criteria.append(rubric_item.criterion())
    return SmellAnalysis(text=text.strip(), criteria=tuple(criteria), source="smellbench_record")


def case_analysis(case: EvalCase, description: str) -> SmellAnalysis:
    """The deterministic analysis of `case` (a SmellBench record's own, when it has one)."""
    known = _from_smellbench(case)
    if known is not None:
        return known
    lines = [f"The case injected {case.smell} ({description.rstrip('.')})"
             + (f" at difficulty {case.difficulty}." if case.difficulty else ".")]
    injected = case.case
    if injected is not None:
        lines.append(f"Why this spot: {injected.candidate.reason}")
        lines.append("Targets (where a fix must act):")
        lines += [f"- {_where(target.location)}, scored at {target.level} level"
                  for target in injected.targets]
        others = [location for location in injected.locations
                  if location not in {target.location for target in injected.targets}]
        if others:
            lines.append("Other locations the smell involves:")
            lines += [f"- {_where(location)}" for location in others]
        lines.append("Files the smell spans: " + ", ".join(injected.files) + ".")
        if injected.red_herrings:
            lines.append("Red herrings (look-alike code that is not smelly; must stay as it is):")
            lines += [f"- {_where(location)}" for location in injected.red_herrings]
        if injected.checks:
            lines.append("A fix must restore this structure (each is checked on the result):")
            lines += [f"- {check.description}" for check in injected.checks]
    else:
        if case.targets:
            lines.append("Targets: " + ", ".join(f"`{target}`" for target in case.targets) + ".")
        files = involved_files(case)
        if files:
            lines.append("Files the smell spans: " + ", ".join(files) + ".")
    lines.append("A thorough fix removes the smell at every target and involved location, "
                 "updates every file the smell spans consistently, keeps behaviour and leaves "
                 "unrelated code alone; a superficial fix renames, comments or moves code without "
                 "changing the structure that makes the smell.")
    return SmellAnalysis(text="\n".join(lines), criteria=_case_criteria(case),
                         source="case_record")


def smelly_code(case: EvalCase, limit: int = CODE_LINES) -> str:
    """The smelly side of the case's smelly patch (each hunk's context and added lines, with
    line numbers): the code the smell was put in, as a solver found it."""
    try:
        parsed = PatchSet(case.smelly_patch)
    except UnidiffParseError:
        return "(the case's smelly patch could not be read)"
    prefix = normal_folder(case.source_path)
    out: list[str] = []
    for patched in parsed:
        path = f"{prefix}/{patched.path}" if prefix else patched.path
        out.append(f"# {path}")
        for hunk in patched:
            out.append(f"# lines {hunk.target_start}-{hunk.target_start + hunk.target_length - 1}")
            out += [f"{line.target_line_no:5d}  {line.value.rstrip()}" for line in hunk
                    if line.line_type in (" ", "+") and line.target_line_no is not None]
    if len(out) > limit:
        out = [*out[:limit], f"# ... {len(out) - limit} more lines not shown"]
    return "\n".join(out) if out else "(the case records no smelly code)"


class CustomRubric(BaseModel):
    """One of SmellBench's `custom_rubrics` (and of a model-written analysis)."""

    model_config = ConfigDict(extra="ignore")

    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    excellent: str
    good: str
    acceptable: str
    below_average: str
    poor: str

    def criterion(self) -> Criterion:
        return Criterion(name=self.name, description=self.description,
                         bands={band: getattr(self, name)
                                for band, name in zip(BANDS, BAND_FIELDS)})


class AnalysisReply(BaseModel):
    """A model-written analysis, as it must come back."""

    model_config = ConfigDict(extra="ignore")

    analysis: str = Field(min_length=20)
    rubrics: list[CustomRubric] = Field(min_length=1, max_length=4)


def analysis_messages(case: EvalCase, description: str) -> list[dict[str, str]]:
    from smellkit.judge.rubric import template

    system, user = template("analysis")
    values = {"smell": case.smell, "description": description, "diff": case.smelly_patch}
    return [{"role": "system", "content": system.substitute(values)},
            {"role": "user", "content": user.substitute(values)}]


def model_analysis(case: EvalCase, description: str, client: JudgeClient,
                   model: str) -> SmellAnalysis:
    """SmellBench's pre-step: `model` analyses the smell diff; its reply is validated (one
    repair request), cached per case by the client. Raises `ReplyError` when no valid reply
    came."""

    def validate(text: str) -> AnalysisReply:
        from smellkit.judge.reply import ReplyError, extract_json

        try:
            return AnalysisReply.model_validate(extract_json(text))
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(part) for part in problem["loc"])
            raise ReplyError(f"{where}: {problem['msg']}") from error

    schema: dict[str, Any] = AnalysisReply.model_json_schema()
    outcome = client.ask(analysis_messages(case, description), model=model, sample=0,
                         schema=schema, schema_name="smell_analysis", validate=validate)
    reply = outcome.value
    return SmellAnalysis(text=reply.analysis.strip(),
                         criteria=tuple(item.criterion() for item in reply.rubrics),
                         source=f"model:{model}")


def rubric_criteria(smell: str) -> tuple[Criterion, ...]:
    return rubric().criteria(smell)
