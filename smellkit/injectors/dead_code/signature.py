"""Real signatures for the dead delegation chains of the dead-code injector.

A wrapper of the chain takes exactly the parameters of the function it wraps, copied as written
(annotations and defaults included), and hands each one on by name, as real compatibility
wrappers do: nothing in its shape tells it apart from live code. A signature is refused when it
cannot be forwarded exactly: a default evaluated anew by each `def` (a call, a list), a parameter
named like something the wrapper's own body uses, or a name an annotation or default reads that
means something else (or nothing) in the module the wrapper goes to.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst

from smellkit.analysis.usage import module_level_names
from smellkit.errors import InjectionRefused
from smellkit.injectors.base import InjectionContext

_FUTURE = re.compile(r"^from __future__ import [^\n]*\bannotations\b", re.M)
_PLAIN = (cst.Name, cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary,
          cst.ConcatenatedString)


@dataclass(frozen=True)
class Signature:
    """A function's parameter list as written, and the arguments that forward it."""

    params: cst.Parameters
    text: str
    forward: str
    names: frozenset[str]
    default_names: frozenset[str]
    annotation_names: frozenset[str]
    """Names read by annotations (inside string annotations too)."""
    annotated: bool


def _names(node: cst.CSTNode) -> set[str]:
    """Names an expression reads (the head of each attribute chain; calls' callees too)."""

    class Visitor(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.found: set[str] = set()

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            self.found.add(node.value)

    visitor = Visitor()
    node.visit(visitor)
    return visitor.found


def _annotation_names(annotation: cst.Annotation) -> set[str]:
    found: set[str] = set()
    for node in _strings(annotation.annotation):
        try:
            parsed = cst.parse_expression(node.evaluated_value if isinstance(
                node.evaluated_value, str) else "")
        except cst.ParserSyntaxError:
            raise InjectionRefused("an annotation is a string that is not an expression") \
                from None
        found |= _names(parsed)
    return found | _names(annotation.annotation)


def _strings(node: cst.CSTNode) -> list[cst.SimpleString]:
    class Visitor(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.found: list[cst.SimpleString] = []

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            self.found.append(node)

    visitor = Visitor()
    node.visit(visitor)
    return visitor.found


def _plain_default(node: cst.BaseExpression) -> bool:
    """A default whose value is the same object however often it is evaluated."""
    if isinstance(node, cst.Attribute):
        return _plain_default(node.value)
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.expression, (cst.Integer, cst.Float, cst.Imaginary))
    if isinstance(node, cst.Tuple):
        return all(isinstance(item, cst.Element) and _plain_default(item.value)
                   for item in node.elements)
    return isinstance(node, _PLAIN)


def signature(module: cst.Module, function: cst.FunctionDef) -> Signature:
    """The signature of `function`; refused when it cannot be forwarded exactly."""
    if function.asynchronous is not None:
        raise InjectionRefused("it is a coroutine function: a wrapper would have to await it")
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    stars = [item for item in (params.star_arg, params.star_kwarg) if isinstance(item, cst.Param)]
    defaults: set[str] = set()
    annotations: set[str] = set()
    for param in [*every, *stars]:
        if param.default is not None:
            if not _plain_default(param.default):
                raise InjectionRefused(f"the default of `{param.name.value}` is evaluated anew by "
                                       "each def; a wrapper could not pass the same value on")
            defaults |= _names(param.default)
        if param.annotation is not None:
            annotations |= _annotation_names(param.annotation)
    if function.returns is not None:
        annotations |= _annotation_names(function.returns)
    star = params.star_arg
    keyword = not isinstance(star, cst.Param)  # before `*args` arguments go by position
    forward = [param.name.value for param in params.posonly_params]
    forward += [f"{param.name.value}={param.name.value}" if keyword else param.name.value
                for param in params.params]
    if isinstance(star, cst.Param):
        forward.append(f"*{star.name.value}")
    forward += [f"{param.name.value}={param.name.value}" for param in params.kwonly_params]
    if isinstance(params.star_kwarg, cst.Param):
        forward.append(f"**{params.star_kwarg.name.value}")
    return Signature(
        params=params, text=module.code_for_node(params), forward=", ".join(forward),
        names=frozenset(param.name.value for param in [*every, *stars]),
        default_names=frozenset(defaults), annotation_names=frozenset(annotations),
        annotated=any(param.annotation is not None for param in [*every, *stars]))


def header(module: cst.Module, function: cst.FunctionDef, name: str,
           params: str | None = None) -> str:
    """`def name(<the function's parameters as written>) -> <its return annotation>:`, with
    `params` in place of the parameter list when given."""
    text = module.code_for_node(function.with_changes(
        name=cst.Name(name), body=cst.SimpleStatementSuite([cst.Pass()]), decorators=(),
        leading_lines=()))
    text = text[:text.rindex(":") + 1]
    if params is None:
        return text
    start = len(f"def {name}(") + len(module.code_for_node(function.whitespace_before_params))
    written = module.code_for_node(function.params)
    assert text[start:start + len(written)] == written
    return text[:start] + params + text[start + len(written):]


def require_unshadowed(found: Signature, used: Iterable[str]) -> None:
    """Refused when a parameter would shadow one of the wrapper's own names."""
    taken = sorted(found.names & set(used))
    if taken:
        raise InjectionRefused(f"a parameter named `{taken[0]}` would shadow a name the wrapper "
                               "uses")


def require_carried(context: InjectionContext, found: Signature, home: str, module: str) -> None:
    """Refused when the signature of a function of module `home` cannot be written in `module`
    (a name it reads would mean something else there, or not exist when the `def` runs)."""
    if module == home:
        return
    index = context.index
    facts = index.modules[module]
    lazy = bool(_FUTURE.search(context.source(facts.path)))
    runtime = {item.bound for item in facts.imports if item.scope == module
               and not item.type_only} | set(index.children.get(module, {}))
    assigned = module_level_names(facts)  # variables: the index does not resolve them
    for name, evaluated in [*((name, True) for name in found.default_names),
                            *((name, not lazy) for name in found.annotation_names)]:
        there = index.resolve_name(home, name)
        here = index.resolve_name(module, name)
        if there is None or there != here or name in assigned:
            raise InjectionRefused(f"`{name}` in the signature means something else in "
                                   f"{facts.path}")
        if evaluated and not there.startswith("<builtin>.") and name not in runtime:
            raise InjectionRefused(f"`{name}` in the signature is not bound in {facts.path} "
                                   "when it runs")


def carries(context: InjectionContext, found: Signature, home: str, module: str) -> bool:
    """Whether `require_carried` accepts `module` (to choose among modules)."""
    try:
        require_carried(context, found, home, module)
    except InjectionRefused:
        return False
    return True
