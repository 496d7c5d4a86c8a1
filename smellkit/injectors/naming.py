"""New names that read as the repository's own: made of the words its identifiers already use.

Injected code must not give itself away. Numbered names (`index_3`, `_parser_steps_2.py`,
`ParserSteps3`) and one fixed word list shared by every case (`_legacy_x`, `_x_fallback`) are
tells a solver (or a reviewer) spots at once. A `Vocabulary` holds the word parts of every name
in the repository with their frequencies, and per module the words used near a definition, so an
injector asks for "a private snake-case name built from these words, not taken" and gets
`_token_stream` where it used to get `_steps_2`. When every natural combination is taken the
injector refuses rather than numbering.
"""

from __future__ import annotations

import itertools
import keyword
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from smellkit.errors import InjectionRefused
from smellkit.graphs.builtin_names import BUILTIN_NAMES

if TYPE_CHECKING:
    from smellkit.graphs.index import Index

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_NUMBERED = re.compile(r"(?:_\d+|[A-Za-z]\d+)$")
MIN_WORD = 3
"""Shorter word parts (`x`, `fn`, `to`) make poor names on their own."""
_STOP = frozenset({"self", "cls", "args", "kwargs", "init", "test", "tests", "the", "and", "for",
                   "get", "set", "new", "old", "tmp", "temp", "foo", "bar", "baz", "main"})
"""Word parts that say nothing about what a definition does."""


def words(name: str) -> list[str]:
    """Lower-case word parts of an identifier: `parseHTTPHeader_v2` -> parse, http, header, v."""
    return [part.lower() for part in _WORD.findall(name) if not part.isdigit()]


def meaningful(word: str) -> bool:
    """A word part that can carry a new name: long enough and not a filler (`self`, `get`,
    `test`: a module named `test.py` would read as a test file)."""
    return len(word) >= MIN_WORD and word not in _STOP


def overlaps(word: str, others: Sequence[str]) -> bool:
    """`word` repeats one of `others` or shares its stem (`parse` and `parser`): a name made
    of both would stutter (`_ParserParse`)."""
    return any(word.startswith(other) or other.startswith(word) for other in others)


def snake(parts: Sequence[str], *, private: bool = False) -> str:
    name = "_".join(parts)
    return f"_{name}" if private else name


def camel(parts: Sequence[str], *, private: bool = False) -> str:
    name = "".join(part[:1].upper() + part[1:] for part in parts)
    return f"_{name}" if private else name


def is_numbered(name: str) -> bool:
    """True for names that end in a counter (`index_3`, `Steps2`, `module_2`): a tell."""
    return bool(_NUMBERED.search(name.rstrip("_")))


def is_doubled(name: str) -> bool:
    """True for names whose word parts stutter (`_UnboundFieldFieldListMixin`, `value_v`,
    `parser_parse`): two class names glued, or a word after its own stem."""
    parts = words(name)
    for first, second in itertools.pairwise(parts):
        short, long = sorted((first, second), key=len)
        if long.startswith(short) and (len(short) != 2 or short == long):  # `is_iso` is fine
            return True
    return False


def usable(name: str, taken: Iterable[str] | set[str] | frozenset[str]) -> bool:
    """A valid identifier that shadows nothing: not taken, not a keyword, not a builtin."""
    return (name.isidentifier() and not keyword.iskeyword(name) and name not in BUILTIN_NAMES
            and name not in taken)


@dataclass
class Vocabulary:
    """Word parts of the repository's names, by frequency overall and by module."""

    counts: Counter[str] = field(default_factory=Counter)
    by_module: dict[str, Counter[str]] = field(default_factory=dict)
    module_stems: tuple[str, ...] = ()
    """The file stems of the repository's modules (to copy its module naming)."""

    @classmethod
    def of(cls, index: Index) -> Vocabulary:
        found = cls()
        stems: set[str] = set()
        for qualname, definition in index.definitions.items():
            if definition.kind == "lambda" or (definition.name.startswith("__")
                                               and definition.name.endswith("__")):
                continue  # `__delitem__` is Python's word, not the repository's
            module = index.module_of.get(qualname, "")
            local = found.by_module.setdefault(module, Counter())
            for word in words(definition.name):
                if len(word) >= MIN_WORD and word not in _STOP:
                    found.counts[word] += 1
                    local[word] += 1
        for module in index.modules:
            stem = module.rpartition(".")[2]
            stems.add(stem)
            for word in words(stem):
                if len(word) >= MIN_WORD and word not in _STOP:
                    found.counts[word] += 1
        found.module_stems = tuple(sorted(stems))
        return found

    def private_modules(self) -> bool:
        """Whether the repository names its internal modules with a leading underscore."""
        private = sum(1 for stem in self.module_stems if stem.startswith("_")
                      and not stem.startswith("__"))
        return private * 4 >= len(self.module_stems) > 0

    def near(self, module: str, *names: str) -> list[str]:
        """Words for a new name near `names` in `module`: the names' own words first, then the
        module's most used words, then the repository's; each once."""
        ordered: list[str] = []
        for name in names:
            ordered.extend(word for word in words(name.rpartition(".")[2])
                           if len(word) >= MIN_WORD and word not in _STOP)
        ordered.extend(word for word, _ in self.by_module.get(module, Counter()).most_common(12))
        ordered.extend(word for word, _ in self.counts.most_common(24))
        return list(dict.fromkeys(ordered))

    def combinations(self, head: Sequence[str], pool: Sequence[str], rng: random.Random,
                     *, most: int = 2) -> Iterator[list[str]]:
        """Word lists to try: `head` alone, then `head` with one or two words of `pool` (the
        order shuffled by `rng` among the first few, so cases differ), never a word twice."""
        if head:
            yield list(head)
        choices = [word for word in pool if word not in head]
        front, rest = choices[:6], choices[6:]
        rng.shuffle(front)
        choices = front + rest
        for word in choices:
            yield [*head, word] if rng.random() < 0.5 or not head else [word, *head]
        if most >= 2:
            for first in choices[:8]:
                for second in choices[:8]:
                    if first != second:
                        yield [*head, first, second]

    def names(self, module: str, *near: str, head: Sequence[str] = (), rng: random.Random,
              camel_case: bool = False, private: bool = False, most: int = 2) -> Iterator[str]:
        """Candidate new names, most natural first: `head` (word parts) alone, then with one
        or two words used near `near` in `module` (`near`, `combinations`), in snake case or
        camel case. Filter them with `pick`."""
        pool = self.near(module, *near)
        join = camel if camel_case else snake
        for parts in self.combinations(head, pool, rng, most=most):
            yield join(parts, private=private)


def pick(candidates: Iterable[str], taken: Iterable[str] | set[str] | frozenset[str],
         *, what: str) -> str:
    """The first usable candidate neither numbered nor doubled; refuses the injection when
    there is none."""
    seen = taken if isinstance(taken, (set, frozenset)) else set(taken)
    for name in candidates:
        if usable(name, seen) and not is_numbered(name) and not is_doubled(name):
            return name
    raise InjectionRefused(f"no natural free name for {what}",
                           hint="every combination of the repository's words was taken")
