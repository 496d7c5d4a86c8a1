"""Interface segregation injector: before/after on a fixture of stores, round trips, refusals,
and counts on real code (click, jinja2)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from smellkit.injectors.base import Edit, InjectionContext, Skip
from smellkit.injectors.checks import evaluate
from smellkit.injectors.engine import find_candidates, make_injector
from smellkit.models import DIFFICULTIES, Difficulty
from tests.injectors.support import (
    FIXTURES,
    SMALL,
    assert_round_trip,
    check_after,
    first_injection,
    injected,
    load,
    own_tests_pass,
    real_code,
    smelly_files,
)

SMELL = "interface_segregation"
STORAGE = FIXTURES / SMELL / "storage"
TARGET = "store.base.Storage"


def test_candidate_says_why() -> None:
    (candidate,) = find_candidates(load(STORAGE / "before"), SMELL, options=SMALL)
    assert candidate.target.qualname == TARGET
    assert "4 concrete implementers" in candidate.reason
    assert "DiskStorage.{lock, unlock}" in candidate.reason
    assert candidate.data["donors"] == {"store.disk.DiskStorage": ["lock", "unlock"]}


CASES = {"storage": TARGET, "sinks": "logs.sinks.Sink"}
"""Fixture -> its interface. sinks: two implementers with a role each (rotate, reconnect), folded
in together so that each stubs the other's."""


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_before_after(tmp_path: Path, case: str, difficulty: Difficulty) -> None:
    folder = FIXTURES / SMELL / case
    injection = injected(folder / "before", SMELL, difficulty, CASES[case])
    check_after(folder, difficulty, smelly_files(folder / "before", injection, tmp_path))


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_round_trip(case: str, difficulty: Difficulty) -> None:
    folder = FIXTURES / SMELL / case
    injection = injected(folder / "before", SMELL, difficulty, CASES[case])
    assert_round_trip(folder / "before", injection)
    assert [(target.location.qualname, target.level) for target in injection.targets] == [
        (CASES[case], "class")]


def test_two_roles_each_stubbed_by_the_other_implementer() -> None:
    hard = injected(FIXTURES / SMELL / "sinks" / "before", SMELL, "hard", CASES["sinks"])
    assert "class FileSink(SinkExtras, Sink):" in hard.smelly_patch
    assert "class SocketSink(SinkDefaults, Sink):" in hard.smelly_patch
    assert {location.qualname for location in hard.red_herrings} >= {
        "logs.files.FileSink.rotate", "logs.network.SocketSink.reconnect"}


def test_difficulties_spread_over_more_files() -> None:
    """easy: the interface and the implementers' files; medium: a mixin module too; hard: two
    mixin modules, and the donor's real methods as red herrings."""
    files = {difficulty: injected(STORAGE / "before", SMELL, difficulty, TARGET).files
             for difficulty in DIFFICULTIES}
    assert len(files["easy"]) == 3 and not any("_storage_" in path for path in files["easy"])
    assert "store/_storage_defaults.py" in files["medium"] and len(files["medium"]) == 4
    assert len(files["hard"]) == 5
    hard = injected(STORAGE / "before", SMELL, "hard", TARGET)
    assert {location.qualname for location in hard.red_herrings} >= {
        "store.disk.DiskStorage.lock", "store.disk.DiskStorage.unlock"}


def test_cached_remote_inherits_the_stubs_instead_of_getting_its_own() -> None:
    injection = injected(STORAGE / "before", SMELL, "easy", TARGET)
    assert "class CachedRemoteStorage(RemoteStorage):\n" in injection.smelly_patch or \
        "CachedRemoteStorage" not in injection.smelly_patch.split("+    def lock")[-1]
    assert injection.smelly_patch.count("+    def lock(self, key, reason=None):") == 3


def test_checks_pass_on_the_original() -> None:
    project = load(STORAGE / "before")
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    edit = make_injector(SMELL, SMALL).inject(InjectionContext(project), candidate, "medium",
                                              random.Random(0))
    assert isinstance(edit, Edit)
    assert {check.kind for check in edit.checks} == {
        "no_finding", "interface_segregation.not_required", "interface_segregation.no_stubs"}
    assert all(result.passed for result in evaluate(project, edit.checks))


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(STORAGE / "before", root)
    return root


def test_a_method_looked_up_by_name_is_never_folded_in(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    with open(root / "store" / "memory.py", "a") as handle:
        handle.write('\n\ndef can_lock(store):\n    return hasattr(store, "lock")\n')
    (candidate,) = find_candidates(load(root), SMELL, options=SMALL)
    assert candidate.data["donors"] == {"store.disk.DiskStorage": ["unlock"]}
    outcome = make_injector(SMELL, SMALL).inject(InjectionContext(load(root)), candidate, "easy",
                                                 random.Random(0))
    assert isinstance(outcome, Skip)
    assert "would stub 2 or more" in outcome.reason  # one of 3 + 1 methods is less than a third


def test_an_implementer_with_the_method_from_elsewhere_is_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    text = (root / "store" / "remote.py").read_text()
    (root / "store" / "remote.py").write_text(text.replace(
        "class RemoteStorage(Storage):",
        "class Lockable:\n    def unlock(self, key):\n        return key\n\n\n"
        "class RemoteStorage(Lockable, Storage):"))
    project = load(root)
    candidates = find_candidates(project, SMELL, options=SMALL)
    assert all("unlock" not in names for candidate in candidates
               for names in candidate.data["donors"].values())


def test_too_few_implementers_to_stub() -> None:
    project = load(STORAGE / "before")
    (candidate,) = find_candidates(project, SMELL, options=SMALL)
    kept = ["store.disk.DiskStorage", "store.memory.MemoryStorage"]
    narrowed = candidate.model_copy(update={"data": {**candidate.data, "implementers": kept}})
    outcome = make_injector(SMELL, SMALL).inject(InjectionContext(project), narrowed, "easy",
                                                 random.Random(0))
    assert isinstance(outcome, Skip) and "only 1 implementer(s)" in outcome.reason, outcome


# -- real code ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name,version", [("click", "8.1.7"), ("jinja2", "3.1.4")])
def test_real_code(name: str, version: str) -> None:
    """Counts on real code (`pytest -s` prints them). click's MultiCommand takes the roles of
    Group (add_command) and CommandCollection (add_source), each stubbing the other's, at every
    difficulty; jinja2 has no interface with a role to fold in (its implementers have no public
    methods of their own). Every injection verified keeps the round-trip properties."""
    from tests.support.pypi import sdist

    counts = real_code(sdist(name, version) / "src", SMELL, tries=10, verified=1)
    print(f"\n{SMELL} on {name} {version}: {counts}")
    assert counts["easy"]["candidates"] == {"click": 3, "jinja2": 0}[name]
    if name == "click":
        assert all(row["injected"] >= 1 for row in counts.values()), counts


@pytest.mark.slow
def test_click_tests_pass_on_the_smelly_code(tmp_path: Path) -> None:
    """Behaviour is kept: click's own test suite passes on a hard injection."""
    from tests.support.pypi import sdist

    top = sdist("click", "8.1.7")
    result = own_tests_pass(top, first_injection(top / "src", SMELL, "hard"), tmp_path)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert " passed" in result.stdout
