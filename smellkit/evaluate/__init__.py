"""Scoring predictions: read them (`predictions`), read the cases they answer (`dataset`), and
apply each patch to an isolated copy of the smelly repository (`apply`) before anything runs;
summaries and plots of the scores (`aggregate`, `report`) with the `report` extra."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def load(directory: Path | str) -> pd.DataFrame:
    """`DIR/scores.jsonl` as a pandas DataFrame, one row per prediction, `metrics` flattened to
    `metric.<name>.<original|smelly|result>` columns (see `smellkit.evaluate.reports.frame`).

    Imported on call: `import smellkit.evaluate` needs none of the `report` extra's packages.
    """
    from smellkit.evaluate.reports.frame import load as load_frame

    return load_frame(directory)
