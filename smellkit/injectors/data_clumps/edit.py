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
                 sites: dict[tuple[int, str], SitePlan]):
        super().__init__()
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
        return updated_node.with_changes(params=self._params(
            updated_node.params, plan, updated_node.whitespace_before_params))

    def _current(self) -> FunctionPlan | None:
        return self.active[-1] if self.active else None

    # -- the exploded signature and body --------------------------------------------------------

    def _params(self, params: cst.Parameters, plan: FunctionPlan,
                opening: cst.BaseParenthesizableWhitespace) -> cst.Parameters:
        commas = [item.comma for item in (*params.posonly_params, *params.params,
                                            *params.kwonly_params)]

        def explode(items: Sequence[cst.Param]) -> list[cst.Param]:
            result: list[cst.Param] = []
            for item in items:
                if item.name.value != plan.param:
                    result.append(item)
                    continue
                between = _between(commas, item.comma, opening)
                if plan.keep:
                    result.append(item.with_changes(
                        comma=between, whitespace_after_param=cst.SimpleWhitespace("")))
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
            return updated_node
        line = self.get_metadata(PositionProvider, original_node).start.line
        plan = self.sites.get((line, name))
        if plan is None:
            return updated_node
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
        between = _between([arg.comma for arg in args], old.comma,
                           updated_node.whitespace_before_args)
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
        return updated_node.with_changes(args=[*args[:at], *new, *args[at + 1:]])

    def _field_of(self, value: cst.BaseExpression, field: str) -> cst.BaseExpression:
        plan = self._current()
        if plan is not None and isinstance(value, cst.Name) and value.value == plan.param:
            # handed on inside an exploded function: its own parameter for the field
            return cst.Name(plan.names[self.fields.index(field)])
        return cst.Attribute(value=value.deep_clone(), attr=cst.Name(field))


def _between(commas: Sequence[cst.Comma | cst.MaybeSentinel], own: cst.Comma | cst.MaybeSentinel,
             opening: cst.BaseParenthesizableWhitespace) -> cst.Comma:
    """The comma between the fields that replace one parameter or argument (whose comma is
    `own`, among the bracket's `commas`): the signature or call laid one item a line stays so
    (a line break to what follows the opening bracket), one hanging under its bracket breaks
    where the item did, else `, `. A line that grows too long is the house style's to wrap
    (`cst/restyle.py`); a layout a person chose is not, so the edit keeps it."""
    if isinstance(opening, cst.ParenthesizedWhitespace) and any(map(_breaks, commas)):
        return cst.Comma(whitespace_after=opening)
    if isinstance(own, cst.Comma) and _breaks(own):
        return own
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _breaks(comma: cst.Comma | cst.MaybeSentinel) -> bool:
    """Whether a comma ends a line (a signature or call laid out one item per line)."""
    return isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after,
                                                       cst.ParenthesizedWhitespace)


def explode_module(source: str, module: str, fields: Sequence[str],
                   functions: dict[str, FunctionPlan],
                   sites: dict[tuple[int, str], SitePlan],
                   expected_sites: int) -> str | None:
    """The module's new text, or None if not every planned change could be made. Lines that
    grow past the repository's line length are wrapped by the house style (`cst/restyle.py`),
    which the engine applies to every edit."""
    transformer = Explode(module, fields, functions, sites)
    result = MetadataWrapper(cst.parse_module(source)).visit(transformer)
    if transformer.done_functions != set(functions) or \
            len(transformer.done_sites) != expected_sites:
        return None
    return result.code
