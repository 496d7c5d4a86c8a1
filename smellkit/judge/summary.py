"""`judge_summary.json` and `judge_summary.md`: per judge model and predictions' model, the mean
score and mean adjusted score of each general dimension, trust levels, sample agreement and
what was spent; then the agreement statistics (`agreement`)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from smellkit._internal.jsonl import write_atomic
from smellkit.evaluate.score import Score
from smellkit.judge.agreement import (
    EvidenceAgreement,
    JudgePairAgreement,
    against_evidence,
    between_judges,
)
from smellkit.judge.client import Usage
from smellkit.judge.rubric import GENERAL, SHORT, VERSION
from smellkit.judge.verdict import Verdict

SUMMARY_JSON = "judge_summary.json"
SUMMARY_MD = "judge_summary.md"


class JudgeGroup(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    judge_model: str
    model: str
    n: int
    scores: dict[str, float]
    """Mean over the verdicts of each general dimension's score."""
    adjusted: dict[str, float]
    trust: dict[str, int]
    contradictions: dict[str, int]
    """Major contradictions per dimension (`*`: text aimed at the judge)."""
    agreement: float | None
    flagged: int
    usage: Usage


class JudgeSummary(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    rubric_version: str = VERSION
    groups: tuple[JudgeGroup, ...]
    between_judges: tuple[JudgePairAgreement, ...] = ()
    between_judges_adjusted: tuple[JudgePairAgreement, ...] = ()
    against_evidence: tuple[EvidenceAgreement, ...] = Field(default=())


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 4) if values else None


def summarise(verdicts: Sequence[Verdict], scores: Sequence[Score] = (), *,
              seed: int = 0, statistics_: bool = True) -> JudgeSummary:
    """The groups, and (unless `statistics_` is False) the agreement statistics."""
    groups: dict[tuple[str, str], list[Verdict]] = {}
    for verdict in verdicts:
        groups.setdefault((verdict.judge_model, verdict.model), []).append(verdict)
    made = []
    for (judge_model, model), members in sorted(groups.items()):
        trust: dict[str, int] = {}
        majors: dict[str, int] = {}
        usage = Usage()
        for verdict in members:
            trust[verdict.trust] = trust.get(verdict.trust, 0) + 1
            usage.add(verdict.usage)
            for item in verdict.contradictions:
                if item.severity == "major":
                    majors[item.dimension] = majors.get(item.dimension, 0) + 1
        means = {key: _mean([v.scores[key] for v in members if key in v.scores])
                 for key in GENERAL}
        adjusted = {key: _mean([v.adjusted[key] for v in members if key in v.adjusted])
                    for key in GENERAL}
        made.append(JudgeGroup(
            judge_model=judge_model, model=model, n=len(members),
            scores={key: value for key, value in means.items() if value is not None},
            adjusted={key: value for key, value in adjusted.items() if value is not None},
            trust=trust, contradictions=majors,
            agreement=_mean([v.agreement for v in members if v.agreement is not None]),
            flagged=sum(1 for v in members if v.guard), usage=usage))
    if not statistics_:
        return JudgeSummary(groups=tuple(made))
    return JudgeSummary(
        groups=tuple(made), between_judges=tuple(between_judges(verdicts, seed=seed)),
        between_judges_adjusted=tuple(between_judges(verdicts, use="adjusted", seed=seed)),
        against_evidence=tuple(against_evidence(verdicts, scores, seed=seed)))


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _interval(value: float | None, bounds: tuple[float, float] | None) -> str:
    text = _cell(value)
    return f"{text} [{bounds[0]:.2f}, {bounds[1]:.2f}]" if bounds and value is not None else text


def markdown(summary: JudgeSummary) -> str:
    short = [SHORT[key] for key in GENERAL]
    lines = ["# Judge summary", "",
             f"Rubric version {summary.rubric_version}. Scores are the mean of each verdict's "
             "median over samples; adjusted scores are after the cross-check against the "
             "scorer's evidence.", "",
             "| judge | model | n | " + " | ".join(f"{name} (adj.)" for name in short)
             + " | consistent | contradicted | unverifiable | agreement | flagged |",
             "|" + "---|" * (8 + len(short))]
    for group in summary.groups:
        cells = [f"{_cell(group.scores.get(key))} ({_cell(group.adjusted.get(key))})"
                 for key in GENERAL]
        lines.append(f"| {group.judge_model} | {group.model} | {group.n} | " + " | ".join(cells)
                     + f" | {group.trust.get('consistent', 0)} | "
                       f"{group.trust.get('contradicted', 0)} | "
                       f"{group.trust.get('unverifiable', 0)} | {_cell(group.agreement)} | "
                       f"{group.flagged} |")
    if summary.between_judges:
        lines += ["", "## Between judge models", "",
                  "Quadratic-weighted kappa and Spearman's rho with 95% bootstrap intervals.", "",
                  "| judge A | judge B | dimension | n | kappa | rho | p |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {item.judge_a} | {item.judge_b} | {SHORT[item.dimension]} | {item.n} | "
                  f"{_interval(item.kappa, item.kappa_ci)} | "
                  f"{_interval(item.spearman, item.spearman_ci)} | {_cell(item.spearman_p)} |"
                  for item in summary.between_judges]
    if summary.against_evidence:
        lines += ["", "## Against the deterministic evidence", "",
                  "ROC AUC of each score as a predictor of its 0/1 counterpart, and the "
                  "point-biserial correlation.", "",
                  "| judge | dimension | signal | n | positives | AUC | r_pb | p | note |",
                  "|---|---|---|---|---|---|---|---|---|"]
        lines += [f"| {item.judge_model} | {SHORT[item.dimension]} | {item.signal} | {item.n} | "
                  f"{item.positives} | {_interval(item.auc, item.auc_ci)} | "
                  f"{_cell(item.point_biserial)} | {_cell(item.p_value)} | {item.note} |"
                  for item in summary.against_evidence]
    return "\n".join(lines) + "\n"


def write_summary(out_dir: Path | str, verdicts: Sequence[Verdict],
                  scores: Sequence[Score] = ()) -> JudgeSummary:
    summary = summarise(verdicts, scores)
    folder = Path(out_dir)
    write_atomic(folder / SUMMARY_JSON, summary.model_dump_json(indent=2) + "\n")
    write_atomic(folder / SUMMARY_MD, markdown(summary))
    return summary
