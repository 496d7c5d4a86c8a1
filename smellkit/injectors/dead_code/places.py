"""Names and places for the dead-code injector's new functions.

A dead wrapper reads as a superseded helper only when it is named like its neighbours: its
words come from the function it wraps and from the module it goes to (`naming.Vocabulary`),
shuffled by the case's seed, never from one fixed list (`_legacy_x`, `_x_fallback`) that every
case would share. It goes after a top-level definition of the module the seed picks, never
after (or inside) an `if __name__ == "__main__":` block: code there belongs to a script.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator, Sequence

import libcst as cst

from smellkit._internal import pyast
from smellkit.analysis.context import Context
from smellkit.facts import Attr
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import edit
from smellkit.injectors.naming import MIN_WORD, pick, snake, words


def new_name(context: InjectionContext, module: str, near: Sequence[str], rng: random.Random,
             taken: set[str], *, what: str = "function", also: Sequence[str] = (),
             private: bool = True) -> str:
    """A name (private unless told) free in `module` and in the files `also` (which will import
    it), made of the words of `near` (the definitions the new one imitates, the first one's
    words leading) and of the module's own words."""
    vocabulary = context.vocabulary
    index = context.index
    sources = [context.source(path) for path in (index.modules[module].path, *also)]
    head = [word for word in words(near[0].rpartition(".")[2]) if len(word) >= MIN_WORD][:3] \
        if near else []
    options = vocabulary.combinations(head, vocabulary.near(module, *near), rng)
    if head and rng.random() < 0.5:
        next(options, None)  # not always the bare private twin of the first name
    spoken = _spoken(context)
    chosen = pick((name for name in _snake_names(options, private) if name not in spoken
                   and all(edit.name_free(source, name) for source in sources)),
                  taken, what=f"a new {what} in {module}")
    taken.add(chosen)
    return chosen


def _spoken(context: InjectionContext) -> frozenset[str]:
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


def _snake_names(options: Iterator[list[str]], private: bool) -> Iterator[str]:
    for parts in options:
        yield snake(parts, private=private)


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


def _is_main_guard(statement: cst.BaseStatement) -> bool:
    if not isinstance(statement, cst.If):
        return False
    code = cst.Module(body=[]).code_for_node(statement.test)
    return "__name__" in code and "__main__" in code


def spots(tree: cst.Module) -> list[int]:
    """Positions in the module body where a new top-level def may go: right after a top-level
    def or class, before any `__main__` guard (at the guard itself when there is none)."""
    body = list(tree.body)
    end = next((number for number, statement in enumerate(body) if _is_main_guard(statement)),
               len(body))
    found = [number + 1 for number, statement in enumerate(body[:end])
             if isinstance(statement, (cst.FunctionDef, cst.ClassDef))]
    return found or [end]


def insert(tree: cst.Module, texts: Sequence[str], position: int) -> str:
    """The module's new text with the statements of `texts` at `position` of its body."""
    statements = [edit.statement(tree, text) for text in texts]
    return edit.insert_top(tree, position, statements).code
