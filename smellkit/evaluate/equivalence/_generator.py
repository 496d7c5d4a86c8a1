"""The generator: draws new inputs for entry points with Hypothesis, inside a worker of the smelly
version (its types are importable there). Run as a script next to the worker script, whose
containment and helpers it uses; never imported by smellkit.

`python _generator.py REQUEST.json`. The request is the worker's (paths, tools, seed, memory,
results) plus `entries`: [{id, module, qualname}] and `inputs`, a pickle of {id: [payload]} of
the recorded inputs. Per entry, two kinds of inputs are drawn (seeded, derandomized, no example
database):

- generated: each parameter from its annotation (`st.from_type`, edge values first for
  numbers, strings and collections), else from the types of the values recorded for it
  (`st.from_type` for builtins, `st.builds` for classes whose constructor is annotated, else the
  recorded values themselves); the receiver of a method and the class of a classmethod are
  always drawn from the recorded ones.
- mutated: a recorded input with one argument replaced by a value drawn as above.

Each is written as one JSON line {"id", "source", "payload" (base64 of the pickled `(args,
kwargs)`)}; inputs equal to a recorded one are left out. Drawing a value may run the project's
code (constructors), so it runs under the worker's guard.
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import inspect
import json
import os
import pickle
import sys
import typing
from typing import Any

import smellkit_equivalence_worker as worker  # type: ignore[import-not-found]

EDGES: dict[type, tuple[Any, ...]] = {
    int: (0, 1, -1, 2 ** 31, -(2 ** 63)), float: (0.0, -0.0, 1.5, float("inf"), float("nan")),
    str: ("", " ", "a", "é\u0000\n"), bytes: (b"", b"\x00"), bool: (True, False),
    list: ([],), dict: ({},), tuple: ((),), set: (set(),),
}


def _dumps(tools: str | None) -> Any:
    if tools:
        try:
            return importlib.import_module("cloudpickle").dumps
        except ImportError:
            pass
    return pickle.dumps


class Drawer:
    def __init__(self, st: Any, seed: int):
        self.st = st
        self.seed = seed

    def of_type(self, kind: Any) -> Any:
        """A strategy for values of `kind` (an annotation or a class), edge values first."""
        st = self.st
        strategy = st.from_type(kind)
        edges = EDGES.get(kind) if isinstance(kind, type) else None
        return st.one_of(st.sampled_from(edges), strategy) if edges else strategy

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


def strategies(drawer: Drawer, target: Any, recorded: list[tuple[tuple[Any, ...], dict[str, Any]]]
               ) -> list[Any] | None:
    """Per positional parameter (in order), its strategy; None when some parameter has neither
    an annotation nor a recorded value."""
    try:
        parameters = [item for item in inspect.signature(target).parameters.values()
                      if item.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                       inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return None
    try:
        hints = typing.get_type_hints(target)
    except Exception:  # an annotation that does not evaluate
        hints = {}
    found: list[Any] = []
    for position, item in enumerate(parameters):
        values = [args[position] for args, _ in recorded if position < len(args)]
        receiver = position == 0 and item.name in ("self", "cls")
        if receiver or item.name not in hints:
            strategy = drawer.of_values(values) if values else None
            if receiver and values:
                strategy = drawer.st.sampled_from(
                    [pickle.dumps(value) for value in values if _pickles(value)]
                ).map(pickle.loads) if any(_pickles(value) for value in values) else None
        else:
            strategy = drawer.of_type(hints[item.name])
        if strategy is None:
            if item.default is not inspect.Parameter.empty:
                break  # the rest keep their defaults
            return None
        found.append(strategy)
    return found


def draw(hypothesis: Any, strategy: Any, count: int, seed: int) -> list[Any]:
    """Up to `count` examples of `strategy`, the same ones on every run."""
    found: list[Any] = []
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


def mutations(st: Any, parts: list[Any],
              recorded: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> Any:
    """A recorded input with the argument at a drawn position redrawn."""
    def vary(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return st.integers(0, len(parts) - 1).flatmap(
            lambda position: parts[position].map(
                lambda value: ((*args[:position], value, *args[position + 1:]), kwargs)))

    return st.sampled_from(range(len(recorded))).flatmap(lambda index: vary(*recorded[index]))


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
            recorded = [pickle.loads(item) for item in recorded_payloads.get(ident, ())]
            parts = strategies(drawer, target, recorded)
        except BaseException as error:  # the entry point cannot be loaded or inspected
            results.write(json.dumps({"id": ident, "problem": f"{type(error).__name__}: "
                                                              f"{error}"[:300]}) + "\n")
            continue
        if parts is None:
            results.write(json.dumps({"id": ident, "problem": "a parameter has neither an "
                                      "annotation nor a recorded value"}) + "\n")
            continue
        known = {bytes(item) for item in recorded_payloads.get(ident, ())}
        drawn: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        if parts:
            drawn += [("generated", tuple(values), {}) for values in draw(
                hypothesis, st.tuples(*parts), int(request["generated"]), seed)]
        if recorded and parts:
            drawn += [("mutated", args, kwargs) for args, kwargs in draw(
                hypothesis, mutations(st, parts, recorded), int(request["mutated"]), seed)]
        for source, args, kwargs in drawn:
            try:
                payload = dumps((tuple(args), dict(kwargs)), protocol=4)
            except Exception:
                continue
            if payload in known:
                continue
            known.add(payload)
            results.write(json.dumps({"id": ident, "source": source,
                                      "payload": base64.b64encode(payload).decode()}) + "\n")
        results.flush()
    results.close()
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1])
    sys.stdout.flush()
    os._exit(code)
