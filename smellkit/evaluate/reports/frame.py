"""Scores as a pandas DataFrame: what `smellkit.evaluate.load(DIR)` returns to research scripts,
and the table the summaries and plots are computed from.

pandas, scipy and matplotlib are the `report` extra; without them every entry point here raises
`ReportExtraMissing` with the install line instead of a bare ImportError.

Columns, in this order:

- every field of `Score` but `metrics`, under its own name: numbers measured as None are NaN
  (`tests_passed`, `residue`, ... become float columns), `equivalent` is a nullable boolean
  (pandas' `boolean`), `touched`, `failed_checks` and `errors` hold tuples, `usage` dicts;
- `checks_pass`: checks_passed / checks_total, NaN when the case has no structural checks;
- `metric.<name>.<original|smelly|result>`: each of `metrics` flattened (`metric.cc.result`),
  float, NaN where the row has no such metric; sorted by name;
- with a `verdicts.jsonl` beside `scores.jsonl` (`load` only), the judge's columns
  `JUDGE_COLUMNS` (see `judge_columns`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from smellkit._internal.jsonl import read_jsonl
from smellkit.evaluate.errors import EvaluateError
from smellkit.evaluate.score import Score

if TYPE_CHECKING:
    import pandas as pd

INSTALL_HINT = "install smellkit[report] for summaries and plots"
SCORES_FILE = "scores.jsonl"
VERDICTS_FILE = "verdicts.jsonl"
"""The judge's verdicts (`smellkit judge`, `smellkit crosscheck`), when they sit beside."""
JUDGE_DIMENSIONS = ("smell_elimination", "cross_file_coordination", "structural_soundness",
                    "code_quality")
JUDGE_COLUMNS = (*(f"judge_{name}" for name in JUDGE_DIMENSIONS),
                 *(f"adjusted_{name}" for name in JUDGE_DIMENSIONS),
                 "judge_overall", "judge_agreement", "judge_contradicted")
VERSIONS = ("original", "smelly", "result")
_NULLABLE_NUMBERS = ("tests_passed", "tests_total", "tpr", "full_suite_passed", "full_suite_total",
                     "la", "loc_precision", "loc_recall", "red_herrings_touched", "residue",
                     "checks_passed", "checks_total", "gt_precision", "gt_recall", "gt_f1",
                     "gap_closed", "files_changed", "files_outside", "lines_outside",
                     "duration_s")


class ReportExtraMissing(EvaluateError):
    """Summaries, plots and DataFrames need the optional `report` extra, which is not installed."""

    def __init__(self, missing: str):
        self.missing = missing
        super().__init__(f"{missing} is not installed", hint=INSTALL_HINT)


def require(module: str) -> Any:
    """Import one of the extra's packages, or say which install line brings it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ReportExtraMissing(module.partition(".")[0]) from error


def columns(metric_names: Iterable[str] = ()) -> list[str]:
    """The frame's columns in order (see the module docstring)."""
    fields = [name for name in Score.model_fields if name != "metrics"]
    return [*fields, "checks_pass",
            *(f"metric.{name}.{version}" for name in sorted(set(metric_names))
              for version in VERSIONS)]


def frame(scores: Iterable[Score]) -> pd.DataFrame:
    """The documented DataFrame of `scores`, one row per Score, in the order given."""
    pandas = require("pandas")
    numpy = require("numpy")
    rows: list[dict[str, Any]] = []
    metric_names: set[str] = set()
    for score in scores:
        row = score.model_dump(exclude={"metrics"})
        for name, delta in score.metrics.items():
            metric_names.add(name)
            for version in VERSIONS:
                row[f"metric.{name}.{version}"] = getattr(delta, version)
        total = score.checks_total
        row["checks_pass"] = (score.checks_passed or 0) / total if total else None
        rows.append(row)
    names = columns(metric_names)
    table = pandas.DataFrame(rows, columns=names)
    numeric = [*_NULLABLE_NUMBERS, "checks_pass", *names[names.index("checks_pass") + 1:]]
    for name in numeric:
        table[name] = pandas.to_numeric(table[name], errors="coerce").astype(numpy.float64)
    table["equivalent"] = table["equivalent"].astype("boolean")
    for name in ("applied", "tests_timed_out", "resolved"):
        table[name] = table[name].astype(bool)
    for name in ("seconds", "test_seconds"):
        table[name] = table[name].astype(numpy.float64)
    table["files_involved"] = table["files_involved"].astype(numpy.int64)
    return table


def read_scores(directory: Path | str) -> list[Score]:
    """The Score rows of `DIR/scores.jsonl`; a partial last line (a scorer killed mid-write) is
    left out, a complete line that is not a Score row is an error naming its line."""
    path = Path(directory) / SCORES_FILE
    if not path.is_file():
        raise EvaluateError("no scores.jsonl here", path=directory,
                            hint="run `smellkit evaluate` to write it")
    scores: list[Score] = []
    for number, record in enumerate(read_jsonl(path), start=1):
        try:
            scores.append(Score.model_validate(record))
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(part) for part in problem["loc"])
            raise EvaluateError(f"line {number} is not a Score row: {where}: {problem['msg']}",
                                path=path) from error
    return scores


def judge_columns(table: pd.DataFrame, verdicts: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """`table` with the judge's columns from `verdicts.jsonl` rows (read as plain JSON: the
    judge's package sits beside this one): `judge_<dimension>` and `adjusted_<dimension>` for the
    four general dimensions, `judge_overall`, `judge_agreement` and `judge_contradicted` (1 when
    the verdict's trust is `contradicted`, 0 when `consistent`, NaN when `unverifiable`); the
    mean over the judge models that judged the prediction, NaN where none did."""
    pandas = require("pandas")
    sums: dict[tuple[str, str], dict[str, list[float]]] = {}
    for row in verdicts:
        key = (str(row.get("instance_id")), str(row.get("model")))
        values = sums.setdefault(key, {})
        scores, adjusted = row.get("scores") or {}, row.get("adjusted") or {}
        for dimension in JUDGE_DIMENSIONS:
            for prefix, source in (("judge", scores), ("adjusted", adjusted)):
                if isinstance(source.get(dimension), int | float):
                    values.setdefault(f"{prefix}_{dimension}", []).append(source[dimension])
        for name, value in (("judge_overall", row.get("overall")),
                            ("judge_agreement", row.get("agreement")),
                            ("judge_contradicted", {"contradicted": 1.0, "consistent": 0.0}.get(
                                str(row.get("trust"))))):
            if isinstance(value, int | float):
                values.setdefault(name, []).append(float(value))
    keys = list(zip(table["instance_id"].astype(str), table["model"].astype(str)))
    for name in JUDGE_COLUMNS:
        table[name] = pandas.Series(
            [sum(found) / len(found) if (found := sums.get(key, {}).get(name)) else None
             for key in keys], index=table.index, dtype="float64")
    return table


def load(directory: Path | str) -> pd.DataFrame:
    """`DIR/scores.jsonl` as the documented DataFrame (see the module docstring); with the
    judge's columns (`judge_columns`) when `DIR/verdicts.jsonl` is there."""
    require("pandas")
    table = frame(read_scores(directory))
    verdicts = Path(directory) / VERDICTS_FILE
    if verdicts.is_file():
        table = judge_columns(table, read_jsonl(verdicts))
    return table
