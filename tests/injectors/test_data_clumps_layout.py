"""Data-clump injection writes what the repository's authors would: a signature or call laid
one item a line stays so, the lines it lengthens are wrapped as black wraps them once the engine
brings the edit into the house style (`cst/restyle.py`), one class's fields come in one order
(its constructor's), and a class's bodies go to two modules only where one calls the other."""

from __future__ import annotations

import textwrap
from pathlib import Path

from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst.house import HouseStyle
from smellkit.injectors.cst.layout import long_lines
from smellkit.injectors.cst.restyle import restyle
from smellkit.injectors.data_clumps.edit import FunctionPlan, SitePlan, explode_module
from smellkit.injectors.data_clumps.fields import field_order
from smellkit.project import Project

FIELDS = ("x", "y")


def _explode(source: str, function: str, sites: dict[tuple[int, str], SitePlan] | None = None,
             limit: int = 88) -> str:
    """`source` with `function`'s parameter `obj` exploded into `x, y`, as the engine hands it
    on: in the house style at `limit` columns."""
    plan = FunctionPlan("obj", FIELDS, (None, None))
    text = explode_module(source, "app", FIELDS, {f"app.{function}": plan}, sites or {},
                          len(sites or {}))
    assert text is not None
    return restyle(HouseStyle(line_length=limit), source, text, "app")


def test_a_signature_laid_one_parameter_a_line_stays_so() -> None:
    """A layout a person chose, which no line length asks for: the edit keeps it."""
    each = "def g(\n    a,\n    obj,\n):\n    return obj.x + obj.y\n"
    assert _explode(each, "g").startswith("def g(\n    a,\n    x,\n    y,\n):\n")
    no_trailing = "def g(\n    a,\n    obj\n):\n    return obj.x + obj.y\n"
    assert _explode(no_trailing, "g").startswith("def g(\n    a,\n    x,\n    y\n):\n")
    hugged = "def g(\n    a, obj\n):\n    return obj.x + obj.y\n"
    assert _explode(hugged, "g").startswith("def g(\n    a, x, y\n):\n")
    hanging = "def g(a,\n      obj, b):\n    return obj.x + obj.y\n"
    assert _explode(hanging, "g").startswith("def g(a,\n      x, y, b):\n")


def test_a_call_laid_one_argument_a_line_stays_so() -> None:
    source = ("def g(a, obj):\n    return obj.x + obj.y\n\n\n"
              "def h(point):\n    return g(\n        1,\n        point,\n    )\n")
    sites = {(6, "g"): SitePlan(1, None, 2, as_keywords=False, names=FIELDS)}
    assert _explode(source, "g", sites).endswith(
        "    return g(\n        1,\n        point.x,\n        point.y,\n    )\n")


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
    exploded = explode_module(source, "app", fields, {"app.sanity_check": plan}, sites, 1)
    assert exploded is not None
    text = restyle(HouseStyle(line_length=50), source, exploded, "app")
    assert "        return sanity_check(\n            self.block_start_string,\n" in text
    assert "def sanity_check(\n    block_start_string, comment_start_string\n):\n" in text
    assert "        return describe(self.block_start_string, self.comment_start_string)\n" \
        in text  # too long already: not the injection's doing
    assert long_lines(source, text, 50) == []


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
    return [opening(syntax), closing(syntax)]
"""


def test_calls_that_outgrow_a_line_together_are_laid_out_together() -> None:
    """Two calls that each fit but together do not: the list holding them gets one a line."""
    fields = ("open_tag", "close_tag")
    plans = {f"app.{name}": FunctionPlan("syntax", fields, (None, None))
             for name in ("opening", "closing")}
    sites = {(16, "opening"): SitePlan(0, None, 1, as_keywords=True, names=fields),
             (16, "closing"): SitePlan(0, None, 1, as_keywords=True, names=fields)}
    exploded = explode_module(CROWDED, "app", fields, plans, sites, 2)
    assert exploded is not None
    text = restyle(HouseStyle(line_length=80), CROWDED, exploded, "app")
    assert text.split("def both(syntax):\n")[1] == (
        "    return [\n"
        "        opening(open_tag=syntax.open_tag, close_tag=syntax.close_tag),\n"
        "        closing(open_tag=syntax.open_tag, close_tag=syntax.close_tag),\n"
        "    ]\n")


def test_a_moved_body_s_long_helper_call_is_laid_out_as_black_would() -> None:
    """A moved body calling a moved helper hands it the fields too: in the new module the call
    holding it breaks first, the helper's call itself where nothing holds it."""
    source = textwrap.dedent("""\
        def validate(low, high, error, value, message):
            if value < low:
                raise ValueError(format_error(low, high, error, value, message, "too low"))
            return format_error(low, high, error, value, message, "too high", "by far", "!")
        """)
    text = restyle(HouseStyle(line_length=80), None, source, "app")
    assert "        raise ValueError(\n            format_error(low, high, error, value, " \
        "message, \"too low\")\n        )\n" in text
    assert "    return format_error(\n        low, high, error, value, message, \"too high\", " \
        "\"by far\", \"!\"\n    )\n" in text
