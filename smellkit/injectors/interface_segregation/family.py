"""Which families of the repository an interface segregation injection can widen: interfaces
and plain bases used as ones, and the methods (roles) that may be folded into them.

A name that code may look up by a string is never folded in: the whole string, or a string that
reads as a name's prefix (`"visit_"`) or suffix (`"_handler"`) with which a name is built.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import libcst as cst
import libcst.matchers as m

from smellkit.config import is_test_path
from smellkit.facts import Attr, Name
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.interface_segregation.edit import find_function


def spelled(index: Any) -> tuple[set[str], tuple[str, ...], tuple[str, ...]]:
    """The repository's strings: whole ones, and those that read as a name's prefix (`visit_`)
    or suffix (`_handler`), with which code builds a name to look up."""
    strings = {value for facts in index.modules.values() for value, _ in facts.string_constants}
    prefixes = tuple(sorted(value for value in strings
                            if value.endswith("_") and value.rstrip("_").isidentifier()))
    suffixes = tuple(sorted(value for value in strings
                            if value.startswith("_") and value.lstrip("_").isidentifier()))
    return strings, prefixes, suffixes


def role_method(context: InjectionContext, qualname: str, name: str,
                 strings: tuple[set[str], tuple[str, ...], tuple[str, ...]],
                 private: bool = False) -> bool:
    """A public method (or a private one, `private`, never a dunder) with a real body, plain,
    static or a class method (no other decorator), whose name is never spelled as a string
    (`getattr(obj, "name")`), nor built from one (`getattr(obj, "visit_" + kind)`)."""
    definition = context.index.definitions.get(qualname)
    whole, prefixes, suffixes = strings
    return (definition is not None and definition.kind == "method"
            and set(definition.decorators) <= {"staticmethod", "classmethod"}
            and len(definition.decorators) <= 1
            and not name.startswith("__") and (private or not name.startswith("_"))
            and not definition.is_stub and name not in whole
            and not name.startswith(prefixes) and not name.endswith(suffixes)
            and not definition.is_async)


def bases(context: InjectionContext, interfaces: set[str]) -> Iterable[tuple[str, list[str]]]:
    """Plain bases used as interfaces: classes (not already interfaces) whose public methods two
    or more of their subclasses override; with their concrete implementers (every subclass
    outside the tests with no abstract method)."""
    index = context.index
    for qualname in sorted(index.classes):
        if qualname in interfaces:
            continue
        descendants = [cls for cls in index.descendants(qualname)
                       if not is_test_path(context.path_of(cls) or "")]
        public = {name for name in index.children.get(qualname, {})
                  if not name.startswith("_")}
        overriding = [cls for cls in descendants
                      if public & set(index.children.get(cls, {}))]
        if len(overriding) < 2:
            if descendants:
                context.discard("a base whose public methods fewer than 2 subclasses override")
            continue
        yield qualname, [cls for cls in descendants if not _abstract(index, cls)]


def _abstract(index: Any, cls: str) -> bool:
    return any(decorator.rpartition(".")[2].startswith("abstract")
               for child in index.children.get(cls, {}).values()
               for decorator in index.definitions[child].decorators)


def family_of(context: InjectionContext, interface: str) -> list[str]:
    """Every class below the interface outside the tests: each one that lacks a folded-in
    method refuses it (abstract and partial bases too, in case they are instantiated)."""
    index = context.index
    return [cls for cls in index.descendants(interface)
            if not is_test_path(context.path_of(cls) or "") and not any(
                base.split("[")[0].rpartition(".")[2] == "Protocol" for base in index.bases(cls))]


def _dotted(expr: Any) -> str | None:
    if isinstance(expr, Name):
        return expr.id
    if isinstance(expr, Attr):
        base = _dotted(expr.base)
        return f"{base}.{expr.attr}" if base else None
    return None


def forwarded(context: InjectionContext, qualname: str) -> bool:
    """A `__getattr__` that only hands the lookup to another object (`return getattr(self.form,
    name)`): it answers a name only when that object has it."""
    index = context.index
    module = index.module_of.get(qualname)
    path = context.path_of(qualname)
    if module is None or path is None:
        return False
    node = find_function(context.module(path), qualname[len(module) + 1:].split("."))
    if node is None or not isinstance(node.body, cst.IndentedBlock):
        return False
    body = [statement for statement in node.body.body
            if not m.matches(statement, m.SimpleStatementLine(body=[m.Expr(m.SimpleString())]))]
    params = node.params.params
    return len(body) == 1 and len(params) == 2 and m.matches(body[0], m.SimpleStatementLine(
        body=[m.Return(m.Call(func=m.Name("getattr"), args=[
            m.Arg(m.Attribute(value=m.Name(params[0].name.value))),
            m.Arg(m.Name(params[1].name.value))]))]))


def abstract_decorator(context: InjectionContext, interface: str, *,
                       private: bool = True) -> str | None:
    """How the interface marks its abstract methods (`abstractmethod`, `abc.abstractmethod`).
    With `private`, only when one of them is private (`_serialize`): its private hooks are part
    of what it asks of implementers, so a role of private methods may be folded in as more of
    them."""
    index = context.index
    spelled_as = None
    hooks = False
    for name, child in sorted(index.children.get(interface, {}).items()):
        for decorator in index.definitions[child].decorators:
            if decorator.rpartition(".")[2] == "abstractmethod":
                spelled_as = decorator
                hooks = hooks or (name.startswith("_") and not name.startswith("__"))
    return spelled_as if hooks or not private else None


def called_names(index: Any) -> set[str]:
    """The last part of every name the repository calls (`NodeVisitor()`, `nodes.Const(...)`),
    assigns (`code_generator_class = CodeGenerator`, called later) or passes to a call: a class
    among them may be instantiated, so it cannot be left abstract."""
    names: set[str] = set()

    def add(expr: Any) -> None:
        if isinstance(expr, Name):
            names.add(expr.id)
        elif isinstance(expr, Attr):
            names.add(expr.attr)

    for facts in index.modules.values():
        for call in facts.calls:
            add(call.func)
            for argument in [*call.args, *(value for _, value in call.kwargs)]:
                add(argument)
        for assignment in facts.assignments:
            add(assignment.value)
    return names


def abstract_spelling(context: InjectionContext, base: str, family: Iterable[str],
                      called: set[str]) -> tuple[str, str, str | None] | None:
    """How a plain base (jinja2's `NodeVisitor`) becomes an abstract one, if it can: the base
    class to give it (`abc.ABC`), the decorator (`abc.abstractmethod`) and the import its module
    needs (None when it has one). Only a base of nothing, never called by name (an abstract
    class cannot be instantiated), in a family without a metaclass of its own (ABCMeta would
    conflict with it)."""
    index = context.index
    info = index.classes.get(base)
    short = base.rpartition(".")[2]
    if info is None or short in called or any(name not in ("", "object")
                                              for name in info.base_names):
        return None
    if any(getattr(index.classes.get(cls), "metaclass", None) for cls in [base, *family]):
        return None
    module = index.module_of.get(base, "")
    bound = {item.bound: item.target for item in index.modules[module].imports
             if item.scope == module and not item.type_only}
    if bound.get("abc") == "abc":
        return "abc.ABC", "abc.abstractmethod", None
    spelled = {target: name for name, target in bound.items()}
    if "abc.ABC" in spelled and "abc.abstractmethod" in spelled:
        return spelled["abc.ABC"], spelled["abc.abstractmethod"], None
    if "abc" in bound or "abc" in index.children.get(module, {}):
        return None  # `abc` names something else there
    return "abc.ABC", "abc.abstractmethod", "import abc"
