"""Python's builtin names and how the graphs spell them: a leaf module every layer may import."""

from __future__ import annotations

import builtins

BUILTIN_PREFIX = "<builtin>."
"""Qualified names of builtins in the graphs: `<builtin>.len`, never confused with a module."""

BUILTIN_NAMES = frozenset(dir(builtins))
"""Every name the `builtins` module defines in the running interpreter."""
