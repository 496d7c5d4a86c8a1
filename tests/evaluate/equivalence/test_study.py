"""The mutation study's classification of the mutants neither check caught
(`benchmarks/data/equivalence_mutants.toml`): malformed entries are refused with their place
named, the table counts classified mutants into the behaviour-changing denominator and lists the
unclassified ones, and (slow) every classified site still exists in click 8.1.7 and every
behaviour-changing example really behaves differently on the mutant."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks.bench_equivalence import (
    CLASSIFIED,
    Classified,
    Made,
    check_classified,
    classified,
    table,
)
from benchmarks.equivalence_mutants import Mutant, functions, mutate

ENTRY = '''
[[mutant]]
function = "click.core.Argument.__init__"
kind = "flip_comparison"
line = 2997
site = "is not None"
behaviour = "changing"
why = "variadic arguments without a default are refused"
example = "print(1)"
'''


def test_the_repository_classification_reads() -> None:
    labels = classified(CLASSIFIED)
    assert labels
    assert all(label.why.strip() for label in labels.values())
    assert all(label.example.strip() for label in labels.values()
               if label.behaviour == "changing")


@pytest.mark.parametrize(("change", "message"), [
    (("behaviour = \"changing\"", "behaviour = \"maybe\""), "behaviour must be one of"),
    (("example = \"print(1)\"", ""), "needs an `example`"),
    (("why = \"variadic arguments without a default are refused\"", ""), "missing why"),
    (("kind = \"flip_comparison\"", "kind = \"flipped\""), "unknown kind 'flipped'"),
])
def test_a_malformed_entry_is_refused_with_its_place(tmp_path: Path, change: tuple[str, str],
                                                      message: str) -> None:
    path = tmp_path / "classified.toml"
    path.write_text(ENTRY.replace(*change))
    with pytest.raises(SystemExit, match=message) as raised:
        classified(path)
    assert "mutant #1 (click.core.Argument.__init__)" in str(raised.value)


def test_an_entry_classified_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "classified.toml"
    path.write_text(ENTRY + ENTRY)
    with pytest.raises(SystemExit, match=r"mutant #2 .* classified twice"):
        classified(path)


def _row(instance: str, kind: str, *, tests_failed: bool, equivalence: str) -> dict[str, Any]:
    return {"instance_id": instance, "model": f"mutant-{kind}", "tests_total": 3,
            "tests_passed": 2 if tests_failed else 3, "equivalence": equivalence,
            "equivalence_detail": {"reason": "10 inputs on 2 entry points behave the same"}}


def _made(kind: str, line: int, site: str) -> Made:
    return Made("click.core", Mutant(kind, "Argument.__init__", f"{kind} at `{site}`", "", line),
                "")


def test_the_table_counts_classified_mutants_into_the_denominator(
        capsys: pytest.CaptureFixture[str]) -> None:
    labels = {("click.core.Argument.__init__", "off_by_one", 2989): Classified(
                  "click.core.Argument.__init__", "off_by_one", 2989, "1", "preserving",
                  "both defaults are positive", ""),
              ("click.core.Argument.__init__", "flip_comparison", 2997): Classified(
                  "click.core.Argument.__init__", "flip_comparison", 2997, "is not None",
                  "changing", "refuses nargs=-1", "print(1)")}
    rows = [_row("a", "off_by_one", tests_failed=False, equivalence="equivalent"),
            _row("a", "flip_comparison", tests_failed=False, equivalence="equivalent"),
            _row("a", "changed_constant", tests_failed=False, equivalence="equivalent"),
            _row("a", "swapped_arguments", tests_failed=True, equivalence="not_equivalent"),
            _row("a", "changed_exception", tests_failed=False, equivalence="not_equivalent"),
            _row("a", "dropped_default", tests_failed=True, equivalence="equivalent")]
    made = {("a", "off_by_one"): _made("off_by_one", 2989, "1"),
            ("a", "flip_comparison"): _made("flip_comparison", 2997, "is not None"),
            ("a", "changed_constant"): _made("changed_constant", 2992, "'multiple'"),
            ("a", "swapped_arguments"): _made("swapped_arguments", 2989, "get"),
            ("a", "changed_exception"): _made("changed_exception", 2998, "raise"),
            ("a", "dropped_default"): _made("dropped_default", 2985, "required")}
    totals = table(rows, made, labels)
    assert totals == {"mutants": 6, "tests": 2, "equiv": 2, "either": 3, "neither": 3,
                      "same": 1, "differ": 1, "unread": 1}
    printed = capsys.readouterr().out
    # 2 of the 3 caught; 2 of the 4 behaviour-changing (3 caught + 1 classified so)
    assert "equivalence catches 2 of the 3 mutants some check caught (67%), and 2 of the 4 " \
           "behaviour-changing ones (caught, or classified so: 50%)" in printed
    assert "1 mutants neither check caught are NOT CLASSIFIED" in printed
    assert "counted as behaviour-changing, equivalence catches 40%" in printed
    assert "UNCLASSIFIED: a function = 'click.core.Argument.__init__', kind = " \
           "'changed_constant', line = 2992" in printed


@pytest.mark.slow
def test_classified_sites_exist_and_examples_differ(pypi_sdist: Callable[[str, str], Path],
                                                    tmp_path: Path) -> None:
    """Against click 8.1.7's source, as the study mutates it: every classified site is still
    made by the mutant generator, and each behaviour-changing example's output differs on the
    mutant; a wrong example (one that never reaches the site) is caught."""
    source = pypi_sdist("click", "8.1.7") / "src"
    labels = classified(CLASSIFIED)
    assert check_classified(labels, source, tmp_path) == []
    key = ("click.core.Argument.__init__", "flip_comparison", 2997)
    wrong = {key: Classified(*key, "is not None", "changing", "never reached",
                             textwrap.dedent('''
                                 import click
                                 print(click.Argument(["name"]).nargs)
                             '''))}
    assert check_classified(wrong, source, tmp_path) == [
        "click.core.Argument.__init__:2997 flip_comparison: classified behaviour-changing, but "
        "its example behaves the same on both versions"]
    gone = {("click.core.Argument.__init__", "flip_comparison", 2990): Classified(
        "click.core.Argument.__init__", "flip_comparison", 2990, "is not None", "preserving",
        "", "")}
    assert "no such site now" in check_classified(gone, source, tmp_path)[0]


OVERLOADED = """
import typing as t

class Command:
    @t.overload
    def main(self, standalone: "t.Literal[True]" = True) -> "t.NoReturn": ...

    @t.overload
    def main(self, standalone: bool = ...) -> t.Any: ...

    def main(self, standalone: bool = True, width: int = 80) -> t.Any:
        return standalone, width
"""


def test_mutants_are_made_in_the_implementation_not_in_overload_stubs() -> None:
    """A stub's defaults never run: a mutant there would be counted as a miss of the check."""
    import libcst as cst

    module = cst.parse_module(OVERLOADED)
    found = functions(module)
    assert found["Command.main"].params.params[-1].name.value == "width"
    mutant = mutate(module, found, "Command.main", "dropped_default", seed=0)
    assert mutant is not None and mutant.line == 11  # the implementation's `def`
