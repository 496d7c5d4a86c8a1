"""What makes a definition used without a visible reference: hooks, registering decorators,
overrides of outside classes, duck-typed protocols, registration through subclassing.

Kept apart from the dead-code rules so each stays short; everything here is a fact about one
definition or class, computed on demand.
"""

from __future__ import annotations

import fnmatch
import importlib
import inspect
import re
import sys
import warnings
from collections.abc import Iterable, Sequence
from functools import cache

from smellkit.analysis.context import Context
from smellkit.analysis.usage import IDENTIFIER
from smellkit.facts import Attr, Definition, FileFacts
from smellkit.graphs.builtin_names import BUILTIN_PREFIX

HOOK_NAMES = frozenset({
    "setUp", "tearDown", "setUpClass", "tearDownClass", "setUpModule", "tearDownModule",
    "asyncSetUp", "asyncTearDown", "setup_module", "teardown_module", "setup_function",
    "teardown_function", "setup_method", "teardown_method", "setup_class", "teardown_class",
    "load_tests", "generic_visit", "_missing_", "_generate_next_value_", "_ignore_", "_order_",
    "_ipython_display_", "_ipython_key_completions_", "_repr_pretty_",
})
HOOK_PREFIXES = ("pytest_", "visit_", "leave_", "depart_", "_repr_")
HOOK_VARIABLES = frozenset({
    "urlpatterns", "app_name", "default_app_config", "pytest_plugins", "pytestmark",
    "collect_ignore", "collect_ignore_glob", "application", "handler400", "handler403",
    "handler404", "handler500",
})
PLAIN_DECORATORS = frozenset({
    "staticmethod", "classmethod", "property", "cached_property", "functools.cached_property",
    "functools.wraps", "wraps", "functools.lru_cache", "lru_cache", "functools.cache", "cache",
    "functools.total_ordering", "total_ordering", "functools.singledispatch", "singledispatch",
    "functools.singledispatchmethod", "contextlib.contextmanager", "contextmanager",
    "contextlib.asynccontextmanager", "asynccontextmanager", "typing.final", "final",
    "typing.no_type_check", "dataclass", "dataclasses.dataclass", "typing.runtime_checkable",
    "runtime_checkable", "deprecated", "warnings.deprecated", "typing_extensions.deprecated",
})
USED_DECORATORS = frozenset({
    "overload", "typing.overload", "abstractmethod", "abc.abstractmethod", "override",
    "typing.override", "typing_extensions.override", "abc.abstractproperty",
    "abc.abstractclassmethod", "abc.abstractstaticmethod",
})
REGISTERING_WORDS = ("register", "route", "hook", "fixture", "command", "group", "callback",
                     "handler", "listen", "receiver", "subscribe", "expose", "plugin", "implement",
                     "task", "signal", "endpoint", "event", "api_view", "action")
_PLAIN_METACLASSES = frozenset({"ABCMeta", "abc.ABCMeta", "type", "EnumMeta", "enum.EnumMeta",
                                "EnumType", "enum.EnumType"})
_DATA_BASES = ("NamedTuple", "TypedDict", "Enum", "IntEnum", "StrEnum", "Flag", "IntFlag",
               "BaseModel", "Struct", "Protocol")
_NO_STATE_BASES = frozenset({"object", BUILTIN_PREFIX + "object", "typing.Generic",
                             "typing.Protocol", "typing_extensions.Protocol", "abc.ABC"})
"""Outside bases that hold no state a subclass's constructor could stand in for."""
_NEVER_IMPORT = frozenset({"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo",
                           "__main__", "pydoc_data"})


@cache
def _standard_class(dotted: str) -> type | None:
    """The standard-library class `dotted` names; None when it is not one (or not importable)."""
    name = dotted[len(BUILTIN_PREFIX):] if dotted.startswith(BUILTIN_PREFIX) else dotted
    module, _, attr = name.rpartition(".")
    module = module or "builtins"
    top = module.split(".")[0]
    if top not in sys.stdlib_module_names or top in _NEVER_IMPORT:
        return None
    try:
        with warnings.catch_warnings():  # deprecated modules warn on import
            warnings.simplefilter("ignore")
            value: object = importlib.import_module(module)
        for part in attr.split("."):
            value = getattr(value, part)
    except Exception:
        return None
    return value if isinstance(value, type) else None


@cache
def outside_members(dotted: str) -> frozenset[str] | None:
    """Member names of a standard-library class; None when it is not one (or not importable)."""
    found = _standard_class(dotted)
    return frozenset(dir(found)) if found is not None else None


_PROMPT = re.compile(r"\s*>>>(?: |$)(.*)")
_CONTINUATION = re.compile(r"\s*\.\.\.(?: |$)(.*)")
_STRING_LITERAL = re.compile(r"""("|')(?:\\.|(?!\1).)*\1""")


def doctest_names(lines: Sequence[str]) -> frozenset[str]:
    """Identifiers the doctest examples of a file read (`>>> dt = _localize(tz, now)`), string
    literals left out: doctest runs them in the module's namespace, so they use its names."""
    found: set[str] = set()
    in_example = False
    for line in lines:
        match = _PROMPT.match(line) or (_CONTINUATION.match(line) if in_example else None)
        in_example = match is not None
        if match is not None:
            found.update(IDENTIFIER.findall(_STRING_LITERAL.sub("", match.group(1))))
    return frozenset(found)


@cache
def outside_init(dotted: str) -> bool:
    """Whether an outside class may have a Python `__init__` that sets up state its other
    methods read: unknown for classes outside the standard library (so yes); for a standard
    one, a class of its MRO other than `object` defines `__init__` as a Python function."""
    name = dotted[len(BUILTIN_PREFIX):] if dotted.startswith(BUILTIN_PREFIX) else dotted
    if name.split(".")[0] not in sys.stdlib_module_names and "." in name:
        return True
    found = _standard_class(dotted)
    return found is not None and any(inspect.isfunction(vars(cls).get("__init__"))
                                     for cls in found.__mro__)


class ClassFacts:
    """Per-class facts the rules need, computed on demand and kept."""

    def __init__(self, context: Context):
        self.index = context.index
        self._outside: dict[str, tuple[str, ...]] = {}

    def outside_bases(self, cls: str) -> tuple[str, ...]:
        """Bases from outside the repository anywhere in the class's ancestry."""
        found = self._outside.get(cls)
        if found is None:
            names: list[str] = []
            for ancestor in self.index.mro(cls):
                if ancestor not in self.index.classes:
                    continue
                for base in self.index.bases(ancestor):
                    if base not in self.index.classes and base not in names and base not in (
                            "object", BUILTIN_PREFIX + "object"):
                        names.append(base)
            found = self._outside[cls] = tuple(names)
        return found

    def override_of_outside(self, cls: str, name: str) -> str | None:
        """'known'/'possible' when `name` overrides (or may override) an outside base's member."""
        verdict = None
        for base in self.outside_bases(cls):
            members = outside_members(base)
            if members is None:
                verdict = "possible"
            elif name in members:
                return "known"
        return verdict

    def replaces_outside_init(self, cls: str, facts: FileFacts) -> bool:
        """The class's `__init__` stands in for an outside base's: it calls no other `__init__`
        and comes before an outside class with a constructor of its own in the MRO of the class
        or of a subclass (a mixin of `distutils.cmd.Command` that sets `self._dry_run` itself).
        The attributes it sets are that base's state, which the base's own code reads."""
        init = f"{cls}.__init__"
        if init not in self.index.definitions or any(
                call.scope == init and isinstance(call.func, Attr) and call.func.attr == "__init__"
                for call in facts.calls):
            return False
        for current in (cls, *self.index.descendants(cls)):
            order = self.index.mro(current)
            if cls in order and any(
                    ancestor not in self.index.classes and ancestor not in _NO_STATE_BASES
                    and outside_init(ancestor) for ancestor in order[order.index(cls) + 1:]):
                return True
        return False

    def is_data_class(self, cls: str) -> bool:
        definition = self.index.definitions.get(cls)
        if definition is not None and any(
                d.rpartition(".")[2] in ("dataclass", "define", "frozen", "attrs", "s")
                for d in definition.decorators):
            return True
        return any(base.rpartition(".")[2] in _DATA_BASES for base in self.outside_bases(cls))

    def is_protocol(self, cls: str) -> bool:
        return any(base.rpartition(".")[2] == "Protocol" for base in self.outside_bases(cls))

    def registered(self, cls: str) -> bool:
        """A base class of the repository defines `__init_subclass__` or a custom metaclass."""
        for ancestor in self.index.mro(cls)[1:]:
            info = self.index.classes.get(ancestor)
            if info is None:
                continue
            if "__init_subclass__" in self.index.children.get(ancestor, {}):
                return True
            if info.metaclass and info.metaclass not in _PLAIN_METACLASSES:
                return True
        info = self.index.classes.get(cls)
        return bool(info and info.metaclass and info.metaclass not in _PLAIN_METACLASSES
                    and self.index.resolve_name(self.index.definitions[cls].parent,
                                                info.metaclass.split(".")[0]) in
                    self.index.definitions)


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def is_sunder(name: str) -> bool:
    """`_fields_`, `_missing_`, `_repr_html_`: the convention of framework hooks."""
    return (len(name) > 2 and name.startswith("_") and name.endswith("_")
            and not name.startswith("__") and not name.endswith("__"))


@cache
def _protocols() -> tuple[frozenset[str], ...]:
    """Public member names of standard duck-typed protocols (files, containers, generators)."""
    import collections.abc as abc
    import io

    groups = ((io.TextIOBase, io.BufferedIOBase, io.RawIOBase), (abc.MutableMapping,),
              (abc.MutableSequence,), (abc.MutableSet,), (abc.Generator, abc.AsyncGenerator))
    return tuple(frozenset(name for kind in group for name in dir(kind)
                           if not name.startswith("_")) for group in groups)


def duck_typed(name: str, members: Iterable[str]) -> bool:
    """`name` belongs to a standard protocol the class implements two other members of."""
    own = set(members)
    return any(name in group and len((own & group) - {name}) >= 2 for group in _protocols())


def decorator_verdict(context: Context, facts: FileFacts, definition: Definition,
                      ignored: Iterable[str] = ()) -> str | None:
    """'used' if a decorator registers or exempts the definition, 'unknown' if one may."""
    verdict = None
    for text in definition.decorators:
        if not text:
            return "used"  # a decorator call on a subscript or a call result: registration
        if any(fnmatch.fnmatchcase(text, pattern)
               for pattern in ignored):
            return "used"
        if text in PLAIN_DECORATORS:
            continue
        if text in USED_DECORATORS or text.endswith((".setter", ".deleter", ".getter")):
            return "used"
        last = text.rpartition(".")[2].lower()
        if any(word in last for word in REGISTERING_WORDS):
            return "used"
        head = text.split(".")[0]
        if "." in text and not names_module(context, facts, head):
            return "used"  # a method of an object: `@app.route`, `@cli.command`
        verdict = "unknown"
    return verdict


def names_module(context: Context, facts: FileFacts, head: str) -> bool:
    """Whether `head` in a decorator `head.x` is an imported module (not an object)."""
    for item in facts.imports:
        if item.bound == head:
            return not item.is_from or item.target in context.index.modules
    return False
