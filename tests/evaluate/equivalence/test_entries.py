"""Entry points of a prediction on two small versions of a package: changed functions, their
callers, the other functions of changed modules, renames, and what cannot be compared."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from pathlib import Path

from smellkit.evaluate.equivalence.entries import select
from smellkit.evaluate.signals.localize import Side
from smellkit.project import Project

SMELLY = '''
def helper(x):
    return x + 1

def caller(x):
    return helper(x) * 2

def top(x):
    return caller(x)

def changes_signature(a, b):
    return a - b

def removed(x):
    return x

def renamed_one(items):
    total = 0
    for item in items:
        total += item * 3
    return total

def outer():
    def inner():
        return 1
    return inner()

class Holder:
    def method(self, value, scale=1):
        return helper(value) * scale

def untouched_neighbour():
    return 0
'''

RESULT = SMELLY.replace("def changes_signature(a, b):", "def changes_signature(a):") \
    .replace("def removed(x):\n    return x\n", "") \
    .replace("def renamed_one(items):", "def renamed_two(items):") \
    .replace("def method(self, value, scale=1):",
             "def method(self, value, scale=1, extra=None):")


def _side(root: Path, text: str) -> Side:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "mod.py").write_text(textwrap.dedent(text))
    return Side(Project.load(root, jobs=1, use_cache=False))


def _renames(mapping: Mapping[str, str]) -> object:
    def renames(names: Iterable[str]) -> Mapping[str, str]:
        return {name: mapping[name] for name in names if name in mapping}
    return renames


def test_changed_functions_their_callers_and_neighbours(tmp_path: Path) -> None:
    smelly, result = _side(tmp_path / "a", SMELLY), _side(tmp_path / "b", RESULT)
    selection = select(["pkg.mod.helper", "pkg.mod.changes_signature", "pkg.mod.removed",
                        "pkg.mod.renamed_one", "pkg.mod.outer"], smelly, result,
                       _renames({"pkg.mod.renamed_one": "pkg.mod.renamed_two"}),  # type: ignore[arg-type]
                       depth=1)
    by_name = {item.name: item for item in selection.entry_points}
    assert by_name["pkg.mod.helper"].distance == 0
    assert by_name["pkg.mod.caller"].distance == 1
    assert by_name["pkg.mod.Holder.method"].distance == 1
    assert by_name["pkg.mod.top"].distance == 2  # beyond depth 1: a neighbour in the module
    assert by_name["pkg.mod.untouched_neighbour"].distance == 2
    assert by_name["pkg.mod.Holder.method"].qualname == "Holder.method"
    renamed = by_name["pkg.mod.renamed_one"]
    assert (renamed.result_module, renamed.result_qualname) == ("pkg.mod", "renamed_two")
    assert by_name["pkg.mod.outer"].distance == 0  # a changed nested function stands for it
    assert "pkg.mod.outer.inner" not in by_name
    assert selection.not_comparable == {
        "pkg.mod.changes_signature": "signature changed: (a, b) -> (a)",
        "pkg.mod.removed": "the result has no definition of it (removed, or moved where the "
                           "rename matching could not follow)"}


def test_the_limit_keeps_the_nearest_and_reports_the_rest(tmp_path: Path) -> None:
    smelly, result = _side(tmp_path / "a", SMELLY), _side(tmp_path / "b", RESULT)
    selection = select(["pkg.mod.helper"], smelly, result, _renames({}),  # type: ignore[arg-type]
                       depth=2, limit=2)
    assert [item.name for item in selection.entry_points] == ["pkg.mod.helper",
                                                              "pkg.mod.Holder.method"]
    (over,) = [key for key in selection.not_comparable if " more" in key]
    assert "over the limit of 2" in selection.not_comparable[over]
