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
  float, NaN where the row has no such metric; sorted by name.
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


def load(directory: Path | str) -> pd.DataFrame:
    """`DIR/scores.jsonl` as the documented DataFrame (see the module docstring)."""
    require("pandas")
    return frame(read_scores(directory))
