"""The command line: the scan JSON contract, graph exports, exit codes and messages."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from click.testing import CliRunner

from smellkit.cli import main

SAMPLE = {
    "pkg/__init__.py": "from .core import Engine\n",
    "pkg/core.py": (
        "from pkg.util import helper\n\n\n"
        "class Engine:\n"
        "    def __init__(self):\n"
        "        self.parts = []\n\n"
        "    def run(self, n):\n"
        "        total = 0\n"
        "        for i in range(n):\n"
        "            if i % 2:\n"
        "                total += helper(i)\n"
        "        return total\n"
    ),
    "pkg/util.py": "def helper(x):\n    return x * 2\n",
    "pkg/cyc_a.py": "from pkg import cyc_b\n",
    "pkg/cyc_b.py": "from pkg import cyc_a\n",
    "pkg/broken.py": "def oops(:\n",
}


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    for relative, content in SAMPLE.items():
        target = tmp_path / "repo" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    return tmp_path / "repo"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_scan_json_has_the_contract_fields(repo: Path, tmp_path: Path) -> None:
    code, out, _ = run("scan", str(repo), "--format", "json", "--cache-dir", str(tmp_path / "c"),
                       "--no-smells")
    assert code == 0
    data = json.loads(out)
    assert {"findings", "metrics", "diagnostics", "summary"} <= set(data)
    assert data["findings"] == []
    functions = {row["location"]["qualname"]: row for row in data["metrics"]["functions"]}
    run_row = functions["pkg.core.Engine.run"]
    assert run_row["location"] == {"path": "pkg/core.py", "qualname": "pkg.core.Engine.run",
                                   "kind": "method", "start_line": 8, "end_line": 13}
    assert run_row["values"]["cc"] == 3
    modules = {row["location"]["qualname"] for row in data["metrics"]["modules"]}
    assert "pkg.core" in modules
    classes = {row["location"]["qualname"]: row for row in data["metrics"]["classes"]}
    assert classes["pkg.core.Engine"]["values"]["nom"] == 2
    assert data["diagnostics"] == [{"path": "pkg/broken.py", "line": 1, "severity": "error",
                                    "code": "syntax-error", "message": data["diagnostics"][0][
                                        "message"]}]
    assert data["summary"]["import_cycles"] == 1
    assert data["import_cycles"] == [["pkg.cyc_a", "pkg.cyc_b"]]
    assert data["summary"]["files_with_errors"] == 1


def test_a_second_scan_reads_the_cache_and_gives_the_same_report(repo: Path,
                                                                 tmp_path: Path) -> None:
    cache = str(tmp_path / "c")
    _, first, _ = run("scan", str(repo), "--format", "json", "--cache-dir", cache)
    _, second, _ = run("scan", str(repo), "--format", "json", "--cache-dir", cache)
    one, two = json.loads(first), json.loads(second)
    assert two["summary"]["files_parsed"] == 0
    for data in (one, two):
        del data["summary"]["seconds"], data["summary"]["files_parsed"]
        del data["summary"]["files_from_cache"]
    assert one == two


def test_scan_table_names_the_cycle_and_the_broken_file(repo: Path) -> None:
    code, out, _ = run("scan", str(repo), "--no-cache")
    assert code == 0
    assert "pkg.cyc_a -> pkg.cyc_b -> pkg.cyc_a" in out
    assert "pkg/broken.py:1" in out
    assert "Engine.run" in out and "pkg/core.py:" in out  # named inside its module


def test_scan_default_path_is_the_current_folder(repo: Path, monkeypatch: pytest.MonkeyPatch) -> \
        None:
    monkeypatch.chdir(repo)
    code, out, _ = run("scan", "--no-cache", "--format", "json")
    assert code == 0
    assert json.loads(out)["summary"]["modules"] == 5


def test_scan_writes_to_a_file(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    code, out, _ = run("scan", str(repo), "--no-cache", "--format", "json", "-o", str(target))
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["summary"]["files"] == 6


@pytest.mark.parametrize(("args", "exit_code", "message"), [
    (("scan", "does/not/exist"), 3, "no such file or folder"),
    (("scan", "--format", "yaml"), 2, "Invalid value for '--format'"),
])
def test_errors_have_exit_codes_and_messages(args: tuple[str, ...], exit_code: int,
                                             message: str) -> None:
    code, _, err = run(*args)
    assert code == exit_code
    assert message in err


def test_an_empty_folder_exits_3(tmp_path: Path) -> None:
    code, _, err = run("scan", str(tmp_path), "--no-cache")
    assert code == 3
    assert "no Python files to analyse" in err


def test_a_bad_config_exits_4_naming_the_field(repo: Path) -> None:
    (repo / "pyproject.toml").write_text("[tool.smellkit]\njobs = 'many'\n")
    code, _, err = run("scan", str(repo), "--no-cache")
    assert code == 4
    assert "tool.smellkit.jobs" in err and "pyproject.toml" in err


def test_graph_pycg_format(repo: Path) -> None:
    code, out, err = run("graph", str(repo), "--kind", "calls", "--format", "pycg", "--no-cache")
    assert code == 0
    data = json.loads(out)
    assert "pkg.util.helper" in data["pkg.core.Engine.run"]
    assert "<builtin>.range" in data["pkg.core.Engine.run"]
    assert data["pkg.util.helper"] == []
    assert "pkg/broken.py" in err


def test_graph_imports_in_every_format(repo: Path) -> None:
    code, out, _ = run("graph", str(repo), "--kind", "imports", "--format", "json", "--no-cache")
    assert code == 0
    edges = {(e["source"], e["target"]) for e in json.loads(out)["edges"]}
    assert ("pkg.core", "pkg.util") in edges and ("pkg", "pkg.core") in edges
    code, out, _ = run("graph", str(repo), "--kind", "imports", "--format", "dot", "--no-cache")
    assert code == 0 and '"pkg.cyc_a" -> "pkg.cyc_b";' in out
    code, out, _ = run("graph", str(repo), "--kind", "imports", "--format", "graphml",
                       "--no-cache")
    assert code == 0
    root = ElementTree.fromstring(out)
    assert len(root.findall(".//{http://graphml.graphdrawing.org/xmlns}edge")) == 4


def test_graph_classes(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("class A:\n    pass\n\nclass B(A, Exception):\n    pass\n")
    code, out, _ = run("graph", str(tmp_path), "--kind", "classes", "--format", "pycg",
                       "--no-cache")
    assert code == 0
    assert json.loads(out) == {"<builtin>.Exception": [], "m.A": [],
                              "m.B": ["<builtin>.Exception", "m.A"]}


def test_long_stages_are_announced_for_the_progress_bar(repo: Path) -> None:
    from smellkit.scanning.scanner import ScanRequest, run_scan

    stages: list[str] = []
    files: list[tuple[int, int]] = []
    run_scan(ScanRequest(path=repo, use_cache=False, jobs=1,
                         progress=lambda done, total: files.append((done, total)),
                         stage=stages.append))
    assert stages == ["resolving calls", "detecting smells", "measuring"]
    assert files[-1] == (6, 6)


def test_build_reports_a_broken_spec_and_exits_1(tmp_path: Path) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text('name = "x"\n[source]\npypi = "click"\n')
    result = CliRunner().invoke(main, ["build", str(spec), "-o", str(tmp_path / "out"),
                                       "--no-progress"])
    assert result.exit_code == 1, result.output
    assert "source.pypi" in result.stderr and "name==version" in result.stderr
    assert (tmp_path / "out" / "report.json").is_file()


def test_build_checks_injector_options_before_any_work(tmp_path: Path) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text('name = "x"\n[source]\npypi = "click"\n')
    result = CliRunner().invoke(main, ["build", str(spec), "-o", str(tmp_path / "out"),
                                       "--injector-option", "god_class.min-methods=x",
                                       "--no-progress"])
    assert result.exit_code == 4, result.output
    assert "injectors.god_class.min-methods" in result.stderr
    assert not (tmp_path / "out" / "report.json").exists()
    unknown = CliRunner().invoke(main, ["build", str(spec), "-o", str(tmp_path / "out"),
                                        "--injector-option", "god_clas.min-file-lines=0",
                                        "--no-progress"])
    assert unknown.exit_code == 4
    assert "injectors.god_clas: no injector for smell 'god_clas' (known: " in unknown.stderr
