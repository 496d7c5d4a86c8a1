"""Test selection for a case, its adequacy (do the tests run and guard the smelly code?) and the
sentences that explain a rejected one. The adequacy tests at the end run the calc fixture's real
tests: a case whose tests miss its code is rejected, a copied-code case is selected again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from smellkit.bench.backend import default_backend
from smellkit.bench.pipeline import covered_with_owners
from smellkit.bench.validate import Validator, describe_failure
from smellkit.config import load_repo_spec
from smellkit.formats.smellbench import from_row, to_row
from smellkit.models import MIN_CHANGED_LINES_EXECUTED, Case, Location, Rejection, Target
from smellkit.sandbox.testmap import TestMap
from smellkit.sandbox.testrun import TestRun
from tests.bench import fakes
from tests.bench.conftest import bench_cache

MAP = TestMap(tests=("t::a", "t::b", "t::c"), by_qualname={
    "calc.ops.add": ("t::a",), "calc.ops.Box.size": ("t::b",), "calc.ops.Box.grow": ("t::c",)})


def _unused(*args: Any) -> Any:
    raise AssertionError("not called when selecting")


def _validator() -> Validator:
    return Validator(spec=load_repo_spec(fakes.FIXTURES / "calc.toml"), env=None,  # type: ignore[arg-type]
                     checkout=Path("."), test_map=MAP, runner=None,  # type: ignore[arg-type]
                     work_dir=Path("."), run_tests=_unused, apply_patch=_unused,
                     copy_tree=_unused, run_covered=_unused, run_until_failure=_unused)


def test_owners_of_covered_code_count_as_covered() -> None:
    found = covered_with_owners(MAP.covered())
    assert {"calc.ops.Box", "calc.ops", "calc", "calc.ops.Box.size"} <= found
    assert "calc.ops.Other" not in found


def test_an_interface_counts_as_covered_when_an_implementer_is(tmp_path: Path) -> None:
    """An abstract base runs no code of its own: the tests of its implementers are its tests
    (interface_segregation targets such bases)."""
    from smellkit.project import Project

    package = tmp_path / "shapes"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text(
        "class Shape:\n    def area(self):\n        raise NotImplementedError\n\n\n"
        "class Unused:\n    pass\n")
    (package / "square.py").write_text(
        "from shapes.base import Shape\n\n\nclass Square(Shape):\n"
        "    def area(self):\n        return 4\n")
    index = Project.load(tmp_path, use_cache=False, jobs=1).index
    covered = frozenset({"shapes.square.Square.area"})
    assert "shapes.base.Shape" not in covered_with_owners(covered)
    found = covered_with_owners(covered, index)
    assert {"shapes.base.Shape", "shapes.base", "shapes.square.Square"} <= found
    assert "shapes.base.Unused" not in found and "shapes.base.Shape.area" not in found


def test_a_function_target_selects_its_tests() -> None:
    assert _validator().select(fakes.harmless("dead_code", "easy", "add")) == ("t::a",)


def test_a_class_target_selects_the_tests_of_its_methods() -> None:
    box = Location(path=fakes.OPS, qualname="calc.ops.Box", kind="class", start_line=1,
                   end_line=9)
    base = fakes.harmless("god_class", "easy", "mul")
    injection = base.model_copy(update={
        "candidate": base.candidate.model_copy(update={"target": box}),
        "targets": (Target(location=box, level="class"),), "locations": (box,)})
    assert _validator().select(injection) == ("t::b", "t::c")


def _class_target(qualname: str) -> Any:
    box = Location(path=fakes.OPS, qualname=qualname, kind="class", start_line=1, end_line=9)
    base = fakes.harmless("god_class", "easy", "mul")
    return base.model_copy(update={
        "candidate": base.candidate.model_copy(update={"target": box}),
        "targets": (Target(location=box, level="class"),), "locations": (box,)})


def test_a_class_target_does_not_select_every_test_of_every_member() -> None:
    """The over-selection seen on click (225 tests for one case): a class without tests of its
    own gets at most `limit` tests, spread so that as many members as possible are run."""
    by_qualname = {f"pkg.Big.m{number}": tuple(f"t::m{number}_{index}" for index in range(30))
                   for number in range(20)}
    wide = TestMap(tests=tuple(sorted(t for ts in by_qualname.values() for t in ts)),
                   by_qualname=by_qualname)
    validator = _validator()
    validator.test_map = wide
    chosen = validator.select(_class_target("pkg.Big"))
    assert len(chosen) == 10
    assert len({test.split("_")[0] for test in chosen}) == 10  # ten different members
    assert validator.select(_class_target("pkg.Big")) == chosen  # seeded: the same each time
    validator.limit = 3
    assert len(validator.select(_class_target("pkg.Big"))) == 3


def test_red_herrings_are_guarded_by_their_own_tests() -> None:
    """An agent that wrongly deletes a red herring must fail a selected test."""
    base = fakes.harmless("dead_code", "easy", "add")
    grow = Location(path=fakes.OPS, qualname="calc.ops.Box.grow", kind="method", start_line=5,
                    end_line=6)
    injection = base.model_copy(update={"red_herrings": (grow,)})
    assert _validator().select(injection) == ("t::a", "t::c")


def test_a_module_the_case_does_not_change_selects_nothing() -> None:
    """A module location kept for the span (where a repeated helper lives) would spread tests
    over unrelated code; the same module, changed, is spread over as a class is."""
    base = fakes.harmless("deep_inlining", "easy", "add")
    module = Location(path="calc/box.py", qualname="calc.ops", kind="module", start_line=1,
                      end_line=20)
    unchanged = base.model_copy(update={"locations": (*base.locations, module),
                                        "files": ("calc/elsewhere.py",)})
    assert _validator().select(unchanged) == ("t::a",)
    changed = unchanged.model_copy(update={"files": ("calc/box.py",)})
    assert _validator().select(changed) == ("t::a", "t::b", "t::c")


def test_failure_sentences_name_the_version_and_the_tests() -> None:
    failed = TestRun(requested=("t::a", "t::b"), passed=("t::b",), failed=("t::a",),
                     messages={"t::a": "Traceback\nAssertionError: 5 != 6"})
    text = describe_failure(failed, "smelly", 60)
    assert "1 selected test(s) fail on the smelly version: t::a" in text
    assert "AssertionError: 5 != 6" in text
    hung = TestRun(requested=("t::a",), hung=("t::a",))
    assert "hung on the original version: t::a" in describe_failure(hung, "original", 60)
    late = TestRun(requested=("t::a",), timed_out=True)
    assert "timed out on the smelly version after 60s" in describe_failure(late, "smelly", 60)


@pytest.fixture(scope="module")
def calc(tmp_path_factory: pytest.TempPathFactory) -> Validator:
    """A validator of the calc fixture with the real sandbox (environment and test map cached)."""
    backend = default_backend()
    spec = load_repo_spec(fakes.FIXTURES / "calc.toml")
    checkout = backend.fetch(spec, bench_cache())
    env = backend.prepare(spec, checkout, bench_cache())
    runner = backend.runner("local", spec, env, bench_cache())
    return Validator(spec=spec, env=env, checkout=checkout,
                     test_map=backend.test_map(spec, env, checkout, runner, 0), runner=runner,
                     work_dir=tmp_path_factory.mktemp("validate"), run_tests=backend.run_tests,
                     apply_patch=backend.apply_patch, copy_tree=backend.copy_tree,
                     run_covered=backend.run_covered,
                     run_until_failure=backend.run_until_failure)


def test_tests_that_do_not_run_the_smelly_code_are_rejected(calc: Validator) -> None:
    rejection = calc.validate(fakes.unguarded("feature_envy", "easy", "mul"))
    assert isinstance(rejection, Rejection) and rejection.stage == "adequacy"
    assert "no selected test runs the changed function(s) calc.ops._mul_feature_envy_easy" \
        in rejection.reason
    assert "run 1 of the 2 changed lines" in rejection.reason
    assert "calc/ops.py:13" in rejection.reason  # the helper's `return`, never run
    assert "adequacy" in rejection.timings


def test_a_case_whose_tests_guard_its_code_records_why() -> None:
    """The record's rule, on values: each shortfall named, none when all is run and caught."""
    from smellkit.models import FunctionSensitivity, TestAdequacy

    caught = FunctionSensitivity(qualname="m.f", path="m.py", line=3, tests=("t::a",),
                                 caught_by="t::a")
    good = TestAdequacy(targets=("m.f",), targets_executed=("m.f",), changed_lines=10,
                        changed_lines_executed=9, functions=(caught,), sensitive=True)
    assert good.problems(0.9) == []
    missed = caught.model_copy(update={"caught_by": None})
    bad = good.model_copy(update={"targets_executed": (), "changed_lines_executed": 8,
                                  "lines_not_executed": ("m.py:4", "m.py:7"),
                                  "functions": (missed,), "sensitive": False})
    text = "; ".join(bad.problems(0.9))
    assert "no selected test runs the target(s) m.f" in text
    assert "run 8 of the 10 changed lines" in text and "m.py:4, m.py:7" in text
    assert "no selected test fails when this changed function is broken" in text
    dead = bad.model_copy(update={"exempt": ("m.f",), "changed_lines_executed": 9,
                                  "functions": (), "sensitive": True})
    assert dead.problems(0.9) == []  # a target the case declares dead need not run


def test_copied_code_is_guarded_by_tests_selected_from_the_smelly_version(
        calc: Validator) -> None:
    """The case centres on `mul`, whose tests never run the copy of `add` in a new module: the
    first selection falls short, the smelly version's coverage finds `add`'s test."""
    injection = fakes.copied()
    assert calc.select(injection) == ("tests/test_ops.py::test_mul",)
    case = calc.validate(injection)
    assert isinstance(case, Case), case
    assert case.tests == ("tests/test_ops.py::test_add", "tests/test_ops.py::test_mul")
    adequacy = case.test_adequacy
    assert adequacy is not None and adequacy.reselected and adequacy.sensitive
    assert adequacy.targets_executed == ("calc._arith.plus",)
    assert adequacy.changed_lines == adequacy.changed_lines_executed == 4
    assert {item.qualname: item.caught_by for item in adequacy.functions} == {
        "calc.ops.add": "tests/test_ops.py::test_add",
        "calc._arith.plus": "tests/test_ops.py::test_add"}
    assert from_row(to_row(case)).test_adequacy == adequacy  # survives export and import


def test_copied_code_keeps_to_the_bound_and_stays_adequate(calc: Validator) -> None:
    """With one test allowed per target method, the case centred on `mul` whose copied code
    only `add`'s test runs keeps the one test that runs the copy, not `mul`'s test as well:
    the selection from the smelly version is a cover within the budget, not the first
    selection with more added."""
    import dataclasses

    tight = dataclasses.replace(calc, limit=1)
    assert tight.select(fakes.copied()) == ("tests/test_ops.py::test_mul",)
    case = tight.validate(fakes.copied())
    assert isinstance(case, Case), case
    assert case.tests == ("tests/test_ops.py::test_add",)
    adequacy = case.test_adequacy
    assert adequacy is not None and adequacy.reselected and adequacy.sensitive
    assert adequacy.target_methods == ("calc._arith.plus",) and adequacy.test_budget == 1
    assert not adequacy.problems(MIN_CHANGED_LINES_EXECUTED)


def test_a_smelly_version_that_already_passes_its_checks_is_rejected(calc: Validator) -> None:
    """A check the smelly code already passes (the detector does not see the injected smell: a
    shotgun-surgery case on a constant the detector deliberately leaves alone) would score a
    patch that changes nothing as a fix: such a case is refused before its tests run; a check
    the smelly code fails keeps the case."""
    import dataclasses

    from smellkit.models import StructuralCheck
    from smellkit.project import Project

    project = Project.load(calc.checkout / calc.spec.source_path, use_cache=False, jobs=1)
    holding = dataclasses.replace(calc, project=project)
    already = StructuralCheck(kind="defined", description="`calc.ops.mul` is still defined",
                              params={"qualname": "calc.ops.mul"})
    gone = StructuralCheck(kind="not_defined", description="`calc._arith.plus` is gone",
                           params={"qualname": "calc._arith.plus"})
    rejection = holding.validate(fakes.copied().model_copy(update={"checks": (already, gone)}))
    assert isinstance(rejection, Rejection) and rejection.stage == "smelly", rejection
    assert "already passes its check(s)" in rejection.reason
    assert "`calc.ops.mul` is still defined" in rejection.reason
    assert "`calc._arith.plus` is gone" not in rejection.reason
    assert "smelly" not in rejection.timings and "checks" in rejection.timings
    case = holding.validate(fakes.copied().model_copy(update={"checks": (gone,)}))
    assert isinstance(case, Case), case

