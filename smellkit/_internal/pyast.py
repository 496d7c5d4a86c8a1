"""`ast.parse` that threads may call at once.

CPython before 3.11.8 and 3.12.1 (gh-106905) keeps the depth counter of the C-to-Python AST
conversion in state every thread shares: two threads converting at once (a collection that runs a
finaliser is enough to switch threads mid-conversion) fail with `SystemError: AST constructor
recursion depth mismatch`. Scoring checks predictions on threads, so every parse in smellkit goes
through one lock; the conversion holds the GIL anyway, so the lock costs no parallelism.
"""

from __future__ import annotations

import ast
import threading
from typing import Literal, overload

_lock = threading.Lock()


@overload
def parse(source: str | bytes, filename: str = ..., mode: Literal["exec"] = ...) -> ast.Module: ...
@overload
def parse(source: str | bytes, filename: str = ..., *,
          mode: Literal["eval"]) -> ast.Expression: ...


def parse(source: str | bytes, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """`ast.parse(source, filename, mode)`, one thread at a time."""
    with _lock:
        return ast.parse(source, filename=filename, mode=mode)
