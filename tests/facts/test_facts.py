"""Fact extraction details that later stages rely on."""

from __future__ import annotations

import ast

from smellkit.facts import Attr, Const, Name, Sub, extract


def facts_of(source: str, module: str = "m"):  # type: ignore[no-untyped-def]
    return extract(ast.parse(source), source, f"{module}.py", module, False)


def test_equal_looking_forms_of_different_kinds_stay_apart() -> None:
    facts = facts_of("x = str\ny = 'abc'\nz = a.k\nw = a['k']\n")
    values = {a.target.id: a.value for a in facts.assignments if isinstance(a.target, Name)}
    assert values["x"] == Name("str") and isinstance(values["x"], Name)
    assert values["y"] == Const("str") and isinstance(values["y"], Const)
    assert isinstance(values["z"], Attr) and isinstance(values["w"], Sub)
    assert len({values["x"], values["y"], values["z"], values["w"]}) == 4


def test_relative_imports_are_resolved_and_type_checking_imports_marked() -> None:
    source = ("from typing import TYPE_CHECKING\n"
              "from . import sibling\n"
              "from ..up import thing as other\n"
              "if TYPE_CHECKING:\n"
              "    from pkg.types import Hint\n")
    facts = extract(ast.parse(source), source, "pkg/sub/mod.py", "pkg.sub.mod", False)
    imports = {item.bound: (item.target, item.type_only) for item in facts.imports}
    assert imports["sibling"] == ("pkg.sub.sibling", False)
    assert imports["other"] == ("pkg.up.thing", False)
    assert imports["Hint"] == ("pkg.types.Hint", True)


def test_definitions_carry_qualnames_parameters_and_self_attributes() -> None:
    source = ("class A(Base):\n"
              "    limit: int = 3\n"
              "    def __init__(self, b: 'B', *args, key=None, **kw):\n"
              "        self.b = b\n"
              "        self.items = []\n"
              "        square = lambda v: v * v\n"
              "        def inner():\n"
              "            return square(2)\n")
    facts = facts_of(source)
    kinds = {d.qualname: d.kind for d in facts.definitions}
    assert kinds == {"m.A": "class", "m.A.__init__": "method",
                     "m.A.__init__.<lambda1>": "lambda",
                     "m.A.__init__.inner": "nested_function"}
    init = next(d for d in facts.definitions if d.name == "__init__")
    assert [(p.name, p.kind, p.annotation) for p in init.params] == [
        ("self", "positional", ()), ("b", "positional", ("B",)),
        ("args", "var_positional", ()), ("key", "keyword_only", ()),
        ("kw", "var_keyword", ())]
    (info,) = facts.classes
    assert info.base_names == ("Base",)
    attributes = {(a.name, a.kind) for a in info.attributes}
    assert attributes == {("limit", "class"), ("b", "instance"), ("items", "instance")}
    own = {(a.attr, a.write) for a in facts.accesses if a.own}
    assert own == {("b", True), ("items", True)}


def test_dunder_all_and_stub_bodies() -> None:
    facts = facts_of("__all__ = ['f']\n__all__ += ['g']\n"
                     "def f():\n    raise NotImplementedError\n"
                     "def g():\n    '''doc'''\n    ...\n"
                     "def h():\n    return 1\n")
    assert facts.dunder_all == ("f", "g")
    stubs = {d.name: d.is_stub for d in facts.definitions}
    assert stubs == {"f": True, "g": True, "h": False}


def test_imports_under_an_aliased_type_checking_guard_are_type_only() -> None:
    from smellkit.facts import extract

    source = ("import typing as t\n"
              "if t.TYPE_CHECKING:\n"
              "    from pkg.env import Environment\n"
              "from pkg.util import helper\n")
    import ast

    facts = extract(ast.parse(source), source, "pkg/lexer.py", "pkg.lexer", False)
    by_name = {item.bound: item.type_only for item in facts.imports}
    assert by_name["Environment"] is True and by_name["helper"] is False
