"""Imports that injectors add land where isort (ruff's `I001`) puts them: in the group of their
section, sorted, so a new import is no tell of its own."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from smellkit.injectors.cst.imports import add_imports, insert_import

MODULE = '''"""Fields."""

from __future__ import annotations

import re
import typing

from marshmallow import utils
from marshmallow.base import FieldABC

from .exceptions import ValidationError
from .validate import Range

X = 1
'''


@pytest.mark.parametrize(("statement", "after"), [
    ("import datetime as dt", "from __future__ import annotations\n\nimport datetime as dt\n"),
    ("import uuid", "import typing\nimport uuid\n\nfrom marshmallow"),
    ("from collections import OrderedDict", "import typing\nfrom collections import Ordered"),
    ("from marshmallow.utils import missing", "FieldABC\nfrom marshmallow.utils import missing\n"),
    ("from .core import Field", "FieldABC\n\nfrom .core import Field\nfrom .exceptions"),
    ("from .zones import Zone", "import Range\nfrom .zones import Zone\n\nX = 1"),
])
def test_a_new_import_joins_its_group_in_order(statement: str, after: str) -> None:
    text = insert_import(cst.parse_module(MODULE), statement).code
    assert after in text, text
    assert text.count("\n\n") == MODULE.count("\n\n")  # no group added or split


def test_a_section_the_module_lacks_gets_a_group_of_its_own() -> None:
    text = insert_import(cst.parse_module('"""Doc."""\n\nfrom .a import b\n\nX = 1\n'),
                         "import typing").code
    assert text == '"""Doc."""\n\nimport typing\n\nfrom .a import b\n\nX = 1\n'
    text = insert_import(cst.parse_module('"""Doc."""\n\nX = 1\n'), "import typing").code
    assert text == '"""Doc."""\n\nimport typing\n\nX = 1\n'


def test_a_module_that_does_not_split_its_sections_keeps_one_group() -> None:
    text = insert_import(cst.parse_module("import sys\nfrom .a import b\n\nX = 1\n"),
                         "import os").code
    assert text == "import os\nimport sys\nfrom .a import b\n\nX = 1\n"


def test_add_imports_puts_new_lines_of_the_opening_block_in_order() -> None:
    tree = cst.parse_module(MODULE)
    result = add_imports(tree, tree, len(tree.body) - 1,
                         [("marshmallow.fields", "from .fields import Field"),
                          ("re", "import abc")], "marshmallow.schema")
    assert "import abc\nimport re\n" in result.code
    assert "from .exceptions import ValidationError\nfrom .fields import Field\n" in result.code


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
@pytest.mark.parametrize("statement", [
    "import datetime as dt", "import uuid", "from collections import OrderedDict",
    "from marshmallow.utils import missing", "from .core import Field", "from .zones import Zone",
])
def test_ruff_finds_the_block_sorted(tmp_path: Path, statement: str) -> None:
    """The module was sorted as ruff sorts it, and still is with the import added."""
    package = tmp_path / "marshmallow"
    package.mkdir()
    (package / "__init__.py").write_text("")
    path = package / "fields.py"
    for text in (MODULE, insert_import(cst.parse_module(MODULE), statement).code):
        path.write_text(text)
        run = subprocess.run(["ruff", "check", "--isolated", "--select", "I001", str(path)],
                             cwd=tmp_path, capture_output=True, text=True, check=False)
        assert run.returncode == 0, run.stdout + text
    assert sys.stdlib_module_names  # the standard library's names decide its section


def test_a_plain_import_of_a_module_already_imported_from_gets_its_own_line() -> None:
    """docutils' `from docutils import nodes, utils` and a pasted body needing
    `import docutils.utils`: the plain import is not merged into the `from` line (it crashed
    the build with an IndexError) and is not lost."""
    tree = cst.parse_module("import re\n\nfrom docutils import nodes, utils\n\nX = 1\n")
    result = add_imports(tree, tree, len(tree.body) - 1,
                         [("docutils", "import docutils.utils"),
                          ("docutils", "from docutils import parsers")], "docutils.transforms")
    assert "from docutils import nodes, utils, parsers\n" in result.code
    assert "import docutils.utils\n" in result.code
