"""click 8.1.7 from its PyPI sdist, end to end: fetch, environment, test map, selected tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from smellkit.config import load_repo_spec
from smellkit.sandbox.checkout import copy_tree, fetch, tree_hash
from smellkit.sandbox.environment import imported_from
from smellkit.sandbox.testmap import build_test_map
from smellkit.sandbox.testrun import run_tests
from tests.sandbox.conftest import prepare_or_skip, sandbox_cache

EXAMPLE = Path(__file__).parents[2] / "examples" / "specs" / "click.toml"
SUBSET = ("tests/test_basic.py tests/test_commands.py tests/test_context.py tests/test_chain.py "
          "tests/test_options.py")
"""Test files enough to cover Command.main well, at a third of the suite's time."""


@pytest.mark.slow
def test_click_map_select_and_run(tmp_path: Path,
                                  terminal_report: Callable[[str, list[str]], None]) -> None:
    spec = load_repo_spec(EXAMPLE)
    spec = spec.model_copy(update={"test_command": f"python -m pytest {SUBSET}"})
    cache = sandbox_cache()
    timings: dict[str, float] = {}
    started = time.perf_counter()
    try:
        checkout = fetch(spec, cache)
    except Exception as error:  # offline: PyPI is this test's only source
        pytest.skip(f"cannot fetch click==8.1.7 from PyPI: {error}")
    timings["fetch"] = time.perf_counter() - started
    assert (checkout / "src" / "click" / "core.py").is_file()
    pristine = tree_hash(checkout)

    started = time.perf_counter()
    env = prepare_or_skip(spec, checkout, cache)
    timings["environment"] = time.perf_counter() - started

    started = time.perf_counter()
    test_map = build_test_map(spec, env, checkout, use_cache=False)
    timings["test map"] = time.perf_counter() - started
    assert len(test_map.tests) > 200 and len(test_map.dropped) < 5
    assert "tests/test_chain.py::test_multicommand_chaining" in test_map.dropped  # an xfail
    assert not any(nodeid.startswith("tests/test_termui.py") for nodeid in test_map.tests)
    assert "click.core.BaseCommand.main" in test_map.covered()
    assert test_map.aliases["click.core.Command.main"] == "click.core.BaseCommand.main"
    shares = test_map.line_coverage()  # every definition measured: run fully, partly, or not
    assert 0 < shares["click.core.Command.main"] == shares["click.core.BaseCommand.main"] <= 1
    assert min(shares.values()) == 0 and max(shares.values()) == 1
    assert any(0 < share < 0.9 for share in shares.values())

    selected = test_map.select(["click.core.Command.main"], limit=10, seed=0)
    assert len(selected) == 10 and selected == test_map.select(["click.core.Command.main"])
    case = copy_tree(checkout, tmp_path / "case")
    assert imported_from(env, case, "click.core") == case / "src" / "click" / "core.py"
    started = time.perf_counter()
    run = run_tests(env, case, spec, selected)
    timings["10 selected tests"] = time.perf_counter() - started
    assert run.ok and run.passed == selected, run.output
    assert tree_hash(checkout) == pristine  # the cached sdist is never written to

    terminal_report("sandbox: click 8.1.7", [
        *(f"{name:>18}: {seconds:6.1f}s" for name, seconds in timings.items()),
        f"{'tests':>18}: {len(test_map.tests)} healthy, {len(test_map.dropped)} dropped "
        f"({SUBSET.count('.py')} files)",
        f"{'qualnames':>18}: {len(test_map.by_qualname)} covered, "
        f"{len(test_map.aliases)} inherited names",
        f"{'lines run':>18}: {sum(share >= 0.9 for share in shares.values())} of "
        f"{len(shares)} definitions at 90% or more",
    ])
