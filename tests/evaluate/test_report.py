"""The four summary files: written, in their documented shapes, self-contained (report.html
fetches nothing and names no URL), one <svg> per plot, and the same bytes for the same input."""

from __future__ import annotations

import csv
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")
pytest.importorskip("scipy")

from smellkit.evaluate.reports import CSP, CSV_COLUMNS, ReportPaths, write_reports
from smellkit.evaluate.reports.aggregate import ALL, Summary, summarise
from smellkit.evaluate.reports.plots import BAR_SIGNALS
from smellkit.evaluate.score import ERROR_CATEGORIES, Score
from tests.evaluate.synthetic_scores import MODELS, synthetic_scores

PLOTS = 2 * len(BAR_SIGNALS) + 2
"""Four signals per smell and per difficulty, files changed vs involved, error categories."""


@pytest.fixture(scope="module")
def rows() -> list[Score]:
    return synthetic_scores(cases=2)


@pytest.fixture(scope="module")
def written(rows: list[Score], tmp_path_factory: pytest.TempPathFactory) -> ReportPaths:
    return write_reports(tmp_path_factory.mktemp("report"), rows)


class Page(HTMLParser):
    """Every start tag with its attributes, and which <svg> each drawing element sits in."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.drawn: list[int] = []
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "svg":
            self.drawn.append(0)
            self.depth += 1
        elif self.depth and tag in ("path", "rect", "use", "line", "polyline", "circle"):
            self.drawn[-1] += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self.depth -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self.depth -= 1


def _page(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def test_all_four_files_are_written(written: ReportPaths) -> None:
    assert [path.name for path in written] == ["summary.json", "summary.csv", "summary.md",
                                               "report.html"]
    assert all(path.is_file() and path.stat().st_size > 0 for path in written)
    assert {path.parent for path in written} == {written.summary_json.parent}


def test_summary_json_is_the_summary_model(written: ReportPaths, rows: list[Score]) -> None:
    summary = Summary.model_validate_json(written.summary_json.read_text())
    assert summary.rows == len(rows) and summary.models == MODELS
    assert json.loads(written.summary_json.read_text())["schema_version"] == 1


def test_summary_csv_has_one_row_per_group_and_signal(written: ReportPaths) -> None:
    summary = Summary.model_validate_json(written.summary_json.read_text())
    with written.summary_csv.open(newline="") as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames or ()) == CSV_COLUMNS
        lines = list(reader)
    assert len(lines) == sum(len(group.stats) for group in summary.groups)
    overall = [line for line in lines if line["model"] == "alpha" and line["smell"] == ALL
               and line["difficulty"] == ALL and line["setting"] == ALL]
    resolved = next(line for line in overall if line["signal"] == "resolved")
    group = summary.group("alpha")
    assert group is not None
    stat = group.stat("resolved")
    assert stat is not None
    assert int(resolved["n"]) == stat.n and float(resolved["mean"]) == stat.mean
    assert float(resolved["ci_low"]) <= stat.mean <= float(resolved["ci_high"])
    assert any(line["smell"] != ALL and line["difficulty"] != ALL and line["setting"] != ALL
               for line in lines)


def test_summary_md_holds_the_tables(written: ReportPaths) -> None:
    text = written.summary_md.read_text()
    for heading in ("## Per model", "## Per smell", "## Per difficulty",
                    "## Per instruction setting", "## Error categories", "## beta against alpha",
                    "## gamma against alpha", "## gamma against beta", "## Signals"):
        assert heading in text
    assert "| model | n | resolved | tpr | la |" in text
    assert "| model | smell | n | resolved |" in text
    assert "| model | n | " + " | ".join(ERROR_CATEGORIES) + " |" in text
    assert "| signal | pairs | alpha | beta | difference (B - A) | test | p |" in text
    assert re.search(r"\| resolved \| \d+ \| 0\.\d\d \| 0\.\d\d \| [+-]0\.\d\d \[", text)
    for model in MODELS:
        assert f"\n| {model} | " in text


def test_a_named_pair_is_the_only_comparison(rows: list[Score], tmp_path: Path) -> None:
    paths = write_reports(tmp_path, rows, compare=("gamma", "alpha"))
    text = paths.summary_md.read_text()
    assert "## alpha against gamma" in text and "against beta" not in text
    assert "## beta against alpha" not in text


def test_report_html_parses_and_has_one_svg_per_plot(written: ReportPaths) -> None:
    page = _page(written.report_html)
    tags = [tag for tag, _ in page.tags]
    assert tags.count("svg") == PLOTS
    assert tags.count("figure") == PLOTS and tags.count("figcaption") == PLOTS
    assert all(count > 20 for count in page.drawn), page.drawn  # drawn, not an empty frame
    assert tags.count("table") == 4 + 1 + 3 + 1  # levels, errors, 3 comparisons, signals


def test_report_html_is_self_contained(written: ReportPaths) -> None:
    text = written.report_html.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text and "//" not in text.replace(
        "<!--", "")
    page = _page(written.report_html)
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed", "image", "audio",
                       "video", "source", "base", "foreignobject"}
    for tag, attributes in page.tags:
        assert "src" not in attributes, tag
        for name in ("href", "xlink:href"):
            assert (attributes.get(name) or "#").startswith("#"), (tag, attributes)
    meta = [a for tag, a in page.tags if tag == "meta" and a.get("http-equiv")]
    assert meta == [{"http-equiv": "Content-Security-Policy", "content": CSP}]
    assert "default-src 'none'" in CSP
    assert "@import" not in text and "@font-face" not in text
    assert set(re.findall(r"url\(([^)]*)\)", text)) <= {
        match for match in re.findall(r"url\((#[^)]*)\)", text)}


def test_ids_are_unique_across_plots(written: ReportPaths) -> None:
    ids = [a["id"] for _, a in _page(written.report_html).tags if a.get("id")]
    assert len(ids) == len(set(ids)) and len(ids) > PLOTS
    references = set(re.findall(r'(?:url\(#|href="#)([^")]+)', written.report_html.read_text()))
    assert references <= set(ids)


def test_same_input_same_bytes(rows: list[Score], written: ReportPaths, tmp_path: Path) -> None:
    again = write_reports(tmp_path / "again", list(rows))
    for first, second in zip(written, again):
        assert first.read_bytes() == second.read_bytes(), first.name
    reseeded = summarise(rows, seed=5).model_dump_json(indent=2) + "\n"
    assert reseeded != written.summary_json.read_text()


def test_reports_from_the_folders_scores(rows: list[Score], written: ReportPaths,
                                         tmp_path: Path) -> None:
    (tmp_path / "scores.jsonl").write_text(
        "".join(row.model_dump_json() + "\n" for row in rows) + '{"instance_id": "par')
    paths = write_reports(tmp_path)
    for first, second in zip(written, paths):
        assert first.read_bytes() == second.read_bytes(), first.name


def test_one_model_and_one_row_still_make_every_file(tmp_path: Path) -> None:
    one = Score(instance_id="x", model="solo", smell="dead_code", difficulty="easy",
                applied=True, apply_status="applied", tpr=1.0, la=1.0, residue=0,
                files_changed=1, files_involved=2, error_category="resolved", resolved=True)
    paths = write_reports(tmp_path, [one])
    assert [tag for tag, _ in _page(paths.report_html).tags].count("svg") == PLOTS
    with paths.summary_csv.open(newline="") as handle:
        lines = list(csv.DictReader(handle))
    assert lines and all(line["ci_low"] == line["ci_high"] == "" for line in lines)
    assert "against" not in paths.summary_md.read_text()


def test_a_thousand_rows_make_every_file(tmp_path: Path) -> None:
    """Reports of a full benchmark run (their time is printed by benchmarks/bench_evaluate.py)."""
    rows = synthetic_scores(cases=7)  # 3 models x 8 smells x 3 difficulties x 2 settings x 7
    assert len(rows) == 1008
    paths = write_reports(tmp_path, rows)
    assert [tag for tag, _ in _page(paths.report_html).tags].count("svg") == PLOTS
    summary = json.loads(paths.summary_json.read_text())
    assert summary and all(path.stat().st_size for path in paths)
