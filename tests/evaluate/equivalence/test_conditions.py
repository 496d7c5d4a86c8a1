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


def test_a_local_variable_is_read_as_the_value_it_was_taken_from() -> None:
    """An input sets a parameter or an attribute, never a local: a local taken from a getter of
    the receiver, from a parameter through method calls, or from an attribute names that value;
    a local assigned twice, or from anything else, is left as it is."""
    source = textwrap.dedent('''
        def help(self, ctx, value):
            default_value = self.get_default(ctx, call=False)
            norm = value.strip().lower()
            envvar = self.envvar
            shown = False
            if ctx.flag:
                shown = True
            computed = compute(value)
            if shown and default_value is not None:
                pass
            if norm in {"no", "off"} or envvar is None or computed == 2:
                pass
    ''')
    tests = read_tests(source, 2)
    assert [("shown", "truthy", None), ("default", "is not", None)] in tests
    assert [("value", "in", ["no", "off"]), ("envvar", "is", None), ("computed", "==", 2)
            ] in tests
