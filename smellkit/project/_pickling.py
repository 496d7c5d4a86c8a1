"""Pickling facts fast: named tuples rebuilt with one C call each instead of a Python `__new__`.

A named tuple pickles through `__reduce_ex__`, which calls its Python-level `__getnewargs__`, and
unpickles through its Python-level `__new__`; for the hundreds of thousands of records one large
repository yields, both show. Reducing each record to `tuple.__new__(cls, values)` skips the
Python `__new__` on load (the objects are the same: a named tuple's `__new__` does just that) and
keeps the result loadable by plain `pickle.loads`.
"""

from __future__ import annotations

import copyreg
import io
import pickle
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

_new = tuple.__new__


def _reduce(record: tuple[Any, ...]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    return _new, (record.__class__, tuple(record))


def _is_plain_named_tuple(value: object) -> bool:
    """A named tuple whose whole state is its items (no instance dict, no extra slots)."""
    return (isinstance(value, type) and value.__bases__ == (tuple,)
            and hasattr(value, "_fields") and value.__dictoffset__ == 0
            and getattr(value, "__slots__", None) == ())


def dispatch_table(modules: Iterable[ModuleType]) -> dict[type, Any]:
    """`copyreg`'s table plus the fast reducer for every plain named tuple in `modules`."""
    table: dict[type, Any] = dict(copyreg.dispatch_table)
    for module in modules:
        for value in vars(module).values():
            if _is_plain_named_tuple(value):
                table[value] = _reduce
    return table


def dumps(value: object, table: dict[type, Any]) -> bytes:
    """`pickle.dumps` at the highest protocol, with `table` for reducers."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = table
    pickler.dump(value)
    return buffer.getvalue()
