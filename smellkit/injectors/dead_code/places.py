"""Where the dead-code injector may write: never in (or after) an `if __name__ == "__main__":`
block, whose code belongs to a script; and which names the repository already speaks, so no new
name reads as called.
"""

from __future__ import annotations

import ast

import libcst as cst

from smellkit._internal import pyast
from smellkit.analysis.context import Context
from smellkit.facts import Attr
from smellkit.injectors.base import InjectionContext


def spoken(context: InjectionContext) -> frozenset[str]:
    """Names the repository already gives a definition anywhere, or calls as a method: a dead
    `_echo` beside click's `EchoingStdin._echo` would look called by every `self._echo(...)`
    (to a reader and to the dead-code check alike)."""
    return context.analysis.derived(_definition_and_method_names)


def _definition_and_method_names(analysis: Context) -> frozenset[str]:
    index = analysis.index
    names = {definition.name for definition in index.definitions.values()}
    names.update(call.func.attr for facts in index.modules.values() for call in facts.calls
                 if isinstance(call.func, Attr))
    return frozenset(names)


def main_guard_lines(source: str) -> list[tuple[int, int]]:
    """The line spans of the module's top-level `if __name__ == "__main__":` blocks."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return []
    return [(node.lineno, node.end_lineno or node.lineno) for node in tree.body
            if isinstance(node, ast.If) and _is_main_test(node.test)]


def _is_main_test(test: ast.expr) -> bool:
    if not isinstance(test, ast.Compare) or len(test.comparators) != 1:
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides) and \
        any(isinstance(side, ast.Constant) and side.value == "__main__" for side in sides)


def is_main_guard(statement: cst.BaseStatement) -> bool:
    """A top-level `if __name__ == "__main__":` statement."""
    if not isinstance(statement, cst.If):
        return False
    code = cst.Module(body=[]).code_for_node(statement.test)
    return "__name__" in code and "__main__" in code
