"""Test adequacy on a real build: click 8.1.7's cases (the scoring tests' cached build).

Every exported case must carry a `test_adequacy` record meeting the rule. Then, per smell, an
independent check that does not use the adequacy code: in the smelly version, every function the
smelly patch defines anew (a moved, copied or extracted function; not one the case declares dead,
not a stub) gets `raise RuntimeError` as its first statement, and the case's own selected tests
must notice: at least one of them fails.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from smellkit._internal.jsonl import read_jsonl
from smellkit.bench import load_dataset
from smellkit.bench.selection import target_methods
from smellkit.config import load_spec_record
from smellkit.injectors.patches import apply_patch
from smellkit.injectors.registry import injectors
from smellkit.models import MIN_CHANGED_LINES_EXECUTED, BuildReport, Case
from smellkit.sandbox.checkout import copy_tree, fetch
from smellkit.sandbox.environment import prepare
from smellkit.sandbox.runner import LocalRunner
from smellkit.sandbox.testrun import run_tests
from tests.evaluate.conftest import click_dataset  # noqa: F401  (the cached click build)

pytestmark = pytest.mark.slow

Built = tuple[Path, BuildReport]


def test_every_click_case_has_tests_that_run_and_guard_its_code(
        click_dataset: Built) -> None:  # noqa: F811
    out, _ = click_dataset
    rows = read_jsonl(out / "dataset.jsonl")
    assert rows and all("test_adequacy" in row for row in rows)
    for case in load_dataset(out / "dataset.jsonl"):
        adequacy = case.test_adequacy
        assert adequacy is not None, case.instance_id
        assert adequacy.problems(MIN_CHANGED_LINES_EXECUTED) == [], (case.instance_id, adequacy)
        assert adequacy.sensitive and all(item.caught_by for item in adequacy.functions)
        # at most 10 tests per target method, however many definitions the case involves
        assert adequacy.test_budget == 10 * len(target_methods(case)), case.instance_id
        assert 0 < len(case.tests) <= adequacy.test_budget, case.instance_id


def _new_functions(case: Case, root: Path) -> list[tuple[str, int, str]]:
    """(path, line of the `def`, name) of each function whose `def` line the smelly patch adds,
    leaving out what the case declares dead (with the functions nested in it, such as the
    `wrapper` of a dead decorator) and bodies that only pass, raise or return None."""
    dead = ({item.location.qualname.rsplit(".", 1)[-1] for item in case.targets}
            | {item.qualname.rsplit(".", 1)[-1] for item in case.locations}) \
        if case.smell == "dead_code" else set()
    found = []
    for path, added in _added(case.smelly_patch).items():
        stack: list[ast.AST] = [ast.parse((root / path).read_text(encoding="utf-8"))]
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name in dead:
                    continue
                body = [item for item in node.body if not (
                    isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant))]
                idle = not body or (len(body) == 1 and isinstance(body[0], (ast.Pass,
                                                                            ast.Raise)))
                if node.lineno in added and not idle:
                    found.append((path, node.lineno, node.name))
            stack.extend(ast.iter_child_nodes(node))
    return sorted(found)


def _added(patch: str) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    path, line = "", 0
    for text in patch.splitlines():
        if text.startswith("+++ "):
            path = text[6:] if text.startswith("+++ b/") else ""
        elif match := re.match(r"@@ -\S+ \+(\d+)", text):
            line = int(match.group(1))
        elif path and text.startswith("+"):
            found.setdefault(path, set()).add(line)
            line += 1
        elif path and not text.startswith(("-", "\\")):
            line += 1
    return found


def _break(text: str, line: int) -> str:
    """`raise RuntimeError` as the first statement of the function defined at `line` (after
    its docstring, which may be help text a test reads)."""
    tree = ast.parse(text)
    node = next(item for item in ast.walk(tree) if isinstance(
        item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.lineno == line)
    first = next(item for item in node.body if not (
        isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant)))
    lines = text.splitlines(keepends=True)
    if first.lineno == node.lineno:  # `def f(): return 1`
        raise_ = "raise RuntimeError('broken by the test'); "
        row = lines[first.lineno - 1]
        lines[first.lineno - 1] = row[:first.col_offset] + raise_ + row[first.col_offset:]
    else:
        indent = " " * first.col_offset
        lines.insert(first.lineno - 1, f"{indent}raise RuntimeError('broken by the test')\n")
    return "".join(lines)


@pytest.mark.parametrize("smell", list(injectors()))
def test_breaking_a_function_the_smelly_patch_adds_fails_a_selected_test(
        click_dataset: Built, smell: str, tmp_path: Path) -> None:  # noqa: F811
    out, _ = click_dataset
    cases = [case for case in load_dataset(out / "dataset.jsonl") if case.smell == smell]
    if not cases:
        pytest.skip(f"the click build exported no {smell} case")
    spec, cache = load_spec_record(out / "specs" / "click.json")
    checkout = fetch(spec, cache)
    env = prepare(spec, checkout, cache, LocalRunner())
    checked = 0
    for case in cases:
        copy = copy_tree(checkout, tmp_path / case.id)
        root = copy / case.source_path
        apply_patch(root, case.smelly_patch)
        for path, line, name in _new_functions(case, root):
            original = (root / path).read_text(encoding="utf-8")
            (root / path).write_text(_break(original, line), encoding="utf-8")
            try:
                run = run_tests(env, copy, spec, case.tests, LocalRunner())
            finally:
                (root / path).write_text(original, encoding="utf-8")
            assert not run.ok, (f"{case.instance_id}: breaking {name} ({path}:{line}) fails "
                                f"none of its {len(case.tests)} selected tests")
            checked += 1
    # deep inlining pastes bodies in place and moves helpers only to spread over files, which
    # click's cases may not need; the other three always add the functions they move or copy
    if smell in ("duplicated_code", "god_class", "feature_envy"):
        assert checked, f"no {smell} case moved or copied a function"
