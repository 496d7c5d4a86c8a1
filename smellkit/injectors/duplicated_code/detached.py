"""Duplicated methods where they are called: a module that calls `obj.m(...)` on another module's
class gets its own function with `m`'s code, `self` named after the class (`_resolve(frame, ...)`
for `_Frame.resolve`), and its calls become `_resolve(obj, ...)`. The logic then lives in the class
and again in each caller module, where no class inherits it: the duplication a person leaves by
reimplementing a method beside its use instead of calling it.

Behaviour is kept when the call always reached `K.m`: no class of the repository overrides `m` below
`K` or defines another `m` (the call site cannot be dispatched elsewhere), the name is not a method
of the common built-in types (`write`, `get`, `copy`: a file or a dict may be the receiver), `m` is
a plain method (no decorator) with no `super()`, `__class__` or name-mangled names, and every global
it reads means the same object in the caller's module. Callers inside classes that inherit `K`, or
that `K` inherits, are left alone (their `self.m` may be theirs). A module that reads `.m` without
calling it (a bound method passed on) is refused; a call on a name an import binds
(`textwrap.wrap(...)`) is another module's function and stays. A method too short for two renamed
copies to be reported (the detector's `min-lines`) is no candidate; a renamed pair (easy) must also
meet `min-lines-renamed` or `min-statements-renamed` in a body of `min-lines`, which the injection
asks the detector about.

Only a method no code outside the repository is expected to override is copied: one whose name or
class's name is private (`_m`, `_Frame.m`). A public method of a public class is an extension point
(WTForms documents subclassing `DefaultMeta` to change `render_field`): a call
`self.meta.render_field(...)` reaches a user's override, and a copy called instead would silently
bypass it, a change of behaviour the repository's tests cannot see.

A method whose body never reads `self` is copied without it, as a person moving it out of the class
writes it (`_describe(width, height)` for `_Shape.describe(self, width, height)`), and its calls
pass nothing for it: a parameter kept only to be ignored is no one's code. Dropping the receiver
drops its evaluation at the call site, so each call's receiver must be a name or a chain of
attributes on one (`self.meta`); a module that calls the method on anything else (`make().m()`) gets
no copy.
"""

from __future__ import annotations

import io
import keyword
import random
from collections.abc import Iterable, Iterator

import libcst as cst

from smellkit.config import is_test_path
from smellkit.errors import InjectionRefused
from smellkit.facts import Attr, Name
from smellkit.graphs.builtin_names import BUILTIN_NAMES
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import edit
from smellkit.injectors.cst.imports import add_imports, without_unused
from smellkit.injectors.duplicated_code import copying
from smellkit.injectors.duplicated_code import helper as helping
from smellkit.injectors.duplicated_code import names as naming
from smellkit.injectors.extension import public_method
from smellkit.injectors.naming import meaningful, snake, words
from smellkit.models import Candidate

_RECEIVERS = (dict, list, set, frozenset, str, bytes, tuple, io.StringIO, io.BytesIO,
              io.TextIOWrapper, object)
"""Built-in types a receiver of `obj.m(...)` may be: a method they have is not distinctive."""


def _distinctive(context: InjectionContext, cls: str, name: str) -> bool:
    """Whether every `.name(...)` call can only mean `cls.name`: no other class of the
    repository binds the name and no common built-in type has it."""
    index = context.index
    if any(hasattr(kind, name) for kind in _RECEIVERS):
        return False
    return not any(other != cls and (name in index.children.get(other, {}) or any(
        attribute.name == name for attribute in info.attributes))
        for other, info in index.classes.items())


OVERRIDABLE = ("a public method of a public class, called through instances: a user's "
               "subclass may override it, and a copy called instead would bypass that")
"""The discovery rule for such methods (`overridable`)."""


def overridable(context: InjectionContext, qualname: str) -> str | None:
    """Why a copy may not replace calls of the method `qualname` through an instance, None when
    it may: the method or its class is private, so only the repository's classes (whose
    overrides discovery checks) may override it."""
    public = public_method(context.index, qualname)
    if public is None:
        return None
    return (f"`{public}` is public: a user's subclass may override it, and a copy called "
            "instead would bypass that")


def _related(context: InjectionContext, scope: str, cls: str) -> bool:
    """Whether the caller's scope sits in a class that inherits `cls` or that `cls` inherits."""
    index = context.index
    parts = scope.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in index.classes:
            return cls in index.mro(name) or name in index.mro(cls)
    return False


def _imported(context: InjectionContext, module: str) -> set[str]:
    """The names the module's imports bind (`textwrap` of `textwrap.wrap(...)`): a call on
    one of them is a module's function or another library's object, never the method."""
    return {item.bound for item in context.index.modules[module].imports}


def callers(context: InjectionContext, qualname: str) -> dict[str, list[str]]:
    """Per other module, its functions and methods that call `.m(...)` (the name is
    distinctive: every such call means the method), outside the tests and outside the method's
    own class family."""
    index = context.index
    cls, _, name = qualname.rpartition(".")
    home = index.module_of[qualname]
    found: dict[str, set[str]] = {}
    for module, facts in index.modules.items():
        if module == home or is_test_path(facts.path):
            continue
        imported = _imported(context, module)
        for call in facts.calls:
            if isinstance(call.func, Attr) and call.func.attr == name and \
                    not (isinstance(call.func.base, Name) and call.func.base.id in imported) and \
                    call.scope != module and not _related(context, call.scope, cls):
                found.setdefault(module, set()).add(call.scope)
    return {module: sorted(scopes) for module, scopes in sorted(found.items())}


def detached_candidates(context: InjectionContext, smell: str, cls: str,
                        methods: Iterable[str], sources: helping.Sources) -> Iterator[Candidate]:
    """The class's plain methods that other modules call, which they can each get a copy of
    as a function of their own (see the module's docstring)."""
    index = context.index
    for qualname in methods:
        definition = index.definitions[qualname]
        name = definition.name
        if definition.decorators or name.startswith("__") or definition.is_async:
            continue
        if any(name in index.children.get(item, {}) for item in index.descendants(cls)):
            continue  # overridden below: a call may reach another method
        if overridable(context, qualname) is not None:
            context.discard(OVERRIDABLE)
            continue
        found = callers(context, qualname)
        if not found or not _distinctive(context, cls, name):
            continue
        location = context.location(qualname)
        if location is None or not helping.copyable(context, qualname, sources):
            continue
        try:
            node = helping.helper(context, qualname).node
        except InjectionRefused:
            continue
        if not _reported_in_three(node):
            context.discard("too short for copies with `self` renamed to be reported (the "
                            "detector's `min-lines`)")
            continue
        lines = definition.end_line - definition.start_line + 1
        yield Candidate(
            smell=smell, target=location,
            reason=f"`{qualname}` ({lines} lines) is called from {len(found)} other "
                   "module(s) whose classes do not inherit it: each can get its own copy as "
                   "a function",
            files=(index.modules[index.module_of[qualname]].path,
                   *(index.modules[module].path for module in sorted(found))),
            data={"modules": sorted(found), "detached": True})


def _reported_in_three(node: cst.FunctionDef) -> bool:
    """Whether the method and two function copies of it, `self` renamed (or dropped when the
    body never reads it), are reported as a clone group (three copies need only the detector's
    `min-lines`). A renamed pair (easy) has stricter thresholds: the injection asks the detector
    about the copies it made."""
    params = node.params.params
    if not params:
        return False
    receiver = params[0].name.value
    if reads_receiver(node, receiver):
        copy = copying.copy_of(node, "copied", {receiver: "receiver"})
    else:
        copy = without_receiver(copying.copy_of(node, "copied", {}))
    return copying.reported_together(node, [copy, copy])


def reads_receiver(node: cst.FunctionDef, receiver: str) -> bool:
    """Whether the method's body (nested functions included) names its receiver: a copy
    that never does takes no parameter for it."""

    class Reads(cst.CSTVisitor):
        found = False

        def visit_Name(self, name: cst.Name) -> None:
            self.found = self.found or name.value == receiver

    visitor = Reads()
    node.body.visit(visitor)
    return visitor.found


def without_receiver(node: cst.FunctionDef) -> cst.FunctionDef:
    """The def without its first positional parameter."""
    params = node.params
    return node.with_changes(params=params.with_changes(params=params.params[1:]))


def _plain_receiver(expression: cst.BaseExpression) -> bool:
    """Whether reading the receiver does no work a dropped receiver would skip: a name or a
    chain of attributes on one (`self.meta`), not a call, subscript or other expression."""
    while isinstance(expression, cst.Attribute):
        expression = expression.value
    return isinstance(expression, cst.Name)


def _receiver(helper: helping.Helper, text: str, pool: list[str],
              rng: random.Random) -> tuple[str, dict[str, str]]:
    """What the copy calls `self`: the class's name (`Node` -> `node`, `UnboundField` ->
    `unbound_field`), or its last word; a local of the method already called so is renamed in the
    copy (`node` -> `child_node`), as a person reworking it would. Also returns that rename."""
    cls = helper.qualname.rpartition(".")[0].rpartition(".")[2]
    parts = [word for word in words(cls) if meaningful(word)] or words(cls)
    taken = set(naming.identifiers(text))
    options = [option for option in dict.fromkeys((snake(parts), snake(parts[-1:])))
               if option.isidentifier() and not keyword.iskeyword(option)
               and option not in BUILTIN_NAMES]
    for option in options:
        if option not in taken:
            return option, {}
    for option in options:
        if option in helper.locals_:
            renamed = naming.local_names([option], text, pool, rng)
            if option in renamed and renamed[option] not in options:
                return option, renamed
    raise InjectionRefused(f"no free name for `self` in a copy of `{helper.qualname}`")


class _Calls(cst.CSTVisitor):
    """`.name(...)` calls inside the given functions, and any read of `.name` not called."""

    def __init__(self, name: str, imported: set[str]):
        super().__init__()
        self.name, self.imported = name, imported
        self.calls: list[cst.Call] = []
        self.skipped: list[cst.Call] = []
        self.loose = False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == self.name:
            if isinstance(func.value, cst.Name) and func.value.value in self.imported:
                self.skipped.append(node)  # `textwrap.wrap(...)`: not the method
            else:
                self.calls.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == self.name and \
                not any(call.func is node for call in [*self.calls, *self.skipped]):
            self.loose = True


class _Redirect(cst.CSTTransformer):
    """`obj.m(args)` -> `copy(obj, args)` for the calls found (inner calls first), or
    `copy(args)` when the copy takes no receiver."""

    def __init__(self, calls: list[cst.Call], name: str, receiver: bool = True):
        super().__init__()
        self.calls, self.name, self.receiver = set(calls), name, receiver

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node not in self.calls:
            return updated_node
        func = updated_node.func
        assert isinstance(func, cst.Attribute)
        if not self.receiver:
            return updated_node.with_changes(func=cst.Name(self.name))
        # a call whose arguments start on their own line gets the receiver on its own too
        after = updated_node.whitespace_before_args
        spacing = after if isinstance(after, cst.ParenthesizedWhitespace) \
            else cst.SimpleWhitespace(" ")
        receiver = cst.Arg(value=func.value, comma=cst.Comma(whitespace_after=spacing)
                           if updated_node.args else cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(func=cst.Name(self.name),
                                         args=[receiver, *updated_node.args])


def place_detached(context: InjectionContext, helper: helping.Helper, module: str,
                   role: str, rng: random.Random) -> tuple[str, str]:
    """The module's new text with a function copy of the method before its first caller and
    the callers' calls redirected to it (its locals renamed unless `role` is `copy`), and the
    copy's qualname."""
    index = context.index
    reason = overridable(context, helper.qualname)
    if reason is not None:
        raise InjectionRefused(reason)
    facts = index.modules[module]
    scopes = callers(context, helper.qualname).get(module, [])
    tree = context.module(facts.path)
    calls: list[cst.Call] = []
    position = None
    imported = _imported(context, module)
    for number, statement in enumerate(tree.body):
        visitor = _Calls(helper.name, imported)
        statement.visit(visitor)
        if visitor.loose:
            raise InjectionRefused(f"{facts.path} reads `.{helper.name}` without calling it")
        named = statement.name.value if isinstance(statement, (cst.FunctionDef,
                                                               cst.ClassDef)) else None
        if visitor.calls and any(scope == f"{module}.{named}" or
                                 scope.startswith(f"{module}.{named}.") for scope in scopes):
            calls.extend(visitor.calls)
            position = number if position is None else position
    if position is None or not calls:
        raise InjectionRefused(f"no call of `.{helper.name}(...)` written in {facts.path}")
    unpassed = copying.dead_switches(helper.node, calls, receiver=True)
    if unpassed:
        raise InjectionRefused(
            f"no call of `.{helper.name}(...)` in {facts.path} passes `{unpassed[0]}`: a copy "
            "there would hold a branch on it that no test can run")
    if tree.default_indent != context.module(helper.path).default_indent:
        raise InjectionRefused(f"{facts.path} and {helper.path} indent differently")
    text = context.module(helper.path).code_for_node(helper.node)
    pool = context.vocabulary.near(module)
    self_name = helper.node.params.params[0].name.value if helper.node.params.params else None
    if self_name is None:
        raise InjectionRefused(f"`{helper.qualname}` takes no `self`")
    kept = reads_receiver(helper.node, self_name)
    if not kept and not all(isinstance(call.func, cst.Attribute)
                            and _plain_receiver(call.func.value) for call in calls):
        raise InjectionRefused(f"a call of `.{helper.name}(...)` in {facts.path} computes its "
                               "receiver, which a copy without `self` would no longer do")
    first = tree.body[position]
    assert isinstance(first, (cst.FunctionDef, cst.ClassDef))  # where the callers are
    needs = helping.bindings(context, helper, module,
                             index.definitions[f"{module}.{first.name.value}"].start_line)
    receiver, clash = _receiver(helper, text, pool, rng) if kept else ("", {})
    needed = {**clash, self_name: receiver} if kept else {}
    if needs.free(needed) != needed:
        raise InjectionRefused(f"a copy of `{helper.qualname}` in {facts.path} would name its "
                               "receiver like a module it reads names through")
    mapping = dict(needed)
    if role != "copy":
        mapping.update(needs.free(naming.local_names(
            [item for item in helper.locals_ if item not in clash], text, pool, rng)))
        if receiver in mapping.values() or len(set(mapping.values())) < len(mapping):
            mapping = dict(needed)
    name = naming.copy_name(context, helper.name, helper.qualname, module, rng)
    original = needs.applied(helper.node)
    # without its receiver the copy's header differs: its body is what must match
    shape = original if kept else without_receiver(original)
    copy = _copy(original, name, mapping, kept)
    if not copying.matches_as_clone(shape, copy):
        copy = _copy(original, name, needed, kept)
        if not copying.matches_as_clone(shape, copy):
            raise InjectionRefused(f"a function copy of `{helper.qualname}` would not read as "
                                   "a clone of it")
    copy = _dedented_docstring(copy, tree.default_indent)
    if kept:
        annotated = _annotated_receiver(context, helper, copy, module, receiver)
        # the header is part of a short definition's hash: an annotation the original's
        # `self` lacks could hide the copy from the detector
        copy = annotated if copying.matches_as_clone(original, annotated) else copy
    redirected = tree.visit(_Redirect(calls, name, receiver=kept))
    assert isinstance(redirected, cst.Module)
    result = edit.insert_top(redirected, position, [copy])
    result = add_imports(result, tree, position, needs.imports, module, facts.is_package)
    return without_unused(context, module, tree, result).code, f"{module}.{name}"


def _copy(node: cst.FunctionDef, name: str, mapping: dict[str, str],
          receiver: bool) -> cst.FunctionDef:
    """The function copy of the method, with its receiver or without it."""
    copy = copying.copy_of(node, name, mapping)
    return copy if receiver else without_receiver(copy)


def _dedented_docstring(copy: cst.FunctionDef, indent: str) -> cst.FunctionDef:
    """The docstring's lines one level less indented: the method's body sat a level deeper
    than the function's."""
    body = copy.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return copy
    line = body.body[0]
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
            and isinstance(line.body[0], cst.Expr)
            and isinstance(line.body[0].value, cst.SimpleString)):
        return copy
    text = line.body[0].value.value
    lines = text.split("\n")
    lines = [lines[0], *(item[len(indent):] if item.startswith(indent) else item
                         for item in lines[1:])]
    docstring = line.body[0].with_changes(value=cst.SimpleString("\n".join(lines)))
    return copy.with_changes(body=body.with_changes(body=[
        line.with_changes(body=[docstring]), *body.body[1:]]))


def _annotated_receiver(context: InjectionContext, helper: helping.Helper,
                        copy: cst.FunctionDef, module: str, receiver: str) -> cst.FunctionDef:
    """In an annotated method, the receiver annotated with its class as the module can name
    it: `node: Node` where it imports the class, `parser: "Parser"` where it imports it for
    type checking only, `field: fields.Field` where it imports its module; else left bare."""
    params = copy.params
    if not params.params or (copy.returns is None and not any(
            param.annotation is not None for param in params.params[1:])):
        return copy
    index = context.index
    cls = helper.qualname.rpartition(".")[0]
    home, short = index.module_of[cls], cls.rpartition(".")[2]
    spelled = None
    for item in index.modules[module].imports:
        if item.scope != module:
            continue
        if index.resolve_dotted(item.target) == cls or item.target == cls:
            spelled = f'"{item.bound}"' if item.type_only else item.bound
            break
        if item.target == home and not item.type_only:
            spelled = f"{item.bound}.{short}"
    if spelled is None:
        return copy
    first = params.params[0].with_changes(
        annotation=cst.Annotation(cst.parse_expression(spelled)))
    return copy.with_changes(params=params.with_changes(params=[first, *params.params[1:]]))
