"""Report formats: SARIF 2.1.0 against the official schema, Markdown, baselines, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from smellkit.cli import main
from smellkit.models import Diagnostic, Finding, Location, ScanResult, ScanSummary
from smellkit.report.markdown import to_markdown
from smellkit.report.sarif import to_sarif

HERE = Location(path="pkg/a.py", qualname="pkg.a.Big", kind="class", start_line=3, end_line=90)
THERE = Location(path="pkg/b.py", qualname="pkg.b.Other.run", kind="method", start_line=5,
                 end_line=9)


def sample_result(root: Path) -> ScanResult:
    summary = ScanSummary(root=str(root), files=2, files_parsed=2, files_from_cache=0,
                          files_with_errors=1, modules=1, classes=2, functions=3, lines=120,
                          call_edges=4, call_sites=9, call_sites_unresolved=1, import_cycles=0,
                          findings=2, seconds=0.1)
    findings = (
        Finding(smell="god_class", location=HERE, severity="error", confidence=0.9,
                message="Big does too much | really", evidence={"wmc": 80, "tcc": 0.1},
                related=(THERE,)),
        Finding(smell="dead_code", location=THERE, severity="info", confidence=0.4,
                message="never called"),
    )
    diagnostics = (Diagnostic(path="pkg/bad.py", line=2, severity="error", code="syntax-error",
                              message="invalid syntax"),)
    return ScanResult(version="0.0", summary=summary, findings=findings,
                      diagnostics=diagnostics)


@pytest.mark.slow
def test_sarif_validates_against_the_official_schema(tmp_path: Path) -> None:
    from tests.support.sarif_schema import sarif_schema

    log = to_sarif(sample_result(tmp_path), {"god_class": "A class that does too much."})
    jsonschema.validate(log, sarif_schema())
    run = log["runs"][0]
    assert [r["ruleId"] for r in run["results"]] == ["god_class", "dead_code"]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in run["results"])
    assert run["results"][1]["level"] == "note"
    assert run["results"][0]["relatedLocations"][0]["physicalLocation"]["artifactLocation"][
        "uri"] == "pkg/b.py"
    notification = run["invocations"][0]["toolExecutionNotifications"][0]
    assert notification["locations"][0]["physicalLocation"]["region"] == {"startLine": 2}


def test_markdown_escapes_cells_and_lists_everything(tmp_path: Path) -> None:
    text = to_markdown(sample_result(tmp_path))
    assert "| [god_class](#god-class) | 1 |" in text
    assert "## god_class" in text
    assert "Big does too much \\| really" in text
    assert "`pkg/bad.py:2` (syntax-error)" in text


def test_markdown_groups_findings_per_smell_and_folds_long_lists(tmp_path: Path) -> None:
    from smellkit.report.markdown import SHOWN

    many = tuple(Finding(smell="dead_code", location=THERE.model_copy(update={
        "start_line": number}), severity="error" if number == SHOWN + 5 else "info",
        confidence=0.5, message=f"unused {number}") for number in range(1, SHOWN + 6))
    one = Finding(smell="god_class", location=THERE, severity="warning", confidence=0.8,
                  message="too big")
    text = to_markdown(sample_result(tmp_path).model_copy(update={"findings": (*many, one)}))
    dead, god = text.index("## dead_code"), text.index("## god_class")
    assert dead < god
    section = text[dead:god]
    assert section.index(f"unused {SHOWN + 5}") < section.index("unused 1 ")  # errors first
    folded = section[section.index("<details>"):section.index("</details>")]
    assert "<summary>5 more dead_code findings</summary>" in folded
    assert folded.count("| `") == 5
    assert "<details>" not in text[god:]


REPO = {
    "pkg/__init__.py": "",
    "pkg/util.py": "def _unused_helper(x):\n    return x + 1\n\n\ndef used():\n    return 1\n",
    "pkg/main.py": "from pkg.util import used\n\nprint(used())\n",
}


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    for relative, text in REPO.items():
        (tmp_path / "repo" / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "repo" / relative).write_text(text)
    return tmp_path / "repo"


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout


def test_baseline_hides_known_findings_and_fail_on_gates_new_ones(repo: Path,
                                                                  tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    code, out = invoke("scan", str(repo), "--no-cache", "--smell", "dead_code", "--format",
                       "json", "--write-baseline", str(baseline))
    assert code == 0
    first = json.loads(out)["findings"]
    assert "pkg.util._unused_helper" in {f["location"]["qualname"] for f in first}
    code, out = invoke("scan", str(repo), "--no-cache", "--smell", "dead_code", "--format",
                       "json", "--baseline", str(baseline), "--fail-on", "info")
    assert (code, json.loads(out)["findings"]) == (0, [])
    (repo / "pkg" / "more.py").write_text("def _another_unused():\n    return 2\n")
    code, out = invoke("scan", str(repo), "--no-cache", "--smell", "dead_code", "--format",
                       "json", "--baseline", str(baseline), "--fail-on", "info")
    assert code == 1
    assert [f["location"]["qualname"] for f in json.loads(out)["findings"]] == [
        "pkg.more._another_unused"]


def test_a_broken_baseline_is_a_config_error(repo: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    result = CliRunner().invoke(main, ["scan", str(repo), "--no-cache", "--baseline", str(bad)])
    assert result.exit_code == 4
    assert "bad.json" in result.stderr and "--write-baseline" in result.stderr


def test_sarif_and_markdown_from_the_cli(repo: Path) -> None:
    code, out = invoke("scan", str(repo), "--no-cache", "--format", "sarif")
    assert code == 0
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    assert {rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]} >= {
        "feature_envy", "god_class", "data_clumps", "shotgun_surgery", "dead_code",
        "interface_segregation", "deep_inlining", "duplicated_code"}
    code, out = invoke("scan", str(repo), "--no-cache", "--format", "markdown")
    assert code == 0 and out.startswith("# smellkit report")


def test_smells_command_lists_detectors_and_options() -> None:
    code, out = invoke("smells")
    assert code == 0 and "god_class" in out and "duplicated_code" in out
    code, out = invoke("smells", "god_class")
    assert code == 0 and "[tool.smellkit.detectors.god_class]" in out
    result = CliRunner().invoke(main, ["smells", "godclass"])
    assert result.exit_code == 2


def test_the_table_keeps_every_location_on_a_narrow_pipe(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from smellkit.report.table import render_scan

    deep = Location(path="pkg/filters/reindentation_and_alignment.py",
                    qualname="pkg.filters.reindentation_and_alignment.ReindentFilter."
                             "_process_identifier_list", kind="method", start_line=129,
                    end_line=190)
    result = sample_result(tmp_path).model_copy(update={"findings": (
        Finding(smell="deep_inlining", location=deep, message="long and complex"),)})
    out = io.StringIO()
    render_scan(result, Console(file=out, width=80, no_color=True))
    text = out.getvalue()
    assert "…" not in text
    lines = text.splitlines()
    # neither the path nor the dotted name is broken, and the message stays whole
    assert any(f"{deep.path}:129" in line for line in lines)
    assert any(deep.qualname in line for line in lines)
    assert "    long and complex" in lines and all(len(line) <= 80 for line in lines)


@pytest.mark.slow  # the official schema comes from PyPI
def test_sarif_says_a_run_with_unreadable_files_is_incomplete_and_helps_per_rule(
        tmp_path: Path) -> None:
    from tests.support.sarif_schema import sarif_schema

    broken = to_sarif(sample_result(tmp_path), {"god_class": "A class that does too much."})
    jsonschema.validate(broken, sarif_schema())
    assert broken["runs"][0]["invocations"][0]["executionSuccessful"] is False  # pkg/bad.py
    clean_result = sample_result(tmp_path)
    clean_result = clean_result.model_copy(update={
        "summary": clean_result.summary.model_copy(update={"files_with_errors": 0}),
        "diagnostics": ()})
    clean = to_sarif(clean_result, {"god_class": "A class that does too much."})
    assert clean["runs"][0]["invocations"][0]["executionSuccessful"] is True
    rule = next(rule for rule in clean["runs"][0]["tool"]["driver"]["rules"]
                if rule["id"] == "god_class")
    assert rule["help"]["text"].startswith("A class that does too much.")
    assert "# smellkit: ignore[god_class]" in rule["help"]["markdown"]
    assert "smellkit smells god_class" in rule["help"]["text"]


def test_tables_and_markdown_say_why_a_finding_is_hedged(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    from smellkit.report.table import render_scan

    hedged = Finding(smell="dead_code", location=THERE, severity="info", confidence=0.3,
                     message="never called", evidence={"confidence_reasons": [
                         "public name of a library module: outside users may use it"]})
    result = sample_result(tmp_path).model_copy(update={"findings": (hedged,)})
    markdown = to_markdown(result)
    assert "never called (hedged, confidence 0.3: public name of a library module" in markdown
    out = io.StringIO()
    render_scan(result, Console(file=out, width=200, no_color=True))
    assert "(hedged, confidence 0.3: public name of a library module" in out.getvalue()
    plain = sample_result(tmp_path)
    assert "hedged" not in to_markdown(plain)


def test_metric_tables_name_code_inside_its_module() -> None:
    from smellkit.report.table import _in_module

    def name(path: str, qualname: str) -> str:
        return _in_module(Location(path=path, qualname=qualname, kind="function",
                                   start_line=1, end_line=2))

    assert name("src/pkg/more.py", "pkg.more.peekable._get_slice") == "peekable._get_slice"
    assert name("pkg/__init__.py", "pkg.func") == "func"
    assert name("tools/run.py", "other.thing") == "other.thing"  # cannot tell: kept whole
