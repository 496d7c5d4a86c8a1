"""The table `smellkit evaluate` prints when it ends: one line per model over its scored rows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from smellkit._internal.jsonl import read_jsonl
from smellkit.evaluate.score import ERROR_CATEGORIES, Score
from smellkit.evaluate.scorer import INPUT_ERRORS, SCORES, EvaluateReport

LISTED = 8
"""Input errors printed; the rest are in the file."""


def _mean(values: Iterable[float | None], digits: int = 2) -> str:
    known = [value for value in values if value is not None]
    return f"{fmean(known):.{digits}f}" if known else "-"


def _checks(row: Score) -> float | None:
    return None if not row.checks_total else (row.checks_passed or 0) / row.checks_total


def _total(rows: Sequence[Score], key: str) -> float | None:
    """The sum of a usage figure over the rows that report it (None: none does)."""
    known = [row.usage[key] for row in rows if isinstance(row.usage.get(key), (int, float))]
    return sum(known) if known else None


def _usage(rows: Sequence[Score]) -> tuple[str, str]:
    """Tokens in/out and cost of a model's runs, summed over the rows that report them."""
    tokens = [_total(rows, key) for key in ("input_tokens", "output_tokens")]
    cost = _total(rows, "cost_usd")
    return ("/".join("-" if value is None else f"{value:,.0f}" for value in tokens),
            "-" if cost is None else f"{cost:.2f}")


def scores_table(rows: Sequence[Score], *, title: str = "smellkit evaluate") -> Any:
    """Per model: cases scored, resolved, mean TPR, LA, residue, share of checks passing, and
    how many rows fall in each error category (a dash where nothing was measured); when the
    predictions' source recorded usage (`smellkit run`, Harbor), the tokens in/out and the
    cost in US dollars summed over the rows that report them."""
    from rich.table import Table

    table = Table(title=f"{title}: {len(rows)} predictions scored")
    for name in ("model", "cases", "resolved", "TPR", "LA", "residue", "checks"):
        table.add_column(name, justify="left" if name == "model" else "right")
    usage = any(row.usage for row in rows)
    if usage:
        table.add_column("tokens in/out", justify="right")
        table.add_column("cost $", justify="right")
    table.add_column("why not resolved", overflow="fold")
    models = dict.fromkeys(row.model for row in rows)
    for model in models:
        mine = [row for row in rows if row.model == model]
        resolved = sum(row.resolved for row in mine)
        counts = Counter(row.error_category for row in mine if not row.resolved)
        categories = ", ".join(f"{name} {counts[name]}" for name in ERROR_CATEGORIES
                               if counts[name])
        table.add_row(model, str(len(mine)), f"{resolved} ({resolved / len(mine):.0%})",
                      _mean(row.tpr for row in mine), _mean(row.la for row in mine),
                      _mean((row.residue for row in mine), 1),
                      _mean(_checks(row) for row in mine),
                      *(_usage(mine) if usage else ()), categories or "-")
    errored = sum(1 for row in rows if row.errors)
    if errored:
        table.caption = f"{errored} rows carry errors (the `errors` field of scores.jsonl)"
    return table


def _where(row: dict[str, Any]) -> str:
    """`path:line [key]: field: message`, leaving out what the row does not have."""
    where = ":".join(str(row[key]) for key in ("path", "line") if row.get(key) is not None)
    if row.get("key"):
        where = f"{where} [{row['key']}]".strip()
    field = f"{row['field']}: " if row.get("field") else ""
    return f"{where}: {field}{row.get('message', '')}"


def print_evaluation(report: EvaluateReport, console: Any) -> None:
    """The end of a run: the table over every row of the output folder, then what was not
    scored and why (the first few; all of them are in input_errors.jsonl)."""
    out = Path(report.out_dir)
    rows = [Score.model_validate(row) for row in read_jsonl(out / SCORES)]
    console.print(scores_table(rows, title=f"smellkit evaluate ({report.scored} scored now, "
                                           f"{report.reused} before, {report.seconds:.0f}s)"))
    notes = []
    if not report.signals:
        notes.append("signals not measured (smellkit.evaluate.signals is missing): the rows "
                     "hold apply and test results only")
    errors = read_jsonl(out / INPUT_ERRORS)
    if errors:
        notes.append(f"{len(errors)} inputs not scored (all of them in {out / INPUT_ERRORS}):")
        notes.extend(f"  {_where(row)}" for row in errors[:LISTED])
        if len(errors) > LISTED:
            notes.append(f"  ... and {len(errors) - LISTED} more")
    notes.extend(f"{model} has no prediction for {count} of {report.cases} cases"
                 for model, count in report.missing.items())
    for note in notes:
        console.print(f"smellkit: {note}" if not note.startswith("  ") else note,
                      markup=False, highlight=False)
