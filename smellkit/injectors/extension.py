"""Extension points: the methods code outside the repository may override.

A public method of a public class (`Parameter.handle_parse_result`, `DefaultMeta.render_field`)
is one: libraries document subclassing such classes, so a call through an instance may reach a
user's override. An injection that pastes or copies such a method in place of its calls would
silently bypass that override, a change of behaviour the repository's tests cannot see. A method
whose name, or the name of a class around it, is private (`_m`, `_Frame.m`) is the repository's
own; special methods (`__init__`) are public, as subclasses override them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from smellkit.graphs.index import Index


def public_method(index: Index, qualname: str) -> str | None:
    """`Class.method` as a reader names it when `qualname` is a method code outside the
    repository may override; None for a private one (or no method)."""
    definition = index.definitions.get(qualname)
    if definition is None or definition.kind != "method":
        return None
    cls = definition.parent
    inner = cls.removeprefix(index.module_of[cls] + ".").split(".")
    if any(_private(part) for part in (*inner, definition.name)):
        return None
    return ".".join([*inner, definition.name])


def _private(name: str) -> bool:
    """`_name`, but not a special method such as `__init__`."""
    return name.startswith("_") and not name.endswith("__")
