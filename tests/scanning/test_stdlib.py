"""The standard library of the running Python, tests included, scans to a report.

It is the largest body of varied real code on any machine: Python 2 files and bad encodings
among its test data, classes that subclass an imported class of the same name (`class X(X)`),
import cycles. Its timing and memory are measured by hand with `/usr/bin/time -v` (see the issue's
closing note); the test asserts what must hold whatever the machine: the scan ends with a report,
and the files it cannot read are diagnostics naming each file.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

import smellkit


@pytest.mark.slow
def test_the_standard_library_scans_with_its_tests(tmp_path: Path) -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    result = smellkit.scan(stdlib, include_tests=True, exclude=("site-packages",), jobs=2,
                           use_cache=False)
    summary = result.summary
    assert summary.files > 1500
    assert any(finding.location.path.startswith("test/") for finding in result.findings)
    assert result.diagnostics, "the Python 2 and badly encoded test data must be diagnosed"
    assert "syntax-error" in {diagnostic.code for diagnostic in result.diagnostics}
    assert all(diagnostic.path and diagnostic.message and not diagnostic.path.startswith(
        "site-packages") for diagnostic in result.diagnostics)
    assert summary.files_with_errors >= 1
