"""Localization on hand-written changes: which qualified names a diff touches on each side."""

from __future__ import annotations

import ast
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from smellkit.evaluate.patches.parse import parse_patch
from smellkit.evaluate.patches.treediff import diff_trees
from smellkit.evaluate.signals.localize import (
    Side,
    Touched,
    changed_files,
    decorated_start,
    diff_lines,
    split_lines,
    touched,
    within,
)
from smellkit.project import Project
from tests.evaluate.helpers import make_tree

MODULE = '''\
"""A module."""

import os


@decorate
@configure(
    level=1,
)
def outer(value):
    def inner():
        return [item for item in value]
    return inner


class Shape:
    sides = 4

    class Meta:
        def describe(self):
            return "meta"

    def area(self):
        if self.sides:
            def helper():
                return os.sep
            return helper()
        return 0


handler = lambda: 1
'''


def _touch(root: Path, before: dict[str, str], after: dict[str, str]) -> Touched:
    """What turning `before` into `after` touches (`pkg/` files, analysed from the root)."""
    old = make_tree(root / "old", before)
    new = make_tree(root / "new", after)
    old_side = Side(Project.load(old, use_cache=False, jobs=1))
    new_side = Side(Project.load(new, use_cache=False, jobs=1))
    files = changed_files(parse_patch(diff_trees(old, new)), old, new, old_side, new_side)
    return touched(files, old_side, new_side)


def _replace(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _edit(root: Path, old: str, new: str) -> Touched:
    return _touch(root, {"pkg/__init__.py": "", "pkg/mod.py": MODULE},
                  {"pkg/__init__.py": "", "pkg/mod.py": _replace(MODULE, old, new)})


def test_a_changed_line_names_the_innermost_definition_on_both_sides(tmp_path: Path) -> None:
    found = _edit(tmp_path, 'return "meta"', 'return "other"')
    assert found.old == found.new == {"pkg.mod.Shape.Meta.describe": "pkg.mod"}


def test_a_nested_function_is_named_and_lies_within_its_method(tmp_path: Path) -> None:
    found = _edit(tmp_path, "return os.sep", "return os.linesep")
    assert set(found.names) == {"pkg.mod.Shape.area.helper"}
    assert within("pkg.mod.Shape.area.helper", "pkg.mod", "pkg.mod.Shape.area", False)
    assert within("pkg.mod.Shape.area.helper", "pkg.mod", "pkg.mod.Shape", False)
    assert not within("pkg.mod.Shape.area.helper", "pkg.mod", "pkg.mod.Shape.are", False)


def test_module_level_lines_name_the_module(tmp_path: Path) -> None:
    assert set(_edit(tmp_path, "import os\n", "import os\nimport sys\n").names) == {"pkg.mod"}
    assert set(_edit(tmp_path, "handler = lambda: 1", "handler = lambda: 2").names) == \
        {"pkg.mod"}, "a module-level lambda is module-level code"


def test_class_body_decorator_and_lambda_lines(tmp_path: Path) -> None:
    assert set(_edit(tmp_path, "sides = 4", "sides = 5").names) == {"pkg.mod.Shape"}
    assert set(_edit(tmp_path, "level=1,", "level=2,").names) == {"pkg.mod.outer"}, \
        "a line of a multi-line decorator belongs to the function"
    assert set(_edit(tmp_path, "for item in value", "for item in value if item").names) == \
        {"pkg.mod.outer.inner"}


def test_added_and_deleted_definitions(tmp_path: Path) -> None:
    added = _edit(tmp_path, "        return 0\n",
                  "        return 0\n\n    def perimeter(self):\n        return self.sides\n")
    assert set(added.new) == {"pkg.mod.Shape.perimeter"}
    assert added.old == {}, "a pure insertion deletes nothing"
    deleted = _edit(tmp_path, '    class Meta:\n        def describe(self):\n'
                              '            return "meta"\n\n', "")
    assert set(deleted.old) == {"pkg.mod.Shape.Meta", "pkg.mod.Shape.Meta.describe"}
    assert deleted.new == {}


def test_unchanged_lines_moved_into_another_definition_touch_both(tmp_path: Path) -> None:
    """A class header written above a method takes the method out of its class without
    changing one of its lines: the class it left is touched too."""
    found = _edit(tmp_path, "    def area(self):", "class Solid:\n    def area(self):")
    assert set(found.old) == {"pkg.mod.Shape.area", "pkg.mod.Shape.area.helper"}
    assert set(found.new) == {"pkg.mod.Solid", "pkg.mod.Solid.area", "pkg.mod.Solid.area.helper"}
    assert found.lines == [("pkg/mod.py", "pkg.mod.Solid", "pkg.mod")], \
        "only the written line is a changed line"
    shifted = _edit(tmp_path, '"""A module."""\n', '"""A module."""\n\nVERSION = 1\n')
    assert set(shifted.names) == {"pkg.mod"}, "lines that only move down stay unowned by change"


def test_created_deleted_and_renamed_files_touch_every_definition(tmp_path: Path) -> None:
    base = {"pkg/__init__.py": "", "pkg/keep.py": "X = 1\n"}
    created = _touch(tmp_path / "created", base, {**base, "pkg/mod.py": MODULE})
    assert created.old == {}
    assert set(created.new) >= {"pkg.mod", "pkg.mod.outer", "pkg.mod.outer.inner",
                                "pkg.mod.Shape.Meta.describe", "pkg.mod.Shape.area.helper"}
    removed = _touch(tmp_path / "removed", {**base, "pkg/mod.py": MODULE}, base)
    assert set(removed.old) == set(created.new) and removed.new == {}
    renamed = _touch(tmp_path / "renamed", {**base, "pkg/mod.py": MODULE},
                     {**base, "pkg/shapes.py": MODULE})
    assert "pkg.mod.Shape.area" in renamed.old and "pkg.shapes.Shape.area" in renamed.new, \
        "moved code is touched on both sides"
    assert not renamed.lines, "a pure rename changes no line"


def test_non_python_files_count_lines_but_name_nothing(tmp_path: Path) -> None:
    base = {"pkg/__init__.py": "", "notes.txt": "one\ntwo\n"}
    found = _touch(tmp_path, base, {**base, "notes.txt": "one\nthree\nfour\n"})
    assert found.names == {}
    assert found.lines == [("notes.txt", None, None)] * 3  # one deleted, two added


def test_a_result_file_that_does_not_parse_is_an_error(tmp_path: Path) -> None:
    found = _edit(tmp_path, "return 0", "return (")
    assert any("localization" in error and "pkg/mod.py" in error for error in found.errors)
    assert found.new == {"pkg.mod": "pkg.mod"}, "its added lines count at module level"
    assert "pkg.mod.Shape.area" in found.old, "the old side is still mapped"


def test_diff_lines_and_line_splitting() -> None:
    assert split_lines("a\r\nb\rc\n") == ["a", "b", "c"]
    assert split_lines("a\x0cb\n") == ["a\x0cb"], "a form feed does not end a line"
    assert diff_lines(["a", "b", "c"], ["a", "x", "c", "d"]) == ((2,), (2, 4))
    assert diff_lines(["a", "", "b"], ["a", "", "  ", "b", "c"]) == ((), (5,)), \
        "blank lines are never changed lines"


# -- property: a random edit lands on the definition containing it --------------------------


@st.composite
def modules(draw: st.DrawFn) -> str:
    """A module of nested classes and functions, some decorated, each with a few statements."""
    lines: list[str] = ["import os", ""]
    counter = iter(range(1000))

    def block(indent: int, depth: int) -> None:
        for _ in range(draw(st.integers(1, 3))):
            pad = " " * indent
            kind = draw(st.sampled_from(["stmt", "def", "class"] if depth < 3 else ["stmt"]))
            if kind == "stmt":
                lines.append(f"{pad}value_{next(counter)} = {draw(st.integers(0, 9))}")
                continue
            for _ in range(draw(st.integers(0, 2))):
                lines.append(f"{pad}@decorator_{next(counter)}")
            keyword = "def" if kind == "def" else "class"
            args = "(self)" if kind == "def" else ""
            lines.append(f"{pad}{keyword} name_{next(counter)}{args}:")
            block(indent + 4, depth + 1)

    block(0, 0)
    return "\n".join(lines) + "\n"


def _expected(text: str, line: int) -> str:
    """The innermost definition holding `line` (decorators included), by ast, else the module."""
    best: tuple[int, str] = (0, "pkg.mod")

    def visit(node: ast.AST, prefix: str) -> None:
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.ClassDef)):
                name = f"{prefix}.{child.name}"
                start = min([child.lineno, *(item.lineno for item in child.decorator_list)])
                if start <= line <= (child.end_lineno or child.lineno) and start >= best[0]:
                    best = (start, name)
                visit(child, name)
            else:
                visit(child, prefix)

    visit(ast.parse(text), "pkg.mod")
    return best[1]


@settings(max_examples=40, deadline=None)
@given(modules(), st.data())
def test_a_random_edit_lands_on_the_definition_holding_it(text: str, data: st.DataObject) -> None:
    lines = text.splitlines()
    number = data.draw(st.sampled_from([n for n, line in enumerate(lines, 1) if line.strip()]))
    edited = list(lines)
    edited[number - 1] += "  # edited"
    with tempfile.TemporaryDirectory() as scratch:
        found = _touch(Path(scratch), {"pkg/__init__.py": "", "pkg/mod.py": text},
                       {"pkg/__init__.py": "", "pkg/mod.py": "\n".join(edited) + "\n"})
    expected = _expected(text, number)
    assert set(found.old) == set(found.new) == {expected}


def test_decorators_are_counted_up_to_the_definitions_own(tmp_path: Path) -> None:
    text = ("@first\ndef f():\n    pass\n@second\n@third(\n    1,\n)\ndef g():\n    pass\n")
    project = Project.load(make_tree(tmp_path, {"mod.py": text}), use_cache=False, jobs=1)
    lines = split_lines(text)
    starts = {name: decorated_start(item, lines)
              for name, item in project.index.definitions.items()}
    assert starts == {"mod.f": 1, "mod.g": 4}
    assert Side(project).owners("mod.py")[1:] == ["mod.f"] * 3 + ["mod.g"] * 6
