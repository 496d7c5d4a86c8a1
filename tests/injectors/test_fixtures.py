"""Every injector's before/after fixtures, found on disk and run the same way: a new smell gets
these tests from its `tests/injectors/fixtures/<smell>/<case>/` folders, with no test code.

A case is `before/` (the clean repository), one `after_<difficulty>/` per difficulty (the files
the injection changes or creates, as expected; deleted ones listed in `DELETED`), and optionally
`case.toml`: `target = "pkg.module.Class"` (or a `[target]` table with one qualname per
difficulty) names the candidate to inject at, the engine's first choice without it;
`difficulties = ["hard"]` limits the case to some difficulties, all by default. For each case and
difficulty, the smelly files must equal `after_<difficulty>/`, and the round trip must hold: the
smelly code compiles and imports, the detector flags it and not the original, the ground-truth
patch restores the original exactly, the structural checks pass on the original and fail on the
smelly code. SMELLKIT_REGENERATE=1 writes the `after_` folders, to review with `git diff`:

    SMELLKIT_REGENERATE=1 python -m pytest tests/injectors/test_fixtures.py -k feature_envy
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from smellkit.injectors.registry import injectors
from smellkit.models import DIFFICULTIES, Difficulty
from tests.injectors.support import (
    FIXTURES,
    assert_round_trip,
    check_after,
    injected,
    smelly_files,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

INJECTORS = injectors()
REGENERATE = bool(os.environ.get("SMELLKIT_REGENERATE"))  # as `support.check_after` reads it

FOLDERS = sorted(path.name for path in FIXTURES.iterdir() if path.is_dir())
"""Every smell folder on disk, registered or not: a folder without its injector fails."""


def cases(smell: str) -> list[Path]:
    folder = FIXTURES / smell
    return sorted(path for path in folder.iterdir() if (path / "before").is_dir()) \
        if folder.is_dir() else []


def spec(case: Path) -> dict[str, Any]:
    """The case's `case.toml`, empty when it has none."""
    path = case / "case.toml"
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def difficulties(case: Path) -> list[Difficulty]:
    """The difficulties the case checks: `case.toml`'s `difficulties`, or all of them."""
    chosen = spec(case).get("difficulties", DIFFICULTIES)
    return [difficulty for difficulty in DIFFICULTIES if difficulty in chosen]


def target(case: Path, difficulty: Difficulty) -> str | None:
    """The qualname `case.toml` names for this difficulty; None: the engine chooses."""
    chosen = spec(case).get("target")
    if isinstance(chosen, dict):
        chosen = chosen.get(difficulty)
    assert chosen is None or isinstance(chosen, str), \
        f"{case / 'case.toml'}: `target` must name a qualname"
    return chosen


CASES = [pytest.param(smell, case, difficulty, id=f"{smell}/{case.name}/{difficulty}")
         for smell in FOLDERS for case in cases(smell) for difficulty in difficulties(case)]


@pytest.mark.parametrize(("smell", "case", "difficulty"), CASES)
def test_before_after_and_round_trip(tmp_path: Path, smell: str, case: Path,
                                     difficulty: Difficulty) -> None:
    assert smell in INJECTORS, f"{FIXTURES / smell} has no registered injector"
    assert REGENERATE or (case / f"after_{difficulty}").is_dir(), \
        f"{case} has no after_{difficulty}/: write it with SMELLKIT_REGENERATE=1 and review it"
    root = case / "before"
    injection = injected(root, smell, difficulty, target(case, difficulty))
    check_after(case, difficulty, smelly_files(root, injection, tmp_path))
    assert injection.checks, "an injection without structural checks"
    assert_round_trip(root, injection)


@pytest.mark.parametrize("smell", sorted({*INJECTORS, *FOLDERS}))
def test_every_injector_has_fixtures_for_each_difficulty(smell: str) -> None:
    assert smell in INJECTORS, f"{FIXTURES / smell} has no registered injector"
    found = [case for case in cases(smell) if difficulties(case)]
    assert found, f"{smell} has no before/after case under {FIXTURES / smell}"
    covered = {difficulty for case in found for difficulty in difficulties(case)}
    missing = [item for item in INJECTORS[smell].difficulties if item not in covered]
    assert not missing, f"{smell}: no case checks {', '.join(missing)}"
    for case in found:
        stray = [path.name for path in case.glob("after_*")
                 if path.name.removeprefix("after_") not in difficulties(case)]
        assert not stray, f"{case}: {', '.join(stray)} belong to no difficulty it checks"
