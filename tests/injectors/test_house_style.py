"""The house style every injection is brought into (`cst/house.py`, `layout.py`,
`placement.py`): the repository's line length, black's wraps of the lines an edit adds, and its
imports where isort puts them, relative or absolute as the module writes them.

ruff is the oracle: its formatter (black's layout) must leave a wrapped file as it is, and its
isort rule (I001) must find nothing to sort, under the repository's settings."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from smellkit.injectors.cst.house import (
    DEFAULT_LINE_LENGTH,
    HouseStyle,
    config_folder,
    configured_line_length,
    house_style,
    measured_line_length,
)
from smellkit.injectors.cst.layout import added_lines, hanging, long_lines
from smellkit.injectors.cst.placement import relative_spec
from smellkit.injectors.cst.restyle import restyle
from smellkit.injectors.cst.splits import depth_before

PKG = frozenset({"pkg"})


def _ruff(*arguments: str, text: str, path: Path) -> subprocess.CompletedProcess[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "ruff", *arguments, "--isolated", "--no-cache",
                           str(path)], capture_output=True, text=True, check=False)


def _formatted(text: str, length: int, tmp_path: Path) -> str:
    """ruff's formatting of `text` (black's layout) at `length` columns."""
    path = tmp_path / "formatted.py"
    run = _ruff("format", "--line-length", str(length), text=text, path=path)
    assert run.returncode == 0, run.stderr
    return path.read_text(encoding="utf-8")


def _isort_findings(text: str, tmp_path: Path, *settings: str) -> str:
    """ruff's I001 findings on `text` as module `pkg.mod`, `pkg` being first-party."""
    options = [item for setting in ("lint.isort.known-first-party = ['pkg']", *settings)
               for item in ("--config", setting)]
    run = _ruff("check", "--select", "I001", "--no-fix", *options, text=text,
                path=tmp_path / "pkg" / "mod.py")
    return run.stdout if run.returncode else ""


# -- the line length ---------------------------------------------------------------------------


@pytest.mark.parametrize(("files", "expected"), [
    ({"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}, 100),
    ({"pyproject.toml": "[tool.ruff]\nsrc = ['src']\n"}, 88),  # ruff's default
    ({"ruff.toml": "line-length = 99\n"}, 99),
    ({"pyproject.toml": "[tool.black]\nline-length = 79\n"}, 79),
    ({"pyproject.toml": "[tool.isort]\nline_length = 72\n"}, 72),
    ({"setup.cfg": "[isort]\nline_length = 90\n"}, 90),
    ({"tox.ini": "[flake8]\nmax-line-length = 100\n"}, 100),
    # click: bugbear's B950 replaces E501 and allows 10% more (black's 88)
    ({"setup.cfg": "[flake8]\nselect = B, E, F, W, B9\nignore =\n    E501\n"
                   "max-line-length = 80\n"}, 88),
    ({"setup.cfg": "[metadata]\nname = x\n"}, None),
    ({"pyproject.toml": "not [ toml"}, None),
])
def test_line_length_from_the_configuration(tmp_path: Path, files: dict[str, str],
                                            expected: int | None) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert configured_line_length(tmp_path) == expected


def test_line_length_measured_from_the_code() -> None:
    assert measured_line_length(["x = 1\n" + "y" * 95 + "\n"]) == 95
    assert measured_line_length(["short = 1\n"]) == 79  # short lines are no rule
    assert measured_line_length(["z" * 300 + "\n"]) == 120  # a stray line, capped
    assert measured_line_length(["# https://" + "u" * 200 + "\n"]) == DEFAULT_LINE_LENGTH
    assert measured_line_length([]) == DEFAULT_LINE_LENGTH


def test_a_src_folder_reads_its_checkout_configuration(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.ruff]\nline-length = 101\n[tool.ruff.lint.isort]\nforce-single-line = true\n"
        "order-by-type = false\n", encoding="utf-8")
    assert config_folder(tmp_path / "src") == tmp_path
    style = house_style(tmp_path / "src", iter(()), (0, 3), PKG)
    assert style.line_length == 101
    assert style.force_single_line is True and style.order_by_type is False
    assert style.relative is False
    assert house_style(tmp_path / "src", iter(()), (4, 1), PKG).relative is True
    assert house_style(tmp_path / "src", iter(()), (0, 0), PKG).relative is None


def test_the_project_style_counts_its_relative_imports(tmp_path: Path) -> None:
    from smellkit.injectors.cst.house import of_project
    from smellkit.project import Project

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "a.py").write_text("from .b import x\nfrom . import c\n",
                                           encoding="utf-8")
    (tmp_path / "pkg" / "b.py").write_text("import os\nx = 1\n", encoding="utf-8")
    (tmp_path / "pkg" / "c.py").write_text("from pkg.b import x\n", encoding="utf-8")
    style = of_project(Project.load(tmp_path, use_cache=False, jobs=1))
    assert style.relative is True and style.first_party == {"pkg"}
    assert style.line_length == 79


# -- wrapping ----------------------------------------------------------------------------------

BEFORE = '''\
"""A module."""


def keep(a, b):
    return {"first_key": a, "second_key": b, "third_key": a, "fourth_key": b, "fifth": 1}
'''

ADDED = '''\


def describe(self, first_argument_name, second_argument_name, third_argument_name=None, *, fourth=1):
    value = call_something(first_argument_name, second_argument_name, [1, 2, 3], key=third_argument_name)
    others = [item.name for item in first_argument_name.children if item.visible and not item.hidden]
    if first_argument_name and second_argument_name or third_argument_name is not None and fourth > 1:
        return None
    label = first_argument_name.title() if second_argument_name else third_argument_name.lower()
    return some_function_name(first_argument_name, second_argument_name, value, others, label)


class Holder(Base, metaclass=Meta):
    def method(self, first_argument_name, second_argument_name, third_argument_name=None):
        return {"alpha": first_argument_name, "beta": second_argument_name, "gamma": third_argument_name}
'''  # noqa: E501 (lines too long to wrap are the point)


def test_added_lines_are_wrapped_as_black_wraps_them(tmp_path: Path) -> None:
    after = BEFORE + ADDED
    style = HouseStyle(line_length=88)
    result = restyle(style, BEFORE, after, "pkg.mod")
    assert not long_lines(BEFORE, result, 88)
    assert result.startswith(BEFORE)  # the human line over 88 columns stays as it was
    added = result[len(BEFORE):]
    assert _formatted(result, 88, tmp_path).endswith(added)  # black's layout
    assert "    fourth=1,\n):" in result  # one parameter a line, with a trailing comma


@pytest.mark.parametrize("length", [60, 79, 100])
def test_wraps_follow_the_line_length(tmp_path: Path, length: int) -> None:
    result = restyle(HouseStyle(line_length=length), None, textwrap.dedent(ADDED).lstrip(),
                     "pkg.mod")
    assert not long_lines(None, result, length)
    assert _formatted(result, length, tmp_path) == result


def test_a_file_in_the_hanging_style_gets_hanging_wraps() -> None:
    before = ("def first(alpha, beta,\n          gamma):\n    return alpha\n\n\n"
              "value = first(1, 2,\n              3)\n")
    assert hanging(before)
    added = ("\n\ndef second(self, first_argument_name, second_argument_name, "
             "third_argument_name, fourth_argument_name):\n    return 1\n")
    result = restyle(HouseStyle(line_length=79), before, before + added, "pkg.mod")
    assert not long_lines(before, result, 79)
    assert ("def second(self, first_argument_name, second_argument_name,\n"
            "           third_argument_name, fourth_argument_name):\n") in result


def test_what_cannot_be_wrapped_stays() -> None:
    before = "x = 1\n"
    after = before + "message = '" + "m" * 100 + "'\n"
    assert restyle(HouseStyle(line_length=88), before, after, "pkg.mod") == after


def test_a_sole_generator_argument_gets_no_trailing_comma(tmp_path: Path) -> None:
    after = ("total = summed_values_of_everything(value.amount_in_cents for value in "
             "collection_of_values if value)\n")
    result = restyle(HouseStyle(line_length=60), None, after, "pkg.mod")
    assert not long_lines(None, result, 60)
    compile(result, "mod.py", "exec")
    assert _formatted(result, 60, tmp_path) == result


def test_a_bracket_inside_another_on_its_line_is_not_split_first() -> None:
    line = 'x = {"a": list(items), "b": [1, 2]}'
    assert depth_before(line, line.index("list")) == 1
    assert depth_before(line, 0) == 0
    assert depth_before('    ), call("(", x)', 7) == -1  # a string's bracket does not count


def test_added_lines_are_found_by_their_text() -> None:
    assert added_lines("a\nb\nc\n", "a\nx\nb\nc\ny\n") == {2, 5}
    assert added_lines(None, "a\nb\n") == {1, 2}


# -- imports -----------------------------------------------------------------------------------

MODULE = '''\
"""A module."""

import os
import sys

from pkg import base
from pkg.utils import helper


def run(value):
    import json

    return json.dumps(value)


def other(value):
    import re

    return re.escape(value)
'''


def test_added_imports_go_where_isort_puts_them(tmp_path: Path) -> None:
    after = MODULE.replace("from pkg.utils import helper\n",
                           "from pkg.utils import helper\nfrom .fields import Field\n"
                           "import abc\nfrom pkg.utils import other\nimport attr\n")
    after = after.replace("    import json\n", "    from pkg.base import thing\n"
                                               "    import json\n    import csv\n")
    style = HouseStyle(first_party=PKG)
    result = restyle(style, MODULE, after, "pkg.mod")
    assert _isort_findings(result, tmp_path) == ""
    assert "from pkg.fields import Field" in result  # absolute, as the module writes them
    assert "from pkg.utils import helper, other\n" in result  # joined to its module's line
    assert "import abc\nimport os\nimport sys\n\nimport attr\n\nfrom pkg import base" in result
    assert "    import csv\n    import json\n\n    from pkg.base import thing\n\n    return" \
        in result


def test_a_new_local_block_is_set_apart_as_the_file_sets_them(tmp_path: Path) -> None:
    before = MODULE + "\n\ndef third(value):\n    return value\n"
    after = before.replace("def third(value):\n",
                           "def third(value):\n    from pkg.utils import other\n"
                           "    from pkg import base\n")
    result = restyle(HouseStyle(first_party=PKG), before, after, "pkg.mod")
    assert "    from pkg import base\n    from pkg.utils import other\n\n    return value" \
        in result
    assert _isort_findings(result, tmp_path) == ""
    tight = before.replace("import json\n\n", "import json\n").replace("import re\n\n",
                                                                         "import re\n")
    result = restyle(HouseStyle(first_party=PKG), tight, tight.replace(
        "def third(value):\n", "def third(value):\n    from pkg import base\n"), "pkg.mod")
    assert "    from pkg import base\n    return value" in result


def test_relative_imports_in_a_module_that_writes_them(tmp_path: Path) -> None:
    before = '"""A module."""\n\nimport os\n\nfrom .base import Base\n'
    after = before + "from pkg.fields.util import Field\nfrom pkg.base import ABC\n"
    result = restyle(HouseStyle(first_party=PKG), before, after, "pkg.sub.mod")
    assert "from .base import ABC, Base\n" not in result  # another package's `base`
    assert "from ..base import ABC\nfrom ..fields.util import Field\nfrom .base import Base\n" \
        in result
    assert relative_spec("pkg.sub.mod", False, "pkg.sub.base") == ".base"
    assert relative_spec("pkg.sub", True, "pkg.sub.base") == ".base"
    assert relative_spec("pkg.mod", False, "other.base") is None


def test_a_new_module_uses_the_repository_habit(tmp_path: Path) -> None:
    after = ("from __future__ import annotations\n\nfrom .base import Base\nimport typing\n"
             "from pkg.utils import helper\n\n\nclass New(Base):\n    pass\n")
    result = restyle(HouseStyle(first_party=PKG, relative=False), None, after, "pkg.new")
    assert result.startswith("from __future__ import annotations\n\nimport typing\n\n"
                             "from pkg.base import Base\nfrom pkg.utils import helper\n\n\n"
                             "class New(Base):")
    assert _isort_findings(result, tmp_path) == ""
    relative = restyle(HouseStyle(first_party=PKG, relative=True), None, after, "pkg.new")
    assert "from .base import Base\nfrom .utils import helper\n" in relative


def test_force_single_line_and_order_by_type(tmp_path: Path) -> None:
    before = "from pkg.fields import Field\nfrom pkg.fields import String\n\nx = 1\n"
    after = before.replace("x = 1", "from pkg.fields import Raw, ALL\n\nx = 1")
    style = HouseStyle(first_party=PKG, force_single_line=True, order_by_type=False)
    result = restyle(style, before, after, "pkg.mod")
    assert result.startswith("from pkg.fields import ALL\nfrom pkg.fields import Field\n"
                             "from pkg.fields import Raw\nfrom pkg.fields import String\n")
    assert _isort_findings(result, tmp_path, "lint.isort.force-single-line = true",
                           "lint.isort.order-by-type = false") == ""


def test_a_human_block_out_of_order_is_left_alone() -> None:
    before = "import sys\nimport os\n\nx = 1\n"
    after = "import sys\nimport os\nimport abc\n\nx = 1\n"
    result = restyle(HouseStyle(first_party=PKG), before, after, "pkg.mod")
    assert result.startswith("import abc\nimport sys\nimport os\n")


def test_the_engine_restyles_every_changed_file(tmp_path: Path) -> None:
    from smellkit.injectors.base import InjectionContext
    from smellkit.injectors.engine import restyled
    from smellkit.project import Project

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "a.py").write_text("import os\n\nx = os.sep\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 40\n",
                                             encoding="utf-8")
    context = InjectionContext(Project.load(tmp_path, use_cache=False, jobs=1))
    assert context.house_style.line_length == 40
    changes: dict[str, str | None] = {
        "pkg/a.py": "import os\nimport abc\n\nx = os.sep\n"
                    "y = combine(abc.ABC, os.sep, 'a long one')\n",
        "pkg/b.py": "import sys\nimport abc\n", "pkg/c.py": None, "README": "words " * 20}
    result = restyled(context, {"pkg/a.py": "import os\n\nx = os.sep\n", "pkg/b.py": None,
                                "pkg/c.py": "x = 1\n", "README": None}, changes)
    assert result["pkg/a.py"] == ("import abc\nimport os\n\nx = os.sep\n"
                                  "y = combine(\n    abc.ABC, os.sep, 'a long one'\n)\n")
    assert result["pkg/b.py"] == "import abc\nimport sys\n"
    assert result["pkg/c.py"] is None and result["README"] == changes["README"]


def test_code_that_does_not_parse_comes_back_as_it_was() -> None:
    assert restyle(HouseStyle(), None, "def broken(:\n", "pkg.mod") == "def broken(:\n"


# -- editing pieces of a module ----------------------------------------------------------------


def test_a_window_is_the_smallest_statement_or_header() -> None:
    from smellkit._internal import pyast
    from smellkit.injectors.cst.windows import Window, cut, innermost, paste

    text = ("class A:\n    def f(self,\n          x):\n        if x:\n            return 1\n"
            "        elif x > 2:\n            return 2\n")
    lines = text.splitlines(keepends=True)
    tree = pyast.parse(text)
    assert innermost(tree, 2, lines) == Window(2, 3, header=True)
    assert innermost(tree, 5, lines) == Window(5, 5)
    assert innermost(tree, 6, lines) is None  # an `elif` cannot stand alone
    source, offset = cut(lines, Window(2, 3, header=True))
    assert (source, offset) == ("if 1:\n    def f(self,\n          x):\n        pass\n", 1)
    assert paste(lines, Window(2, 3, header=True), source.replace("x)", "y)"), 1) == [
        *lines[:2], "          y):\n", *lines[3:]]


def test_only_the_added_statements_change(tmp_path: Path) -> None:
    before = ("import os\r\n\r\n\r\ndef human(a,b):   # odd, but theirs\r\n"
              "    return some_call(a, b, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, "
              "16, 17, 18])\r\n")
    after = before + ("\r\n\r\ndef added(first_argument, second_argument):\r\n"
                      "    return some_call(first_argument, second_argument, [1, 2, 3, 4, 5, "
                      "6, 7, 8, 9])\r\n")
    result = restyle(HouseStyle(line_length=79), before, after, "pkg.mod")
    assert result.startswith(before)
    assert "\n    return some_call(\r\n        first_argument," in result.replace("\r\n", "\n", 1)
    assert all(line.endswith("\r\n") for line in result.splitlines(keepends=True))


def test_long_comments_moved_deeper_are_reflowed() -> None:
    before = "def f(x):\n    return x\n"
    comment = "# " + " ".join(["word"] * 30)
    after = before + (f"\n\ndef g(x):\n    if x:\n        {comment}\n        return 1\n"
                      '    """Text\n    ' + comment + '\n    """\n    # type: ignore' +
                      " x" * 50 + "\n")
    result = restyle(HouseStyle(line_length=79), before, after, "pkg.mod")
    assert "        # word word" in result and "        return 1\n" in result
    assert all(len(line) <= 79 for line in result.splitlines()
               if line.startswith("        #"))
    assert "    " + comment + "\n" in result  # inside a string: text, not a comment
    assert "    # type: ignore x x" in result  # a directive stays whole


def test_renamed_imports_stay_on_their_own_lines(tmp_path: Path) -> None:
    before = "from pkg import base\nfrom pkg import fields as pkg_fields\n\nx = 1\n"
    after = before.replace("from pkg import base\n", "from pkg import base, utils\n")
    after = after.replace("x = 1", "from pkg import other as renamed, more\n\nx = 1")
    result = restyle(HouseStyle(first_party=PKG), before, after, "pkg.mod")
    assert _isort_findings(result, tmp_path) == ""
    assert "from pkg import other as renamed\n" in result


def test_added_lines_of_one_module_are_joined(tmp_path: Path) -> None:
    before = "def f(value):\n    return value\n"
    after = before.replace("    return", "    from pkg.utils import second\n"
                                         "    from pkg.utils import _first\n    return")
    result = restyle(HouseStyle(first_party=PKG), before, after, "pkg.mod")
    assert "    from pkg.utils import _first, second\n" in result
    assert _isort_findings(result, tmp_path) == ""


def test_a_name_added_inside_a_wrapped_import_is_sorted(tmp_path: Path) -> None:
    before = "from pkg.utils import (\n    alpha,\n    gamma,\n)\n\nx = 1\n"
    after = before.replace("    gamma,\n", "    gamma,\n    beta,\n")
    result = restyle(HouseStyle(first_party=PKG), before, after, "pkg.mod")
    assert result.startswith("from pkg.utils import (\n    alpha,\n    beta,\n    gamma,\n)\n")
    assert _isort_findings(result, tmp_path) == ""


def test_black_splits_the_last_bracket_whatever_follows(tmp_path: Path) -> None:
    after = ("def f(field, error):\n    raise field.make_error_of_the_field('unknown', "
             "choices=field.choices_text) from error\n")
    result = restyle(HouseStyle(line_length=79), None, after, "pkg.mod")
    assert "raise field.make_error_of_the_field(\n" in result and ") from error\n" in result
    assert _formatted(result.replace("'", '"'), 79, tmp_path) == result.replace("'", '"')


def test_items_hugged_on_a_long_line_go_one_a_line(tmp_path: Path) -> None:
    after = ("def check(\n    minimum, maximum, error, equal, message_minimum, message_maximum, "
             "the_values\n):\n    return report(\n        input=the_value, minimum=minimum, "
             "maximum=maximum, equal=equal, error=error\n    )\n")
    result = restyle(HouseStyle(line_length=79), None, after, "pkg.mod")
    assert not long_lines(None, result, 79)
    assert "    message_maximum,\n    the_values,\n):\n" in result
    assert "        equal=equal,\n        error=error,\n    )\n" in result
    assert _formatted(result, 79, tmp_path) == result


def test_an_expression_continued_inside_parentheses_splits_at_its_operators(
        tmp_path: Path) -> None:
    before = "class A:\n    pass\n"
    after = before + ("\n\nclass B:\n    def aware(self, moment):\n        if moment:\n"
                      "            return (\n                moment.tzinfo is not None and "
                      "moment.tzinfo.utcoffset(moment) is not None and self.strict\n"
                      "            )\n        return False\n")
    result = restyle(HouseStyle(line_length=88), before, after, "pkg.mod")
    assert ("                moment.tzinfo is not None\n"
            "                and moment.tzinfo.utcoffset(moment) is not None\n") in result
    assert _formatted(result, 88, tmp_path) == result


def test_a_local_block_follows_the_repository_habit_when_its_file_has_none() -> None:
    from smellkit.injectors.cst.house import local_gap

    spaced = "def f():\n    import os\n\n    return os\n"
    tight = "def f():\n    import os\n    return os\n"
    assert local_gap([spaced, spaced, tight]) is True
    assert local_gap([tight]) is False and local_gap(["x = 1\n"]) is None
    after = "def g():\n    from pkg import base\n    return base\n"
    assert "base\n\n    return" in restyle(HouseStyle(first_party=PKG, local_gap=True), None,
                                           after, "pkg.mod")
    assert "base\n    return" in restyle(HouseStyle(first_party=PKG), None, after, "pkg.mod")
