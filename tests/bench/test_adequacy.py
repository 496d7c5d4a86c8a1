"""Reading a coverage run against a smelly patch, and breaking functions on purpose: on texts and
hand-made coverage, no test runs (the validator's tests run real ones)."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from smellkit.bench.adequacy import (
    SmellyCode,
    SourceFile,
    added_lines,
    break_function,
    measure,
    module_of,
)
from smellkit.injectors.patches import make_patch
from smellkit.models import Candidate, Injection, Location, Target

ORIGINAL = '''"""A module."""


def keep(x):
    return x
'''
SMELLY = '''"""A module."""


def keep(x):
    y = x
    return y


def _legacy(x):
    return keep(x)


class Shape:
    def area(self):
        raise NotImplementedError

    def side(self):
        """The side."""
        return 2

    @property
    def radius(self):
        raise AttributeError("a shape has no radius")
'''


def _injection(smell: str, dead: tuple[str, ...] = ()) -> Injection:
    def location(name: str, start: int, end: int) -> Location:
        return Location(path="pkg/mod.py", qualname=name, kind="function", start_line=start,
                        end_line=end)

    keep = location("pkg.mod.keep", 4, 6)
    return Injection(
        id="x", smell=smell, difficulty="easy", seed=0,
        candidate=Candidate(smell=smell, target=keep, reason="r"),
        smelly_patch=make_patch({"pkg/mod.py": ORIGINAL}, {"pkg/mod.py": SMELLY}),
        ground_truth_patch=make_patch({"pkg/mod.py": SMELLY}, {"pkg/mod.py": ORIGINAL}),
        targets=(Target(location=keep, level="method"),
                 *(Target(location=location(name, 9, 10), level="method") for name in dead)),
        files=("pkg/mod.py",), checks=(), instructions={})


@pytest.fixture
def smelly(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(SMELLY)
    return tmp_path


def test_added_lines_are_the_new_versions_line_numbers() -> None:
    patch = make_patch({"a.py": "1\n2\n3\n", "gone.py": "x\n"},
                       {"a.py": "1\nTWO\n3\n4\n", "new.py": "n\n"})
    assert added_lines(patch) == {"a.py": {2, 4}, "new.py": {1}}
    assert module_of("pkg/__init__.py", Path("/")) == "pkg"
    assert module_of("pkg/sub/m.py", Path("/")) == "pkg.sub.m"


def test_a_source_path_that_is_the_package_names_modules_from_above_it(smelly: Path) -> None:
    """A flat layout's spec names the package folder itself (`source-path = "pkg"`), so the
    patch's paths are `mod.py`; the project calls that module `pkg.mod`, and so must the
    measure, or no target is ever found run (every case of such a repository was refused)."""
    (smelly / "pkg" / "__init__.py").write_text("")
    root = smelly / "pkg"
    assert module_of("mod.py", root) == "pkg.mod" and module_of("__init__.py", root) == "pkg"
    injection = _injection("feature_envy")
    flat = injection.model_copy(update={
        "smelly_patch": injection.smelly_patch.replace("pkg/mod.py", "mod.py"),
        "targets": tuple(target.model_copy(update={"location": target.location.model_copy(
            update={"path": "mod.py"})}) for target in injection.targets)})
    found = measure(SmellyCode.read(root, flat), flat, {"mod.py": {5: ("t::a",)}}, ["t::a"])
    assert found.adequacy.targets_executed == ("pkg.mod.keep",)


def test_changed_lines_are_executable_statements(smelly: Path) -> None:
    code = SmellyCode.read(smelly, _injection("feature_envy"))
    # `y = x` and `return y` of keep; _legacy's def and return; the class, the two defs and
    # their bodies (the docstring is no statement)
    assert code.changed == {"pkg/mod.py": {5, 6, 9, 10, 13, 14, 15, 17, 19, 21, 22, 23}}


def test_imports_for_type_checkers_are_no_changed_lines(tmp_path: Path) -> None:
    """An `if TYPE_CHECKING:` block never runs (a moved function's annotations need it in its
    new module): its lines are left out, as coverage's users exclude them."""
    text = ("import typing as t\n\nif t.TYPE_CHECKING:\n    import typing_extensions as te\n\n"
            "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import os\n\n\n"
            "def keep(x):\n    return x\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(text)
    injection = _injection("deep_inlining").model_copy(update={
        "smelly_patch": make_patch({"pkg/mod.py": ""}, {"pkg/mod.py": text})})
    assert SmellyCode.read(tmp_path, injection).changed == {"pkg/mod.py": {1, 6, 12, 13}}


def test_targets_lines_and_functions_from_the_tests_that_ran(smelly: Path) -> None:
    lines = {"pkg/mod.py": {4: ("",), 5: ("t::a",), 6: ("t::a", "t::other"), 9: ("",),
                            13: ("",), 14: ("",), 17: ("",)}}
    found = measure(SmellyCode.read(smelly, _injection("feature_envy")), _injection(
        "feature_envy"), lines, ["t::a"])
    adequacy = found.adequacy
    assert adequacy.targets_executed == ("pkg.mod.keep",)
    # stubs: they only raise (an interface's NotImplementedError, a hidden attribute)
    assert adequacy.exempt == ("pkg.mod.Shape.area", "pkg.mod.Shape.radius")
    assert adequacy.changed_lines == 7  # the stubs (14, 15 and 21 to 23) left out
    assert adequacy.lines_not_executed == ("pkg/mod.py:10", "pkg/mod.py:19")
    assert {item.qualname: item.tests for item in adequacy.functions} == {
        "pkg.mod.keep": ("t::a",), "pkg.mod._legacy": (), "pkg.mod.Shape.side": ()}
    assert not adequacy.sensitive  # two changed functions no test runs
    assert [function.qualname for function, _ in found.to_break] == ["pkg.mod.keep"]
    assert found.runners == {"pkg.mod.keep": {"t::a"}}  # t::other was not selected


def test_a_target_made_of_stubs_alone_need_not_run(tmp_path: Path) -> None:
    """A pure interface (marshmallow's FieldABC: abstract methods whose bodies only pass) runs
    no code of its own, whatever the tests do: it is exempt, as its stubs are."""
    text = ("from abc import ABC, abstractmethod\n\n\nclass Port(ABC):\n    @abstractmethod\n"
            "    def read(self):\n        pass\n\n    @abstractmethod\n"
            "    def write(self, data):\n        pass\n\n\nclass Pipe(Port):\n"
            "    def read(self):\n        return 1\n\n    def write(self, data):\n"
            "        raise NotImplementedError\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(text)
    port = Location(path="pkg/mod.py", qualname="pkg.mod.Port", kind="class", start_line=4,
                    end_line=11)
    pipe = port.model_copy(update={"qualname": "pkg.mod.Pipe", "start_line": 14,
                                   "end_line": 19})
    injection = _injection("interface_segregation").model_copy(update={
        "smelly_patch": make_patch({"pkg/mod.py": ""}, {"pkg/mod.py": text}),
        "targets": (Target(location=port, level="class"),)})
    code = SmellyCode.read(tmp_path, injection)
    imported = {line: ("",) for line in (1, 4, 5, 6, 9, 10, 14, 15, 18)}  # run at import
    lines = {"pkg/mod.py": {**imported, 16: ("t::a",)}}
    adequacy = measure(code, injection, lines, ["t::a"]).adequacy
    assert "pkg.mod.Port" in adequacy.exempt and adequacy.targets_executed == ()
    assert adequacy.problems(0.9, breaks=False) == []
    # a target with code of its own must still run
    injection = injection.model_copy(update={"targets": (Target(location=pipe, level="class"),)})
    adequacy = measure(code, injection, {"pkg/mod.py": imported}, ["t::a"]).adequacy
    assert "pkg.mod.Pipe" not in adequacy.exempt
    assert adequacy.problems(0.9, breaks=False)[0] == \
        "no selected test runs the target(s) pkg.mod.Pipe"


def test_a_function_run_while_tests_load_serves_every_selected_test(smelly: Path) -> None:
    """`_legacy` runs only at collection (a registry filled at import): no test context, yet
    breaking it breaks loading every selected test, so all of them are its tests."""
    lines = {"pkg/mod.py": {5: ("t::a",), 6: ("t::a",), 10: ("",)}}
    injection = _injection("feature_envy")
    found = measure(SmellyCode.read(smelly, injection), injection, lines, ["t::b", "t::a"])
    tests = {item.qualname: item.tests for item in found.adequacy.functions}
    assert tests["pkg.mod._legacy"] == ("t::a", "t::b") and tests["pkg.mod.keep"] == ("t::a",)


def test_code_a_dead_code_case_declares_dead_need_not_run(smelly: Path) -> None:
    injection = _injection("dead_code", dead=("pkg.mod._legacy",))
    lines = {"pkg/mod.py": {5: ("t::a",), 6: ("t::a",), 9: ("",), 13: ("",), 14: ("",),
                            17: ("",), 18: ("t::a",), 19: ("t::a",)}}
    adequacy = measure(SmellyCode.read(smelly, injection), injection, lines,
                       ["t::a"]).adequacy
    assert "pkg.mod._legacy" in adequacy.exempt and "pkg.mod.keep" in adequacy.exempt
    assert adequacy.changed_lines == adequacy.changed_lines_executed == 3  # 13, 17, 19
    assert [item.qualname for item in adequacy.functions] == ["pkg.mod.Shape.side"]
    assert adequacy.problems(0.9) == ["no selected test fails when this changed function is "
                                      "broken (body replaced by `raise RuntimeError`): "
                                      "pkg.mod.Shape.side"]  # measured, not yet broken


BROKEN_KINDS = '''import functools


def plain(a, b=(1,
                2)):
    """Kept: help text may be read from a docstring."""
    total = a + b[0]
    return total  # done


def gen(n):
    for item in range(n):
        yield item


async def coro():
    return 1


async def agen():
    yield 1


def one(): return 1


class K:
    @functools.lru_cache
    def cached(self): return 3

    def outer(self):
        def inner():
            yield 1
        return list(inner())
'''


def _load(text: str) -> ModuleType:
    module = ModuleType("broken")
    exec(compile(text, "broken.py", "exec"), module.__dict__)
    return module


@pytest.mark.parametrize(("name", "call"), [
    ("broken.plain", lambda m: m.plain(1)),
    ("broken.gen", lambda m: list(m.gen(3))),
    ("broken.coro", lambda m: asyncio.run(m.coro())),
    ("broken.agen", lambda m: asyncio.run(_drain(m.agen()))),
    ("broken.one", lambda m: m.one()),
    ("broken.K.cached", lambda m: m.K().cached()),
    ("broken.K.outer", lambda m: m.K().outer()),
    ("broken.K.outer.inner", lambda m: m.K().outer()),
])
def test_a_broken_function_raises_and_keeps_its_kind(tmp_path: Path, name: str,
                                                     call: Any) -> None:
    (tmp_path / "broken.py").write_text(BROKEN_KINDS)
    source = SourceFile.read(tmp_path, "broken.py")
    assert source is not None
    (function,) = [item for item in source.functions if item.qualname == name]
    call(_load(BROKEN_KINDS))  # works before breaking
    module = _load(break_function(source.text, function))
    with pytest.raises(RuntimeError, match="broken on purpose"):
        call(module)
    if name == "broken.gen":
        assert inspect.isgeneratorfunction(module.gen)
    if name == "broken.plain":
        assert module.plain.__doc__ == "Kept: help text may be read from a docstring."
        assert module.gen(2) is not None and list(module.gen(2)) == [0, 1]  # others intact


async def _drain(generator: Any) -> list[Any]:
    return [item async for item in generator]


def test_breaking_keeps_line_endings_and_other_text(tmp_path: Path) -> None:
    text = 'def f():\r\n    x = "é"\r\n    return x\r\n\r\n\r\ndef g():\r\n    return 2\r\n'
    (tmp_path / "m.py").write_bytes(text.encode())
    source = SourceFile.read(tmp_path, "m.py")
    assert source is not None and source.text == text
    (f,) = [item for item in source.functions if item.qualname == "m.f"]
    broken = break_function(source.text, f)
    assert broken.startswith("def f():\r\n    raise RuntimeError(") and broken.endswith(
        "\r\n\r\n\r\ndef g():\r\n    return 2\r\n")
