"""The name a retired function goes by: the name it had before its replacement took over.

A function people stop calling keeps the name it was written under, and that name is rarely the
new one with a role word glued on (`_old_parse`, `_simple_gettext` mark a copy, not a history).
It is a word of the new name said differently (`store_error` was `record_error`, `get_value`
was `lookup_value`), a shorter name before it grew a word (`timedelta_to_microseconds` was
`_timedelta_microseconds`), or a narrower name from the time it served one case only
(`List._deserialize` was `_deserialize_list`). Both are built from words the repository already
uses: a synonym counts only when some name of the repository contains it, and the narrowing
word is one used near the function (`Vocabulary.near`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from smellkit.analysis.context import Context
from smellkit.errors import InjectionRefused
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import edit
from smellkit.injectors.dead_code.places import spoken
from smellkit.injectors.naming import (
    is_doubled,
    is_numbered,
    meaningful,
    snake,
    usable,
    words,
)

SYNONYMS: tuple[frozenset[str], ...] = tuple(frozenset(group.split()) for group in (
    "get fetch find lookup resolve", "load read", "make build create", "store record save put",
    "add append", "check validate verify ensure", "parse decode", "render format",
    "dump serialize encode", "deserialize decode", "normalize normalized clean flatten",
    "process handle apply", "setup prepare configure", "collection sequence iterable",
    "error failure problem", "errors failures problems", "message text", "messages texts",
    "value item", "values items", "translations catalog", "options settings config",
    "merge combine", "convert coerce", "split tokenize", "escape quote", "update refresh",
    "remove delete discard drop", "name label", "names labels", "call invoke", "run execute",
    "write emit", "wrap adapt", "default fallback", "attr attribute",
    "instance object", "type kind", "init initialize", "iter iterate", "filter select",
    "compile generate", "context ctx", "env environment", "args arguments", "param parameter",
    "params parameters", "extract pull", "match test", "visit walk", "join concat"))
"""Words a function's name says differently from one version to the next; a swap is used only
when the new word is already a word of some name in the repository."""


_LINKING = frozenset({"to", "for", "of", "by", "and", "from", "with", "or", "on", "in", "at"})
"""Words a longer name links its parts with, the first a shorter name drops."""


def retired_names(context: InjectionContext, qualname: str, rng: random.Random) -> Iterator[str]:
    """Names for the earlier version of `qualname`, most natural first in a seeded order: its
    verb or noun swapped for a synonym the repository uses, the name without one of its words,
    then narrowed by a word of its class or one used near it (a one-word method is narrowed
    first: every class's `validate` would otherwise be `_check`); always private (the
    library's users never called it)."""
    index = context.index
    definition = index.definitions[qualname]
    parts = words(definition.name)
    known = context.analysis.derived(_all_words)
    swaps: list[list[str]] = []
    for number, word in enumerate(parts):
        if 0 < number < len(parts) - 1:
            continue  # the verb or the noun: a middle word swapped reads as a slip
        for group in SYNONYMS:
            if word in group:
                swaps.extend([*parts[:number], other, *parts[number + 1:]]
                             for other in sorted(group - {word}) if other in known)
    rng.shuffle(swaps)
    owner = index.class_of.get(qualname)
    narrow = [] if owner is None else [  # a method narrowed to its class: `_deserialize_list`
        snake([*parts, word], private=True) for word in words(owner.rpartition(".")[2])
        if meaningful(word) and word not in parts]
    if len(parts) == 1:  # `validate` is `_check` in every class: its class tells them apart
        yield from narrow
    for swapped in swaps:
        yield snake(swapped, private=True)
    if len(parts) >= 3:  # the shorter name it had before it grew a word
        linking = [number for number, word in enumerate(parts) if word in _LINKING]
        others = [number for number in range(1, len(parts)) if number not in linking]
        for number in [*linking, *others]:
            yield snake([*parts[:number], *parts[number + 1:]], private=True)
    yield from narrow
    module = index.module_of[qualname]
    # a word after the name, as a narrower version says what it served (`_clean_key_input`);
    # before it, a word of the module reads as another subject (`_date_clean_key`)
    pool = [word for word in context.vocabulary.near(module, qualname) if word not in parts]
    front, rest = pool[:6], pool[6:]
    rng.shuffle(front)
    yield from (snake([*parts, word], private=True) for word in [*front, *rest])


def retired_name(context: InjectionContext, qualname: str, rng: random.Random,
                 taken: set[str], longest: int) -> str:
    """The first of `retired_names` that is free in the module, named nowhere in the
    repository (a dead `_echo` beside a `self._echo(...)` would read as called), nor the
    private form of a name the repository uses (jinja2's `Parser.parse` retired as
    `_parse_tuple` would read as a helper of the live `parse_tuple`), not a mirror of one
    the case took, and no longer than `longest` characters when one such is free."""
    index = context.index
    source = context.source(index.modules[index.module_of[qualname]].path)
    known = spoken(context)
    names = [name for name in retired_names(context, qualname, rng)
             if usable(name, taken) and not is_numbered(name) and not is_doubled(name)
             and name not in known and name.lstrip("_") not in known
             and edit.name_free(source, name)]
    short = [name for name in names if len(name) <= longest]
    for name in [*short, *names][:1]:
        taken.add(name)
        return name
    raise InjectionRefused(f"no free name for the earlier version of `{qualname}`",
                           hint="every synonym and narrower name is taken")


def _all_words(analysis: Context) -> frozenset[str]:
    return frozenset(word for definition in analysis.index.definitions.values()
                     for word in words(definition.name))
