"""Names for what a duplication adds, made of the repository's words (`naming.py`): the copy,
its renamed locals and the module-level table that reaches it.

A fixed template (`_local_x`, `_DISPATCH`, `new_x`) repeats across every case and
tells a reader the code was generated; words of the helper, its module and its callers read as a
person's choice, and the seed picks among them so cases differ.
"""

from __future__ import annotations

import ast
import io
import keyword
import random
import re
import textwrap
import tokenize
from collections import Counter
from collections.abc import Iterable, Sequence

from smellkit._internal import pyast
from smellkit.graphs.builtin_names import BUILTIN_NAMES
from smellkit.injectors.base import InjectionContext
from smellkit.injectors.cst import edit
from smellkit.injectors.naming import (
    is_doubled,
    is_numbered,
    meaningful,
    overlaps,
    pick,
    snake,
    usable,
    words,
)

_COLLECTIONS = ("handlers", "helpers", "functions", "funcs", "callbacks", "hooks", "impls",
                "formatters", "converters", "registry", "table", "lookup")
"""Words a table of functions is named with, used only when the repository uses them too."""
_SYNONYMS = {
    "result": "outcome", "value": "item", "values": "items", "text": "string", "name": "label",
    "names": "labels", "path": "location", "parts": "pieces", "items": "entries",
    "data": "payload", "line": "row", "lines": "rows", "key": "field", "index": "position",
    "args": "arguments", "kwargs": "options", "rv": "returned", "out": "output",
    "title": "heading", "word": "token", "words": "tokens", "limit": "max_length",
    "message": "msg", "file": "stream", "char": "ch", "ctx": "context",
    "filename": "file_name", "encoding": "charset", "mode": "file_mode", "errors": "on_error",
    "node": "tree", "token": "tok", "option": "opt", "param": "parameter", "count": "total",
    "width": "columns", "prefix": "lead", "rest": "remainder", "buf": "buffer",
}
"""What a person renaming a local often writes instead (one choice among the vocabulary's)."""


def _words(name: str) -> list[str]:
    return [word for word in words(name) if meaningful(word)] or words(name)


def copy_name(context: InjectionContext, helper_name: str, qualname: str, module: str,
              rng: random.Random) -> str:
    """A private function name for a copy of `helper_name` in `module`: `_helper` when free,
    else the helper's words with one of the module's."""
    source = context.source(context.index.modules[module].path)
    head = _words(helper_name)
    pool = context.vocabulary.near(module, qualname)
    options = [snake(parts, private=True)
               for parts in context.vocabulary.combinations(head, pool, rng)]
    return pick((option for option in options
                 if option != helper_name and edit.name_free(source, option)),
                set(), what=f"a copy of {helper_name} in {module}")


def table_name(context: InjectionContext, helper_name: str, module: str,
               rng: random.Random) -> str:
    """A private constant name for a module-level table of functions in `module`
    (`_SPLIT_HANDLERS`): the helper's words and a collection word the repository uses."""
    source = context.source(context.index.modules[module].path)
    head = _words(helper_name)[-1:]
    used = [word for word in _COLLECTIONS if context.vocabulary.counts.get(word)]
    rng.shuffle(used)
    options = [[*head, word] for word in used]
    options.append([*head, "by", "name"])
    options.extend(context.vocabulary.combinations(head, context.vocabulary.near(module), rng))
    names = (snake(parts, private=True).upper() for parts in options if len(parts) > 1)
    return pick((name for name in names if edit.name_free(source, name)), set(),
                what=f"a table of functions in {module}")


def local_names(locals_: Sequence[str], text: str, pool: Sequence[str],
                rng: random.Random) -> dict[str, str]:
    """A new name for each local of a copy, unused anywhere in `text`, as a person renaming it
    writes: what is often written instead (`result` -> `outcome`, a word of a longer name
    swapped: `data_format` -> `payload_format`), a short name spelled out with a word the
    method uses (`k` -> `key`), a longer one cut to its last word (`input_params` ->
    `params`), or a one-word local after a noun of the method or its module (`flags` ->
    `field_flags`): a word the code uses as a variable, an attribute or a parameter, never a
    function it calls (`setdefault_params`), nor one it repeats (`value_v`). A local with no
    free option keeps its name."""
    taken = set(re.findall(r"\w+", text))
    called = set(re.findall(r"(\w+)\s*\(", text))
    own = Counter(word for identifier in identifiers(text) if identifier not in called
                  for word in words(identifier) if meaningful(word))
    spelled = [word for word, _ in own.most_common()]  # to spell out a short local
    def plain(word: str) -> bool:
        return word not in called and word not in BUILTIN_NAMES and not keyword.iskeyword(word)

    parameters = [word for word in dict.fromkeys(_parameter_words(text)) if plain(word)]
    nouns = [word for word in dict.fromkeys([*parameters, *pool]) if plain(word)]
    mapping: dict[str, str] = {}
    for name in locals_:
        head = words(name) or [name.strip("_")]
        private = name.startswith("_")
        options: list[str] = []
        if len(name.strip("_")) <= 2:  # `v`, `rv`: prefixing keeps the cryptic part
            options = [snake([word], private=private) for word in [*spelled, *nouns]
                       if word.startswith(head[0][:1]) and word not in head]
        elif len(head) > 1:  # a word swapped for its usual stand-in, or the last word alone
            options = [snake([*head[:number], _SYNONYMS[word], *head[number + 1:]],
                             private=private)
                       for number, word in enumerate(head) if word in _SYNONYMS]
            options.append(snake(head[-1:], private=private))
        else:  # the method's own parameters first (`field_flags`), then its module's words
            front = [word for word in parameters if not overlaps(word, head)]
            rest = [word for word in nouns if word not in front and not overlaps(word, head)][:4]
            rng.shuffle(front)
            rng.shuffle(rest)
            options = [snake([word, *head], private=private) for word in [*front, *rest]]
        synonym = _SYNONYMS.get(name)
        if synonym is not None:
            options.insert(rng.randrange(0, 2) if options else 0, synonym)
        chosen = _first((option for option in options
                         if option.strip("_") not in BUILTIN_NAMES), taken)
        if chosen is not None:
            mapping[name] = chosen
            taken.add(chosen)
    return mapping


def _parameter_words(text: str) -> list[str]:
    """The words of the function's parameters (`field` of `__call__(self, field, **kwargs)`),
    the nouns a person prefixes a local with; not `self`, `cls`, `args` or `kwargs`."""
    try:
        tree = pyast.parse(textwrap.dedent(text))
    except SyntaxError:
        return []
    function = tree.body[0] if tree.body else None
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    arguments = function.args
    names = [item.arg for item in (*arguments.posonlyargs, *arguments.args,
                                   *arguments.kwonlyargs)]
    return [word for name in names if name not in ("self", "cls")
            for word in words(name) if meaningful(word) and word not in ("args", "kwargs")]


def identifiers(text: str) -> list[str]:
    """The names the code uses (not its keywords, strings or comments), each time it does."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(textwrap.dedent(text)).readline))
    except (tokenize.TokenError, IndentationError):
        return []
    return [token.string for token in tokens if token.type == tokenize.NAME
            and not keyword.iskeyword(token.string) and token.string not in BUILTIN_NAMES]


def _first(options: Iterable[str], taken: set[str]) -> str | None:
    return next((option for option in options if usable(option, taken)
                 and not keyword.iskeyword(option) and not is_numbered(option)
                 and not is_doubled(option)), None)
