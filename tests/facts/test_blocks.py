"""Function shapes: qualified names, nesting depth, and the extractable blocks of long functions."""

from __future__ import annotations

import ast
import pickle
import textwrap
from pathlib import Path

import pytest

from smellkit.facts import blocks
from smellkit.facts.blocks import Block, FunctionShape, function_blocks
from smellkit.project import Project


@pytest.fixture
def any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Shape every function, however short, so the cases can stay small."""
    monkeypatch.setattr(blocks, "MIN_FUNCTION_LINES", 1)


def shapes(source: str, module: str = "m") -> dict[str, FunctionShape]:
    found = function_blocks(ast.parse(textwrap.dedent(source)), module)
    return {shape.qualname: shape for shape in found}


def spans(shape: FunctionShape) -> list[tuple[int, int]]:
    return [(block.start_line, block.end_line) for block in shape.blocks]


REPORT = '''\
def report(orders, customers, out):
    """Build a report."""
    # totals per customer
    totals = {}
    for order in orders:
        key = order.customer_id
        amount = order.quantity * order.price
        if order.discount:
            amount -= amount * order.discount
        totals[key] = totals.get(key, 0) + amount
    # names
    names = {}
    for customer in customers:
        full = customer.first + " " + customer.last
        if customer.title:
            full = customer.title + " " + full
        names[customer.id] = full
    # lines
    lines = []
    for key, total in sorted(totals.items()):
        name = names.get(key, "?")
        text = f"{name}: {total:.2f}"
        if total > 1000:
            text += " *"
        lines.append(text)
    # header
    header = "Report"
    underline = "=" * len(header)
    out.write(header + "\\n")
    out.write(underline + "\\n")
    for line in lines:
        out.write(line + "\\n")
    return len(lines)
'''


def test_blocks_of_a_function_with_inlined_steps(any_size: None) -> None:
    shape = shapes(REPORT)["m.report"]
    assert shape.blocks == (
        Block(4, 10, 7, 0, ("orders",), ("totals",), ("amount", "key", "order"), ("order",)),
        Block(12, 17, 6, 0, ("customers",), ("names",), ("customer", "full"), ("customer",)),
        Block(19, 25, 7, 0, ("names", "totals"), ("lines",), ("key", "name", "text", "total"),
              ("key", "total")),
        Block(27, 30, 4, 0, ("out",), (), ("header", "underline"), ()),
    )
    assert shape.code_lines == 30  # from the first statement after the docstring
    assert shape.max_depth == 2


def test_short_functions_get_no_shape() -> None:
    assert shapes(REPORT) == {}  # 30 lines of code: under MIN_FUNCTION_LINES
    padded = REPORT.replace("    # names\n", "    # names\n" + "    pass\n" * 10)
    assert list(shapes(padded)) == ["m.report"]


def test_qualified_names_match_the_facts(any_size: None, tmp_path: Path) -> None:
    source = '''\
    import sys

    if sys.platform == "win32":
        def platform_helper(a):
            b = a + 1
            c = b * 2
            return c
    else:
        def platform_helper(a):
            return a

    class Outer:
        def method(self, x):
            def inner(y):
                z = y + x
                return z
            class Local:
                def deep(self):
                    return 1
            return inner(x)
    '''
    found = shapes(source, "pkg.mod")
    assert sorted(found) == ["pkg.mod.Outer.method", "pkg.mod.Outer.method.Local.deep",
                             "pkg.mod.Outer.method.inner", "pkg.mod.platform_helper"]
    assert [shape.start_line for shape in function_blocks(
        ast.parse(textwrap.dedent(source)), "pkg.mod")] == [4, 9, 13, 14, 18]
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(textwrap.dedent(source))
    facts = next(item for item in Project.load(tmp_path, use_cache=False, jobs=1).files
                 if item.module == "pkg.mod")
    definitions = {(item.qualname, item.start_line) for item in facts.definitions}
    assert {(shape.qualname, shape.start_line) for shape in facts.shapes} <= definitions
    assert len(facts.shapes) == 5
    assert pickle.loads(pickle.dumps(facts)).shapes == facts.shapes


def test_nesting_depth_does_not_count_elif(any_size: None) -> None:
    source = '''\
    def f(x):
        if x == 1:
            y = 1
        elif x == 2:
            y = 2
        elif x == 3:
            for i in range(x):
                while i:
                    i -= 1
        else:
            y = 4
        return y

    def flat(x):
        y = x + 1
        return y
    '''
    found = shapes(source)
    assert found["m.f"].max_depth == 3  # elif -> for -> while -> statement
    assert found["m.flat"].max_depth == 0


def test_blocks_never_leave_the_function_or_a_loop_around_them(any_size: None) -> None:
    source = '''\
    def f(items, limit):
        for item in items:
            value = item.value
            scaled = value * 2
            if scaled > limit:
                break
            item.scaled = scaled
        first = items[0]
        doubled = first.value * 2
        if doubled > limit:
            return doubled
        first.doubled = doubled
        return None
    '''
    shape = shapes(source)["m.f"]
    # the loop itself is a block (its break stays inside it); its body is not (break leaves it);
    # the run with `return doubled` is not either
    assert spans(shape) == [(2, 7)]


def test_a_loop_reading_a_name_before_the_block_makes_it_an_output(any_size: None) -> None:
    source = '''\
    def f(rows):
        previous = None
        for row in rows:
            if previous is not None:
                row.link(previous)
            current = row.value
            label = str(current)
            row.label = label
            previous = current
    '''
    block = shapes(source)["m.f"].blocks
    # `previous` is read at the top of the next iteration: an output of the block that binds it
    assert (6, 9) in [(item.start_line, item.end_line) for item in block]
    (inner,) = [item for item in block if item.start_line == 6]
    assert inner.outputs == ("previous",) and inner.locals == ("current", "label")


def test_comprehension_variables_and_globals_are_not_locals(any_size: None) -> None:
    source = '''\
    COUNT = 0

    def f(values):
        global COUNT
        squares = [v * v for v in values]
        total = sum(squares)
        mean = total / len(values)
        print(mean)
        COUNT += 1
        return None
    '''
    shape = shapes(source)["m.f"]
    # `global` leaves the function: no block can hold it, and the global is never a local
    assert all("COUNT" not in block.locals + block.inputs for block in shape.blocks)
    assert all("v" not in block.locals for block in shape.blocks)


def test_rebinding_an_input_is_not_a_local_of_its_own(any_size: None) -> None:
    source = '''\
    def settings(self, width, height, parent):
        if width is None and parent is not None:
            width = parent.width
        self.width = width
        if height is None and parent is not None:
            height = parent.height
        self.height = height
    '''
    assert shapes(source)["m.settings"].blocks == ()


def test_asserts_are_counted(any_size: None) -> None:
    source = '''\
    def test_it(x):
        assert x
        y = x + 1
        assert y > x, "grows"
    '''
    assert shapes(source)["m.test_it"].asserts == 2


def test_every_statement_kind_is_walked(any_size: None) -> None:
    source = '''\
    async def f(subject, stream):
        match subject:
            case {"kind": kind, **rest} if rest:
                handled = kind
            case [first, *others]:
                handled = first
            case Point(x=px) as point:
                handled = point
            case _:
                handled = None
        async with stream as s:
            async for chunk in s:
                try:
                    data = await chunk.read()
                except* ValueError as group:
                    data = group
                finally:
                    s.close()
        lam = lambda q, *a, **k: q + subject
        del lam
        import os.path as osp, json
        from . import sibling
        return handled, osp, json, sibling, data
    '''
    shape = shapes(source)["m.f"]
    assert shape.max_depth == 3 and shape.statements > 15
