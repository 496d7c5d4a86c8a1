"""The summaries of an evaluation folder: `summary.json`, `summary.csv`, `summary.md` and
`report.html`, written beside the scorer's `scores.jsonl` from its rows.

- `summary.json`: the `Summary` model (aggregate.py): groups with each signal's n, mean and
  interval, error categories per model, paired comparisons, and how they were computed.
- `summary.csv`: one row per group x signal, columns `CSV_COLUMNS`; `*` in a dimension marks a
  marginal (per model overall, x smell, x difficulty, x setting), empty cells are None.
- `summary.md`: the tables a reader wants first: per model, per smell, per difficulty, per
  setting, error categories, paired comparisons; the full cells are in the CSV.
- `report.html`: one self-contained file for a browser with no network: inline CSS, the plots as
  inline SVG, the same tables; a Content-Security-Policy that forbids every fetch, no script, no
  URL. Equal input and seed give equal bytes in all four files.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from smellkit._internal.jsonl import write_atomic
from smellkit.evaluate.reports.aggregate import (
    ALL,
    EQUIVALENCE_VERDICTS,
    SIGNALS,
    Comparison,
    Group,
    Summary,
    as_table,
    csv_rows,
    summarise,
)
from smellkit.evaluate.reports.frame import load
from smellkit.evaluate.reports.plots import Plot, plots
from smellkit.evaluate.score import ERROR_CATEGORIES, Score

CSV_COLUMNS = ("model", "smell", "difficulty", "setting", "signal", "n", "mean", "ci_low",
               "ci_high")
HEADLINE = ("resolved", "tpr", "la", "loc_recall", "residue", "checks_pass", "gt_f1",
            "gap_closed", "files_changed")
"""The signals in the Markdown and HTML tables (every signal is in the JSON and CSV)."""
JUDGE_HEADLINE = ("judge_smell_elimination", "adjusted_smell_elimination",
                  "judge_cross_file_coordination", "adjusted_cross_file_coordination",
                  "judge_structural_soundness", "adjusted_structural_soundness",
                  "judge_code_quality", "adjusted_code_quality", "judge_contradicted")
"""The judge's signals in the Markdown and HTML tables, when a verdicts.jsonl is beside."""
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
"""The page may load nothing: no script, no font, no image but inline data."""


class ReportPaths(NamedTuple):
    """The files `write_reports` wrote."""

    summary_json: Path
    summary_csv: Path
    summary_md: Path
    report_html: Path


@dataclass(frozen=True)
class Table:
    """One table of the Markdown and HTML reports: rendered both ways from the same cells."""

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""


def write_reports(out_dir: Path | str, scores: Sequence[Score] | None = None, *,
                  compare: tuple[str, str] | None = None, seed: int = 0) -> ReportPaths:
    """Write the four summaries into `out_dir`, from `scores` or else `out_dir/scores.jsonl`.

    `compare` names the one pair of models to compare (B against A); without it every pair is.
    """
    folder = Path(out_dir)
    table = load(folder) if scores is None else as_table(scores)
    summary = summarise(table, compare=compare, seed=seed)
    paths = ReportPaths(folder / "summary.json", folder / "summary.csv", folder / "summary.md",
                        folder / "report.html")
    write_atomic(paths.summary_json, summary.model_dump_json(indent=2) + "\n")
    write_atomic(paths.summary_csv, summary_csv(summary))
    tables = summary_tables(summary)
    write_atomic(paths.summary_md, markdown(summary, tables))
    write_atomic(paths.report_html, page(summary, tables, plots(summary, table, seed=seed)))
    return paths


def summary_csv(summary: Summary) -> str:
    """`summary.csv`'s text (None as an empty cell, floats in full precision)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(csv_rows(summary))
    return buffer.getvalue()


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def _cell(group: Group, signal: str) -> str:
    stat = group.stat(signal)
    if stat is None:
        return "-"
    if stat.ci_low is None or stat.ci_high is None:
        return _number(stat.mean)
    return f"{_number(stat.mean)} [{_number(stat.ci_low)}, {_number(stat.ci_high)}]"


def _group_table(summary: Summary, title: str, *dimensions: str) -> Table:
    groups = summary.level(*dimensions)
    return Table(
        title, ("model", *dimensions, "n", *HEADLINE),
        tuple((group.model, *(getattr(group, name) or "(none)" for name in dimensions),
               str(group.rows), *(_cell(group, signal) for signal in HEADLINE))
              for group in groups),
        f"Mean [{summary.confidence_level:.0%} bootstrap interval] of each signal over the "
        "predictions where it was measured; n is the number of predictions.")


def _comparison_table(summary: Summary, comparison: Comparison) -> Table:
    a, b = comparison.model_a, comparison.model_b
    rows = []
    for stat in comparison.stats:
        interval = (f" [{_number(stat.ci_low)}, {_number(stat.ci_high)}]"
                    if stat.ci_low is not None and stat.ci_high is not None else "")
        test = "McNemar exact" if stat.test == "mcnemar_exact" else "Wilcoxon"
        if stat.discordant is not None:
            test += f" ({stat.discordant[0]}:{stat.discordant[1]} discordant)"
        rows.append((stat.signal, str(stat.n), _number(stat.mean_a), _number(stat.mean_b),
                     f"{stat.diff:+.2f}{interval}", test, stat.note or _p(stat.p_value)))
    return Table(f"{b} against {a}", ("signal", "pairs", a, b, "difference (B - A)", "test", "p"),
                 tuple(rows), f"{comparison.pairs} cases (instance x setting) scored for both; "
                 f"{summary.confidence_level:.0%} paired bootstrap interval of the mean "
                 "difference.")


def summary_tables(summary: Summary) -> list[Table]:
    """The report's tables, in reading order."""
    tables = [_group_table(summary, "Per model"),
              _group_table(summary, "Per smell", "smell"),
              _group_table(summary, "Per difficulty", "difficulty"),
              _group_table(summary, "Per instruction setting", "setting")]
    tables.append(Table(
        "Error categories", ("model", "n", *ERROR_CATEGORIES),
        tuple((model, str(sum(counts.values())), *(str(counts.get(name, 0))
                                                    for name in ERROR_CATEGORIES))
              for model, counts in summary.errors.items()),
        "Predictions per category: the first check a prediction fails, in this order."))
    judged = [group for group in summary.level() if group.stat(JUDGE_HEADLINE[0]) is not None]
    if judged:
        tables.append(Table(
            "LLM judge", ("model", "n", *JUDGE_HEADLINE),
            tuple((group.model, str(group.rows), *(_cell(group, signal)
                                                    for signal in JUDGE_HEADLINE))
                  for group in judged),
            "Mean judge score and mean adjusted score (after the cross-check against the "
            "evidence) per dimension, over the judged predictions; judge_contradicted is the "
            "share of verdicts the evidence contradicts. Details: judge_summary.md."))
    if summary.equivalence:
        names = (*EQUIVALENCE_VERDICTS, "not_run")
        tables.append(Table(
            "Equivalence verdicts", ("model", "smell", "difficulty", *names),
            tuple((item.model, item.smell, item.difficulty,
                   *(str(item.counts.get(name, 0)) for name in names))
                  for item in summary.equivalence),
            "Differential testing against the smelly code, per model, smell and difficulty "
            f"(`{ALL}`: all); not_run: scored without --equivalence."))
    tables.extend(_comparison_table(summary, comparison) for comparison in summary.comparisons)
    tables.append(Table("Signals", ("signal", "mean of"),
                        tuple((name, text) for name, text in SIGNALS.items())))
    return tables


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(summary: Summary, tables: Sequence[Table]) -> str:
    """`summary.md`: a heading, how the numbers were made, then each table."""
    lines = ["# Evaluation summary", "", _overview(summary), ""]
    for table in tables:
        lines += [f"## {_md_cell(table.title)}", ""]
        if table.note:
            lines += [table.note, ""]
        lines.append("| " + " | ".join(_md_cell(cell) for cell in table.headers) + " |")
        lines.append("|" + "|".join("---" for _ in table.headers) + "|")
        lines += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in table.rows]
        lines.append("")
    return "\n".join(lines)


def _overview(summary: Summary) -> str:
    return (f"{summary.rows} scored predictions of {len(summary.models)} model(s) "
            f"({', '.join(summary.models) or 'none'}) on {len(summary.smells)} smell(s). "
            f"Intervals: {summary.confidence_level:.0%} {summary.ci_method} bootstrap, "
            f"{summary.n_resamples} resamples, seed {summary.seed}; none where n = 1. "
            f"`{ALL}` in summary.csv marks a dimension taken over all values; the full "
            "model x smell x difficulty x setting cells are there and in summary.json.")


STYLESHEET = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
       margin: 24px auto; max-width: 1320px; padding: 0 16px; color: #222; background: #fff; }
h1 { font-size: 24px; margin-bottom: 4px; } h2 { font-size: 19px; margin-top: 32px; }
h3 { font-size: 16px; margin: 22px 0 4px; } p.note { color: #555; margin: 2px 0 8px; }
nav a { margin-right: 12px; }
.plots { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 18px; }
figure { margin: 0; padding: 10px; border: 1px solid #e3e3e3; border-radius: 4px; }
figure svg { width: 100%; height: auto; display: block; }
figcaption { font-size: 12px; color: #555; margin-top: 6px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 12.5px; margin: 6px 0 12px; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 3px 9px; text-align: left;
         white-space: nowrap; }
th { background: #f4f4f4; } tr:hover td { background: #fafafa; }
"""


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")


def page(summary: Summary, tables: Sequence[Table], figures: Sequence[Plot]) -> str:
    """`report.html`: self-contained, nothing fetched, nothing run."""
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>smellkit evaluation report</title>", f"<style>{STYLESHEET}</style>",
           "</head>", "<body>", "<h1>Evaluation report</h1>",
           f"<p>{html.escape(_overview(summary))}</p>",
           "<nav>" + "".join(f'<a href="#{plot.id}">{html.escape(plot.title)}</a>'
                             for plot in figures) + "</nav>",
           "<h2>Plots</h2>", '<section class="plots">']
    for plot in figures:
        out += [f'<figure id="{plot.id}">', plot.svg,
                f"<figcaption><b>{html.escape(plot.title)}.</b> {html.escape(plot.caption)}"
                "</figcaption>", "</figure>"]
    out += ["</section>", "<h2>Tables</h2>"]
    for table in tables:
        out.append(f'<h3 id="table-{_slug(table.title)}">{html.escape(table.title)}</h3>')
        if table.note:
            out.append(f'<p class="note">{html.escape(table.note)}</p>')
        out += ['<div class="scroll"><table>', "<thead><tr>" + "".join(
            f"<th>{html.escape(cell)}</th>" for cell in table.headers) + "</tr></thead>", "<tbody>"]
        out += ["<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
                for row in table.rows]
        out += ["</tbody></table></div>"]
    out += ["</body>", "</html>", ""]
    return "\n".join(out)
