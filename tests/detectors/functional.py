"""What detector tests share: loading a fixture repository, writing an example to disk, reading
and rewriting a functional fixture's `expected.json`, and a reviewed run on real code.

Every detector's examples and functional fixtures are checked generically by
`tests/detectors/test_functional.py`, which finds them through the registry and on disk.

- Examples: each `Example` a detector documents is written to a temporary folder and analysed; the
  detector must flag exactly the example's `flagged` qualnames.
- Functional fixtures: small repositories under `tests/fixtures/detectors/<smell>/<case>/`, each
  with the findings expected of it in `expected.json`: the smell's findings as
  `smellkit scan --format json` reports them, without the `smell` field (`summary`). A fixture
  that needs a project setting or detector options has a `pyproject.toml` with its
  `[tool.smellkit]` table.

To rewrite the `expected.json` files from the current output (after a deliberate change of a
detector; review the diff before committing), run the functional test with SMELLKIT_REGENERATE=1,
e.g. for feature envy (or without `-k` for every detector):

    SMELLKIT_REGENERATE=1 python -m pytest tests/detectors/test_functional.py -k feature_envy
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from smellkit.detectors.base import Example
from smellkit.detectors.runner import run_detectors
from smellkit.models import Finding
from smellkit.project import Project

ROOT = Path(__file__).parent.parent / "fixtures" / "detectors"
"""The functional fixtures, one folder per smell."""

REGENERATE = os.environ.get("SMELLKIT_REGENERATE") == "1"


def load(root: Path, **options: Any) -> Project:
    """The project at `root`, analyzed afresh (no cache, one process); `options` go to load."""
    return Project.load(root, use_cache=False, jobs=1, **options)


def write(root: Path, files: dict[str, str]) -> Path:
    """Write `files` (relative path -> text) under `root`, and return `root`."""
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


# -- examples -------------------------------------------------------------------------------------


def flagged_in_example(tmp_path: Path, example: Example, smell: str) -> list[str]:
    """The sorted qualnames `smell` flags in `example`, written to `tmp_path`."""
    project = load(write(tmp_path, dict(example.files)))
    return sorted(finding.location.qualname for finding in run_detectors(project, [smell]))


def example_sides(examples: Sequence[Example]) -> tuple[int, int]:
    """How many of `examples` flag something, and how many flag nothing."""
    return (sum(bool(example.flagged) for example in examples),
            sum(not example.flagged for example in examples))


# -- functional fixtures --------------------------------------------------------------------------


def fixture_folder(smell: str) -> Path:
    """The folder of `smell`'s functional fixtures, one case per subfolder."""
    return ROOT / smell


def fixture_cases(smell: str) -> list[str]:
    """The names of `smell`'s functional fixtures, sorted (none when it has no folder)."""
    folder = fixture_folder(smell)
    if not folder.is_dir():
        return []
    return sorted(path.name for path in folder.iterdir() if path.is_dir())


def summary(finding: Finding) -> dict[str, Any]:
    """A finding as `expected.json` stores it: its JSON form without the smell (the folder's)."""
    return finding.model_dump(mode="json", exclude={"smell"})


def check_fixture(folder: Path, smell: str) -> Project:
    """Assert that `smell`'s findings in `folder`, summarized, are its `expected.json`; return
    the project analysed.

    With SMELLKIT_REGENERATE=1, `expected.json` is first rewritten from those findings.
    """
    project = load(folder)
    actual = [summary(finding) for finding in run_detectors(project, [smell])]
    expected_file = folder / "expected.json"
    if REGENERATE:
        expected_file.write_text(json.dumps(actual, indent=2) + "\n", encoding="utf-8")
    assert actual == json.loads(expected_file.read_text(encoding="utf-8"))
    return project


def count_positive_and_negative(smell: str) -> tuple[int, int]:
    """How many of `smell`'s fixtures expect findings, and how many (the red herrings) none."""
    folder = fixture_folder(smell)
    counts = [len(json.loads((folder / case / "expected.json").read_text(encoding="utf-8")))
              for case in fixture_cases(smell)]
    return sum(count > 0 for count in counts), sum(count == 0 for count in counts)


# -- real code ------------------------------------------------------------------------------------


def check_real_code_review(smell: str, counts: dict[str, int],
                           review: Sequence[tuple[str, str, str]],
                           fixed: Sequence[tuple[str, str]]) -> set[str]:
    """On the click 8.1.7 and jinja2 3.1.4 sources: the findings count is near the one reviewed
    (`counts`; a large drift means: review again), every reviewed finding (qualname, "tp" or
    "fp", why) is still reported, and no fixed false positive (qualname, why) comes back.
    Returns the qualnames reported."""
    from tests.support.pypi import sdist

    reported: set[str] = set()
    for name, version in (("click", "8.1.7"), ("jinja2", "3.1.4")):
        findings = run_detectors(Project.load(sdist(name, version) / "src"), [smell])
        reported.update(finding.location.qualname for finding in findings)
        assert abs(len(findings) - counts[name]) <= max(2, counts[name] // 4), name
    for qualname, verdict, reason in review:
        assert verdict in ("tp", "fp")
        assert qualname in reported, f"{qualname} is no longer reported ({verdict}: {reason})"
    for qualname, reason in fixed:
        assert qualname not in reported, f"{qualname} is reported again: {reason}"
    return reported
