"""Ground-truth recovery: normalised trees, the threshold on both sides, greedy matching."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from smellkit.evaluate.signals.recovery import (
    THRESHOLD,
    Shape,
    match,
    recovery,
    shapes,
    similarity,
    tokens,
)
from smellkit.project import Project
from tests.evaluate.helpers import make_tree
from tests.evaluate.signals_support import SOURCE, build, edit
from tests.injectors.test_fixtures import FIXTURES

VALIDATE = '''
def _validate(self, entry):
    """Every field is present and the amount is a finite number."""
    for field in ("account", "amount", "currency"):
        if field not in entry:
            raise KeyError(f"entry without {field}")
    if not math.isfinite(entry["amount"]):
        raise ValueError("amount is not finite")
    self._check_account(entry["account"])
'''

RENAMED = '''
def check_entry(self, record):
    """Each key must be there; the sum must be finite."""
    for key in ("payee", "sum", "unit"):
        if key not in record:
            raise KeyError(f"record lacks {key}")
    if not math.isfinite(record["sum"]):
        raise ValueError("sum is infinite")
    self._check_account(record["payee"])
'''

EDITED = '''
def check_entry(self, record):
    for key in ("payee", "sum", "unit"):
        if key not in record:
            raise KeyError(f"record lacks {key}")
    if not math.isfinite(record["sum"]):
        raise ValueError("sum is infinite")
    if record["sum"] < 0:
        raise ValueError("negative")
    self._check_account(record["payee"])
'''

UNRELATED = '''
def _record(self, entry, amount):
    """Add the amount to the account and the journal."""
    account = entry["account"]
    if account not in self.balances:
        self.balances[account] = 0.0
    self.balances[account] = round(self.balances[account] + amount, 2)
    line = (len(self.journal) + 1, account, amount)
    self.journal.append(line)
    return account
'''


def _tokens(source: str) -> tuple[str, ...]:
    return tokens(ast.parse(textwrap.dedent(source)).body[0])


def test_a_renamed_copy_is_identical_once_normalised() -> None:
    assert _tokens(VALIDATE) == _tokens(RENAMED)
    assert similarity(_tokens(VALIDATE), _tokens(RENAMED)) == 1.0


def test_an_edited_copy_matches_and_an_unrelated_function_does_not() -> None:
    edited = similarity(_tokens(VALIDATE), _tokens(EDITED))
    unrelated = similarity(_tokens(VALIDATE), _tokens(UNRELATED))
    assert THRESHOLD <= edited < 1.0, edited
    assert unrelated < THRESHOLD, unrelated


def test_attribute_names_are_kept_and_constants_become_their_type() -> None:
    assert _tokens("def f(self): return self.total + 1") != \
        _tokens("def f(self): return self.balance + 1")
    assert _tokens("def f(): return 'a', 1") == _tokens("def g(): return 'bb', 2")
    assert _tokens("def f(): return 'a'") != _tokens("def f(): return 1")


def _fixture_functions() -> list[tuple[str, tuple[str, ...]]]:
    """Every function of the injector fixtures' original code with at least three statements."""
    found = []
    for path in sorted(FIXTURES.glob("*/*/before/**/*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and len(node.body) >= 3:
                found.append((f"{path.relative_to(FIXTURES)}:{node.name}", tokens(node)))
    return found


def test_the_threshold_separates_the_fixtures_functions() -> None:
    """Distinct functions of similar size (within 2x) rarely reach the threshold (near-clones
    made on purpose by the duplicated_code fixtures aside); each with one statement removed
    usually does."""
    functions = _fixture_functions()
    assert len(functions) >= 30
    pairs = [similarity(a, b) for index, (_, a) in enumerate(functions)
             for _, b in functions[index + 1:] if a != b and 0.5 <= len(a) / len(b) <= 2]
    assert sum(value >= THRESHOLD for value in pairs) / len(pairs) < 0.02
    kept = 0
    for path in sorted(FIXTURES.glob("*/*/before/**/*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and len(node.body) >= 4:
                shorter = ast.FunctionDef(**{**vars(node), "body": node.body[:-1]})
                kept += similarity(tokens(node), tokens(shorter)) >= THRESHOLD
    assert kept >= 10


def _shape(name: str, source: str, is_class: bool = False) -> Shape:
    return Shape(name, is_class, _tokens(source))


def test_matching_is_greedy_one_to_one_and_by_kind() -> None:
    missing = {"m.validate": _shape("m.validate", VALIDATE),
               "m.record": _shape("m.record", UNRELATED)}
    candidates = {"r.a": _shape("r.a", RENAMED), "r.b": _shape("r.b", EDITED),
                  "r.C": _shape("r.C", "class C:\n    x = 1\n", is_class=True)}
    pairs = match(missing, candidates)
    assert pairs == [("m.validate", "r.a", 1.0)], "the closer copy wins; each is used once"
    assert match({"m.C": _shape("m.C", "class C:\n    x = 1\n", True)},
                 {"r.f": _shape("r.f", "def f():\n    x = 1\n")}) == []


def test_precision_recall_and_f1() -> None:
    missing = {"m.validate": _shape("m.validate", VALIDATE),
               "m.record": _shape("m.record", UNRELATED)}
    none = recovery({}, {"r.a": _shape("r.a", RENAMED)}, {})
    assert (none.precision, none.recall, none.f1) == (None, None, None)
    empty = recovery(missing, {}, {})
    assert (empty.precision, empty.recall, empty.f1) == (None, 0.0, 0.0)
    added = {"r.a": _shape("r.a", RENAMED), "r.x": _shape("r.x", "def x(): pass")}
    changed = {"r.post": _shape("r.post", "def post(self): return 1"),
               "r.keep": _shape("r.keep", UNRELATED)}
    found = recovery(missing, added, changed)
    assert found.recall == 1.0
    assert found.precision == pytest.approx(2 / 3), "r.post, changed and unmatched, is not counted"
    assert found.f1 == pytest.approx(0.8)


def test_shapes_finds_definitions_by_line_and_column(tmp_path: Path) -> None:
    text = "class A:\n    def f(self):\n        return 1\n\n\ndef g():\n    return 2\n"
    project = Project.load(make_tree(tmp_path, {"mod.py": text}), use_cache=False, jobs=1)
    found = shapes(text, project.index.definitions.values())
    assert set(found) == {"mod.A", "mod.A.f", "mod.g"}
    assert found["mod.A"].is_class and not found["mod.g"].is_class
    with pytest.raises(SyntaxError):
        shapes("def g(:\n", project.index.definitions.values())


def test_helpers_restored_under_other_names_are_recovered(tmp_path: Path) -> None:
    """deep_inlining: the original's helpers, brought back with every name changed."""
    built = build("deep_inlining", "ledger", "hard", tmp_path)
    assert built.analysis.missing, "the smelly version lacks the helpers"
    files: dict[str, str | None] = {}
    moved = {name.rpartition(".")[2] for name in built.analysis.missing}
    renames = [(old, new) for old, new in (
        ("_validate", "_check_entry"), ("_normalise", "_clean"),
        ("_convert", "_to_home_currency"), ("_record", "_book"),
        ("_check_account", "_known_account")) if old in moved]  # the helpers the case moved
    assert renames, moved
    for path in built.case.case.files if built.case.case else ():
        original = built.original / SOURCE / path
        text = original.read_text() if original.exists() else None
        for old, new in (*renames, ("entry", "item")):
            text = text.replace(old, new) if text is not None else None
        files[f"{SOURCE}/{path}"] = text
    patch, tree = edit(built, "renamed", files)
    score = built.score("renamed", patch, tree)
    assert score.gt_recall == 1.0 and score.gt_precision == 1.0, score.errors
    assert built.score("noop").gt_recall == 0.0
