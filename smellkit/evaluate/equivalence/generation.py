"""Generated and mutated inputs: drawn with Hypothesis by `_generator.py` in a worker of the
smelly version, from the entry points' annotations and the recorded values (see that script).
Seeded and derandomized, so the same case draws the same inputs on every run."""

from __future__ import annotations

import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from smellkit.evaluate.equivalence.conditions import Clause
from smellkit.evaluate.equivalence.entries import EntryPoint
from smellkit.evaluate.equivalence.execution import Version
from smellkit.evaluate.equivalence.recording import worker_lines


@dataclass
class Generation:
    inputs: dict[str, list[tuple[str, bytes]]] = field(default_factory=dict)
    """Entry point -> (source: generated, mutated, aimed or paired; pickled `(args, kwargs)`)."""
    problems: dict[str, str] = field(default_factory=dict)
    """Entry point (or "" for all) -> why nothing was drawn for it."""
    done: set[str] = field(default_factory=set)
    """Entry points whose drawing finished (not cut off by the time limit)."""


def generate(entries: Sequence[EntryPoint], recorded: Mapping[str, Sequence[bytes]],
             smelly: Version, timeout: float, *, generated: int = 20,
             mutated: int = 20, swept: int = 10, swept_changed: int = 40,
             paired: int = 40, aimed: int = 40,
             tests: Mapping[str, Sequence[Sequence[Clause]]] | None = None) -> Generation:
    """Up to `generated` new, `swept` recorded ones with a value set to its neighbour
    (`swept_changed` for the functions the prediction changed, distance 0: a slip is most
    likely there), `mutated` redrawn inputs per entry point, and, for the functions changed,
    `aimed` recorded ones with the values their code tests (`tests`, per entry point:
    `conditions.read_tests`) set to meet the tests, and `paired` ones with two values set to
    neighbours at once, within `timeout`."""
    found = Generation()
    if not entries or timeout <= 0 or not (generated or mutated or swept or swept_changed or
                                            paired or aimed):
        return found
    smelly.work.mkdir(parents=True, exist_ok=True)
    inputs = smelly.work / "generation.inputs"
    with open(inputs, "wb") as handle:
        pickle.dump({item.name: list(recorded.get(item.name, ())) for item in entries}, handle)
    results = smelly.work / "generation.jsonl"
    results.unlink(missing_ok=True)
    run = smelly.launch("_generator.py", "generation", {
        "inputs": str(inputs), "results": str(results), "generated": generated,
        "mutated": mutated, "swept": swept, "swept_changed": swept_changed, "paired": paired,
        "aimed": aimed,
        "entries": [{"id": item.name, "module": item.module, "qualname": item.qualname,
                     "changed": item.distance == 0,
                     "tests": [list(map(list, test)) for test in (tests or {}).get(item.name, ())]}
                    for item in entries]},
        timeout)
    lines = worker_lines(results)
    for item, payload in lines:
        if payload is not None:
            found.inputs.setdefault(item["id"], []).append((str(item["source"]), payload))
        elif item.get("done"):
            found.done.add(str(item.get("id", "")))
        elif "problem" in item:
            found.problems[str(item.get("id", ""))] = str(item["problem"])
    if run.timed_out:
        found.problems.setdefault("", f"drawing inputs was cut off after {timeout:.0f}s")
    elif not run.ok and not lines:
        found.problems.setdefault("", f"the generator failed: {run.describe(5)[-300:]}")
    return found
