"""String constants of a repository and who imports their modules: the facts behind the
bypassed-constant form of shotgun surgery (and the injector that spells constants out)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from smellkit.analysis.context import Context
from smellkit.config import is_test_path
from smellkit.facts import Attr, CallOf, CallSite, Const, Expr, FileFacts, Name

_INTERN = frozenset({"intern", "sys.intern"})


def _interned(facts: FileFacts, value: Expr) -> bool:
    """`intern("block_end")` or `sys.intern(...)`: a string constant made by a call."""
    if not isinstance(value, CallOf) or not 0 <= value.index < len(facts.calls):
        return False
    call = facts.calls[value.index]
    func = call.func
    name = func.id if isinstance(func, Name) else (
        f"{func.base.id}.{func.attr}" if isinstance(func, Attr) and isinstance(func.base, Name)
        else None)
    return name in _INTERN and len(call.args) == 1 and isinstance(call.args[0], Const) \
        and call.args[0].type_name == "str"


def string_constants(context: Context, *, interned: bool = False
                     ) -> dict[str, list[tuple[str, str, int]]]:
    """value -> (qualname, module, line) of each module-level name bound once, outside tests,
    to exactly that string literal (or, with `interned`, to `intern("...")` of it too: jinja2's
    `TOKEN_BLOCK_END = intern("block_end")`)."""
    found: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for facts in context.index.modules.values():
        if is_test_path(facts.path):
            continue
        module_names = [item.target.id for item in facts.assignments
                        if item.scope == facts.module and isinstance(item.target, Name)]
        declared = {name for _, name in facts.globals_declared}
        strings: dict[int, list[str]] = defaultdict(list)
        for value, line in facts.string_constants:
            strings[line].append(value)
        for item in facts.assignments:
            target, bound = item.target, item.value
            if (item.scope == facts.module and isinstance(target, Name)
                    and module_names.count(target.id) == 1 and target.id not in declared
                    and ((isinstance(bound, Const) and bound.type_name == "str")
                         or (interned and _interned(facts, bound)))
                    and len(strings.get(item.line, ())) == 1):
                found[strings[item.line][0]].append(
                    (f"{facts.module}.{target.id}", facts.module, item.line))
    return found


def imports_from(context: Context, module: str, source: str) -> bool:
    """Whether `module` imports `source` or anything from it."""
    index = context.index
    for item in index.modules[module].imports:
        resolved = index.resolve_dotted(item.target) or item.target
        if item.target.startswith(source + ".") or source in (item.target, resolved,
                                                               index.scope_module(resolved)):
            return True
    return False


_ATTRIBUTE_FUNCTIONS = frozenset({"getattr", "hasattr", "setattr", "delattr"})


def _attribute_calls(facts: FileFacts) -> Iterator[CallSite]:
    for call in facts.calls:
        if isinstance(call.func, Name) and call.func.id in _ATTRIBUTE_FUNCTIONS and \
                len(call.args) >= 2:
            yield call


def attribute_name_lines(facts: FileFacts) -> set[int]:
    """Lines where a string literal names an attribute (`getattr(meta, "exclude")`): there the
    string is an attribute's name, whatever a constant of the same value means elsewhere."""
    return {call.line for call in _attribute_calls(facts)
            if isinstance(call.args[1], Const) and call.args[1].type_name == "str"}


def attribute_name_constants(context: Context) -> set[str]:
    """Qualnames of module-level constants some code passes as an attribute name
    (`getattr(obj, FIELD)`): for those, a literal attribute name is a real copy."""
    index = context.index
    found: set[str] = set()
    for facts in index.modules.values():
        for call in _attribute_calls(facts):
            name = call.args[1]
            if isinstance(name, Name):
                resolved = index.resolve_name(call.scope, name.id)
                found.add(resolved or f"{facts.module}.{name.id}")
            elif isinstance(name, Attr) and isinstance(name.base, Name):
                base = index.resolve_name(call.scope, name.base.id)
                if base is not None:
                    found.add(f"{base}.{name.attr}")
    return found
