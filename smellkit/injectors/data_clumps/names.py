"""Names for what the fields mode creates: functions named by the method's words around the
class's noun (`format_length_error`)."""

from __future__ import annotations

import random
import re

from smellkit.injectors.base import InjectionContext
from smellkit.injectors.data_clumps.body import class_noun
from smellkit.injectors.data_clumps.fields import Reader
from smellkit.injectors.naming import meaningful, overlaps, snake, words


def source_of(context: InjectionContext, reader: Reader) -> str:
    """The reader's definition as written in its file."""
    definition = context.index.definitions[reader.qualname]
    lines = context.source(reader.path).splitlines()
    return "\n".join(lines[definition.start_line - 1:definition.end_line])


def shape(name: str, noun: str) -> str:
    """A function's name with its class's noun left out (`validate_{}`)."""
    return re.sub(rf"(?<![a-z0-9]){re.escape(noun)}(?![a-z0-9])", "{}", name, count=1) \
        if noun else name


SPECIAL_VERBS = {"__call__": ("validate", "check", "apply", "run", "process", "handle"),
                 "__repr__": ("repr", "describe", "format"), "__str__": ("format", "render",
                                                                          "describe")}
"""Verbs for the function that takes over a special method: first the one the module's name
starts alike (`validate` in `validators.py`), else the one the repository uses most (`__call__`
of `Length` becomes `validate_length`)."""


def function_names(context: InjectionContext, reader: Reader,
                    rng: random.Random) -> list[str]:
    """Names for the function: the method's words around its class's noun (`format_length_error`
    for `Length._format_error`, `describe_endpoint` for `Endpoint.describe`) or its own words
    alone, a special method named by a verb the repository uses with the noun
    (`validate_length`, `check_length`), in an order the seed shuffles; then with words used
    near them."""
    method = reader.qualname.rpartition(".")[2]
    cls_name = reader.cls.rpartition(".")[2]
    vocabulary = context.vocabulary
    nouns = class_noun(cls_name)
    natural: list[str] = []
    if method.startswith("__"):
        stem = reader.module.rpartition(".")[2].strip("_")
        verbs = sorted(SPECIAL_VERBS.get(method, (method.strip("_"),)),
                       key=lambda word: (word[:5] != stem[:5], -vocabulary.counts[word]))
        own = verbs[:1]
        natural.extend(snake([verb, *(word for word in nouns if not overlaps(word, [verb]))])
                       for verb in verbs[:2] if vocabulary.counts[verb] or verb == verbs[0])
    else:
        own = [word for word in words(method) if meaningful(word) or word in ("to", "as")]
        spoken = words(method)
        if len(spoken) >= 2 and not meaningful(spoken[0]) and len(own) == 1 and \
                source_of(context, reader).count(method) == 1:
            natural.append(method.lstrip("_"))  # `get_completions` says what it returns
    noun = [word for word in nouns if not overlaps(word, own)]
    head = [*own, *noun] if len(own) < 2 else [*own[:-1], *noun, *own[-1:]]
    natural.insert(0, snake(head))
    if len(own) >= 2:
        natural.append(snake(own))  # `format_error` beside `format_length_error`
    natural = list(dict.fromkeys(natural))
    rng.shuffle(natural)  # two cases at one method need not share the function's name
    found = vocabulary.names(reader.module, method, cls_name, head=head, rng=rng)
    return [name for name in dict.fromkeys([*natural, *found])
            if not name.startswith("test") and (name != method or name in natural)][:80]
