"""The tables `smellkit judge` and `smellkit crosscheck` print when they end: per judge model and
predictions' model, mean scores and adjusted scores, trust levels and agreement."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from smellkit._internal.jsonl import read_jsonl
from smellkit.judge.external import CROSSCHECK_ERRORS, CrosscheckReport
from smellkit.judge.rubric import GENERAL, SHORT
from smellkit.judge.run import JUDGE_ERRORS, JudgeReport
from smellkit.judge.summary import SUMMARY_JSON, JudgeSummary, summarise
from smellkit.judge.verdict import VERDICTS, Verdict

LISTED = 8


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def judge_table(summary: JudgeSummary, title: str) -> Any:
    """One row per judge model x predictions' model: `score→adjusted` per dimension."""
    from rich.table import Table

    table = Table(title=title)
    for name in ("judge", "model", "n", *(SHORT[key] for key in GENERAL), "consistent",
                 "contradicted", "unverifiable", "agreement", "flagged"):
        table.add_column(name, justify="left" if name in ("judge", "model") else "right")
    for group in summary.groups:
        cells = [f"{_number(group.scores.get(key))}→{_number(group.adjusted.get(key))}"
                 for key in GENERAL]
        table.add_row(group.judge_model, group.model, str(group.n), *cells,
                      *(str(group.trust.get(name, 0))
                        for name in ("consistent", "contradicted", "unverifiable")),
                      "-" if group.agreement is None else f"{group.agreement:.2f}",
                      str(group.flagged))
    table.caption = "score→adjusted: the judge's mean, then after the cross-check"
    return table


def _verdicts(out: Path) -> list[Verdict]:
    return [Verdict.model_validate(row) for row in read_jsonl(out / VERDICTS)]


def _problems(out: Path, name: str, console: Any) -> None:
    rows = read_jsonl(out / name)
    if rows:
        console.print(f"{len(rows)} not cross-checked (all of them in {out / name}):")
        for row in rows[:LISTED]:
            where = ":".join(str(row[key]) for key in ("instance_id", "model", "judge_model",
                                                         "line") if row.get(key) is not None)
            console.print(f"  {where}: {row.get('message', '')}")


def print_agreement(out: Path, console: Any) -> None:
    """Between judge models, when there are several: kappa and rho per dimension (from
    judge_summary.json, which the run wrote)."""
    path = out / SUMMARY_JSON
    if not path.is_file():
        return
    summary = JudgeSummary.model_validate_json(path.read_text(encoding="utf-8"))
    for item in summary.between_judges:
        kappa = "-" if item.kappa is None else f"{item.kappa:.2f}"
        rho = "-" if item.spearman is None else f"{item.spearman:.2f}"
        console.print(f"{item.judge_a} vs {item.judge_b}, {SHORT[item.dimension]}: "
                      f"weighted kappa {kappa}, Spearman {rho} (n={item.n})")


def print_judging(report: JudgeReport, console: Any) -> None:
    out = Path(report.out_dir)
    usage = report.usage
    cost = "unknown cost" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"
    groups = summarise(_verdicts(out), statistics_=False)
    console.print(judge_table(groups, f"smellkit judge ({report.judged} judged now, "
                                      f"{report.reused} before, {report.seconds:.0f}s)"))
    console.print(f"{usage.requests} requests ({usage.retries} retries, {usage.repairs} "
                  f"repairs), {usage.cached} replies from the cache, {usage.prompt_tokens} + "
                  f"{usage.completion_tokens} tokens, {cost}")
    print_agreement(out, console)
    _problems(out, JUDGE_ERRORS, console)


def print_crosscheck(report: CrosscheckReport, console: Any) -> None:
    out = Path(report.out_dir)
    console.print(judge_table(summarise(_verdicts(out), statistics_=False),
                              f"smellkit crosscheck ({report.checked} of {report.read} verdicts)"))
    print_agreement(out, console)
    _problems(out, CROSSCHECK_ERRORS, console)
