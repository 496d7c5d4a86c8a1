"""Where deep inlining can be injected: statement-level calls to functions whose bodies can be
pasted into the caller without changing what the code does.

Read-only and repository-wide, so it uses the stdlib `ast` (libcst only parses the files that
are edited). A callee qualifies when its body has a single exit (at most one `return`, its last
statement), no `yield`, `await`, `global`, `nonlocal`, nested definitions, `super()`,
name-mangled names or frame tricks (`locals()`, `eval`), no decorators and no `*args`. A method
qualifies when the call always runs it: called on the caller's own `self`, or on a local or
parameter whose classes the points-to solution knows (`formatter.write_text(text)`, a method of
another class, pasted with `self` read as `formatter`), and no subclass of those classes
overrides it (otherwise the call dispatches). A method is pasted only when no subclass can
override it at all: it or its class is private (`_name`) and no class of the repository
overrides it. A public method of a public class is an extension point (click documents
subclassing `Option` to override `handle_parse_result`): a pasted body would silently bypass a
user's override, so it is never pasted (nor deleted).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from smellkit._internal import pyast
from smellkit.facts import Definition
from smellkit.facts import Name as NameExpr
from smellkit.injectors.extension import public_method
from smellkit.models import POORLY_COVERED

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext

MIN_CALLEE_LINES = 5
"""A callee of fewer source lines is too small to read as an inlined responsibility."""
_FRAME_NAMES = frozenset({"locals", "vars", "eval", "exec", "globals", "super", "__class__"})
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
OVERRIDABLE = "a method a subclass may override: public, or overridden in the repository"
"""The discovery rule behind `SiteFinder.overridable`'s reasons, which name the method."""


@dataclass(frozen=True)
class Site:
    """One call statement of a caller that can be replaced by the callee's body."""

    caller: str
    callee: str
    line: int
    """The line of the call statement in the caller's file."""
    form: str
    """`expr` (`f(...)`), `assign` (`x = f(...)`) or `return` (`return f(...)`)."""
    method: bool
    """Called as `self.f(...)`: the callee's first parameter is bound to the caller's."""


class SiteFinder:
    """Call sites and callee eligibility, from per-file ast trees parsed on demand."""

    def __init__(self, context: InjectionContext):
        self.context = context
        self.index = context.index
        self._trees: dict[str, ast.Module] = {}
        self._refusals: dict[str, str | None] = {}

    def node(self, qualname: str) -> ast.FunctionDef | None:
        """The `def` of a function or method of the repository, found by its line."""
        definition = self.index.definitions.get(qualname)
        path = self.context.path_of(qualname)
        if definition is None or path is None:
            return None
        if path not in self._trees:
            try:
                self._trees[path] = pyast.parse(self.context.source(path))
            except (SyntaxError, ValueError, OSError):
                self._trees[path] = ast.Module(body=[], type_ignores=[])
        for node in ast.walk(self._trees[path]):
            if isinstance(node, ast.FunctionDef) and node.lineno == definition.start_line \
                    and node.name == definition.name:
                return node
        return None

    def sloc(self, qualname: str) -> int:
        definition = self.index.definitions.get(qualname)
        measure = definition.measure if definition is not None else None
        return measure.sloc if measure is not None else 0

    def cc(self, qualname: str) -> int:
        definition = self.index.definitions.get(qualname)
        measure = definition.measure if definition is not None else None
        return measure.cc if measure is not None else 1

    # -- callees ----------------------------------------------------------------------------

    def refusal(self, qualname: str) -> str | None:
        """Why this function's body cannot be inlined, or None when it can."""
        if qualname not in self._refusals:
            self._refusals[qualname] = self._refuse(qualname)
        return self._refusals[qualname]

    def _refuse(self, qualname: str) -> str | None:
        definition = self.index.definitions.get(qualname)
        if definition is None or definition.kind not in ("function", "method"):
            return "not a function or method of the repository"
        if definition.decorators:
            return "decorated"
        if definition.is_async:
            return "async"
        overridable = self.overridable(qualname)
        if overridable is not None:
            return overridable
        if self.sloc(qualname) < MIN_CALLEE_LINES:
            return f"fewer than {MIN_CALLEE_LINES} source lines"
        if not self.context.well_covered(qualname):
            return f"{POORLY_COVERED}: its pasted copy would hold lines no selected test runs"
        node = self.node(qualname)
        if node is None:
            return "definition not found in its file"
        arguments = node.args
        if arguments.vararg or arguments.kwarg or arguments.posonlyargs:
            return "*args, **kwargs or positional-only parameters"
        if definition.kind == "method" and not arguments.args:
            return "a method without a self parameter"
        body = _body(node)
        if not body:
            return "empty body"
        for statement in body:
            for inner in _walk(statement):
                reason = _unsafe(inner)
                if reason is not None:
                    return reason
        return None

    def overridable(self, qualname: str) -> str | None:
        """Why a subclass may override this method, so that a call to it dispatches and its
        pasted body would bypass the override; None for a function, or a method that is private
        or of a private class and that no class of the repository overrides."""
        definition = self.index.definitions.get(qualname)
        if definition is None or definition.kind != "method":
            return None
        public = public_method(self.index, qualname)
        if public is not None:
            return (f"`{public}` is public: a subclass may override it, and a pasted body would "
                    "bypass that")
        shown = f"`{definition.parent.rpartition('.')[2]}.{definition.name}`"
        for cls in self.index.descendants(definition.parent):
            override = self.index.children.get(cls, {}).get(definition.name)
            if override is not None and override != qualname:
                return (f"{shown} is overridden by `{cls.rpartition('.')[2]}`: a pasted body "
                        "would bypass that")
        return None

    def exits_ok(self, qualname: str) -> bool:
        """Whether every `return` of the function is at the end of a path through guard
        clauses (`if ...: ...; return x` at the top level), so the body can be pasted where
        the call's value is assigned or dropped; `return f(...)` call sites take any body."""
        node = self.node(qualname)
        return node is not None and _guarded(_body(node))

    def always_run(self, qualname: str) -> set[int]:
        """The lines of the statements that run whenever the function runs past its start:
        those of its body (and of a `for` or `with` block there), not a branch's. A test that
        calls the function runs the code pasted there (the selected tests must run the lines
        a case changes), while a call under `if` may be an error path no test takes."""
        node = self.node(qualname)
        if node is None:
            return set()
        lines: set[int] = set()
        for statement in node.body:
            lines.add(statement.lineno)
            if isinstance(statement, (ast.For, ast.With)):
                lines.update(inner.lineno for inner in statement.body)
        return lines

    # -- sites --------------------------------------------------------------------------------

    def sites(self, caller: str) -> list[Site]:
        """Every statement-level call in `caller` to a function that can be inlined."""
        definition = self.index.definitions.get(caller)
        node = self.node(caller)
        if definition is None or node is None:
            return []
        self_name = _self_name(definition)
        found: list[Site] = []
        lines: dict[int, int] = {}
        statements = _statements(node.body)
        for statement in statements:
            lines[statement.lineno] = lines.get(statement.lineno, 0) + 1
        for statement in statements:
            form, call = _call_statement(statement)
            if call is None or lines[statement.lineno] > 1:
                continue
            if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
                    keyword.arg is None for keyword in call.keywords):
                continue
            callee, method = self._callee(caller, self_name, call.func)
            if callee is None or callee == caller or self.refusal(callee) is not None:
                continue
            if method and not self._static(caller, self_name, call.func, callee):
                continue
            if form != "return" and not self.exits_ok(callee):
                continue
            found.append(Site(caller, callee, statement.lineno, form, method))
        return found

    def _callee(self, caller: str, self_name: str | None,
                func: ast.expr) -> tuple[str | None, bool]:
        index = self.index
        if isinstance(func, ast.Name):
            target = index.resolve_name(caller, func.id)
            found = index.definitions.get(target or "")
            if found is not None and found.kind == "function" and found.parent in index.modules:
                return found.qualname, False
            return None, False
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                index.resolve_name(caller, func.value.id) in index.modules:
            module = index.resolve_name(caller, func.value.id) or ""
            found = index.definitions.get(index.children.get(module, {}).get(func.attr, ""))
            if found is not None and found.kind == "function":
                return found.qualname, False
            return None, False
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return None, False
        if self_name is not None and func.value.id == self_name:
            cls = index.class_of.get(caller)
            target = index.lookup_method(cls, func.attr) if cls else None
        else:  # a method of another object: one the receiver's known classes all agree on
            classes = self._receiver_classes(caller, func.value.id)
            targets = {index.lookup_method(cls, func.attr) for cls in classes}
            target = targets.pop() if len(targets) == 1 else None
        found = index.definitions.get(target or "")
        if found is not None and found.kind == "method":
            callee_node = self.node(found.qualname)
            if callee_node is not None and callee_node.args.args and (
                    callee_node.args.args[0].arg == self_name or func.value.id != self_name):
                return found.qualname, True
        return None, False

    def _receiver_classes(self, caller: str, name: str) -> frozenset[str]:
        """The repository classes a local or parameter of `caller` may hold an instance of
        (from the points-to solution): empty when unknown or when it may be a module."""
        if self.index.resolve_name(caller, name) in self.index.modules:
            return frozenset()
        return self.index.calls.types_of(caller, NameExpr(name))

    def _static(self, caller: str, self_name: str | None, func: ast.expr, callee: str) -> bool:
        """Whether a method call `receiver.name(...)` always runs `callee`: every class the
        receiver may be (the caller's class for `self`), and every subclass of them in the
        repository, finds that definition. A subclass overriding it makes the call dispatch,
        and a pasted body would then be wrong for its instances."""
        assert isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
        if self_name is not None and func.value.id == self_name:
            classes: frozenset[str] = frozenset({self.index.class_of.get(caller, "")})
        else:
            classes = self._receiver_classes(caller, func.value.id)
        if not classes:
            return False
        name = func.attr
        every = set(classes).union(*(self.index.descendants(cls) for cls in classes))
        return all(self.index.lookup_method(cls, name) == callee for cls in every)


def _self_name(definition: Definition) -> str | None:
    if definition.kind != "method" or not definition.params:
        return None
    if "staticmethod" in definition.decorators or "classmethod" in definition.decorators:
        return None
    return definition.params[0].name


def _body(node: ast.FunctionDef) -> list[ast.stmt]:
    body = list(node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return body


def _returns(node: ast.AST) -> bool:
    return any(isinstance(inner, ast.Return) for inner in ast.walk(node))


def _guarded(body: list[ast.stmt]) -> bool:
    """Returns only last in the body, or last in the branches of a top-level `if` (guard
    clauses; with an `else`, every branch must return and nothing may follow)."""
    for position, statement in enumerate(body):
        last = position == len(body) - 1
        if isinstance(statement, ast.Return):
            return last
        if not _returns(statement):
            continue
        if not isinstance(statement, ast.If):
            return False
        if not statement.orelse:
            if not (statement.body and isinstance(statement.body[-1], ast.Return)
                    and _guarded(statement.body)):
                return False
            continue
        branches = [statement.body, statement.orelse]
        return last and all(bool(branch) and isinstance(branch[-1], (ast.Return, ast.If))
                            and _guarded(branch) for branch in branches)
    return True


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Every statement of a body, nested blocks included, nested scopes not."""
    found: list[ast.stmt] = []
    for statement in body:
        found.append(statement)
        if isinstance(statement, _NESTED):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(statement, name, None)
            if isinstance(inner, list):
                found.extend(_statements(inner))
        for handler in getattr(statement, "handlers", ()):
            found.extend(_statements(handler.body))
        for case in getattr(statement, "cases", ()):
            found.extend(_statements(case.body))
    return found


def _walk(node: ast.AST) -> list[ast.AST]:
    """The node and everything below it, nested scopes included (they are refused anyway)."""
    return list(ast.walk(node))


def _unsafe(node: ast.AST) -> str | None:
    if isinstance(node, (ast.Yield, ast.YieldFrom)):
        return "a generator"
    if isinstance(node, ast.Await):
        return "awaits"
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return "declares global or nonlocal names"
    if isinstance(node, _NESTED):
        return "defines nested functions, classes or lambdas"
    if isinstance(node, ast.Name) and node.id in _FRAME_NAMES:
        return f"uses {node.id}"
    if isinstance(node, ast.Attribute) and _mangled(node.attr):
        return "uses name-mangled attributes"
    if isinstance(node, ast.Name) and _mangled(node.id):
        return "uses name-mangled names"
    if isinstance(node, ast.ImportFrom) and node.level:
        return "imports relatively inside its body"
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return "imports inside its body"
    return None


def _mangled(name: str) -> bool:
    return name.startswith("__") and not name.endswith("__")


def _call_statement(statement: ast.stmt) -> tuple[str, ast.Call | None]:
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        return "expr", statement.value
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.value, ast.Call):
        return "assign", statement.value
    if isinstance(statement, ast.Return) and isinstance(statement.value, ast.Call):
        return "return", statement.value
    return "", None
