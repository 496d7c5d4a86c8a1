"""The generator: draws new inputs for entry points with Hypothesis, inside a worker of the smelly
version (its types are importable there). Run as a script next to the worker script, whose
containment and helpers it uses; never imported by smellkit.

`python _generator.py REQUEST.json`. The request is the worker's (paths, tools, seed, memory,
results) plus `entries`: [{id, module, qualname, changed, tests}] and `inputs`, a pickle of
{id: [payload]} of the recorded inputs. Per entry, two kinds of inputs are drawn (seeded,
derandomized, no example database):

- generated: each parameter from its annotation (`st.from_type`, edge values first for
  numbers, strings and collections; for `Any`, values of several types, bytes and a list among
  them, each in turn on the first recorded or generated input (`cycled`); an optional
  annotation Hypothesis cannot make or that does not evaluate, None), else from the types of
  the values recorded for it (`st.from_type` for builtins, `st.builds` for classes whose
  constructor is annotated, else the recorded values themselves); the receiver
  of a method and the class of a classmethod are drawn from the recorded ones, else built
  (`st.builds`) when the class's constructor is annotated or takes no argument. An entry point
  with no recorded input has its first generated ones swept and aimed at as if recorded.
- mutated: first, up to `swept` recorded inputs with one value set to a neighbour of itself
  (one more, one less, the other truth value, the empty string...: where boundaries sit): an
  argument, keyword ones included, or an attribute of an object argument, the receiver's
  too; then up to `mutated` recorded inputs with one argument (keyword ones and `**options`
  values included) redrawn as above, or from its recorded type. The function's own literals
  widen the sweep (`literals`): a number it compares against is a neighbour of every number
  (itself and one either side: the boundary), a string of it a neighbour of every string, and
  for a function taking `**options`, each identifier among its strings that no recorded call
  passed is tried as a keyword (`"multiple" in options`, `options.get("nargs", 1) > 0`).
  The functions the prediction changed (`"changed": true`) are swept up to `swept_changed`
  inputs, every place at least once where that suffices, the attributes their code reads
  first; get up to `aimed` inputs with the values a test of their code reads (the entry's
  `tests`, read by `conditions.py`) set to meet its clauses, together and one by one (`aimed`);
  and up to `paired` inputs with two values changed at once (`paired`: a flag turned on with
  the value it shows). Neighbours reach inside lists, tuples and dicts (one
  item changed), turn None into a value and a string into its bytes; a passed argument that
  has a default is also left out, and an object argument is also given as its class. The
  global state a recorded input ran in is swept too (`state_swept`): an environment variable
  the tests set, what was left on stdin.

Each is written as one JSON line {"id", "source", "payload" (base64 of the pickled `(args,
kwargs)`)}; inputs equal to a recorded one are left out. A line {"id", "done": true} follows an
entry's last input (a run cut off by its time limit leaves the entries it did not finish
without one). Drawing a value may run the project's
code (constructors), so it runs under the worker's guard.
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import inspect
import io
import itertools
import json
import os
import pickle
import sys
import types
import typing
from typing import Any

import smellkit_equivalence_worker as worker  # type: ignore[import-not-found]

MAX_ATTRIBUTES = 60
"""Attributes of one object argument whose neighbours are tried."""
MAX_LITERALS = 12
"""Literals of one kind (numbers, strings, keywords) a function's sweep uses."""
PROBE_VALUES = 4
INSIDE_ITEMS = 3
"""Items of a list, tuple or dict whose neighbours are tried (`neighbours`)."""
INSIDE_NEIGHBOURS = 6
MARKERS = 3
"""Short non-word literals made into a first line of a string's neighbours."""
"""Values tried for a keyword a function reads but no recorded call passed."""
EDGES: dict[type, tuple[Any, ...]] = {
    int: (0, 1, -1, 2 ** 31, -(2 ** 63)), float: (0.0, -0.0, 1.5, float("inf"), float("nan")),
    str: ("", " ", "a", "é\u0000\n"), bytes: (b"", b"\x00"), bool: (True, False),
    list: ([],), dict: ({},), tuple: ((),), set: (set(),),
}

STREAM_TEXTS = ("", "a\n", "é\n")
"""What an in-memory stream drawn for a stream parameter holds."""
ANYTHING: tuple[Any, ...] = (b"a", ["a", "b"], "a", None, 0, 1, -1, 1.5, True, False, "", ("a",),
                             {"a": 1})
NAMED: dict[str, tuple[str, ...]] = {
    "mode": ("r", "w", "rb", "wb", "a"), "errors": ("strict", "replace", "ignore"),
    "encoding": ("utf-8", "ascii", "latin-1")}
"""Values of a string parameter named after one of `open`'s (a file's mode, encoding, error
handler): a random text is almost never valid there, and the branches sit on these."""


def _dumps(tools: str | None) -> Any:
    """A `dumps` pickling with cloudpickle when the tools folder has it, else plain pickle;
    either way a text stream over bytes as `_reduce_text_stream` says (cloudpickle refuses
    streams that are not files, and `reducer_override` comes before its own table)."""
    base: Any = pickle.Pickler
    if tools:
        with contextlib.suppress(ImportError):
            base = importlib.import_module("cloudpickle").Pickler

    class Pickler(base):  # type: ignore[misc]
        def reducer_override(self, value: Any) -> Any:
            if isinstance(value, io.TextIOWrapper):
                return _reduce_text_stream(value)
            parent = getattr(super(), "reducer_override", None)
            return parent(value) if parent is not None else NotImplemented

    def dumps(value: Any, protocol: int = 4) -> bytes:
        buffer = io.BytesIO()
        Pickler(buffer, protocol=protocol).dump(value)
        return buffer.getvalue()

    return dumps


class Drawer:
    def __init__(self, st: Any, seed: int):
        self.st = st
        self.seed = seed
        self.any_object = st.one_of(st.sampled_from(ANYTHING), st.text())
        """The one strategy of every parameter that takes any object: `cycled` knows them by
        it."""

    def of_type(self, kind: Any) -> Any:
        """A strategy for values of `kind` (an annotation or a class), edge values first; for
        `Any` (alone or in a union), values of several types (`anything`); None for a type
        Hypothesis cannot make, or just None when the annotation is optional."""
        st = self.st
        if kind is typing.Any or kind is object or (
                typing.get_origin(kind) is typing.Union and typing.Any in typing.get_args(kind)):
            return self.anything()
        streams = self.streams(kind)
        if streams is not None:
            return st.one_of(st.none(), streams) if _optional(kind) else streams
        strategy = st.from_type(kind)
        try:
            strategy.validate()  # a type Hypothesis cannot make (`IO[Any]`) fails every draw
        except Exception:
            return st.none() if _optional(kind) else None
        edges = EDGES.get(kind) if isinstance(kind, type) else None
        return st.one_of(st.sampled_from(edges), strategy) if edges else strategy

    def streams(self, kind: Any) -> Any:
        """In-memory streams for a stream annotation (`IO[str]`, `TextIO`, `BinaryIO`, or one
        of them in a union), which Hypothesis cannot make: bytes ones for binary streams, text
        ones over bytes (`TextIOWrapper` over `BytesIO`: with a `buffer`, like a real file or
        `sys.stdout`) for the others, both for `IO[Any]`; None for any other annotation."""
        members = typing.get_args(kind) if typing.get_origin(kind) is typing.Union else (kind,)
        st = self.st
        options = []
        for member in members:
            origin = typing.get_origin(member) or member
            if origin not in (typing.IO, typing.TextIO, typing.BinaryIO):
                continue
            argument = str if origin is typing.TextIO else bytes if origin is typing.BinaryIO \
                else (typing.get_args(member) or (typing.Any,))[0]
            if argument is not str:
                options.append(st.sampled_from(STREAM_TEXTS).map(
                    lambda text: io.BytesIO(text.encode("utf-8"))))
            if argument is not bytes:
                options.append(st.sampled_from(STREAM_TEXTS).map(text_stream))
        return st.one_of(*options) if options else None

    def of_parameter(self, name: str, kind: Any) -> Any:
        """`of_type`, with the values of `NAMED` first for a string parameter named after one
        of `open`'s."""
        strategy = self.of_type(kind)
        if name in NAMED and strategy is not None and strategy is not self.any_object:
            return self.st.one_of(self.st.sampled_from(NAMED[name]), strategy)
        return strategy

    def receiver(self, kind: type) -> Any:
        """Instances of `kind` for its methods no test called: its constructor given drawn
        values for its annotated parameters, the optional ones too (their default among them),
        so a receiver is not always in its default state (`LazyFile(name, mode="w")`);
        constructions that raise are left out. `st.builds` alone when a required parameter
        has no strategy."""
        st = self.st
        try:
            parameters = list(inspect.signature(kind).parameters.values())
        except (TypeError, ValueError):
            return st.builds(kind)
        hints = _hints(getattr(kind, "__init__", kind))
        required: dict[str, Any] = {}
        optional: dict[str, Any] = {}
        for item in parameters:
            if item.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                 inspect.Parameter.KEYWORD_ONLY):
                continue
            strategy = self.of_parameter(item.name, hints[item.name]) \
                if item.name in hints else None
            if item.default is inspect.Parameter.empty:
                if strategy is None:
                    return st.builds(kind)
                required[item.name] = strategy
            elif item.name in NAMED and isinstance(item.default, str):  # never a random text
                optional[item.name] = st.sampled_from(tuple(dict.fromkeys(
                    (item.default, *NAMED[item.name]))))
            elif strategy is not None:
                optional[item.name] = st.one_of(st.just(item.default), strategy)
        return st.fixed_dictionaries(required, optional=optional).map(
            lambda values: _constructed(kind, values)).filter(lambda made: made is not None)

    def anything(self) -> Any:
        """Values for a parameter that takes any object (`message: Any`): one of each common
        type, bytes and a list among them (code that tells them apart), then any text."""
        return self.any_object

    def of_values(self, values: list[Any]) -> Any:
        """A strategy for a parameter seen only with these values: their types' strategies, or
        the values themselves (fresh copies) for a class that cannot be built."""
        st = self.st
        options = []
        for kind in dict.fromkeys(type(value) for value in values):
            if kind in EDGES or kind is type(None):
                options.append(self.of_type(kind))
            elif _annotated_constructor(kind):
                options.append(st.builds(kind))
        copies = [pickle.dumps(value) for value in values if _pickles(value)]
        if copies:
            options.append(st.sampled_from(copies).map(pickle.loads))
        return st.one_of(*options) if options else None


def text_stream(text: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8")


def _reduce_text_stream(stream: io.TextIOWrapper) -> Any:
    """How a text stream over bytes pickles (a plain `TextIOWrapper` does not): a new one over
    a copy of the bytes it holds, with its encoding and error handler, positioned at the start;
    any other binary stream under it as an empty one."""
    content = b""
    with contextlib.suppress(Exception):  # closed or detached: an empty stream
        stream.flush()
        buffer = stream.buffer
        content = buffer.getvalue() if isinstance(buffer, io.BytesIO) else b""
    return io.TextIOWrapper, (io.BytesIO(content), stream.encoding, stream.errors)


def _constructed(kind: type, values: dict[str, Any]) -> Any:
    """`kind(**values)`, or None when the constructor refuses them."""
    try:
        return kind(**values)
    except Exception:
        return None


def _pickles(value: Any) -> bool:
    try:
        pickle.dumps(value)
    except Exception:
        return False
    return True


def _annotated_constructor(kind: type) -> bool:
    init = vars(kind).get("__init__")
    if init is None or not callable(init):
        return False
    try:
        parameters = list(inspect.signature(init).parameters.values())[1:]
    except (TypeError, ValueError):
        return False
    return bool(parameters) and all(
        item.annotation is not inspect.Parameter.empty or item.default is not
        inspect.Parameter.empty for item in parameters if item.kind not in (
            inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD))


def _bare_constructor(kind: type) -> bool:
    """Whether the class is made with no argument at all (`BoolParamType()`): a receiver for
    its methods when no test called them."""
    try:
        parameters = inspect.signature(kind).parameters.values()
    except (TypeError, ValueError):
        return False
    return not inspect.isabstract(kind) and all(
        item.default is not inspect.Parameter.empty or item.kind in (
            inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        for item in parameters)


def strategies(drawer: Drawer, target: Any, recorded: list[tuple[tuple[Any, ...], dict[str, Any]]],
               owner: type | None = None) -> list[tuple[str, Any, bool]] | None:
    """Per positional parameter (in order): its name, its strategy (None when it has neither an
    annotation nor a recorded value) and whether it has a default; None when the signature
    cannot be read. A recorded value counts whether it was passed by position or by name. A
    method of `owner` no test called gets its receiver built from the class's annotated
    constructor (`st.builds`), a classmethod the class itself."""
    try:
        parameters = [item for item in inspect.signature(target).parameters.values()
                      if item.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                       inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return None
    hints = _hints(target)
    found: list[tuple[str, Any, bool]] = []
    for position, item in enumerate(parameters):
        values = [args[position] if position < len(args) else kwargs[item.name]
                  for args, kwargs in recorded
                  if position < len(args) or item.name in kwargs]
        receiver = position == 0 and item.name in ("self", "cls")
        if receiver or item.name not in hints:
            strategy = drawer.of_values(values) if values else None
            if receiver and values:
                strategy = drawer.st.sampled_from(
                    [pickle.dumps(value) for value in values if _pickles(value)]
                ).map(pickle.loads) if any(_pickles(value) for value in values) else None
            elif receiver and owner is not None:
                strategy = drawer.st.just(owner) if item.name == "cls" else \
                    drawer.receiver(owner) if _annotated_constructor(owner) or \
                    _bare_constructor(owner) else None
        else:
            strategy = drawer.of_parameter(item.name, hints[item.name])
        found.append((item.name, strategy, item.default is not inspect.Parameter.empty))
    return found


def _hints(target: Any) -> dict[str, Any]:
    """The parameters' annotations, evaluated; one that does not evaluate (a name imported only
    for type checkers) is left out alone, and an optional one whose other member does not
    (`Optional["Context"]`) stands for None."""
    try:
        return typing.get_type_hints(target)
    except Exception:  # some annotation does not evaluate: each on its own
        pass
    found: dict[str, Any] = {}
    annotations = getattr(target, "__annotations__", None)
    if not isinstance(annotations, dict):
        return found
    namespace = getattr(target, "__globals__", None)
    for name, annotation in annotations.items():
        def holder() -> None:
            pass
        holder.__annotations__ = {name: annotation}
        try:
            found[name] = typing.get_type_hints(holder, namespace)[name]
        except Exception:
            if _optional(annotation):
                found[name] = type(None)
    return found


def _optional(annotation: Any) -> bool:
    """Whether the annotation is a union with None (`Optional[X]`)."""
    origin: Any = typing.get_origin(annotation)
    return origin is typing.Union and type(None) in typing.get_args(annotation)


def generated_parts(parameters: list[tuple[str, Any, bool]]) -> list[Any] | None:
    """The strategies of the positional parameters a generated call passes: every one up to
    the first that has no strategy but a default (it and the rest keep their defaults); None
    when a parameter without a default has no strategy."""
    parts = []
    for _, strategy, has_default in parameters:
        if strategy is None:
            if has_default:
                break
            return None
        parts.append(strategy)
    return parts


def draw(hypothesis: Any, strategy: Any, count: int, seed: int) -> list[Any]:
    """Up to `count` examples of `strategy`, the same ones on every run."""
    found: list[Any] = []
    if count <= 0:  # Hypothesis refuses max_examples=0
        return found
    settings = hypothesis.settings(
        max_examples=count, database=None, derandomize=True, deadline=None,
        phases=[hypothesis.Phase.generate],
        suppress_health_check=list(hypothesis.HealthCheck))

    def record(value: Any) -> None:
        found.append(value)

    collect = settings(hypothesis.seed(seed)(hypothesis.given(strategy)(record)))
    with contextlib.suppress(Exception):  # a strategy that fails: what was drawn is kept
        collect()
    return found[:count]


def mutations(drawer: Drawer, parameters: list[tuple[str, Any, bool]],
              recorded: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> Any:
    """A recorded input with one of its arguments redrawn: a positional one from its
    parameter's strategy, a keyword one from its parameter's or else from its recorded value's
    type (so `**options` values vary too), as `(args, kwargs, index of the recorded input)`;
    None when no argument can be redrawn."""
    st = drawer.st
    by_name = {name: strategy for name, strategy, _ in parameters}

    def slots(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[Any, Any]]:
        found: list[tuple[Any, Any]] = [
            (position, parameters[position][1]) for position in range(len(args))
            if position < len(parameters) and parameters[position][1] is not None]
        for name, value in kwargs.items():
            strategy = by_name.get(name) or drawer.of_values([value])
            if strategy is not None:
                found.append((name, strategy))
        return found

    def replaced(args: tuple[Any, ...], kwargs: dict[str, Any], slot: Any, value: Any) -> Any:
        if isinstance(slot, int):
            return (*args[:slot], value, *args[slot + 1:]), kwargs
        return args, {**kwargs, slot: value}

    choices = [(index, found) for index, (args, kwargs) in enumerate(recorded)
               if (found := slots(args, kwargs))]
    if not choices:
        return None

    def vary(index: int, found: list[tuple[Any, Any]]) -> Any:
        args, kwargs = recorded[index]
        return st.sampled_from(found).flatmap(
            lambda slot: slot[1].map(
                lambda value: (*replaced(args, kwargs, slot[0], value), index)))

    return st.sampled_from(choices).flatmap(lambda choice: vary(*choice))


def cycled(drawer: Drawer, parameters: list[tuple[str, Any, bool]], payload: bytes
           ) -> list[tuple[Any, ...]]:
    """The input `payload` with each parameter that takes any object set to each value of
    `ANYTHING` in turn: drawing from all of them at once may never reach the one type the code
    tells apart (`echo` given a list), so every type is tried, one parameter at a time."""
    found: list[tuple[Any, ...]] = []
    args = pickle.loads(payload)[0]
    for position, (name, strategy, _) in enumerate(parameters):
        if strategy is not drawer.any_object:
            continue
        slot: int | str = position if position < len(args) else name
        for value in ANYTHING:
            changed = _changed(payload, [((slot,), value)])
            if changed is not None:
                found.append(changed)
    return found


def neighbours(value: Any, literals: Literals | None = None, inside: bool = True
               ) -> list[Any]:
    """The values next to a recorded one, where a boundary is most likely to sit: one more and
    one less, zero and minus one for numbers; the other truth value; the empty string and the
    string one character shorter; the empty container; then the function's own literals of the
    value's type (a number it compares against and one either side of it, a string it
    compares against). A string also gets its bytes (a function that takes either) and, for
    each short marker among the literals (`\\b`, `/`), the marker as a first line before two
    lines of it (a paragraph marked as the code looks for). None gets a string, a true value,
    zero and the empty tuple (an option not set, set). With `inside`, a list, tuple or dict
    also gets copies with one of its first items (values of a dict) set to a neighbour: a
    change inside a list argument (`["/debug"]` for `["--debug"]`)."""
    literals = literals or Literals()
    if value is None:
        found: list[Any] = ["a", True, 0, ()]
    elif isinstance(value, bool):
        return [not value]
    elif isinstance(value, int):
        found = [value + 1, value - 1, 0, -1, 1, -value, *literals.boundaries()]
    elif isinstance(value, float):
        found = [value + 1.0, value - 1.0, 0.0, -value, float("nan")]
    elif isinstance(value, str):
        found = ["", value[:-1], value + value[-1:], *literals.strings,
                 *(f"{marker}\n{value}\n{value}" for marker in literals.markers()),
                 value.encode("utf-8", "surrogatepass")]
    elif isinstance(value, (list, tuple, dict, set, frozenset)):
        found = [type(value)(), *(_inside(value, literals) if inside else ())]
    else:
        return []
    kept: list[Any] = []
    for item in found:
        if _same(item, value) or any(_same(item, other) for other in kept) or \
                (isinstance(item, float) and item != item and value != value):
            continue
        kept.append(item)
    return kept


def state_swept(payloads: list[bytes], count: int) -> list[tuple[Any, ...]]:
    """Up to `count` recorded inputs with one piece of the global state they ran in (the
    recorder's third item) set to a neighbour, which the sweep of arguments does not reach: an
    environment variable the tests set (its string neighbours, and one more and one less for a
    number: `COMP_CWORD`), what was left on stdin (nothing: the end of input a prompt
    meets), and a stack a thread-local holds (one level down: `_shorter_stacks`)."""
    found: list[tuple[Any, ...]] = []
    for payload in payloads:
        args, kwargs, *state = pickle.loads(payload)
        if not state or not isinstance(state[0], dict):
            continue
        saved = state[0]
        changed, removed = saved.get("environ", ({}, []))
        for key, value in changed.items():
            values = [item for item in neighbours(value) if isinstance(item, str)]
            with contextlib.suppress(ValueError):
                values += [str(int(value) + 1), str(int(value) - 1)]
            found += [(args, kwargs, {**saved, "environ": ({**changed, key: item}, removed)})
                      for item in dict.fromkeys(values) if item != value]
        if saved.get("stdin"):
            found.append((args, kwargs, {**saved, "stdin": saved["stdin"][:0]}))
        found += [(args, kwargs, {**saved, "locals": held})
                  for held in _shorter_stacks(saved.get("locals") or {})]
        if len(found) >= count:
            break
    return found[:count]


def _shorter_stacks(held: dict[str, dict[str, Any]]) -> list[dict[str, dict[str, Any]]]:
    """The thread-local state of a recorded call (the recorder's `locals`) with one list a
    thread-local holds one item shorter at its end: a stack (click's contexts) one level
    down, where the code reading its top finds one less."""
    found = []
    for module, values in held.items():
        for name, value in values.items():
            if not isinstance(value, dict):
                continue  # a context variable's value
            for key, item in value.items():
                if isinstance(item, list) and item:
                    found.append({**held, module: {**values, name: {**value,
                                                                    key: item[:-1]}}})
    return found


def _same(one: Any, other: Any) -> bool:
    """Equal and of the same type (True is not 1, b"a" is not "a")."""
    try:
        return type(one) is type(other) and bool(one == other)
    except Exception:  # an __eq__ that raises
        return one is other


def _inside(value: Any, literals: Literals) -> list[Any]:
    """Copies of a list, tuple or dict with one of its first items changed to a neighbour."""
    found: list[Any] = []
    if isinstance(value, dict):
        for key in list(value)[:INSIDE_ITEMS]:
            for item in neighbours(value[key], literals, inside=False)[:INSIDE_NEIGHBOURS]:
                found.append({**value, key: item})
    elif isinstance(value, (list, tuple)):
        for position, element in enumerate(value[:INSIDE_ITEMS]):
            for item in neighbours(element, literals, inside=False)[:INSIDE_NEIGHBOURS]:
                changed = [*value[:position], item, *value[position + 1:]]
                found.append(changed if isinstance(value, list) else
                             _rebuilt(value, changed))
    return [item for item in found if item is not None]


def _rebuilt(value: tuple[Any, ...], items: list[Any]) -> Any:
    """A tuple of `value`'s type (a named tuple too) holding `items`; None when it cannot be
    made."""
    try:
        return type(value)(items) if type(value) is tuple else type(value)(*items)
    except Exception:
        return None


class Literals:
    """The constants in a function's code (its nested functions' too): the numbers and short
    strings it may compare its inputs against, and the identifiers among the strings (the
    keywords it may look up in `**options`)."""

    def __init__(self, target: Any = None):
        numbers: list[int] = []
        strings: list[str] = []
        names: list[str] = []
        codes = [getattr(target, "__code__", None)]
        while codes:
            code = codes.pop()
            if not isinstance(code, types.CodeType):
                continue
            names += code.co_names
            for constant in code.co_consts:
                if isinstance(constant, types.CodeType):
                    codes.append(constant)
                elif isinstance(constant, int) and not isinstance(constant, bool):
                    numbers.append(constant)
                elif isinstance(constant, str) and len(constant) <= 40 and \
                        "\n" not in constant:
                    strings.append(constant)
                elif isinstance(constant, (tuple, frozenset)):  # `value in {"no", "off"}`
                    strings += sorted(item for item in constant if isinstance(item, str) and
                                      len(item) <= 40 and "\n" not in item)
        self.numbers = list(dict.fromkeys(numbers))[:MAX_LITERALS]
        self.strings = list(dict.fromkeys(strings))[:MAX_LITERALS]
        self.keywords = [item for item in self.strings if item.isidentifier()]
        self.names = list(dict.fromkeys(names))
        """The attribute and global names the code reads, in the order it first does."""

    def markers(self) -> list[str]:
        """Short strings that are not words (`\\b`, `/`, `--`): what a text is looked at for."""
        return [item for item in self.strings
                if item and len(item) <= 3 and not item.isalnum() and not item.isspace()
                ][:MARKERS]

    def boundaries(self) -> list[int]:
        return list(dict.fromkeys(item + step for item in self.numbers for step in (0, -1, 1)))

    def probes(self) -> list[Any]:
        """The values tried for a keyword no recorded call passed: a true value, then the
        numbers compared against (an unknown key's value could be a count)."""
        return [True, *sorted(self.numbers, key=lambda item: (item >= 0, abs(item)))
                ][:PROBE_VALUES]


def _has_state(value: Any) -> bool:
    return isinstance(getattr(value, "__dict__", None), dict) and not isinstance(
        value, (type, types.ModuleType, types.FunctionType, types.MethodType))


def swept(parameters: list[tuple[str, Any, bool]], payloads: list[bytes], count: int,
          literals: Literals | None = None, keywords: bool = False) -> list[tuple[Any, ...]]:
    """Up to `count` recorded inputs (`payloads`) with one value set to a neighbour of itself
    (`neighbours`, the function's `literals` included): an argument (positional or keyword;
    not the receiver), or a public attribute of an argument that is an object (the receiver's
    too: its state is input as much as the arguments); with `keywords` (the function takes
    `**options`), a keyword among its literals that the input did not pass, added. Private
    attributes are left as recorded: their values keep invariants the class's own code sets up,
    and a state no caller can make (python-dateutil's `rrule._timeset` emptied) made the smelly
    code hang where the original returned. Each value is changed on a fresh copy of the input,
    which keeps its recorded global state. Every place gets its first neighbour (on each input
    in turn) before any gets its second."""
    places = _places(parameters, payloads, literals or Literals(), keywords)
    found: list[tuple[Any, ...]] = []
    rounds = max((len(sites) * len(items) for sites in places.values() for _, items in sites),
                 default=0)
    for turn in range(rounds):
        for place, sites in places.items():
            if len(found) >= count:
                return found
            index, items = sites[turn % len(sites)]
            rank = turn // len(sites)
            if rank >= len(items):
                continue
            changed = _changed(payloads[index], [(place, items[rank])])
            if changed is not None:
                found.append(changed)
    return found


Place = tuple[Any, ...]
"""(argument position or keyword,) or (argument, attribute name)."""


def _places(parameters: list[tuple[str, Any, bool]], payloads: list[bytes],
            literals: Literals, keywords: bool) -> dict[Place, list[tuple[int, list[Any]]]]:
    """Each place a value of the recorded inputs sits (`swept`), with its neighbours on each
    input that has it; in the order they are tried: the arguments passed, the attributes the
    function's code reads (in the order it first does), the keywords it looks up that no input
    passed, then the other attributes."""
    receiver = bool(parameters) and parameters[0][0] in ("self", "cls")
    named_parameters = {name for name, _, _ in parameters}
    places: dict[Place, list[tuple[int, list[Any]]]] = {}
    passed: set[Place] = set()
    for index, payload in enumerate(payloads):
        args, kwargs, *_ = pickle.loads(payload)
        named = [*((slot, args[slot]) for slot in range(len(args))), *kwargs.items()]
        for slot, value in named:
            if not (receiver and slot == 0):
                passed.add((slot,))
                # an object argument's neighbour is its class (`convert_type(IntParamType)`
                # for an instance: code that refuses classes)
                near = neighbours(value, literals) or ([type(value)] if _has_state(value)
                                                       else [])
                if _omissible(slot, len(args), parameters):
                    near.insert(1, OMITTED)
                places.setdefault((slot,), []).append((index, near))
            if _has_state(value):
                public = [(name, attribute) for name, attribute in vars(value).items()
                          if not name.startswith("_")]
                for name, attribute in public[:MAX_ATTRIBUTES]:
                    places.setdefault((slot, name), []).append(
                        (index, neighbours(attribute, literals)))
        if keywords:
            for name in literals.keywords:
                if name not in kwargs and name not in named_parameters:
                    places.setdefault((name,), []).append((index, literals.probes()))
    read = {name: rank for rank, name in enumerate(literals.names)}
    probes = {name: rank for rank, name in enumerate(literals.keywords)}

    def order(place: Place) -> tuple[int, int]:
        if place in passed:
            return 0, 0
        if len(place) == 2 and place[1] in read:
            return 1, read[place[1]]
        if len(place) == 1:
            return 2, probes.get(place[0], 0)
        return 3, 0

    return {place: places[place] for place in sorted(places, key=order)}


class _Omitted:
    """The neighbour of a passed argument that has a default: the argument left out."""

    def __repr__(self) -> str:
        return "<omitted>"


OMITTED = _Omitted()


def _omissible(slot: int | str, passed: int, parameters: list[tuple[str, Any, bool]]) -> bool:
    """Whether the argument at `slot` can be left out so that its default is used: a keyword
    one (a parameter with a default, or one the signature does not list by position), or the
    last positional one when its parameter has a default (every caller may pass a value the
    default would give, and a default's behaviour is the function's too)."""
    if isinstance(slot, str):
        return all(name != slot or has_default for name, _, has_default in parameters)
    return slot == passed - 1 and slot < len(parameters) and parameters[slot][2]


def _unread(place: Place, literals: Literals) -> bool:
    """An attribute the function's code never names (it may still reach it through a callee)."""
    return len(place) == 2 and place[1] not in literals.names


def _changed(payload: bytes, changes: list[tuple[Place, Any]]) -> tuple[Any, ...] | None:
    """A fresh copy of the recorded input with each place set to its value; None when an
    attribute cannot be set."""
    args, kwargs, *state = pickle.loads(payload)
    for place, value in changes:
        if value is OMITTED and len(place) == 1:
            if isinstance(place[0], int):
                args = args[:place[0]]
            else:
                kwargs = {key: item for key, item in kwargs.items() if key != place[0]}
            continue
        holder = args[place[0]] if isinstance(place[0], int) else kwargs.get(place[0])
        if len(place) == 1:
            holder = value
        else:
            try:
                setattr(holder, place[1], value)
            except Exception:  # a read-only attribute
                return None
        if isinstance(place[0], int):
            args = (*args[:place[0]], holder, *args[place[0] + 1:])
        else:
            kwargs = {**kwargs, place[0]: holder}
    return (args, kwargs, *state)


def paired(parameters: list[tuple[str, Any, bool]], payloads: list[bytes], count: int,
           literals: Literals | None = None, keywords: bool = False
           ) -> list[tuple[Any, ...]]:
    """Up to `count` recorded inputs with two values set to neighbours at once, where one value
    alone changes nothing: a flag turned on with the value it shows (`show_envvar` with an
    `envvar`), a keyword with another it is checked against (`nargs=-1` with a `default`).
    Among the places of `swept` (in its order; attributes the function's code never names
    left out when others are there), the pairs of the first neighbours of two places
    near each other in that order come first (the attributes a function reads together sit
    together), then those of farther places, then of second neighbours. Two places of one
    argument where one replaces it whole are not paired."""
    literals = literals or Literals()
    places = _places(parameters, payloads, literals, keywords)
    ordered = [place for place in places if not _unread(place, literals)]
    if len(ordered) < 2:
        ordered = list(places)
    candidates = []
    for first, one in enumerate(ordered):
        for second in range(first + 1, len(ordered)):
            two = ordered[second]
            if one[0] == two[0] and (len(one) == 1 or len(two) == 1):
                continue
            for ranks in ((0, 0), (1, 0), (0, 1)):
                candidates.append((sum(ranks), second - first, first, ranks, one, two))
    candidates.sort(key=lambda item: item[:3])
    found: list[tuple[Any, ...]] = []
    for *_, ranks, one, two in candidates:
        if len(found) >= count:
            break
        sites = dict(places[two])
        for index, items in places[one]:
            other = sites.get(index)
            if other is None or ranks[0] >= len(items) or ranks[1] >= len(other):
                continue
            changed = _changed(payloads[index], [(one, items[ranks[0]]),
                                                 (two, other[ranks[1]])])
            if changed is not None:
                found.append(changed)
            break
    return found


MAX_TOGETHER = 8
"""Combinations of values tried for the clauses of one test all met at once."""
SOME_VALUES: tuple[Any, ...] = ("a", worker.computed_value, True, 0, (), ("a",))
"""Values tried for a test that a value is not None: a string, a function (a default computed
when it is needed: `inspect.isfunction(default)`), a flag, a count, an empty and a one-item
sequence (a default that must be a list)."""


def meeting(operator: str, constant: Any) -> list[Any]:
    """Values that meet one clause of a test (`conditions.Clause`): the constant itself, values
    other than it, values either side of a bound, each member of a collection."""
    if operator in ("==", "is"):
        return [constant]
    if operator in ("!=", "is not"):
        return list(SOME_VALUES) if constant is None else neighbours(constant)[:3]
    if operator in ("<", "<=", ">", ">="):
        if isinstance(constant, bool) or not isinstance(constant, (int, float)):
            return []
        return [constant - 1, constant, constant + 1]
    if operator == "in":
        return list(constant) if isinstance(constant, list) else []
    if operator == "truthy":
        return [True]
    if operator == "falsy":
        return [False, None]
    return []


def _spot(name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
          parameters: list[tuple[str, Any, bool]], accepts: set[str], receiver: bool
          ) -> Place | None:
    """Where a value of this name sits in one recorded input: a keyword passed, a positional
    argument, a public attribute of the receiver or of an object argument, or a keyword the
    function accepts that the input did not pass."""
    if name in kwargs:
        return (name,)
    for position, (parameter, _, _) in enumerate(parameters):
        if parameter == name and not (receiver and position == 0):
            return (position,) if position < len(args) else (name,)
    for slot, value in [*enumerate(args), *kwargs.items()]:
        if _has_state(value) and not name.startswith("_") and name in vars(value):
            return (slot, name)
    return (name,) if name in accepts else None


def aimed(parameters: list[tuple[str, Any, bool]], payloads: list[bytes], count: int,
          tests: list[list[Any]], accepts: set[str]) -> list[tuple[Any, ...]]:
    """Up to `count` recorded inputs with the values a test of the function's code reads
    (`conditions.read_tests`) set to values that meet its clauses: every clause at once first
    (up to `MAX_TOGETHER` combinations of their values: an earlier check may refuse some), then
    each clause alone, then, for a test of three clauses or more, two at once; the first of each
    test before the second of any (a function with many tests gets each looked at). Each
    combination goes on the first recorded input (from a different one for each, in turn) that
    has a place for all its values."""
    receiver = bool(parameters) and parameters[0][0] in ("self", "cls")
    loaded = [pickle.loads(payload) for payload in payloads]
    placed: dict[str, bool] = {}

    def placeable(name: str) -> bool:
        """Whether some input has a place for the value (a local the code computes has none:
        a clause on it is left out, not the whole combination)."""
        if name not in placed:
            placed[name] = any(_spot(name, args, kwargs, parameters, accepts, receiver)
                               is not None for args, kwargs, *_ in loaded)
        return placed[name]

    queues: list[list[list[tuple[str, Any]]]] = []
    for test in tests:
        clauses = [(name, values) for name, operator, constant in test
                   if placeable(name) and (values := meeting(operator, constant))]
        clauses = [item for position, item in enumerate(clauses)
                   if item[0] not in {name for name, _ in clauses[:position]}]
        if not clauses:
            continue
        combinations = [list(zip([name for name, _ in clauses], values)) for values in
                        itertools.islice(itertools.product(*(values for _, values in clauses)),
                                         MAX_TOGETHER)] if len(clauses) > 1 else []
        combinations += [[(name, value)] for name, values in clauses for value in values]
        if len(clauses) > 2:
            combinations += [[(one, first), (two, second)]
                             for position, (one, ones) in enumerate(clauses)
                             for two, twos in clauses[position + 1:]
                             for first in ones for second in twos]
        queues.append(combinations)
    found: list[tuple[Any, ...]] = []
    turn = 0
    for rank in range(max((len(queue) for queue in queues), default=0)):
        for queue in queues:
            if len(found) >= count:
                return found
            if rank >= len(queue):
                continue
            for step in range(len(loaded)):
                index = (turn + step) % len(loaded)
                args, kwargs, *_ = loaded[index]
                spots = [_spot(name, args, kwargs, parameters, accepts, receiver)
                         for name, _ in queue[rank]]
                if any(spot is None for spot in spots):
                    continue
                changed = _changed(payloads[index], [
                    (spot, value) for spot, (_, value) in zip(spots, queue[rank])
                    if spot is not None])
                if changed is not None:
                    found.append(changed)
                    turn += 1
                    break
    return found


def _accepted(target: Any, owner: type | None) -> set[str]:
    """The names a call may pass by keyword: the function's parameters and, for a method
    taking `**options`, those of the methods of the same name it may hand them on to (the
    bases' `__init__` for a constructor: `Option(nargs=-1)` reaches `Parameter.__init__`)."""
    found: set[str] = set()
    methods = [target]
    if owner is not None and _takes_options(target):
        name = getattr(target, "__name__", "")
        methods += [vars(base)[name] for base in owner.__mro__[1:]
                    if base is not object and callable(vars(base).get(name))]
    for method in methods:
        try:
            found |= {item.name for item in inspect.signature(method).parameters.values()
                      if item.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                       inspect.Parameter.KEYWORD_ONLY)}
        except (TypeError, ValueError):
            continue
    return found - {"self", "cls"}


def _owner(module: str, qualname: str) -> type | None:
    """The class `qualname` is a method of, if it is one."""
    holder = qualname.rpartition(".")[0]
    if not holder:
        return None
    try:
        found = worker.resolve(module, holder)
    except Exception:  # a function nested in a function, or not importable
        return None
    return found if isinstance(found, type) else None


def _takes_options(target: Any) -> bool:
    try:
        return any(item.kind is inspect.Parameter.VAR_KEYWORD
                   for item in inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return False


STAND_INS = 3
"""Generated inputs an entry point no test called is swept and aimed from, as from recorded
ones."""


def _stand_ins(drawn: list[tuple[str, tuple[Any, ...]]], dumps: Any) -> list[bytes]:
    """The first generated inputs that pickle, as payloads: what the sweep, the aimed and the
    paired inputs start from for an entry point with no recorded call (a method of a class
    built without arguments, `BoolParamType().convert`)."""
    found: list[bytes] = []
    for _, item in drawn:
        with contextlib.suppress(Exception):
            found.append(dumps(item, protocol=4))
        if len(found) >= STAND_INS:
            break
    return found


def main(request_path: str) -> int:
    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    for path in reversed(request["paths"]):
        sys.path.insert(0, path)
    tools = request.get("tools")
    if tools:
        sys.path.append(tools)
    results = open(request["results"], "a", encoding="utf-8")  # noqa: SIM115 - kept open
    with open(request["inputs"], "rb") as handle:
        recorded_payloads = pickle.load(handle)
    worker.set_limits(int(request.get("memory", 0)))
    worker.install_guard(os.getcwd())
    try:
        import hypothesis
        from hypothesis import strategies as st
    except ImportError as error:
        results.write(json.dumps({"problem": f"hypothesis cannot be imported: {error}"}) + "\n")
        return 0
    dumps = _dumps(tools)
    seed = int(request["seed"])
    drawer = Drawer(st, seed)
    for entry in request["entries"]:
        ident = entry["id"]
        try:
            target = worker.resolve(entry["module"], entry["qualname"])
            loaded = [pickle.loads(item) for item in recorded_payloads.get(ident, ())]
            recorded = [(args, kwargs) for args, kwargs, *_ in loaded]
            states = [state[0] if state else None for _, _, *state in loaded]
            parameters = strategies(drawer, target, recorded,
                                    _owner(entry["module"], entry["qualname"]))
            varied = mutations(drawer, parameters or [], recorded) if recorded else None
            literals = Literals(target)
            keywords = _takes_options(target)
        except BaseException as error:  # the entry point cannot be loaded or inspected
            results.write(json.dumps({"id": ident, "problem": f"{type(error).__name__}: "
                                                              f"{error}"[:300]}) + "\n")
            results.write(json.dumps({"id": ident, "done": True}) + "\n")
            continue
        parts = generated_parts(parameters) if parameters is not None else None
        if parts is None and varied is None and not recorded:
            results.write(json.dumps({"id": ident, "problem": "a parameter has neither an "
                                      "annotation nor a recorded value"}) + "\n")
            results.write(json.dumps({"id": ident, "done": True}) + "\n")
            continue
        known = {bytes(item) for item in recorded_payloads.get(ident, ())}
        drawn: list[tuple[str, tuple[Any, ...]]] = []
        if parts:
            drawn += [("generated", (tuple(values), {})) for values in draw(
                hypothesis, st.tuples(*parts), int(request["generated"]), seed)]
        bases = list(recorded_payloads.get(ident, ())) or _stand_ins(drawn, dumps)
        if bases:
            drawn += [("mutated" if recorded else "generated", item)
                      for item in cycled(drawer, parameters or [], bases[0])]
            count = int(request["swept_changed"] if entry.get("changed") else request["swept"])
            drawn += [("mutated", item) for item in swept(
                parameters or [], bases, count, literals, keywords)]
            if recorded:
                drawn += [("mutated", item) for item in state_swept(bases, count)]
            if entry.get("changed"):
                accepts = _accepted(target, _owner(entry["module"], entry["qualname"])) | (
                    set(literals.keywords) if keywords else set())
                drawn += [("aimed", item) for item in aimed(
                    parameters or [], bases, int(request.get("aimed", 0)),
                    entry.get("tests") or [], accepts)]
                drawn += [("paired", item) for item in paired(
                    parameters or [], bases, int(request.get("paired", 0)), literals,
                    keywords)]
        if varied is not None:
            drawn += [("mutated", (args, kwargs, *([states[index]] if states[index] else [])))
                      for args, kwargs, index in draw(
                          hypothesis, varied, int(request["mutated"]), seed)]
        for source, (args, kwargs, *state) in drawn:
            try:
                payload = dumps((tuple(args), dict(kwargs), *state), protocol=4)
            except Exception:
                continue
            if payload in known:
                continue
            known.add(payload)
            results.write(json.dumps({"id": ident, "source": source,
                                      "payload": base64.b64encode(payload).decode()}) + "\n")
        results.write(json.dumps({"id": ident, "done": True}) + "\n")
        results.flush()
    results.close()
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1])
    sys.stdout.flush()
    os._exit(code)
