"""Clone fingerprints: what makes two statements equal (exactly or up to names), blocks and scopes,
determinism across processes, and the facts that carry them."""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys
import textwrap
from array import array

import pytest

from smellkit.facts import extract
from smellkit.facts.fingerprints import (
    MIN_LINES,
    STATEMENT_WEIGHT,
    WINDOW_WEIGHT,
    Fingerprints,
    fingerprint_module,
    normalised_lines,
    size_of,
)


def fingerprints(source: str, module: str = "m") -> Fingerprints:
    source = textwrap.dedent(source)
    return fingerprint_module(ast.parse(source), source, module)


def column(data: bytes, code: str) -> list[int]:
    values = array(code)
    values.frombytes(data)
    return list(values)


def statements(found: Fingerprints, scope: str) -> list[tuple[int, int, int, int]]:
    """(first line, last line, exact, normal) of each statement of the blocks of `scope`."""
    spans = column(found.spans, "i")
    exact = column(found.exact, "I")
    normal = column(found.normal, "q")
    return [(spans[2 * index], spans[2 * index + 1], exact[index], normal[index])
            for block in found.blocks if block.scope == scope
            for index in range(block.first, block.stop)]


def hashes(source: str, scope: str = "m.f") -> tuple[list[int], list[int]]:
    found = statements(fingerprints(source), scope)
    return [item[2] for item in found], [item[3] for item in found]


BODY = """
def f(orders, month):
    selected = [order for order in orders if order.month == month]
    total = 0
    for order in selected:
        total += order.amount * (1 - order.discount)
    return total / len(selected) if selected else 0
"""


def test_layout_and_comments_do_not_change_the_exact_hash() -> None:
    other = """
    def f(orders, month):
        # the orders of one month
        selected = [order for order in orders
                    if order.month == month]
        total = 0

        for order in selected:  # all of them
            total += order.amount * (1 - order.discount)
        return total / len(
            selected) if selected else 0
    """
    assert hashes(BODY) == hashes(other)


def test_renaming_changes_only_the_exact_hash() -> None:
    renamed = """
    def f(sales, week):
        chosen = [sale for sale in sales if sale.week == week]
        amount = 1
        for sale in chosen:
            amount += sale.price * (2 - sale.rebate)
        return amount / len(chosen) if chosen else 0
    """
    exact, normal = hashes(BODY)
    exact_renamed, normal_renamed = hashes(renamed)
    assert normal == normal_renamed
    assert all(first != second for first, second in zip(exact, exact_renamed))


def test_operators_and_statement_kinds_change_the_normal_hash() -> None:
    changed = """
    def f(orders, month):
        selected = [order for order in orders if order.month != month]
        total = 0
        for order in selected:
            total -= order.amount * (1 - order.discount)
        return total / len(selected) if selected else 0
    """
    _, normal = hashes(BODY)
    _, normal_changed = hashes(changed)
    assert [a == b for a, b in zip(normal, normal_changed)] == [False, True, False, True]


def test_string_contents_are_literals() -> None:
    template = 'def f(x):\n    a = 1\n    b = 2\n    c = 3\n    raise ValueError({})\n'
    first = template.format('"Use 3 to 30 characters, please."')
    second = template.format('"That is not a handle"')
    assert hashes(first)[1] == hashes(second)[1]
    assert hashes(first)[0][-1] != hashes(second)[0][-1]


def test_blocks_are_split_at_imports_and_docstrings_and_kept_when_long() -> None:
    found = fingerprints('''
    """Module docstring."""
    import os

    def f(a):
        """Docstring."""
        x = a + 1
        y = x * 2
        import json
        z = json.dumps(y)
        w = z.upper()
        v = w.lower()
        u = v.strip()
        return u

    def g():
        return 1
    ''')
    scopes = [(block.scope, block.stop - block.first) for block in found.blocks]
    assert ("m.f", 5) in scopes  # the statements after `import json`
    assert ("m.f", 2) not in scopes  # x, y: two lines, under MIN_LINES
    assert all(scope != "m.g" for scope, _ in scopes)
    spans = column(found.spans, "i")
    assert all(spans[2 * block.stop - 1] - spans[2 * block.first] + 1 >= MIN_LINES
               for block in found.blocks)


def test_scopes_are_qualified_as_facts_name_them() -> None:
    found = fingerprints('''
    class Outer:
        def method(self, a):
            def inner(b):
                c = b + 1
                d = c * 2
                e = d - 3
                return e
            f = inner(a)
            g = f + 1
            h = g * 2
            return h
    ''', module="pkg.mod")
    assert {block.scope for block in found.blocks} == {
        "pkg.mod", "pkg.mod.Outer", "pkg.mod.Outer.method", "pkg.mod.Outer.method.inner"}


def test_definitions_record_their_lines_that_are_not_code() -> None:
    found = fingerprints('''
    @decorator(
        option=True,
    )
    def f(
        a,
        b,
    ):
        """Doc.

        More doc.
        """
        return a + b


    def g(a, b):
        return a - b
    ''')
    hidden = column(found.hidden, "i")
    spans = column(found.spans, "i")
    (module,) = [block for block in found.blocks if block.scope == "m"]
    first = module.first
    assert (spans[2 * first], spans[2 * first + 1]) == (2, 13)
    # decorator (3 lines), signature after its first line (3 lines), docstring (4 lines)
    assert dict(zip(hidden[0::2], hidden[1::2])) == {first: 10}


def test_definition_names_do_not_count_for_the_exact_hash() -> None:
    (first,) = statements(fingerprints(BODY), "m")
    (second,) = statements(fingerprints(BODY.replace("def f(", "def g(")), "m")
    assert first == second
    (third,) = statements(fingerprints(BODY.replace("order.amount", "order.total")), "m")
    assert third[2] != first[2] and third[3] == first[3]


def test_data_tables_and_declarations_match_only_when_equal() -> None:
    table = 'def f():\n    t = {\n        "a": 1,\n        "b": 2,\n    }\n    return t\n'
    other = 'def f():\n    t = {\n        "c": 3,\n        "d": 4,\n    }\n    return t\n'
    assert hashes(table)[1] != hashes(other)[1]
    settings = "a: int = 1\nb: int = 2\nc: int = 3\nd: int = 4\n"
    others = "e: int = 5\nf: int = 6\ng: int = 7\nh: int = 8\n"
    assert hashes(settings, "m")[1] != hashes(others, "m")[1]


def test_weights_and_anchors() -> None:
    found = fingerprints(BODY)
    normal = column(found.normal, "q")
    anchors = column(found.anchors, "q")
    assert all(size_of(value) >= 0 for value in normal)
    (block,) = [block for block in found.blocks if block.scope == "m.f"]
    weights = [size_of(normal[index]) + STATEMENT_WEIGHT for index in range(block.first,
                                                                             block.stop)]
    for offset, index in enumerate(range(block.first, block.stop)):
        has_window = sum(weights[offset:]) >= WINDOW_WEIGHT
        assert (anchors[index] != 0) == has_window
    again = fingerprints(BODY.replace("orders", "items"))
    assert column(again.anchors, "q") == anchors  # renaming keeps the anchors


def test_hashes_are_the_same_in_another_process() -> None:
    code = ("import ast, sys; from smellkit.facts.fingerprints import fingerprint_module as f; "
            "s = sys.stdin.read(); r = f(ast.parse(s), s, 'm'); "
            "sys.stdout.write((r.exact + r.normal + r.anchors).hex())")
    source = textwrap.dedent(BODY)
    outputs = {subprocess.run([sys.executable, "-c", code], input=source, text=True,
                              capture_output=True, check=True,
                              env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout
               for seed in ("1", "2")}
    here = fingerprints(BODY)
    assert outputs == {(here.exact + here.normal + here.anchors).hex()}


def test_normalised_lines_keep_line_numbers() -> None:
    source = "a = 1  # one\r\nb = '#x'\r\n\r\nc = (\r\n    2)\r\n"
    exact, normal = normalised_lines(source)
    assert exact[:5] == [b"a=1", b"b='", b"", b"c=(", b"2)"]
    assert normal[:2] == [b"=", b"='"]


def test_facts_carry_the_fingerprints_and_pickle_small() -> None:
    source = textwrap.dedent(BODY) * 3
    facts = extract(ast.parse(source), source, "m.py", "m", False)
    assert isinstance(facts.fingerprints, Fingerprints)
    assert facts.fingerprints.blocks
    assert len(pickle.dumps(facts.fingerprints)) < 2000


@pytest.mark.parametrize("source", ["", "x = 1\n", "def f():\n    pass\n", "if x:\n    pass\n"])
def test_small_modules_have_no_blocks(source: str) -> None:
    assert fingerprints(source).blocks == ()


def test_every_compound_statement() -> None:
    source = '''
    async def handle(command, stream):
        match command.split():
            case ["get", key]:
                value = await stream.get(key)
                print(value)
                return value
            case ["put", key, value]:
                await stream.put(key, value)
                return None
            case _:
                pass
        try:
            async with stream.lock() as lock:
                async for item in stream:
                    lock.touch(item)
                    print(item)
        except* ValueError as group:
            print(group)
        else:
            while stream.pending():
                stream.flush()
        finally:
            stream.close()
    '''
    found = fingerprints(source)
    assert {block.scope for block in found.blocks} == {"m", "m.handle"}
    assert statements(found, "m.handle")


def test_three_statements_of_two_forms_are_a_body_but_longer_repetitions_match_exactly() -> None:
    def pair(body: str, renames: dict[str, str]) -> str:
        copy = body.replace("def f(", "def g(")
        for old, new in renames.items():
            copy = copy.replace(old, new)
        return textwrap.dedent(body) + "\n\n" + textwrap.dedent(copy)

    short = """
    def f(self, node):
        self.write("{")
        for idx, item in enumerate(node.items):
            if idx:
                self.write(", ")
            self.visit(item.key)
            self.write(": ")
            self.visit(item.value)
        self.write("}")
    """
    _, normal = hashes(pair(short, {"idx": "position", "item": "entry"}), scope="m")
    assert normal[0] == normal[1]  # a renamed copy (type 2)
    repetition = """
    def f(self, node):
        assert node.a == 1
        assert node.b == 2
        for item in node.items:
            assert item.key
            assert item.value
            assert item.size
        assert node.c == 3
    """
    _, normal = hashes(pair(repetition, {"item": "entry"}), scope="m")
    assert normal[0] != normal[1]  # eight asserts alike are not a copy unless equal
