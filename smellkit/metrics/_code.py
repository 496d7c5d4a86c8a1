"""Which definition a piece of code belongs to, shared by the object-oriented and coupling metrics.

Facts, call edges and attribute edges name the innermost scope: a lambda or a nested function.
The metrics count such code as part of the function or method it is written in: the code of a
definition is its own scope plus every lambda and nested function inside it, at any depth, but not
the methods of a class nested in it (those belong to that class).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from smellkit.facts import Definition
    from smellkit.graphs.index import Index

FUNCTION_KINDS = frozenset({"function", "method", "nested_function", "lambda"})


class CodeOwners:
    """Function-like definitions and their enclosing function-like definitions."""

    def __init__(self, index: Index):
        self.index = index
        definitions = index.definitions
        self.chain: dict[str, tuple[str, ...]] = {}
        """Scope -> itself and the function-like definitions around it, innermost first."""
        for qualname, definition in definitions.items():
            if definition.kind in FUNCTION_KINDS:
                self._chain(qualname, definition)
        self.code: dict[str, list[str]] = {}
        """Function-like definition -> the scopes of its code (itself first)."""
        for scope, chain in self.chain.items():
            for owner in chain:
                self.code.setdefault(owner, []).append(scope)
        for owner, scopes in self.code.items():
            scopes.remove(owner)
            scopes.insert(0, owner)

    def _chain(self, qualname: str, definition: Definition) -> tuple[str, ...]:
        found = self.chain.get(qualname)
        if found is not None:
            return found
        parent = self.index.definitions.get(definition.parent)
        if parent is not None and parent.kind in FUNCTION_KINDS:
            found = (qualname, *self._chain(definition.parent, parent))
        else:
            found = (qualname,)
        self.chain[qualname] = found
        return found

    def outermost(self, scope: str) -> str:
        """The outermost function-like definition whose code holds `scope` (a module: itself)."""
        chain = self.chain.get(scope)
        return chain[-1] if chain else scope

    @cached_property
    def methods(self) -> dict[str, str]:
        """Scope -> the method whose code holds it, for every scope inside a method."""
        class_of = self.index.class_of
        return {scope: chain[-1] for scope, chain in self.chain.items() if chain[-1] in class_of}

    @cached_property
    def classes(self) -> dict[str, str]:
        """Scope -> the class whose method's code holds it."""
        class_of = self.index.class_of
        return {scope: class_of[method] for scope, method in self.methods.items()}

    def scopes(self, definition: str) -> list[str]:
        """The scopes of a function-like definition's code, itself first."""
        return self.code.get(definition, [definition])

    def within(self, scope: str, definition: str) -> bool:
        """Whether `scope` is part of `definition`'s code."""
        return definition in self.chain.get(scope, (scope,))




def code_owners(index: Index) -> CodeOwners:
    """The index's `CodeOwners`, made once and shared by every metric."""
    return index.derived(CodeOwners)
