"""Data-clump injection writes what the repository's authors would: the lines it lengthens
within the repository's line length, laid out as black lays out its own (the limit read from
the repository's configuration), one class's fields in one order (its constructor's), and a
class's bodies in two modules only where one calls the other."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from smellkit.injectors.base import InjectionContext
from smellkit.injectors.data_clumps.edit import FunctionPlan, SitePlan, explode_module
from smellkit.injectors.data_clumps.fields import Reader, field_order
from smellkit.injectors.data_clumps.spread import forwarding
from smellkit.injectors.data_clumps.wrap import (
    DEFAULT_LINE_LENGTH,
    layout_of,
    line_length,
    wrapped_call,
    wrapped_calls,
    wrapped_signature,
)
from smellkit.project import Project


@pytest.mark.parametrize("files,expected", [
    ({}, DEFAULT_LINE_LENGTH),
    ({"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}, 100),
    ({"pyproject.toml": "[tool.black]\nline-length = 79\n"}, 79),
    ({"pyproject.toml": "[tool.ruff]\nsrc = ['src']\n"}, DEFAULT_LINE_LENGTH),
    ({"setup.cfg": "[flake8]\nmax-line-length = 99\n"}, 99),
    ({"setup.cfg": "[flake8]\nselect = B, E, F, W, B9\nignore =\n    E203\n    E501\n"
                   "max-line-length = 80\n"}, 88),  # click: bugbear's B950 allows 10% more
    ({"tox.ini": "[flake8]\nmax-line-length = 120\n"}, 120),
    ({"pyproject.toml": "not toml [", "setup.cfg": "[flake8]\nmax-line-length = 90\n"}, 90),
])
def test_line_length_is_the_repository_s(tmp_path: Path, files: dict[str, str],
                                         expected: int) -> None:
    """Read beside the analysed `src/` folder, as a checkout of a src layout has it."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "setup.py").write_text("")
    for name, text in files.items():
        (root / name).write_text(text)
    assert line_length(root / "src") == expected


def _function(code: str) -> cst.FunctionDef:
    node = cst.parse_statement(textwrap.dedent(code))
    assert isinstance(node, cst.FunctionDef)
    return node


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def test_a_long_signature_gets_its_parameters_on_a_line_of_their_own() -> None:
    function = _function("def compile_rules(environment: 'Environment', block_start_string, "
                         "variable_start_string) -> t.List[str]:\n    return []\n")
    assert _code(wrapped_signature(function, 88)).splitlines()[:3] == [
        "def compile_rules(",
        "    environment: 'Environment', block_start_string, variable_start_string",
        ") -> t.List[str]:"]
    assert wrapped_signature(function, 200) is function


def test_a_longer_one_gets_one_parameter_per_line_with_a_trailing_comma() -> None:
    function = _function("def f(first_parameter_name, second_parameter_name, *, "
                         "third_parameter_name=None, **rest):\n    pass\n")
    assert _code(wrapped_signature(function, 60, indent=4)).splitlines()[:6] == [
        "def f(",
        "    first_parameter_name,",
        "    second_parameter_name,",
        "    *,",
        "    third_parameter_name=None,",
        "    **rest,"]


def test_a_signature_spread_over_lines_stays_so() -> None:
    function = _function("def f(\n    a,\n    b,\n):\n    pass\n")
    assert layout_of(function) == "each"
    assert layout_of(_function("def f(\n    a, b\n):\n    pass\n")) == "line"
    assert layout_of(_function("def f(a, b):\n    pass\n")) is None
    wrapped = wrapped_signature(function, 88, layout="each")
    assert _code(wrapped).splitlines()[:4] == ["def f(", "    a,", "    b,", "):"]


def test_a_comment_among_the_parameters_keeps_the_signature_as_it_is() -> None:
    function = _function("def f(a,  # the first\n      b, c, d, e, f, g):\n    pass\n")
    assert wrapped_signature(function, 10) is function


def test_a_long_call_is_wrapped_relative_to_its_line() -> None:
    call = cst.parse_expression("get_lexer(self, self.block_start_string, "
                                "self.variable_start_string, self.comment_start_string)")
    assert isinstance(call, cst.Call)
    one = _code(wrapped_call(call, "    ", 100))
    assert one == ("get_lexer(\n        self, self.block_start_string, "
                   "self.variable_start_string, self.comment_start_string\n    )")
    each = _code(wrapped_call(call, "        ", 88))
    assert each.splitlines() == ["get_lexer(", "            self,",
                                 "            self.block_start_string,",
                                 "            self.variable_start_string,",
                                 "            self.comment_start_string,", "        )"]


def test_exploding_wraps_what_grows_too_long_and_nothing_else() -> None:
    """The exploded signature and the call that grew are wrapped; lines the explosion does not
    lengthen stay as they were."""
    source = textwrap.dedent("""\
        class Environment:
            def check(self):
                return sanity_check(self)

            def untouched(self):
                return describe(self.block_start_string, self.comment_start_string)


        def sanity_check(environment):
            return environment.block_start_string + environment.comment_start_string
        """)
    fields = ("block_start_string", "comment_start_string")
    plan = FunctionPlan("environment", fields, (None, None))
    sites = {(3, "sanity_check"): SitePlan(0, None, 1, as_keywords=False, names=fields)}
    text = explode_module(source, "app", fields, {"app.sanity_check": plan}, sites, 1, 50)
    assert text is not None
    assert "        return sanity_check(\n            self.block_start_string,\n" in text
    assert "def sanity_check(\n    block_start_string, comment_start_string\n):\n" in text
    assert "    return block_start_string + comment_start_string\n" in text
    assert "        return describe(self.block_start_string, self.comment_start_string)\n" \
        in text  # too long already: not the injection's doing
    assert text.replace("\n\n\n", "\n\n").count("\n") > source.count("\n")


def _reader(qualname: str, calls: tuple[str, ...] = ()) -> Reader:
    return Reader(qualname, qualname.rpartition(".")[0], "v.py", "v", 1, ("low", "high"), calls)


def test_one_class_s_bodies_go_to_two_modules_only_where_one_calls_the_other() -> None:
    """Two unrelated one-line functions of one class in two new modules only pad the span;
    `validate` in one module handing the fields to `format_error` in the other is a chain."""
    alone = [[_reader("v.Length.repr")], [_reader("v.Length.format_error")]]
    assert not forwarding(alone)
    chained = [[_reader("v.Length.validate", ("v.Length.format_error",))],
               [_reader("v.Length.format_error")]]
    assert forwarding(chained)
    assert forwarding(list(reversed(chained)))
    assert forwarding([[_reader("v.Length.repr")], [_reader("v.Range.repr")]])
    assert not forwarding([*chained, [_reader("v.Length.describe")]])


def test_fields_follow_the_constructor_s_parameters(tmp_path: Path) -> None:
    """`error` assigned before `equal` still comes after it, as `Length(min, max, *, equal,
    error)` takes them; fields the constructor does not take keep their assignment order."""
    (tmp_path / "v.py").write_text(textwrap.dedent("""\
        class Length:
            def __init__(self, min=None, max=None, *, equal=None, error=None):
                self.min = min
                self.max = max
                self.error = error
                self.equal = equal
                self.message_min = "too short"


        class Window:
            def __init__(self, bounds, message="window"):
                self.low, self.high = bounds
                self.message = message
        """))
    context = InjectionContext(Project.load(tmp_path, use_cache=False, jobs=1))
    assert field_order(context, "v.Length", {"error", "equal", "max", "min"}) == [
        "min", "max", "equal", "error"]
    assert field_order(context, "v.Length", {"message_min", "error", "min"}) == [
        "min", "error", "message_min"]
    assert field_order(context, "v.Window", {"message", "high", "low"}) == [
        "low", "high", "message"]


CROWDED = """\
class Syntax:
    def __init__(self, open_tag, close_tag):
        self.open_tag = open_tag
        self.close_tag = close_tag


def opening(syntax):
    return syntax.open_tag + syntax.close_tag


def closing(syntax):
    return syntax.close_tag + syntax.open_tag


def both(syntax):
    return {wrapper}opening(syntax), closing(syntax){closer}
"""


@pytest.mark.parametrize("wrapper,closer", [("[", "]"), ("(", ")"), ("", "")])
def test_calls_that_outgrow_a_line_together_are_laid_out_together(wrapper: str,
                                                                   closer: str) -> None:
    """Two calls that each fit but together do not: the list or tuple holding them gets one
    per line; a bare tuple, which has no bracket to break inside, gets each call wrapped."""
    source = CROWDED.format(wrapper=wrapper, closer=closer)
    fields = ("open_tag", "close_tag")
    plans = {f"app.{name}": FunctionPlan("syntax", fields, (None, None))
             for name in ("opening", "closing")}
    sites = {(16, "opening"): SitePlan(0, None, 1, as_keywords=True, names=fields),
             (16, "closing"): SitePlan(0, None, 1, as_keywords=True, names=fields)}
    text = explode_module(source, "app", fields, plans, sites, 2, 80)
    assert text is not None
    assert max(len(line) for line in text.splitlines()) <= 80, text
    tail = text.split("def both(syntax):\n")[1]
    if wrapper:
        assert tail == (f"    return {wrapper}\n"
                        "        opening(open_tag=syntax.open_tag, close_tag=syntax.close_tag),\n"
                        "        closing(open_tag=syntax.open_tag, close_tag=syntax.close_tag),\n"
                        f"    {closer}\n")
    else:
        assert tail.startswith("    return opening(\n        open_tag=syntax.open_tag, "), tail
        assert "    ), closing(\n" in tail


def test_a_moved_body_s_long_helper_call_is_laid_out_as_black_would() -> None:
    """A moved body calling a moved helper hands it the fields too; the call holding it breaks
    first, the helper's call itself where nothing holds it; other long lines stay."""
    source = textwrap.dedent("""\
        def validate(low, high, error, value, message):
            if value < low:
                raise ValueError(format_error(low, high, error, value, message, "too low"))
            return format_error(low, high, error, value, message, "too high", "by far", "!")


        def untouched():
            return other_function_with_a_long_name("argument one", "argument two", "and three")
        """)
    text = wrapped_calls(source, {"format_error"}, 80)
    assert "        raise ValueError(\n            format_error(low, high, error, value, " \
        "message, \"too low\")\n        )\n" in text
    assert "    return format_error(\n        low, high, error, value, message, \"too high\", " \
        "\"by far\", \"!\"\n    )\n" in text
    assert "    return other_function_with_a_long_name(\"argument one\", \"argument two\", " \
        "\"and three\")\n" in text
