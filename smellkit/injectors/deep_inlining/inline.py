"""The libcst half of deep inlining: paste a callee's body over the statement that calls it.

Meaning is kept by construction: arguments are bound to the parameters in order (a parameter
passed a plain name the callee never rebinds is replaced by that name), the callee's locals that
would collide with the host's names are renamed, its single `return` becomes the value the call
statement used, and every global name it reads must mean the same thing in the host module (an
import is added when the host does not bind it yet, and refused when that could make an import
cycle). Anything else is refused with the reason.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from smellkit.errors import InjectionRefused
from smellkit.facts import Name as NameExpr
from smellkit.injectors.cst.edit import parameter_names
from smellkit.injectors.deep_inlining.arguments import dedented, overwritable, plain_text
from smellkit.injectors.deep_inlining.exits import exits
from smellkit.injectors.deep_inlining.fold import (
    fold,
    mentions_of,
    never_none,
    propagate,
    unsafe_names,
)
from smellkit.injectors.deep_inlining.known import (
    builtins_read,
    constant_types,
    module_constants,
    shadowing,
    simplified,
)
from smellkit.injectors.deep_inlining.names import callee_words, fresh, names_of, rename
from smellkit.injectors.deep_inlining.plans import Plan

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext
    from smellkit.injectors.deep_inlining.sites import Site

_LITERAL_NAMES = frozenset({"None", "True", "False"})


@dataclass
class Rewritten:
    module: cst.Module
    function: cst.FunctionDef
    needs: dict[str, tuple[str, str]]
    """Global name read by pasted code -> (module it was read in, what it means there)."""
    inlined: list[str]
    renamed: bool = False
    """Some parameter or local of a pasted body was renamed or bound to a new local."""


# -- the inliner --------------------------------------------------------------------------------


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict[int, list[cst.BaseStatement]]):
        super().__init__()
        self.replacements = replacements

    def leave_SimpleStatementLine(
            self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine,
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        found = self.replacements.get(id(original_node))
        return cst.FlattenSentinel(found) if found is not None else updated_node


class Inliner:
    """Rewrites functions of one repository; trees and positions are kept per file."""

    def __init__(self, context: InjectionContext, *, comments: bool):
        self.context = context
        self.index = context.index
        self.comments = comments
        self._positions: dict[str, dict[int, cst.SimpleStatementLine]] = {}
        self.renamed = False
        self._shadowed: dict[str, frozenset[str]] = {}
        self._described: set[str] = set()
        """Callees whose paste has its comment already (easy: one comment per helper)."""

    def _lines(self, qualname: str,
               function: cst.FunctionDef) -> dict[int, cst.SimpleStatementLine]:
        """The simple statements of a function by their line in its file (positions computed on
        the function alone: a whole module would cost seconds)."""
        if qualname not in self._positions:
            definition = self.index.definitions[qualname]
            wrapper = MetadataWrapper(cst.Module(body=[function]), unsafe_skip_copy=True)
            positions = wrapper.resolve(PositionProvider)
            offset = definition.start_line - positions[function.name].start.line
            self._positions[qualname] = {
                position.start.line + offset: node for node, position in positions.items()
                if isinstance(node, cst.SimpleStatementLine)}
        return self._positions[qualname]

    def _shadowing(self, qualname: str) -> frozenset[str]:
        """Builtin names the caller's module binds (see `known.shadowing`)."""
        path = self._path(qualname)
        if path not in self._shadowed:
            self._shadowed[path] = shadowing([self.context.module(path)])
        return self._shadowed[path]

    def _path(self, qualname: str) -> str:
        path = self.context.path_of(qualname)
        if path is None:
            raise InjectionRefused(f"{qualname} has no file")
        return path

    def function(self, module: cst.Module, qualname: str) -> cst.FunctionDef:
        owner = self.index.module_of.get(qualname, "")
        parts = qualname[len(owner) + 1:].split(".") if owner else []
        body: Sequence[cst.CSTNode] = module.body
        node: cst.CSTNode | None = None
        for name in parts:
            node = next((item for item in body if isinstance(item, (cst.FunctionDef,
                                                                     cst.ClassDef))
                         and item.name.value == name), None)
            if node is None or not isinstance(node.body, cst.IndentedBlock):
                raise InjectionRefused(f"{qualname} is not a plain top-level or class-level "
                                       "definition")
            body = node.body.body
        if not isinstance(node, cst.FunctionDef):
            raise InjectionRefused(f"{qualname} is not a function")
        return node

    def inputs(self, qualname: str, plan: Plan) -> int:
        """How many of the function's own names (parameters and locals, `self` and `cls`
        aside) the planned call passes: what its pasted body will read of the function."""
        function = self.function(self.context.module(self._path(qualname)), qualname)
        statement = self._lines(qualname, function).get(plan.site.line)
        if statement is None or len(statement.body) != 1:
            return 0
        try:
            call, _ = _call(statement)
        except InjectionRefused:
            return 0
        names = names_of([function.params, function.body])
        own = (names.bound | parameter_names(function.params)) - {"self", "cls"}
        return len(names_of([call]).used & own)

    def rewrite(self, qualname: str, plans: Sequence[Plan]) -> Rewritten:
        """The function's file with every planned call statement replaced by the callee's body."""
        path = self._path(qualname)
        module = self.context.module(path)
        function = self.function(module, qualname)
        lines = self._lines(qualname, function)
        names = names_of([function.params, function.body])
        host_names = set(names.used) | names.bound
        host_bound = set(names.bound) | parameter_names(function.params)
        replacements: dict[int, list[cst.BaseStatement]] = {}
        needs: dict[str, tuple[str, str]] = {}
        inlined: list[str] = []
        self.renamed = False
        self._described = set()
        for plan in plans:
            statement = lines.get(plan.site.line)
            if statement is None or len(statement.body) != 1:
                raise InjectionRefused(f"line {plan.site.line} of {path} is not one statement")
            new, expansion_needs, chain = self._expand(plan, statement, host_names, host_bound,
                                                       overwritable(function, statement))
            replacements[id(statement)] = new
            _merge(needs, expansion_needs)
            inlined.extend(chain)
            added = names_of(new)
            host_names |= added.used | added.bound
            host_bound |= added.bound
        clash = sorted(set(needs) & host_bound)
        if clash:
            raise InjectionRefused(f"pasted code reads the global {clash[0]}, a local name in "
                                   f"{qualname}")
        new_function = function.visit(_Replace(replacements))
        assert isinstance(new_function, cst.FunctionDef)
        new_module = self._replace(module, qualname, new_function)
        return Rewritten(new_module, new_function, needs, inlined, self.renamed)

    def _replace(self, module: cst.Module, qualname: str,
                 function: cst.FunctionDef) -> cst.Module:
        """The module with one definition replaced, rebuilding only the nodes on its path."""
        owner = self.index.module_of[qualname]
        parts = qualname[len(owner) + 1:].split(".")

        def rebuild(body: Sequence[cst.BaseStatement], names: list[str]) -> \
                list[cst.BaseStatement]:
            result = list(body)
            for position, item in enumerate(result):
                if isinstance(item, (cst.FunctionDef, cst.ClassDef)) and \
                        item.name.value == names[0]:
                    if len(names) == 1:
                        result[position] = function
                    else:
                        assert isinstance(item.body, cst.IndentedBlock)
                        result[position] = item.with_changes(body=item.body.with_changes(
                            body=rebuild(item.body.body, names[1:])))
                    break
            return result

        return module.with_changes(body=rebuild(module.body, parts))

    def _expand(self, plan: Plan, statement: cst.SimpleStatementLine, host_names: set[str],
                host_bound: set[str], free: set[str]) -> tuple[
                    list[cst.BaseStatement], dict[str, tuple[str, str]], list[str]]:
        site = plan.site
        callee = site.callee
        origin = self.index.module_of[callee]
        if plan.inner:
            inner = self.rewrite(callee, plan.inner)
            function, needs, chain = inner.function, dict(inner.needs), [callee, *inner.inlined]
        else:
            module = self.context.module(self._path(callee))
            function, needs, chain = self.function(module, callee), {}, [callee]
        if not isinstance(function.body, cst.IndentedBlock):
            raise InjectionRefused(f"{callee} is a one-line function")
        body = list(function.body.body)
        if body and _is_docstring(body[0]):
            body = body[1:]
        params = _params(function)
        own = names_of([*body])
        for name in sorted(own.used - own.bound - {param.name.value for param in params}):
            if name not in needs:
                needs[name] = (origin, self._meaning(origin, name))
        call, form = _call(statement)
        # a result assigned is written straight into its target instead
        # (`_returned_into_target`), so only a bare call updates the caller's name in place
        bindings, renames, literals = self._bind(site, call, function, own.bound,
                                                 unsafe_names(body), mentions_of(body),
                                                 free if form == "expr" else set())
        defaults = {id(param.default) for param in params if param.default is not None}
        for value in [*(value for _, value in bindings), *literals.values()]:
            # a default named a global of the callee's module
            if id(value) in defaults and isinstance(value, cst.Name) and \
                    value.value not in _LITERAL_NAMES and value.value not in needs:
                needs[value.value] = (origin, self._meaning(origin, value.value))
        bound_here = own.bound | {name for name, _ in bindings}
        taken = host_names | own.used | set(renames.values()) | {name for name, _ in bindings} \
            | {value.value for value in literals.values() if isinstance(value, cst.Name)}
        pool = callee_words(self.context, origin, callee)
        # a parameter written straight onto the caller's name (even one the body rebinds)
        direct = set(renames)
        renames = {name: value for name, value in renames.items() if value != name}
        for name in sorted(bound_here - direct):
            if name in host_names or name in renames.values():
                renames[name] = fresh(name, taken, pool)
                taken.add(renames[name])
        if bindings or renames or literals:
            self.renamed = True
        clash = sorted(set(needs) & (host_bound | set(renames.values())))
        if clash:
            raise InjectionRefused(f"{callee} reads the global {clash[0]}, a local name where it "
                                   "is pasted")
        pasted = fold([renamed for item in body if isinstance(
            renamed := rename(item, renames), cst.BaseStatement)], literals)
        bindings, pasted = propagate([(renames.get(name, name), value)
                                      for name, value in bindings], pasted)
        pasted = never_none(bindings, pasted, {renames.get(name, name) for name in own.bound})
        pasted, bindings = _returned_into_target(pasted, bindings, form, statement,
                                                 host_names)
        new: list[cst.BaseStatement] = [
            cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))],
                                                dedented(value))])
            for name, value in bindings]
        new.extend(exits(pasted, form, statement))
        new = simplified(new, module_constants(constant_types(self.context, needs)),
                         builtins_read(needs) | shadowing(new)
                         | self._shadowing(site.caller))
        if not new:
            new = [cst.SimpleStatementLine([cst.Pass()])]
        leading = list(statement.leading_lines)
        described = _describe(function) if self.comments and callee not in \
            self._described else None  # once: the same comment over every paste reads stock
        self._described.add(callee)
        if described:
            leading.append(cst.EmptyLine(comment=cst.Comment(f"# {described}")))
        first = new[0]
        assert isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
        new[0] = first.with_changes(leading_lines=[*leading, *first.leading_lines])
        return new, needs, chain

    def _bind(self, site: Site, call: cst.Call, function: cst.FunctionDef, rebound: set[str],
              unsafe: Callable[[str, cst.BaseExpression], bool], reads: Counter[str],
              free: set[str]) -> tuple[list[tuple[str, cst.BaseExpression]], dict[str, str],
                                       dict[str, cst.BaseExpression]]:
        """Each parameter's value: substituted when it is a plain name or a literal nothing
        rebinds (`fold.py` then drops the branches a literal decides), or a one-line string
        or f-string of names read once (`self.write(f"{ref} = ")`, not `context_x = ...`
        first), else an assignment before the body (arguments evaluated in their written
        order). A plain name the body rebinds is substituted too when the caller never reads
        it again (`arguments.overwritable`): the body then updates it in place, as a person
        pasting the code would write it, not `entry_index = index` first."""
        params = _params(function)
        values: dict[str, cst.BaseExpression] = {}
        positional = [arg for arg in call.args if arg.keyword is None]
        if site.method:
            receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
            if receiver is None:
                raise InjectionRefused("a method call without a receiver")
            positional = [cst.Arg(receiver), *positional]
        ordered = list(function.params.params)
        for param, arg in zip(ordered, positional, strict=False):
            values[param.name.value] = arg.value
        if len(positional) > len(ordered):
            raise InjectionRefused("more positional arguments than parameters")
        for arg in call.args:
            if arg.keyword is not None:
                if arg.keyword.value in values:
                    raise InjectionRefused(f"argument {arg.keyword.value} given twice")
                values[arg.keyword.value] = arg.value
        order = [id(arg.value) for arg in call.args]
        bindings: list[tuple[str, cst.BaseExpression]] = []
        renames: dict[str, str] = {}
        literals: dict[str, cst.BaseExpression] = {}
        for param in params:
            name = param.name.value
            value = values.get(name)
            if value is None:
                if param.default is None or not (_literal(param.default) or isinstance(
                        param.default, cst.Name)):
                    raise InjectionRefused(f"parameter {name} is not passed and its default is not "
                                           "a plain literal or name")
                value = param.default
                if isinstance(value, cst.Name) and not _literal(value) and name not in \
                        rebound and value.value not in rebound:  # a global: written in
                    literals[name] = value
                    continue
                if not (_literal(value) and name not in rebound and not unsafe(name, value)):
                    bindings.append((name, value))
                    continue
            if _literal(value) and name not in rebound and not unsafe(name, value):
                literals[name] = value
                continue
            if reads[name] == 1 and name not in rebound and plain_text(value, rebound) and \
                    not unsafe(name, cst.SimpleString('""')):
                literals[name] = value
                continue
            if isinstance(value, cst.Name) and value.value not in _LITERAL_NAMES and (
                    (name not in rebound and value.value not in rebound) or (
                        value.value in free and (value.value == name or
                                                 value.value not in rebound))):
                renames[name] = value.value  # the same name: kept as it is (`direct`)
                continue
            if site.method and param is ordered[0] and isinstance(value, cst.Name) and \
                    name not in rebound and value.value not in _LITERAL_NAMES:
                # `node.set_lineno(n)` whose body binds a `node` of its own: `self` reads as
                # the receiver, and the body's `node`, a name of the caller, is renamed
                # (`_expand`)
                renames[name] = value.value
                continue
            if site.method and param is ordered[0]:  # `self` read as the receiver, or nothing
                raise InjectionRefused(f"the receiver {cst.Module([]).code_for_node(value)} "
                                       f"cannot stand for {name} in the pasted body")
            bindings.append((name, value))
        written = [order.index(id(value)) for _, value in bindings if id(value) in order]
        if written != sorted(written):
            raise InjectionRefused("keyword arguments given out of parameter order")
        return bindings, renames, literals

    def _meaning(self, module: str, name: str) -> str:
        found = meaning(self.context, module, name)
        if found is None:
            raise InjectionRefused(f"cannot tell what {name} means in {module}")
        return found


def meaning(context: InjectionContext, module: str, name: str) -> str | None:
    """What a global name means in a module: a definition, an import target, a builtin or a
    module-level variable (`module.name`)."""
    found = context.index.resolve_name(module, name)
    if found is not None:
        return found
    facts = context.index.modules.get(module)
    if facts is not None and any(item.scope == module and item.target == NameExpr(name)
                                 for item in facts.assignments):
        return f"{module}.{name}"
    return None


def _merge(into: dict[str, tuple[str, str]], other: dict[str, tuple[str, str]]) -> None:
    for name, (module, meant) in other.items():
        if name in into and into[name][1] != meant:
            raise InjectionRefused(f"{name} means {into[name][1]} in one pasted body and {meant} "
                                   "in another")
        into.setdefault(name, (module, meant))


class _Returns(cst.CSTVisitor):
    def __init__(self) -> None:
        self.values: list[cst.BaseExpression | None] = []

    def visit_Return(self, node: cst.Return) -> None:
        self.values.append(node.value)


def _returned_into_target(body: list[cst.BaseStatement],
                          bindings: list[tuple[str, cst.BaseExpression]], form: str,
                          statement: cst.SimpleStatementLine, host_names: set[str],
                          ) -> tuple[list[cst.BaseStatement], list[tuple[str, cst.BaseExpression]]]:
    """The pasted body writing its result straight into the name the call was assigned to:
    `text = "\n".join(lines)`, not `receipt_text = "\n".join(lines)` then
    `text = receipt_text`. Only when every `return` gives the same local of the pasted body,
    one the host never names, and the body never names the target. A parameter bound before
    the body and returned (`data = ...; return data`) is bound to the target too (not at all
    when the argument was the target itself), unless another argument reads the target."""
    small = statement.body[0]
    if form == "assign" and isinstance(small, cst.Assign) and \
            isinstance(small.targets[0].target, cst.Tuple):
        return _returned_into_targets(body, bindings, small.targets[0].target, host_names)
    if form != "assign" or not isinstance(small, cst.Assign) or \
            not isinstance(small.targets[0].target, cst.Name):
        return body, bindings
    target = small.targets[0].target.value
    returns = _Returns()
    for item in body:
        item.visit(returns)
    values = {value.value if isinstance(value, cst.Name) else None for value in returns.values}
    names = names_of(body)
    if len(values) != 1 or None in values or target in names.used | names.bound:
        return body, bindings
    (local,) = values
    assert local is not None
    parameters = [name for name, _ in bindings]
    if (local not in names.bound and local not in parameters) or local in host_names:
        return body, bindings
    others = [value for name, value in bindings if name != local]
    if target in names_of(others).used:
        return body, bindings
    kept = [(target if name == local else name, value) for name, value in bindings
            if not (name == local and isinstance(value, cst.Name) and value.value == target)]
    return [renamed for item in body if isinstance(
        renamed := rename(item, {local: target}), cst.BaseStatement)], kept


def _returned_into_targets(
        body: list[cst.BaseStatement], bindings: list[tuple[str, cst.BaseExpression]],
        targets: cst.Tuple, host_names: set[str],
) -> tuple[list[cst.BaseStatement], list[tuple[str, cst.BaseExpression]]]:
    """`value, args = f(...)` whose body returns `(result, args)` everywhere: the body's
    `result` written as `value` itself, so the pasted code ends in `value, args = value,
    args`, which `exits` drops (left as it is, it would assign a name nothing reads). Only
    for plain names, a local of the body the host never names, and a target the body never
    names."""
    names = [item.value.value if isinstance(item.value, cst.Name) else None
             for item in targets.elements]
    returns = _Returns()
    for item in body:
        item.visit(returns)
    shapes = {tuple(element.value.value if isinstance(element.value, cst.Name) else None
                    for element in value.elements) if isinstance(value, cst.Tuple) else None
              for value in returns.values}
    if None in names or len(shapes) != 1 or None in shapes:
        return body, bindings
    (locals_,) = shapes
    if locals_ is None or len(locals_) != len(names) or None in locals_:
        return body, bindings
    used = names_of(body)
    parameters = {name for name, _ in bindings}
    mapping = {local: target for local, target in zip(locals_, names, strict=True)
               if local is not None and target is not None and local != target
               and local in used.bound and local not in parameters and local not in host_names
               and target not in used.used | used.bound}
    if not mapping:
        return body, bindings
    return [renamed for item in body if isinstance(
        renamed := rename(item, mapping), cst.BaseStatement)], bindings


def _params(function: cst.FunctionDef) -> list[cst.Param]:
    parameters = function.params
    if parameters.star_arg not in (None, cst.MaybeSentinel.DEFAULT) and \
            isinstance(parameters.star_arg, cst.Param):
        raise InjectionRefused("takes *args")
    if parameters.star_kwarg is not None or parameters.posonly_params:
        raise InjectionRefused("takes **kwargs or positional-only parameters")
    return [*parameters.params, *parameters.kwonly_params]


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Name):
        return node.value in _LITERAL_NAMES
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.expression, (cst.Integer, cst.Float))
    return isinstance(node, cst.Tuple) and not node.elements


def _call(statement: cst.SimpleStatementLine) -> tuple[cst.Call, str]:
    small = statement.body[0]
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        return small.value, "expr"
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
            isinstance(small.value, cst.Call):
        return small.value, "assign"
    if isinstance(small, cst.Return) and isinstance(small.value, cst.Call):
        return small.value, "return"
    raise InjectionRefused("not a call statement")


def _describe(function: cst.FunctionDef) -> str | None:
    """A comment naming the step a pasted body did: its docstring's first sentence, None
    without one or when that sentence is too long for a comment (a comment made of the
    function's name, `# add entry`, reads as generated; half a sentence reads as cut)."""
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else []
    if body and _is_docstring(body[0]):
        assert isinstance(body[0], cst.SimpleStatementLine)
        small = body[0].body[0]
        assert isinstance(small, cst.Expr)
        assert isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
        value = small.value.evaluated_value  # the string's value: prefixes and quotes parsed
        text = value.decode(errors="replace") if isinstance(value, bytes) else value or ""
        paragraph = " ".join(text.strip().split("\n\n")[0].split())
        sentence = re.split(r"(?<=[.!?])\s", paragraph, maxsplit=1)[0]
        # a whole sentence that fits a comment line, never one cut where its line broke
        if sentence and len(sentence) <= _COMMENT_WIDTH:
            return sentence
    return None


_COMMENT_WIDTH = 72
"""The longest docstring sentence written as a comment over its pasted body."""
