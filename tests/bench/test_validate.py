"""Test selection for a case and the sentences that explain a rejected one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from smellkit.bench.pipeline import covered_with_owners
from smellkit.bench.validate import Validator, describe_failure
from smellkit.config import load_repo_spec
from smellkit.models import Location, Target
from smellkit.sandbox.testmap import TestMap
from smellkit.sandbox.testrun import TestRun
from tests.bench import fakes

MAP = TestMap(tests=("t::a", "t::b", "t::c"), by_qualname={
    "calc.ops.add": ("t::a",), "calc.ops.Box.size": ("t::b",), "calc.ops.Box.grow": ("t::c",)})


def _unused(*args: Any) -> Any:
    raise AssertionError("not called when selecting")


def _validator() -> Validator:
    return Validator(spec=load_repo_spec(fakes.FIXTURES / "calc.toml"), env=None,  # type: ignore[arg-type]
                     checkout=Path("."), test_map=MAP, runner=None,  # type: ignore[arg-type]
                     work_dir=Path("."), run_tests=_unused, apply_patch=_unused,
                     copy_tree=_unused)


def test_owners_of_covered_code_count_as_covered() -> None:
    found = covered_with_owners(MAP.covered())
    assert {"calc.ops.Box", "calc.ops", "calc", "calc.ops.Box.size"} <= found
    assert "calc.ops.Other" not in found


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
