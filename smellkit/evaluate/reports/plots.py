"""The report's plots, drawn with matplotlib's SVG backend into strings to inline in report.html.

No pyplot: figures are `matplotlib.figure.Figure` objects saved as SVG, so no GUI backend is ever
chosen, and the style lives in an `rc_context`, never in the user's global rcParams. Glyphs are
paths (`svg.fonttype: path`, matplotlib's own DejaVu Sans): the page needs no font and looks the
same everywhere. Ids are salted with a constant (`svg.hashsalt`) and then prefixed per plot, so
the bytes are the same for the same input and the plots' ids never collide inside one page.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, cast

from smellkit.evaluate.reports.aggregate import Summary
from smellkit.evaluate.reports.frame import ReportExtraMissing
from smellkit.evaluate.score import ERROR_CATEGORIES

try:
    import matplotlib
    import numpy as np
    import pandas as pd
    from matplotlib.figure import Figure
except ImportError as error:  # the `report` extra is not installed
    raise ReportExtraMissing(error.name or "matplotlib") from error

STYLE = {
    "svg.fonttype": "path", "svg.hashsalt": "smellkit", "font.family": "DejaVu Sans",
    "font.size": 9.0, "axes.spines.top": False, "axes.spines.right": False,
    "axes.grid": True, "axes.grid.axis": "y", "grid.color": "#dddddd", "axes.axisbelow": True,
}
NO_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
"""No timestamp or version in the SVG: equal input gives equal bytes."""
PALETTE = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb",
           "#332288", "#117733", "#882255")
"""Paul Tol's colour-blind-safe qualitative colours, one per model in name order."""
CATEGORY_COLOURS = {
    "no_patch": "#bbbbbb", "apply_failed": "#777777", "tampered": "#332288",
    "broke_tests": "#cc3311", "wrong_location": "#ee7733", "incomplete_fix": "#ccbb44",
    "not_equivalent": "#aa3377", "resolved": "#228833",
}
BAR_SIGNALS = {"resolved": "resolved rate", "tpr": "test pass rate (TPR)",
               "la": "localization accuracy (LA)", "residue": "smell residue (findings left)"}
"""The signals drawn per smell and per difficulty, with their axis labels."""
SHARES = frozenset({"resolved", "tpr", "la"})


@dataclass(frozen=True)
class Plot:
    """One plot of the report: an id for its anchor, a caption, the SVG markup."""

    id: str
    title: str
    caption: str
    svg: str


def _style() -> AbstractContextManager[None]:
    """The report's rcParams for the duration of a `with`; the user's rcParams are left alone."""
    return matplotlib.rc_context(cast(Any, STYLE))  # typed with every key's Literal since 3.8


def _colour(models: Sequence[str], model: str) -> str:
    return PALETTE[models.index(model) % len(PALETTE)]


def to_svg(figure: Figure, prefix: str) -> str:
    """The figure as an inline <svg> element: no XML prolog, DOCTYPE, namespace URLs or
    metadata (the HTML parser knows SVG), every id prefixed with `prefix`."""
    buffer = io.StringIO()
    with _style():
        figure.savefig(buffer, format="svg", metadata=NO_METADATA)
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.DOTALL)
    text = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", text)
    text = re.sub(r'href="#([^"]+)"', rf'href="#{prefix}-\1"', text)
    return text.replace("<svg ", f'<svg class="plot" role="img" aria-label="{prefix}" ', 1).strip()


def _figure(width: float = 7.2, height: float = 3.4) -> Figure:
    with _style():
        return Figure(figsize=(width, height), layout="constrained")


def grouped_bars(summary: Summary, signal: str, by: str) -> Figure:
    """One bar per model in each smell (or difficulty), with its bootstrap interval."""
    categories = list(summary.smells if by == "smell" else summary.difficulties)
    models = list(summary.models)
    with _style():
        figure = _figure()
        axes = figure.add_subplot()
        width = 0.8 / max(len(models), 1)
        positions = np.arange(len(categories), dtype=float)
        for number, model in enumerate(models):
            means, below, above = [], [], []
            for category in categories:
                group = summary.group(model, **{by: category})
                stat = group.stat(signal) if group else None
                means.append(stat.mean if stat else np.nan)
                below.append(stat.mean - stat.ci_low if stat and stat.ci_low is not None
                             else np.nan)
                above.append(stat.ci_high - stat.mean if stat and stat.ci_high is not None
                             else np.nan)
            axes.bar(positions - 0.4 + width * (number + 0.5), means, width,
                     yerr=np.array([below, above]), capsize=2, label=model,
                     color=_colour(models, model), error_kw={"elinewidth": 0.8})
        axes.set_xticks(positions, [name.replace("_", " ") for name in categories],
                        rotation=25 if by == "smell" else 0, ha="right" if by == "smell" else
                        "center")
        axes.set_ylabel(BAR_SIGNALS.get(signal, signal))
        if signal in SHARES:
            axes.set_ylim(0, 1.05)
        label = BAR_SIGNALS.get(signal, signal)
        axes.set_title(f"{_sentence(label)} per {by}: mean and "
                       f"{summary.confidence_level:.0%} bootstrap interval", loc="left")
        if models:
            figure.legend(fontsize=8, frameon=False, loc="outside right upper")
    return figure


def scope_scatter(table: pd.DataFrame, models: Sequence[str], seed: int) -> Figure:
    """Files changed against files involved, one jittered point per prediction."""
    rng = np.random.default_rng(seed)
    with _style():
        figure = _figure(7.2, 4.6)
        axes = figure.add_subplot()
        measured = table[table["files_changed"].notna()]
        top = 1.0
        for model in models:
            rows = measured[measured["model"].astype(str) == model]
            x = rows["files_involved"].to_numpy(dtype=float)
            y = rows["files_changed"].to_numpy(dtype=float)
            if len(x):
                top = max(top, float(x.max()), float(y.max()))
            axes.scatter(x + rng.uniform(-0.18, 0.18, len(x)), y + rng.uniform(-0.18, 0.18, len(y)),
                         s=12, alpha=0.6, linewidths=0, color=_colour(models, model), label=model)
        axes.plot([0, top + 0.5], [0, top + 0.5], linestyle="--", color="#555555", linewidth=0.9,
                  label="changed = involved")
        axes.set_xlim(0, top + 0.5)
        axes.set_ylim(0, top + 0.5)
        axes.set_xlabel("files involved (touched by the smelly patch)")
        axes.set_ylabel("files changed by the prediction")
        axes.grid(True, axis="both")
        axes.set_title("Files changed against files involved (jittered)", loc="left")
        figure.legend(fontsize=8, frameon=False, loc="outside right upper")
    return figure


def error_bars(summary: Summary) -> Figure:
    """Each model's predictions by error category, stacked as shares of its predictions."""
    models = list(summary.errors)
    with _style():
        figure = _figure(7.2, max(2.6, 0.45 * len(models) + 1.2))
        axes = figure.add_subplot()
        left = np.zeros(len(models))
        totals = np.array([max(sum(summary.errors[model].values()), 1) for model in models])
        for category in ERROR_CATEGORIES:
            shares = np.array([summary.errors[model].get(category, 0) for model in models]) / totals
            axes.barh(models, shares, left=left, color=CATEGORY_COLOURS[category],
                      label=category.replace("_", " "), height=0.6)
            left += shares
        axes.invert_yaxis()
        axes.set_xlim(0, 1)
        axes.set_xlabel("share of the model's predictions")
        axes.grid(True, axis="x")
        axes.grid(False, axis="y")
        axes.set_title("Error categories per model (first check failed)", loc="left")
        figure.legend(fontsize=8, frameon=False, loc="outside right upper")
    return figure


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def plots(summary: Summary, table: pd.DataFrame, *, seed: int = 0) -> list[Plot]:
    """Every plot of the report, in page order."""
    found: list[Plot] = []
    for by in ("smell", "difficulty"):
        for signal, label in BAR_SIGNALS.items():
            plot_id = f"{signal}-by-{by}"
            found.append(Plot(plot_id, f"{_sentence(label)} per {by}",
                              f"Mean {label} per {by} and model; error bars: "
                              f"{summary.confidence_level:.0%} percentile bootstrap interval "
                              f"({summary.n_resamples} resamples, seed {summary.seed}).",
                              to_svg(grouped_bars(summary, signal, by), plot_id)))
    found.append(Plot("files-changed", "Files changed against files involved",
                      "One point per prediction whose patch applied, jittered by up to 0.18; "
                      "above the dashed line a prediction changed more files than the smell "
                      "spans.", to_svg(scope_scatter(table, summary.models, seed),
                                       "files-changed")))
    found.append(Plot("error-categories", "Error categories per model",
                      "Each prediction's category is the first check it fails, in the order "
                      f"{', '.join(ERROR_CATEGORIES)}.", to_svg(error_bars(summary),
                                                                "error-categories")))
    return found

