"""The libcst codemod of data-clump injection: a parameter object replaced by its fields.

In each exploded function the parameter becomes one parameter per field and `param.field`
becomes `field`; at each call site the argument `expr` becomes `expr.f1, expr.f2, ...` (or
keyword arguments), and inside an exploded function that hands its object on, simply the field
names. Everything else in the file is left byte-identical (libcst keeps formatting).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from smellkit.injectors.data_clumps.wrap import (
    Container,
    exploded,
    layout_of,
    wrapped_call,
    wrapped_signature,
)


@dataclass(frozen=True)
class FunctionPlan:
    param: str
    """The parameter object's name, replaced by one parameter per field."""
    names: tuple[str, ...]
    """The new parameters, one per field in field order: the field's name, or a related name
    (`host_name` for `host`) where a parameter is renamed."""
    annotations: tuple[str | None, ...]
    """The annotation of each new parameter, or None."""
    keep: bool = False
    """Keep the object's parameter and add the fields after it (the function also uses the
    object in other ways)."""


@dataclass(frozen=True)
class SitePlan:
    position: int | None
    keyword: str | None
    positional_count: int
    as_keywords: bool
    """Pass the fields as keyword arguments (`f(a=obj.a, b=obj.b)`): one kind of indirection."""
    names: tuple[str, ...]
    """The callee's parameter names for the fields (the keywords)."""
    keep: bool = False
    """Keep the object's argument and add the fields after it."""


class Explode(cst.CSTTransformer):
    """Explode the planned functions and rewrite the planned call sites of one module."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: str, fields: Sequence[str], functions: dict[str, FunctionPlan],
                 sites: dict[tuple[int, str], SitePlan], lines: Sequence[str], limit: int,
                 crowded: frozenset[int] = frozenset(), alone: frozenset[int] = frozenset()):
        super().__init__()
        self.lines = lines
        self.limit = limit
        self.crowded = crowded
        """Lines whose planned calls grow past the limit together: the list, tuple, set or call
        holding them gets one element per line."""
        self.alone = alone
        """Crowded lines with no such container: each planned call on them is wrapped."""
        self.planned: set[int] = set()
        self.handled: set[int] = set()
        """Crowded lines whose container was laid out."""
        self.growth: dict[int, int] = {}
        """How much the planned calls lengthen each line (calls on one line only)."""
        self.module = module
        self.fields = tuple(fields)
        self.functions = functions
        self.sites = sites
        self.scope: list[str] = [module]
        self.active: list[FunctionPlan | None] = []
        self.done_functions: set[str] = set()
        self.done_sites: list[tuple[int, str]] = []

    # -- scopes ---------------------------------------------------------------------------------

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.scope.append(node.name.value)
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef,
                       updated_node: cst.ClassDef) -> cst.ClassDef:
        self.scope.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.scope.append(node.name.value)
        self.active.append(self.functions.get(".".join(self.scope)))
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef,
                          updated_node: cst.FunctionDef) -> cst.FunctionDef:
        qualname = ".".join(self.scope)
        self.scope.pop()
        plan = self.active.pop()
        if plan is None:
            return updated_node
        self.done_functions.add(qualname)
        new = updated_node.with_changes(params=self._params(updated_node.params, plan))
        line = self._line(self.get_metadata(PositionProvider, original_node.name).start.line)
        return wrapped_signature(new, self.limit, len(line) - len(line.lstrip()),
                                 layout=layout_of(original_node))

    def _line(self, number: int) -> str:
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    def _current(self) -> FunctionPlan | None:
        return self.active[-1] if self.active else None

    # -- the exploded signature and body --------------------------------------------------------

    def _params(self, params: cst.Parameters, plan: FunctionPlan) -> cst.Parameters:
        def explode(items: Sequence[cst.Param]) -> list[cst.Param]:
            result: list[cst.Param] = []
            for item in items:
                if item.name.value != plan.param:
                    result.append(item)
                    continue
                if plan.keep:
                    result.append(item.with_changes(
                        comma=item.comma if _breaks(item.comma) else cst.Comma(
                            whitespace_after=cst.SimpleWhitespace(" ")),
                        whitespace_after_param=cst.SimpleWhitespace("")))
                between = item.comma if _breaks(item.comma) else cst.Comma(
                    whitespace_after=cst.SimpleWhitespace(" "))
                for number, (name, annotation) in enumerate(zip(plan.names, plan.annotations)):
                    last = number == len(plan.names) - 1
                    result.append(cst.Param(
                        name=cst.Name(name),
                        annotation=cst.Annotation(cst.parse_expression(annotation))
                        if annotation else None,
                        comma=item.comma if last else between,
                        whitespace_after_param=item.whitespace_after_param if last else
                        cst.SimpleWhitespace("")))
            return result

        return params.with_changes(params=explode(params.params),
                                   posonly_params=explode(params.posonly_params),
                                   kwonly_params=explode(params.kwonly_params))

    def leave_Attribute(self, original_node: cst.Attribute,
                        updated_node: cst.Attribute) -> cst.BaseExpression:
        plan = self._current()
        if (plan is not None and isinstance(updated_node.value, cst.Name)
                and updated_node.value.value == plan.param
                and updated_node.attr.value in self.fields):
            name = plan.names[self.fields.index(updated_node.attr.value)]
            return cst.Name(name, lpar=updated_node.lpar, rpar=updated_node.rpar)
        return updated_node

    # -- call sites -----------------------------------------------------------------------------

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = updated_node.func
        name = func.value if isinstance(func, cst.Name) else \
            func.attr.value if isinstance(func, cst.Attribute) else None
        if name is None:
            return self._container(original_node, updated_node)
        line = self.get_metadata(PositionProvider, original_node).start.line
        plan = self.sites.get((line, name))
        if plan is None:
            return self._container(original_node, updated_node)
        positional = [arg for arg in updated_node.args if arg.keyword is None and not arg.star]
        if len(positional) != plan.positional_count:
            return updated_node
        args = list(updated_node.args)
        if plan.keyword is not None:
            found = [number for number, arg in enumerate(args)
                     if arg.keyword is not None and arg.keyword.value == plan.keyword]
            if len(found) != 1:
                return updated_node
            at, keywords = found[0], True
        else:
            assert plan.position is not None
            at = args.index(positional[plan.position])
            later_positional = any(arg.keyword is None for arg in args[at + 1:])
            keywords = plan.as_keywords and not later_positional
        old = args[at]
        between = old.comma if _breaks(old.comma) else cst.Comma(
            whitespace_after=cst.SimpleWhitespace(" "))
        new: list[cst.Arg] = [old.with_changes(
            comma=between, whitespace_after_arg=cst.SimpleWhitespace(""))] if plan.keep else []
        for number, (field, keyword) in enumerate(zip(self.fields, plan.names)):
            last = number == len(self.fields) - 1
            new.append(cst.Arg(
                value=cst.Attribute(value=old.value.deep_clone(), attr=cst.Name(field))
                if plan.keep else self._field_of(old.value, field),
                keyword=cst.Name(keyword) if keywords else None,
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace(""))
                if keywords else cst.MaybeSentinel.DEFAULT,
                comma=old.comma if last else between,
                whitespace_after_arg=old.whitespace_after_arg if last else
                cst.SimpleWhitespace("")))
        self.done_sites.append((line, name))
        call = updated_node.with_changes(args=[*args[:at], *new, *args[at + 1:]])
        position = self.get_metadata(PositionProvider, original_node)
        if position.start.line == position.end.line:  # a call on one line that grew too long
            text = self._line(line)
            grown = len(cst.Module(body=[]).code_for_node(call)) - (
                position.end.column - position.start.column)
            self.growth[line] = self.growth.get(line, 0) + grown
            if line in self.crowded:
                self.planned.add(id(call))
            elif line in self.alone or len(text) + grown > self.limit:
                call = wrapped_call(call, text[:len(text) - len(text.lstrip())], self.limit)
        return call

    def leave_List(self, original_node: cst.List,
                   updated_node: cst.List) -> cst.BaseExpression:
        return self._container(original_node, updated_node)

    def leave_Tuple(self, original_node: cst.Tuple,
                    updated_node: cst.Tuple) -> cst.BaseExpression:
        return self._container(original_node, updated_node)

    def leave_Set(self, original_node: cst.Set, updated_node: cst.Set) -> cst.BaseExpression:
        return self._container(original_node, updated_node)

    def _container(self, original_node: Container, updated_node: Container) -> Container:
        """One element per line for a container on a crowded line holding planned calls."""
        if not self.crowded:
            return updated_node
        position = self.get_metadata(PositionProvider, original_node)
        line = position.start.line
        if line not in self.crowded or position.end.line != line or line in self.handled:
            return updated_node
        values = [item.value for item in (updated_node.args if isinstance(updated_node, cst.Call)
                                          else updated_node.elements)]
        if not any(id(value) in self.planned for value in values):
            return updated_node
        text = self._line(line)
        laid = exploded(updated_node, text[:len(text) - len(text.lstrip())], self.limit,
                        self.planned)
        if laid is None:
            return updated_node
        self.handled.add(line)
        return laid

    def overflowing(self) -> frozenset[int]:
        """Lines that the planned calls on them together make longer than the limit."""
        return frozenset(line for line, grown in self.growth.items()
                         if len(self._line(line)) + grown > self.limit)

    def _field_of(self, value: cst.BaseExpression, field: str) -> cst.BaseExpression:
        plan = self._current()
        if plan is not None and isinstance(value, cst.Name) and value.value == plan.param:
            # handed on inside an exploded function: its own parameter for the field
            return cst.Name(plan.names[self.fields.index(field)])
        return cst.Attribute(value=value.deep_clone(), attr=cst.Name(field))


def _breaks(comma: cst.Comma | cst.MaybeSentinel) -> bool:
    """Whether a comma ends a line (a signature or call laid out one item per line)."""
    return isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after,
                                                       cst.ParenthesizedWhitespace)


def explode_module(source: str, module: str, fields: Sequence[str],
                   functions: dict[str, FunctionPlan],
                   sites: dict[tuple[int, str], SitePlan],
                   expected_sites: int, limit: int) -> str | None:
    """The module's new text, or None if not every planned change could be made; lines that
    grow past `limit` are wrapped."""
    wrapper = MetadataWrapper(cst.parse_module(source))
    lines = source.splitlines()
    transformer = Explode(module, fields, functions, sites, lines, limit)
    result = wrapper.visit(transformer)
    crowded = transformer.overflowing()
    if crowded:  # several calls on one line: lay out what holds them, else wrap each
        transformer = Explode(module, fields, functions, sites, lines, limit, crowded)
        result = wrapper.visit(transformer)
        alone = crowded - transformer.handled
        if alone:
            transformer = Explode(module, fields, functions, sites, lines, limit,
                                  frozenset(transformer.handled), frozenset(alone))
            result = wrapper.visit(transformer)
    if transformer.done_functions != set(functions) or \
            len(transformer.done_sites) != expected_sites:
        return None
    return result.code
