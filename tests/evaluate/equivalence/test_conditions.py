"""The tests a function's code makes, read for the generator: the clauses of one boolean
expression together, each naming the value it reads and the constant it is compared with."""

from __future__ import annotations

import textwrap

from smellkit.evaluate.equivalence.conditions import read_tests

SOURCE = textwrap.dedent('''
    import os

    def other(value):
        return value == 3

    class Argument:
        def __init__(self, decls, **attrs):
            if attrs.get("default") is not None and -1 == self.nargs:
                raise TypeError("no default for nargs=-1")
            if not (attrs["multiple"] or self.count > 2):
                pass
            if self.mode in ("r", "rb"):
                if width <= 0:
                    pass
            if __debug__ and compute(self.size) == os.sep:
                pass
''')


def _def_line(name: str) -> int:
    return next(number for number, line in enumerate(SOURCE.splitlines(), 1)
                if line.strip().startswith(f"def {name}("))


def test_the_clauses_of_one_expression_are_one_test() -> None:
    tests = read_tests(SOURCE, _def_line("__init__"))
    # a constant on the left is read as on the right; a lookup by key names the key
    assert tests[0] == [("default", "is not", None), ("nargs", "==", -1)]
    # a negated expression negates each clause it can; a value tested alone is a flag
    assert [("multiple", "falsy", None), ("count", "<=", 2)] in tests
    # `in` a tuple of constants; an `if` directly inside another joins its test
    assert [("mode", "in", ["r", "rb"])] in tests
    assert [("mode", "in", ["r", "rb"]), ("width", "<=", 0)] in tests
    # nothing names a value in `__debug__` or a call's result: no clause of its own
    assert all(name not in ("__debug__", "compute", "size", "sep")
               for test in tests for name, _, _ in test)


def test_only_the_function_on_the_line_given_is_read() -> None:
    assert read_tests(SOURCE, _def_line("other")) == [[("value", "==", 3)]]
    assert read_tests(SOURCE, 1) == []
    assert read_tests("def broken(:\n", 1) == []
