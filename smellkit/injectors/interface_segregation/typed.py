"""The declarations and opt-outs as the repository writes them: its spelling of the raise
(`raise NotImplementedError()` or bare), and the donor's annotations on every copy of the
signature, so a typed repository (jinja2 checks itself with `mypy --strict`) gets typed stubs.

An annotation is copied as the donor writes it when every name it reads means the same in the
module that gets the stub; a name that module does not bind is imported there for type checking
only (under its `if TYPE_CHECKING:` block, made when it has none) and the annotation is quoted
unless the module postpones annotations. When a name means something else there, the signature
stays unannotated rather than wrong.
"""

from __future__ import annotations

import builtins
import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from smellkit.injectors.base import InjectionContext

_CALLED = re.compile(r"^\s*raise NotImplementedError\(\)\s*$", re.MULTILINE)
_BARE = re.compile(r"^\s*raise NotImplementedError\s*$", re.MULTILINE)
_LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary)


def raise_statement(context: InjectionContext) -> str:
    """`raise NotImplementedError()` when the repository writes the call more often than the
    bare class (wtforms, jinja2), else `raise NotImplementedError`."""
    called = bare = 0
    for facts in context.index.modules.values():
        text = context.source(facts.path)
        called += len(_CALLED.findall(text))
        bare += len(_BARE.findall(text))
    return "raise NotImplementedError()" if called > bare else "raise NotImplementedError"


@dataclass
class Signature:
    """A `def` line for one module, and the imports it needs there for type checking."""

    text: str
    type_imports: list[str] = field(default_factory=list)


def _names(expr: cst.BaseExpression) -> set[str]:
    """The names an annotation reads (the first part of a dotted one), inside quotes too."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            value = node.evaluated_value
            if isinstance(value, str):
                with contextlib.suppress(cst.ParserSyntaxError):
                    found.update(_names(cst.parse_expression(value.strip())))

    expr.visit(Visitor())
    return found


def _meaning(context: InjectionContext, module: str, name: str) -> str | None:
    """What a module-level name of the module means (imports for type checking too): the
    dotted target, or None when it does not bind it."""
    index = context.index
    facts = index.modules.get(module)
    if facts is None:
        return None
    for item in facts.imports:
        if item.scope == module and item.bound == name:
            return index.resolve_dotted(item.target) or item.target
    if name in index.children.get(module, {}):
        return index.children[module][name]
    if hasattr(builtins, name) or name == "None":
        return f"builtins.{name}"
    return None


def _import_line(context: InjectionContext, donor_module: str, name: str,
                 target_module: str) -> str | None:
    """How the target module imports `name` as the donor's module binds it."""
    index = context.index
    facts = index.modules[donor_module]
    relative = any(item.level for item in index.modules[target_module].imports)
    for item in facts.imports:
        if item.scope != donor_module or item.bound != name:
            continue
        if not item.is_from:
            alias = "" if item.target == name else f" as {name}"
            return f"import {item.target}{alias}"
        source, _, attribute = item.target.rpartition(".")
        return _from(source, attribute, name, target_module, relative)
    if name in index.children.get(donor_module, {}):
        return _from(donor_module, name, name, target_module, relative)
    return None


def _from(source: str, attribute: str, name: str, target_module: str, relative: bool) -> str:
    alias = "" if attribute == name else f" as {name}"
    package, _, last = source.rpartition(".")
    if relative and package and package == target_module.rpartition(".")[0]:
        return f"from .{last} import {attribute}{alias}"
    return f"from {source} import {attribute}{alias}"


def _default(param: cst.Param) -> str:
    """A literal default as written (`None`, `False`, `0`, `""`); any other becomes None (a
    stub that only raises never reads it, and its names may not exist in the module)."""
    value = param.default
    if isinstance(value, cst.UnaryOperation):
        value = value.expression
    if isinstance(value, _LITERALS) or (
            isinstance(value, cst.Name) and value.value in ("None", "True", "False")):
        return cst.Module([]).code_for_node(param.default) if param.default else "None"
    return "None"


def signature(context: InjectionContext, donor_module: str, node: cst.FunctionDef,
              target_module: str, at: int, postponed: bool) -> Signature:
    """`def name(params) -> returns:` for a stub in `target_module`'s class at line `at`: the
    donor's annotations when they can be bound there, quoted when a name they read is not
    bound yet when the class body runs (`postponed`: the module has `from __future__ import
    annotations`, so nothing needs quotes)."""
    params = node.params
    annotated = [param.annotation for param in (
        *params.posonly_params, *params.params, *params.kwonly_params,
        *(item for item in (params.star_arg, params.star_kwarg) if isinstance(item, cst.Param)))
        if param.annotation is not None]
    annotations = [item.annotation for item in annotated]
    if node.returns is not None:
        annotations.append(node.returns.annotation)
    imports: list[str] = []
    for name in sorted({name for expr in annotations for name in _names(expr)}):
        meaning = _meaning(context, donor_module, name)
        here = _meaning(context, target_module, name)
        if meaning is None or (here is not None and here != meaning):
            return Signature(_plain(node))
        if here is None:
            line = _import_line(context, donor_module, name, target_module)
            if line is None:
                return Signature(_plain(node))
            imports.append(line)
    if not annotations:
        return Signature(_plain(node))
    bound = _bound(context, target_module, at)

    def typed(expr: cst.BaseExpression) -> str:
        text = cst.Module([]).code_for_node(expr)
        if not postponed and not isinstance(expr, cst.SimpleString) and \
                any(name not in bound for name in _names(expr)):
            return f"'{text}'" if '"' in text else f'"{text}"'
        return text

    def one(param: cst.Param, star: str = "") -> str:
        text = f"{star}{param.name.value}"
        if param.annotation is not None:
            text += f": {typed(param.annotation.annotation)}"
        if param.default is not None and not star:
            text += (" = " if param.annotation is not None else "=") + _default(param)
        return text

    parts = _parts(params, one)
    returns = f" -> {typed(node.returns.annotation)}" if node.returns is not None else ""
    return Signature(f"def {node.name.value}({', '.join(parts)}){returns}:\n", imports)


def _bound(context: InjectionContext, module: str, at: int) -> set[str]:
    """The names the module has bound at run time when its statement at line `at` runs (its
    imports outside `TYPE_CHECKING` and its definitions above it) and the builtins."""
    index = context.index
    facts = index.modules[module]
    names = {item.bound for item in facts.imports
             if item.scope == module and not item.type_only and item.line < at}
    names.update(name for name, child in index.children.get(module, {}).items()
                 if index.definitions[child].start_line < at)
    return names | set(dir(builtins)) | {"None"}


def _plain(node: cst.FunctionDef) -> str:
    """The signature without annotations, every default None (a declaration that only raises
    never reads them, and the defaults' names may not exist in the interface's module)."""
    def one(param: cst.Param, star: str = "") -> str:
        suffix = "=None" if param.default is not None and not star else ""
        return f"{star}{param.name.value}{suffix}"

    return f"def {node.name.value}({', '.join(_parts(node.params, one))}):\n"


def _parts(params: cst.Parameters, one: Callable[..., str]) -> list[str]:
    parts = [one(param) for param in params.posonly_params]
    if params.posonly_params:
        parts.append("/")
    parts.extend(one(param) for param in params.params)
    if isinstance(params.star_arg, cst.Param):
        parts.append(one(params.star_arg, "*"))
    elif params.kwonly_params:
        parts.append("*")
    parts.extend(one(param) for param in params.kwonly_params)
    if params.star_kwarg is not None:
        parts.append(one(params.star_kwarg, "**"))
    return parts
