"""String constants of a repository and who imports their modules: the facts behind the
bypassed-constant form of shotgun surgery (and the injector that spells constants out)."""

from __future__ import annotations

from collections import defaultdict

from smellkit.analysis.context import Context
from smellkit.config import is_test_path
from smellkit.facts import Const, Name


def string_constants(context: Context) -> dict[str, list[tuple[str, str, int]]]:
    """value -> (qualname, module, line) of each module-level name bound once, outside tests,
    to exactly that string literal."""
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
                    and isinstance(bound, Const) and bound.type_name == "str"
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
