"""Functional equivalence by differential testing: does the prediction's result behave as the
smelly code did, on every function the prediction could have changed?

One prediction at a time (`check`):

1. `entries`: the smelly functions and methods the patch changed and their callers, each paired
   with the result's function of the same name (or the one the rename matching found), with a
   compatible signature; the others are reported as not comparable.
2. `recording`: the case's selected tests run on a copy of the smelly code, recording the
   (pickled, so deep-copied) arguments of every call of an entry point, receivers included.
3. `generation`: more inputs drawn with Hypothesis in a worker of the smelly version
   (`_generator.py`): generated from annotations and recorded types, and mutated recordings.
4. `execution`: the calls made on the smelly version twice and on the result once, each version
   in its own worker process of the case's environment (`_worker.py`), each call on a fresh
   unpickled copy of its input, contained (time, memory, file writes, processes, network).
   A difference is confirmed by running the smelly version again after the result: what the
   machine changed meanwhile shows as the smelly version disagreeing with itself.
5. `verdict`: `comparison` of each call's outcomes (return value, exception type and message,
   arguments' state afterwards, printed output); entry points whose calls end differently on
   two runs of the smelly version are left out, and the parts of an outcome two runs disagree
   on are not compared.

`tools` lends cloudpickle and Hypothesis to the case's interpreter without installing them.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from smellkit.config import RepoSpec
from smellkit.evaluate.equivalence.cache import (
    CaseCache,
    case_key,
    decode,
    encode,
    missing,
    payload_key,
)
from smellkit.evaluate.equivalence.comparison import (
    ENDING,
    UNUSABLE,
    difference,
    too_close_to_call,
)
from smellkit.evaluate.equivalence.conditions import Clause, read_tests
from smellkit.evaluate.equivalence.entries import EntryPoint, Selection, select
from smellkit.evaluate.equivalence.execution import (
    Call,
    Limits,
    Version,
    network_isolation,
    run_calls,
)
from smellkit.evaluate.equivalence.generation import Generation, generate
from smellkit.evaluate.equivalence.recording import Recording, record
from smellkit.evaluate.equivalence.tools import tools_folder
from smellkit.evaluate.equivalence.verdict import (
    VERDICTS,
    Counterexample,
    Equivalence,
    Unstable,
    Verdict,
    decide,
    merged,
    unstable_parts,
)
from smellkit.evaluate.patches.parse import parse_patch
from smellkit.evaluate.signals import CaseAnalysis, relative_change, renamed_definitions
from smellkit.evaluate.signals.localize import Side, changed_files, decorated_start, split_lines
from smellkit.evaluate.signals.localize import touched as touched_names
from smellkit.project import Project
from smellkit.sandbox.environment import Environment
from smellkit.sandbox.runner import Runner

__all__ = ["VERDICTS", "Counterexample", "Equivalence", "EquivalenceOptions", "Verdict",
           "check"]


@dataclass(frozen=True)
class EquivalenceOptions:
    """How hard to look, and where per-case work is kept."""

    depth: int = 2
    """Callers of changed functions followed this many calls up the call graph."""
    max_entry_points: int = 40
    """Entry points compared (those with inputs, nearest to the change first)."""
    max_recorded_entry_points: int = 150
    """Entry points whose calls the recording watches for."""
    recorded: int = 20
    """Distinct recorded inputs kept per entry point."""
    generated: int = 10
    """Inputs drawn per entry point from annotations and recorded types (Hypothesis)."""
    mutated: int = 10
    """Recorded inputs with one argument redrawn, per entry point."""
    swept: int = 10
    """Recorded inputs with one value (an argument, or an attribute of an object argument or
    of the receiver) set to a neighbour of itself, per entry point."""
    swept_changed: int = 40
    """The same, per function the prediction changed (where a slip most likely is: every
    argument and attribute gets a neighbour, and each keyword its code reads)."""
    aimed: int = 40
    """Recorded inputs with the values a test of the function's code reads set to meet it
    (`nargs=-1` with a list `default` for `default is not None and nargs == -1`), per
    function the prediction changed (`conditions`)."""
    paired: int = 40
    """Recorded inputs with two values set to neighbours at once, per function the prediction
    changed (a flag turned on with the value it shows: one change alone reaches nothing)."""
    generation_budget: float = 30.0
    """Seconds for drawing the generated and mutated inputs of a prediction."""
    per_call: float = 2.0
    """Seconds one call may take before it counts as hung."""
    case_budget: float = 240.0
    """Seconds for a prediction's whole check, the recording run included."""
    memory: int = 2 << 30
    """Address space of a worker process, in bytes (RLIMIT_AS)."""
    messages: bool = True
    """Compare exception messages too (a refactoring keeps them; off for predictions that may
    reword them)."""
    isolate_network: bool = True
    """Refuse to run calls (inconclusive) where no network namespace can be made."""
    cache: Path | None = None
    """Where what no prediction changes is kept per case (`cache`); scoring's default is the
    output folder's `cache/equivalence`."""

    def case_folder(self, *case: object) -> Path | None:
        """The cache folder of the case `case` identifies (its id, smelly code, tests,
        interpreter...), keyed by the options its items depend on too."""
        if self.cache is None:
            return None
        return self.cache / case_key(*case, self.recorded, self.generated, self.mutated,
                                     self.swept, self.swept_changed, self.paired,
                                     self.aimed, self.per_call,
                                     self.memory, self.isolate_network)


@dataclass(frozen=True)
class Versions:
    """The two trees and what runs them."""

    smelly_tree: Path
    result_tree: Path
    spec: RepoSpec
    env: Environment
    runner: Runner
    tests: tuple[str, ...]
    seed: int = 0
    cache: Path | None = None
    """The case's cache folder (`cache`): what no prediction changes, kept between the
    case's predictions; None: everything is computed for each prediction."""


def _inconclusive(reason: str, started: float, **fields: object) -> Equivalence:
    return Equivalence(verdict="inconclusive", reason=reason,
                       seconds=round(time.perf_counter() - started, 3),
                       **fields)  # type: ignore[arg-type]


def changed_functions(analysis: CaseAnalysis, result: Side, patch: str) -> list[str]:
    """The smelly version's names the patch touched: lines changed or deleted, and lines added
    inside a definition the smelly version has too (an insertion deletes nothing)."""
    changes = parse_patch(patch) if patch.strip() else ()
    inside = [item for item in (relative_change(change, analysis.prefix) for change in changes)
              if item is not None]
    lines = touched_names(changed_files(inside, analysis.smelly.root, result.root,
                                        analysis.smelly, result), analysis.smelly, result)
    known = analysis.smelly.project.index.definitions
    return sorted({*lines.old, *(name for name in lines.new
                                 if name in known or name in analysis.smelly.modules)})


def _first_lines(side: Side, entries: Iterable[str]) -> dict[str, int]:
    """Where each definition's code starts (its first decorator), for interpreters without
    `co_qualname` to recognise it."""
    found = {}
    index = side.project.index
    for name in entries:
        definition = index.definitions.get(name)
        path = side.path_of(index.module_of.get(name, ""))
        if definition is not None and path is not None:
            found[name] = decorated_start(definition, split_lines(side.text(path) or ""))
    return found


def entry_points(analysis: CaseAnalysis, result: Project, patch: str,
                 options: EquivalenceOptions) -> Selection:
    side = Side(result)
    changed = changed_functions(analysis, side, patch)
    selection = select(changed, analysis.smelly, side,
                       lambda names: renamed_definitions(analysis, side, names),
                       depth=options.depth, limit=options.max_recorded_entry_points)
    lines = _first_lines(analysis.smelly, (item.name for item in selection.entry_points))
    return Selection(tuple(replace(item, first_line=lines.get(item.name, item.first_line))
                           for item in selection.entry_points), selection.not_comparable)


def check(analysis: CaseAnalysis, result: Project, patch: str, versions: Versions,
          scratch: Path, options: EquivalenceOptions | None = None) -> Equivalence:
    """The equivalence verdict of one prediction (`patch` made `result` out of the smelly
    code); never raises for the prediction's sake."""
    options = options or EquivalenceOptions()
    started = time.perf_counter()
    deadline = time.monotonic() + options.case_budget
    if options.isolate_network:
        problem = network_isolation()
        if problem is not None:
            return _inconclusive(f"calls cannot be cut off from the network here ({problem}); "
                                 "run where user namespaces are allowed, or turn "
                                 "isolate_network off knowingly", started)
    selection = entry_points(analysis, result, patch, options)
    if not selection.entry_points:
        return _inconclusive("no entry point to compare: the patch changes no function that "
                             "exists in both versions" if selection.not_comparable else
                             "the patch changes no function", started,
                             not_comparable=selection.not_comparable)
    tools, not_installed = tools_folder()
    cache = CaseCache(versions.cache) if versions.cache is not None else None
    limits = Limits(per_call=options.per_call, memory=options.memory, seed=versions.seed)

    def version(tree: Path, paths: tuple[str, ...]) -> Version:
        return Version(tree=tree, env=versions.env, scratch=scratch, limits=limits,
                       extra_paths=paths, isolate_network=options.isolate_network,
                       tools=tools)

    # what does not depend on the prediction: taken from the case's cache, the rest computed
    # (and kept) under the case's lock, so two predictions of a case never do it twice
    with cache.filling() if cache is not None else nullcontext(0.0) as waited:
        deadline += waited
        recording = _recorded(selection.entry_points, versions, scratch, options, tools, cache)
        smelly = version(versions.smelly_tree, recording.paths)
        drawn = Generation(problems={"": "hypothesis is not installed (the equivalence extra)"}) \
            if "hypothesis" in not_installed else _drawn(
                _drawable(selection.entry_points, recording, options), recording, smelly,
                min(options.generation_budget, max(0.0, deadline - time.monotonic()) / 4),
                options, cache, analysis.smelly)
        calls = _calls(selection.entry_points, recording, drawn, options.max_entry_points)
        first, second, fresh = _smelly_outcomes(calls, smelly, deadline, cache)
    # a call that hung or crashed on the smelly version may do so on the result too
    hung = [index for index, outcome in enumerate(first)
            if outcome.get("status") in ("timeout", "crashed")]
    left = max(0.0, deadline - time.monotonic())
    refactored = version(versions.result_tree, recording.paths)
    outcomes = run_calls(calls, "result", refactored, time.monotonic() + left / 2,
                         may_hang=hung) if calls else []
    names = {item.name: item.result_name for item in selection.entry_points}
    unstable: Unstable = {}
    differing = _differing(calls, first, second, outcomes, options)
    if differing:
        # a difference counts when the smelly version gives the same outcome before and after
        # the result's run: the machine may change meanwhile (a file a test left behind,
        # removed by another process), and then the smelly runs disagree among themselves
        unstable = unstable_parts(calls, first, second, messages=options.messages)
        end = differing[-1] + 1
        if fresh:
            after = run_calls(calls[:end], "smelly", smelly, deadline)
            unstable = merged(unstable, unstable_parts(calls[:end], first, after,
                                                       messages=options.messages))
        else:
            # the smelly outcomes came from runs of other call sequences (other
            # predictions'): state one call leaves for the next may differ, so the calls up
            # to the last differing one run again in this prediction's order, the result's
            # between two runs of the smelly version
            again = run_calls(calls[:end], "smelly", smelly, _share(deadline, 3))
            redo = run_calls(calls[:end], "result", refactored, _share(deadline, 2),
                             may_hang=[index for index in hung if index < end])
            twice = run_calls(calls[:end], "smelly", smelly, deadline)
            first, second = [*again, *first[end:]], [*twice, *second[end:]]
            outcomes = [*redo, *outcomes[end:]]
    verdict = decide_all(calls, (first, second, outcomes), selection, recording, names, options,
                         unstable)
    return verdict.model_copy(update={"seconds": round(time.perf_counter() - started, 3)})


Outcome = dict[str, Any]


def _share(deadline: float, parts: int) -> float:
    """The deadline of a run given 1/`parts` of the time left."""
    return time.monotonic() + max(0.0, deadline - time.monotonic()) / parts


def _twice(calls: Sequence[Call], smelly: Version, deadline: float,
           shares: tuple[int, int]) -> tuple[list[Outcome], list[Outcome]]:
    """Each call's outcomes on two runs of the smelly version, in the order given; the first
    run has 1/shares[0] of the time left, the second 1/shares[1]. A call that hung on the first
    run is not waited for again on the second: a hang is taken as repeatable."""
    if not calls:
        return [], []
    first = run_calls(calls, "smelly", smelly,
                      time.monotonic() + max(0.0, deadline - time.monotonic()) / shares[0])
    todo = [index for index, outcome in enumerate(first) if outcome.get("status") != "timeout"]
    done = run_calls([calls[index] for index in todo], "smelly", smelly,
                     time.monotonic() + max(0.0, deadline - time.monotonic()) / shares[1]) \
        if todo else []
    found = dict(zip(todo, done))
    return first, [found.get(index) or first[index] for index in range(len(calls))]


def _smelly_outcomes(calls: Sequence[Call], smelly: Version, deadline: float,
                     cache: CaseCache | None
                     ) -> tuple[list[Outcome], list[Outcome], bool]:
    """Each call's two outcomes on the smelly version: from the cache, the others run (and
    kept, when usable); and whether all were run here, in this order."""
    keys = [payload_key(*call.smelly, call.payload) for call in calls]
    found: dict[str, Any] = cache.get("outcomes", keys) if cache is not None else {}
    todo = missing(keys, found)
    one, two = _twice([calls[index] for index in todo], smelly, deadline, shares=(4, 3))
    made = {keys[index]: [{key: value for key, value in first.items() if key != "index"},
                          {key: value for key, value in second.items() if key != "index"}]
            for index, first, second in zip(todo, one, two)}
    if cache is not None:
        cache.put("outcomes", {key: pair for key, pair in made.items()
                               if not {pair[0].get("status"), pair[1].get("status")} & UNUSABLE})
    found.update(made)
    return ([dict(found[key][0]) for key in keys], [dict(found[key][1]) for key in keys],
            len(todo) == len(calls))


def _differing(calls: Sequence[Call], first: Sequence[Outcome], second: Sequence[Outcome],
               result: Sequence[Outcome], options: EquivalenceOptions) -> list[int]:
    """The positions of the calls whose result outcome differs from the smelly one, on entry
    points whose two smelly runs agree."""
    unstable = unstable_parts(calls, first, second, messages=options.messages)
    return [index for index, (call, old, new) in enumerate(zip(calls, first, result))
            if ENDING not in unstable.get(call.entry, ()) and
            old.get("status") not in UNUSABLE and new.get("status") not in UNUSABLE and
            not too_close_to_call(old, new, options.per_call) and
            difference(old, new, messages=options.messages,
                       ignore=unstable.get(call.entry, ())) is not None]


def _recorded(entries: Sequence[EntryPoint], versions: Versions, scratch: Path,
              options: EquivalenceOptions, tools: Path, cache: CaseCache | None) -> Recording:
    """The recorded inputs of `entries`: those the cache has, the others recorded now (and
    kept, when the tests ran to their end)."""
    def run(todo: Sequence[EntryPoint]) -> Recording:
        return record(todo, versions.smelly_tree, versions.spec, versions.env, versions.runner,
                      versions.tests, scratch, seed=versions.seed, limit=options.recorded,
                      tools=tools)

    if cache is None:
        return run(entries)
    stored = cache.get("recorded", [item.name for item in entries])
    paths: list[str] = list(cache.get("paths", ["paths"]).get("paths", ()))
    todo = [item for item in entries if item.name not in stored]
    fresh = run(todo) if todo else Recording()
    paths += [path for path in fresh.paths if path not in paths]
    if todo and fresh.complete and not fresh.problem:
        made = {item.name: {"inputs": [encode(item) for item in fresh.inputs.get(name, ())],
                            "tests": fresh.tests.get(name, []),
                            "dropped": fresh.dropped.get(name, 0)}
                for item in todo for name in (item.name,)}
        cache.put("recorded", made)
        cache.put("paths", {"paths": paths})
    combined = Recording(paths=tuple(paths), problem=fresh.problem, seconds=fresh.seconds,
                         complete=True)
    for name, item in stored.items():
        if item["inputs"]:
            combined.inputs[name] = [decode(payload) for payload in item["inputs"]]
            combined.tests[name] = list(item["tests"])
        if item["dropped"]:
            combined.dropped[name] = int(item["dropped"])
    combined.inputs.update(fresh.inputs)
    combined.tests.update(fresh.tests)
    combined.dropped.update(fresh.dropped)
    return combined


def _tests(entries: Iterable[EntryPoint], side: Side) -> dict[str, list[list[Clause]]]:
    """The tests the code of each function the prediction changed makes (`conditions`)."""
    found = {}
    for item in entries:
        path = side.path_of(item.module) if item.distance == 0 else None
        text = side.text(path) if path is not None else None
        if text is not None:
            found[item.name] = read_tests(text, item.def_line)
    return found


def _drawn(entries: Sequence[EntryPoint], recording: Recording, smelly: Version, timeout: float,
           options: EquivalenceOptions, cache: CaseCache | None, side: Side) -> Generation:
    """The generated and mutated inputs of `entries`: those the cache has (per entry point and
    whether the prediction changed it: a changed one is swept wider), the others drawn now (and
    kept, for the entry points whose drawing finished)."""
    keys = {item.name: f"{'changed' if item.distance == 0 else 'other'}:{item.name}"
            for item in entries}
    stored = cache.get("drawn", keys.values()) if cache is not None else {}
    todo = [item for item in entries if keys[item.name] not in stored]
    fresh = generate(todo, recording.inputs, smelly, timeout, generated=options.generated,
                     mutated=options.mutated, swept=options.swept,
                     swept_changed=options.swept_changed, paired=options.paired,
                     aimed=options.aimed, tests=_tests(todo, side)) if todo else Generation()
    if cache is not None:
        cache.put("drawn", {keys[item.name]: {
            "inputs": [[source, encode(payload)]
                       for source, payload in fresh.inputs.get(item.name, ())],
            "problem": fresh.problems.get(item.name, "")}
            for item in todo if item.name in fresh.done})
    combined = Generation(inputs=dict(fresh.inputs), problems=dict(fresh.problems),
                          done=set(fresh.done))
    for item in entries:
        found = stored.get(keys[item.name])
        if found is None:
            continue
        combined.inputs[item.name] = [(str(source), decode(payload))
                                      for source, payload in found["inputs"]]
        if found["problem"]:
            combined.problems[item.name] = str(found["problem"])
        combined.done.add(item.name)
    return combined


def decide_all(calls: Sequence[Call], outcomes: Sequence[Sequence[Mapping[str, Any]]],
               selection: Selection, recording: Recording, names: Mapping[str, str],
               options: EquivalenceOptions, unstable: Unstable | None = None) -> Equivalence:
    empty = ""
    if not calls:
        empty = recording.problem or "the selected tests never called an entry point with " \
                                     "arguments that pickle"
    skipped = dict(selection.not_comparable)
    uncalled = []
    used = {call.entry for call in calls}
    for item in selection.entry_points:
        if item.name in used:
            continue
        dropped = recording.dropped.get(item.name, 0)
        if item.name in recording.inputs:
            skipped[item.name] = f"over the limit of {options.max_entry_points} entry points " \
                                 "compared"
        elif dropped:
            skipped[item.name] = f"no recorded input: the {dropped} calls seen did not pickle"
        elif item.distance <= options.depth:
            skipped[item.name] = "no recorded input: the selected tests do not call it"
        else:
            uncalled.append(item.name)
    if uncalled:
        skipped[f"{uncalled[0]} and {len(uncalled) - 1} more"] = \
            "other functions of the changed modules that the selected tests do not call"
    first, second, result = outcomes
    return decide(calls, first, second, result, skipped, result_names=names,
                  messages=options.messages, empty_reason=empty, per_call=options.per_call,
                  unstable=unstable)


def _drawable(entries: Sequence[EntryPoint], recording: Recording,
              options: EquivalenceOptions) -> list[EntryPoint]:
    """The entry points inputs are drawn for: those with recorded inputs that will be compared,
    and those near the change the tests never called (their annotations may be enough)."""
    recorded = [item for item in entries if recording.inputs.get(item.name)]
    near = [item for item in entries
            if not recording.inputs.get(item.name) and item.distance <= options.depth]
    return [*recorded[:options.max_entry_points], *near]


def _calls(entries: Sequence[EntryPoint], recording: Recording, drawn: Generation,
           limit: int) -> list[Call]:
    """The calls of the first `limit` entry points (nearest first) that have inputs: the
    recorded ones, then the generated and the mutated ones."""
    def inputs(item: EntryPoint) -> list[tuple[str, bytes]]:
        return [*(("recorded", payload) for payload in recording.inputs.get(item.name, ())),
                *drawn.inputs.get(item.name, ())]

    chosen = [item for item in entries if inputs(item)][:limit]
    return [Call(entry=item.name, smelly=(item.module, item.qualname),
                 result=(item.result_module, item.result_qualname), payload=payload,
                 source=source)
            for item in chosen for source, payload in inputs(item)]
