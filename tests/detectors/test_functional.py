"""Every registered detector's examples and every functional fixture on disk, run the same way:
a new smell gets these tests from its `examples` and its `tests/fixtures/detectors/<smell>/`
folders, with no test code of its own (`tests/detectors/functional.py` says how each is checked
and how to regenerate `expected.json`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from smellkit.detectors.base import Example
from smellkit.detectors.registry import detectors
from tests.detectors.functional import (
    ROOT,
    check_fixture,
    count_positive_and_negative,
    example_sides,
    fixture_cases,
    fixture_folder,
    flagged_in_example,
)

DETECTORS = detectors()

EXAMPLES = [pytest.param(name, example, id=f"{name}-{example.description[:40]}")
            for name, cls in DETECTORS.items() for example in cls.examples]

FOLDERS = sorted(path.name for path in ROOT.iterdir() if path.is_dir())
"""Every smell folder on disk, registered or not: a folder without its detector fails."""

FIXTURES = [pytest.param(smell, case, id=f"{smell}/{case}")
            for smell in FOLDERS for case in fixture_cases(smell)]


# -- examples -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("smell", "example"), EXAMPLES)
def test_example(tmp_path: Path, smell: str, example: Example) -> None:
    assert flagged_in_example(tmp_path, example, smell) == sorted(example.flagged)


@pytest.mark.parametrize("smell", list(DETECTORS))
def test_examples_cover_both_sides(smell: str) -> None:
    flagging, clean = example_sides(DETECTORS[smell].examples)
    assert flagging >= 2, f"{smell} documents {flagging} example(s) with findings; 2 at least"
    assert clean >= 2, f"{smell} documents {clean} example(s) without findings; 2 at least"


# -- functional fixtures --------------------------------------------------------------------------


@pytest.mark.parametrize(("smell", "case"), FIXTURES)
def test_fixture(smell: str, case: str) -> None:
    assert smell in DETECTORS, f"{fixture_folder(smell)} has no registered detector"
    project = check_fixture(fixture_folder(smell) / case, smell)
    if not DETECTORS[smell].smell.needs_call_graph:  # the scan runs it while the graph is built
        assert "calls" not in vars(project.index), \
            f"{smell} declares needs_call_graph=False but built the call graph"


@pytest.mark.parametrize("smell", sorted({*DETECTORS, *FOLDERS}))
def test_fixtures_have_positives_and_red_herrings(smell: str) -> None:
    positives, red_herrings = count_positive_and_negative(smell)
    where = fixture_folder(smell)
    assert positives >= 3, f"{where}: {positives} fixture(s) with findings; 3 at least"
    assert red_herrings >= 2, f"{where}: {red_herrings} red herring(s) without findings; 2 at least"
