"""The test map of the tiny fixture repository, and running selected tests on case copies."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from smellkit.config import RepoSpec
from smellkit.sandbox.checkout import copy_tree, locked, tree_hash
from smellkit.sandbox.environment import Environment
from smellkit.sandbox.errors import SandboxError
from smellkit.sandbox.runner import LocalRunner, RunResult
from smellkit.sandbox.testmap import TestMap, build_test_map
from smellkit.sandbox.testrun import run_tests, run_tests_covered

SHAPES = "tests/test_shapes.py"
UTIL = "tests/test_util.py"


@pytest.fixture(scope="module")
def tiny_map(tiny_spec: RepoSpec, tiny_env: Environment, tiny_checkout: Path,
             tmp_path_factory: pytest.TempPathFactory) -> TestMap:
    # Built once per session: xdist workers share the session's base folder, and the first
    # one to take the lock builds the map the others then read from its cache.
    shared = tmp_path_factory.getbasetemp().parent / "tiny-maps"
    with locked(shared.with_suffix(".lock")):
        return build_test_map(tiny_spec, tiny_env, tiny_checkout, cache_dir=shared)


def test_failing_flaky_hanging_skipped_and_excluded_tests_are_dropped(tiny_map: TestMap) -> None:
    assert tiny_map.tests == (f"{SHAPES}::test_describe", f"{SHAPES}::test_square_area",
                              f"{SHAPES}::test_total_area[sides0]", f"{UTIL}::test_scaled")
    dropped = tiny_map.dropped
    assert set(dropped) == {f"{SHAPES}::test_total_area[sides1]", f"{UTIL}::test_broken_sum_fails",
                            f"{UTIL}::test_flaky_every_second_run", f"{UTIL}::test_hangs",
                            f"{UTIL}::test_skipped"}
    assert dropped[f"{UTIL}::test_broken_sum_fails"].startswith("failed: assert 4 == 3")
    assert dropped[f"{UTIL}::test_flaky_every_second_run"].startswith(
        "flaky: passed in the first run, failed in the second")
    assert "run 2: fails on every second run" in dropped[f"{UTIL}::test_flaky_every_second_run"]
    assert dropped[f"{UTIL}::test_hangs"].startswith("timed out (per-test limit)")
    assert dropped[f"{UTIL}::test_skipped"] == "skipped: Skipped: not on this platform"
    assert dropped[f"{SHAPES}::test_total_area[sides1]"].startswith("excluded by exclude-tests")


def test_covered_lines_map_to_the_innermost_definitions(tiny_map: TestMap) -> None:
    assert tiny_map.by_qualname == {
        "tinypkg.shapes.Shape.describe": (f"{SHAPES}::test_describe",),
        "tinypkg.shapes.Square.__init__": (f"{SHAPES}::test_describe",
                                           f"{SHAPES}::test_square_area",
                                           f"{SHAPES}::test_total_area[sides0]"),
        "tinypkg.shapes.Square.area": (f"{SHAPES}::test_describe", f"{SHAPES}::test_square_area",
                                       f"{SHAPES}::test_total_area[sides0]"),
        "tinypkg.shapes.total_area": (f"{SHAPES}::test_total_area[sides0]",),
        "tinypkg.util.scaled": (f"{UTIL}::test_scaled",),
        "tinypkg.util.scaled.scale": (f"{UTIL}::test_scaled",),
    }
    # Only failing tests ran broken_sum, nothing ran never_called: neither is covered.
    assert "tinypkg.util.broken_sum" not in tiny_map.covered()
    assert "tinypkg.shapes.never_called" not in tiny_map.covered()
    assert tiny_map.aliases == {"tinypkg.shapes.Square.describe": "tinypkg.shapes.Shape.describe"}


def test_statements_run_are_counted_per_definition(tiny_map: TestMap) -> None:
    # scaled: its branch for no values never runs; the nested `def scale` line runs with scaled.
    # Shape.area is overridden and never runs; a class counts its methods together; broken_sum
    # ran only under a failing test, never_called not at all.
    assert tiny_map.statements == {
        "tinypkg.shapes.Shape": (1, 2), "tinypkg.shapes.Shape.area": (0, 1),
        "tinypkg.shapes.Shape.describe": (1, 1), "tinypkg.shapes.Square": (2, 2),
        "tinypkg.shapes.Square.__init__": (1, 1), "tinypkg.shapes.Square.area": (1, 1),
        "tinypkg.shapes.never_called": (0, 1), "tinypkg.shapes.total_area": (1, 1),
        "tinypkg.util.broken_sum": (0, 1), "tinypkg.util.scaled": (3, 4),
        "tinypkg.util.scaled.scale": (1, 1),
    }
    shares = tiny_map.line_coverage()
    assert shares["tinypkg.util.scaled"] == 0.75 and shares["tinypkg.shapes.Shape"] == 0.5
    assert shares["tinypkg.shapes.Square.describe"] == 1.0  # inherited: its base's figure
    assert "tinypkg.nowhere" not in shares


def test_select_is_seeded_bounded_and_resolves_inherited_methods(tiny_map: TestMap) -> None:
    assert tiny_map.select(["tinypkg.shapes.Square.describe"]) == (f"{SHAPES}::test_describe",)
    assert tiny_map.select(["tinypkg.util.scaled.scale", "tinypkg.shapes.total_area"]) == (
        f"{SHAPES}::test_total_area[sides0]", f"{UTIL}::test_scaled")
    one = {tiny_map.select(["tinypkg.shapes.Square.area"], limit=1, seed=seed)
           for seed in range(20)}
    assert all(len(choice) == 1 for choice in one) and len(one) > 1  # the seed matters
    assert tiny_map.select(["tinypkg.shapes.Square.area"], limit=1, seed=3) == \
        tiny_map.select(["tinypkg.shapes.Square.area"], limit=1, seed=3)
    assert tiny_map.select(["tinypkg.nowhere"]) == ()


def test_map_is_cached_by_checkout_content(tiny_map: TestMap, tiny_spec: RepoSpec,
                                           tiny_env: Environment, tiny_checkout: Path,
                                           tmp_path: Path) -> None:
    assert tiny_map.key and tiny_map.revision == "local" and tiny_map.seconds > 0
    path = tmp_path / "map.json"
    tiny_map.save(path)
    assert TestMap.load(path) == tiny_map
    cached = tmp_path / "cache" / f"tinypkg-{tiny_map.key}.json"
    cached.parent.mkdir()
    fake = tiny_map.model_copy(update={"tests": ("from the cache",)})
    fake.save(cached)
    assert build_test_map(tiny_spec, tiny_env, tiny_checkout,
                          cache_dir=cached.parent).tests == ("from the cache",)
    assert tree_hash(tiny_checkout) == tree_hash(Path(__file__).parent / "fixtures" / "tinyrepo")


def test_selected_tests_pass_on_a_clean_copy_and_fail_on_a_changed_one(
        tiny_map: TestMap, tiny_spec: RepoSpec, tiny_env: Environment, tiny_checkout: Path,
        tmp_path: Path) -> None:
    selected = tiny_map.select(["tinypkg.shapes.Square.area"])
    clean = copy_tree(tiny_checkout, tmp_path / "clean")
    run = run_tests(tiny_env, clean, tiny_spec, selected)
    assert run.ok and run.passed == selected, run.output
    assert not list(clean.glob(".smellkit-run-*"))  # the run's private folder is removed
    smelly = copy_tree(tiny_checkout, tmp_path / "smelly")
    shapes = smelly / "src" / "tinypkg" / "shapes.py"
    code = shapes.read_text()
    shapes.write_text(code.replace("self.side * self.side", "self.side * self.side + 1"))
    run = run_tests(tiny_env, smelly, tiny_spec, selected)
    assert not run.ok and set(run.failed) == set(selected)
    assert "assert 10 == 9" in run.messages[f"{SHAPES}::test_square_area"]


def test_a_covered_run_says_which_test_ran_each_line_and_a_run_can_stop_early(
        tiny_map: TestMap, tiny_spec: RepoSpec, tiny_env: Environment, tiny_checkout: Path,
        tmp_path: Path) -> None:
    selected = tiny_map.select(["tinypkg.shapes.Square.area"])
    copy = copy_tree(tiny_checkout, tmp_path / "copy")
    covered = run_tests_covered(tiny_env, copy, tiny_spec, selected)
    assert covered.run.ok and not list(copy.glob(".smellkit-run-*"))
    lines = covered.lines["tinypkg/shapes.py"]
    assert set(lines[17]) == set(selected)  # `return self.side * self.side`: every test
    assert lines[16] == ("",)  # the `def` ran while the tests were loaded, in no test
    shapes = copy / "src" / "tinypkg" / "shapes.py"
    shapes.write_text(shapes.read_text().replace("self.side * self.side", "0"))
    stopped = run_tests(tiny_env, copy, tiny_spec, selected, first_failure=True)
    assert len(stopped.failed) == 1 and not stopped.passed and stopped.errors
    assert all("not run" in stopped.messages[test] for test in stopped.errors)


def test_a_hanging_test_is_cut_off_and_reported(tiny_spec: RepoSpec, tiny_env: Environment,
                                                tiny_checkout: Path, tmp_path: Path) -> None:
    copy = copy_tree(tiny_checkout, tmp_path / "case")
    run = run_tests(tiny_env, copy, tiny_spec, [f"{UTIL}::test_hangs", f"{UTIL}::test_scaled"])
    assert run.hung == (f"{UTIL}::test_hangs",) and run.passed == (f"{UTIL}::test_scaled",)
    assert "longer than 3s" in run.messages[f"{UTIL}::test_hangs"] and not run.ok
    assert run.seconds < 30
    # pytest refuses the whole run when one id does not exist: every id is reported, not lost.
    run = run_tests(tiny_env, copy, tiny_spec, [f"{UTIL}::test_scaled", f"{UTIL}::test_nothing"])
    assert run.errors == (f"{UTIL}::test_scaled", f"{UTIL}::test_nothing") and not run.ok
    assert "not found" in run.output
    # The per-test alarm disabled: the whole run is killed at timeouts.test instead.
    strict = tiny_spec.model_copy(update={"timeouts": tiny_spec.timeouts.model_copy(
        update={"per_test": 300, "test": 4})})
    run = run_tests(tiny_env, copy, strict, [f"{UTIL}::test_scaled", f"{UTIL}::test_hangs"])
    assert run.timed_out and not run.ok
    assert run.passed == (f"{UTIL}::test_scaled",) and run.hung == (f"{UTIL}::test_hangs",)
    assert "run timed out" in run.summary()


def test_no_tests_and_non_pytest_commands_are_refused(tiny_spec: RepoSpec, tiny_env: Environment,
                                                      tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="no tests"):
        run_tests(tiny_env, tmp_path, tiny_spec, [])
    other = tiny_spec.model_copy(update={"test_command": "make test"})
    with pytest.raises(SandboxError, match="test-command must run pytest"):
        run_tests(tiny_env, tmp_path, other, ["x"])


class _KillingRunner(LocalRunner):
    """Stands for a test that kills the interpreter: its run ends during test_square_area."""

    def run(self, command: list[str] | str, **kwargs: object) -> RunResult:  # type: ignore[override]
        env = dict(kwargs["env"])  # type: ignore[call-overload]
        deselect = env.get("SMELLKIT_DESELECT")
        skip = json.loads(Path(deselect).read_text()) if deselect else []
        if isinstance(command, list) and f"{SHAPES}::test_square_area" not in skip:
            env["SMELLKIT_KILL_AT"] = f"{SHAPES}::test_square_area"
            kwargs["env"] = env
        return super().run(command, **kwargs)  # type: ignore[arg-type]


def test_a_run_that_dies_is_rerun_without_the_test_it_died_in(
        tiny_spec: RepoSpec, tiny_env: Environment, tiny_checkout: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    conftest = tmp_path / "repo"
    copy_tree(tiny_checkout, conftest)
    (conftest / "tests" / "conftest.py").write_text(
        "import os\n\n\ndef pytest_runtest_call(item):\n"
        "    if item.nodeid == os.environ.get('SMELLKIT_KILL_AT'):\n        os._exit(9)\n")
    result = build_test_map(tiny_spec, tiny_env, conftest, _KillingRunner(),
                            cache_dir=tmp_path / "maps")
    assert result.dropped[f"{SHAPES}::test_square_area"].startswith("hung")
    assert f"{SHAPES}::test_describe" in result.tests
    assert os.environ.get("SMELLKIT_KILL_AT") is None


def test_excluded_tests_are_never_run(tiny_spec: RepoSpec, tiny_env: Environment,
                                      tiny_checkout: Path, tmp_path: Path) -> None:
    # No per-test limit to save the run: had test_hangs run, the map would take minutes.
    spec = tiny_spec.model_copy(update={
        "exclude_tests": ("*::test_hangs",),
        "timeouts": tiny_spec.timeouts.model_copy(update={"per_test": 600, "map": 600})})
    started = time.monotonic()
    result = build_test_map(spec, tiny_env, tiny_checkout, cache_dir=tmp_path)
    assert time.monotonic() - started < 60
    assert result.dropped[f"{UTIL}::test_hangs"] == "excluded by exclude-tests (*::test_hangs)"
    assert f"{SHAPES}::test_total_area[sides1]" in result.tests


def test_a_test_module_that_fails_to_import_drops_only_its_own_tests(
        tiny_spec: RepoSpec, tiny_env: Environment, tiny_checkout: Path, tmp_path: Path) -> None:
    # WTForms' test_webob.py imports a module that warns on import under filterwarnings=error:
    # without --continue-on-collection-errors pytest stops before running any other test.
    repo = copy_tree(tiny_checkout, tmp_path / "repo")
    (repo / "tests" / "test_broken_import.py").write_text(
        "import module_that_does_not_exist\n\n\ndef test_never():\n    pass\n")
    spec = tiny_spec.model_copy(update={"exclude_tests": ("*::test_hangs",)})
    result = build_test_map(spec, tiny_env, repo, cache_dir=tmp_path / "maps")
    assert f"{SHAPES}::test_describe" in result.tests
    assert not any("test_broken_import" in test for test in result.tests)
    assert any("test_broken_import" in test for test in result.dropped), result.dropped


def test_an_empty_module_has_no_statement_counts(tmp_path: Path) -> None:
    # marshmallow's and WTForms' empty `__init__.py` files once stopped the whole map
    import ast

    from smellkit.facts import extract
    from smellkit.sandbox.testmap import _statement_counts

    empty = tmp_path / "__init__.py"
    empty.write_text("")
    facts = extract(ast.parse(""), "", "__init__.py", "pkg", True)
    assert _statement_counts(empty, facts, {}, set()) == {}
