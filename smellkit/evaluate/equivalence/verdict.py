"""The verdict of one prediction from the outcomes of its calls.

- An entry point whose two runs on the smelly version end differently on some input (one
  returns, the other raises; two exception types) is nondeterministic and left out (its
  differences say nothing about the prediction). One whose runs disagree only in some parts of
  the outcome (the return value holds the time it was made; the message names a temporary
  file) is compared on the others: how each call ended, and the parts that always agreed
  (`comparison.PARTS`).
- A call that timed out on one side and ended after half the limit on the other is unusable
  (`comparison.too_close_to_call`), as one whose input did not load.
- A deterministic entry point whose result outcome differs from the smelly outcome on some
  usable input makes the prediction `not_equivalent`; the counterexample kept is the smallest
  such input (by the size of its canonical form), nearest entry points first on ties.
- Otherwise, `equivalent` when at least one input was compared, else `inconclusive` with why.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from smellkit.evaluate.equivalence.comparison import (
    ENDING,
    UNUSABLE,
    difference,
    differing_parts,
    render,
    size,
    too_close_to_call,
)
from smellkit.evaluate.equivalence.execution import Call

Verdict = Literal["equivalent", "not_equivalent", "inconclusive"]
VERDICTS: tuple[Verdict, ...] = ("equivalent", "not_equivalent", "inconclusive")


class Counterexample(BaseModel):
    """One input on which the two versions behave differently."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entry_point: str
    """The smelly version's qualified name (the result's, when renamed: `result_entry_point`)."""
    result_entry_point: str = ""
    source: str = ""
    """Where the input came from: recorded, generated or mutated."""
    input: str
    """The call's arguments, `[positional, keyword]`, as readable text."""
    difference: str
    smelly: dict[str, Any] = Field(default_factory=dict)
    result: dict[str, Any] = Field(default_factory=dict)
    """Each side's outcome: status, return value or exception, arguments after, printed."""


class Equivalence(BaseModel):
    """Differential testing of one prediction against the smelly code."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    verdict: Verdict
    reason: str = ""
    """Why inconclusive; for a verdict, a one-line account."""
    entry_points: int = 0
    """Entry points compared on at least one input."""
    compared: tuple[str, ...] = ()
    """Their qualified names (the smelly version's), nearest to the change first."""
    inputs: int = 0
    """Calls compared (on deterministic entry points)."""
    inputs_by_source: dict[str, int] = Field(default_factory=dict)
    not_comparable: dict[str, str] = Field(default_factory=dict)
    """Entry points that could not be compared -> why."""
    nondeterministic: tuple[str, ...] = ()
    """Entry points left out: two runs of the smelly version ended differently."""
    partly_nondeterministic: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """Entry points compared without some parts of their outcomes (`comparison.PARTS`), in
    which two runs of the smelly version disagreed."""
    unusable_inputs: int = 0
    """Inputs that did not load in one version (a class the result no longer has) or never ran
    (budget spent)."""
    counterexample: Counterexample | None = None
    seconds: float = 0.0


def _outcome_view(outcome: Mapping[str, Any]) -> dict[str, Any]:
    view: dict[str, Any] = {"status": outcome.get("status")}
    if outcome.get("status") == "returned":
        view["value"] = render(outcome.get("value"))
    if outcome.get("error"):
        view["error"] = outcome.get("error")
        view["message"] = str(outcome.get("message", ""))[:300]
    if "args" in outcome:
        view["args_after"] = render(outcome.get("args"))
    if outcome.get("printed"):
        view["printed"] = str(outcome["printed"])[:300]
    return view


Unstable = dict[str, set[str]]
"""Entry point -> the parts of its outcomes (`comparison.ENDING` or `comparison.PARTS`) that
two runs of the smelly version disagreed on, for some input."""


def unstable_parts(calls: Sequence[Call], first: Sequence[Mapping[str, Any]],
                   second: Sequence[Mapping[str, Any]], *, messages: bool = False) -> Unstable:
    """Per entry point, the parts of the outcomes its two runs on the smelly version disagreed
    on, over its inputs (entry points that always agreed left out)."""
    unstable: Unstable = {}
    for call, one, two in zip(calls, first, second):
        if one.get("status") not in UNUSABLE and two.get("status") not in UNUSABLE:
            parts = differing_parts(dict(one), dict(two), messages=messages)
            if parts:
                unstable.setdefault(call.entry, set()).update(parts)
    return unstable


def merged(*found: Mapping[str, Collection[str]]) -> Unstable:
    """The union of several `unstable_parts`."""
    union: Unstable = {}
    for each in found:
        for entry, parts in each.items():
            union.setdefault(entry, set()).update(parts)
    return union


def decide(calls: Sequence[Call], first: Sequence[Mapping[str, Any]],
           second: Sequence[Mapping[str, Any]], result: Sequence[Mapping[str, Any]],
           not_comparable: Mapping[str, str], *, result_names: Mapping[str, str],
           messages: bool = False, empty_reason: str = "", per_call: float = 2.0,
           unstable: Mapping[str, Collection[str]] | None = None) -> Equivalence:
    """The verdict from each call's outcome on the smelly version (twice) and on the result;
    `per_call` is the time limit the calls ran under; `unstable`: the parts of entry points'
    outcomes found nondeterministic on other runs of the smelly version."""
    parts = merged(unstable or {}, unstable_parts(calls, first, second, messages=messages))
    whole = {entry for entry, found in parts.items() if ENDING in found}
    skipped = dict(not_comparable)
    compared: dict[str, None] = {}
    by_source: dict[str, int] = {}
    unusable = 0
    found: list[tuple[int, int, Call, Mapping[str, Any], Mapping[str, Any], str]] = []
    for position, (call, old, new) in enumerate(zip(calls, first, result)):
        if call.entry in whole:
            continue
        if old.get("status") == "missing":
            skipped.setdefault(call.entry, f"cannot be loaded in the smelly version: "
                                           f"{old.get('error')}: {old.get('message', '')}"[:300])
            continue
        if old.get("status") in UNUSABLE or new.get("status") in UNUSABLE or \
                too_close_to_call(dict(old), dict(new), per_call):
            unusable += 1
            continue
        compared.setdefault(call.entry)
        by_source[call.source] = by_source.get(call.source, 0) + 1
        what = difference(dict(old), dict(new), messages=messages,
                          ignore=parts.get(call.entry, ()))
        if what is not None:
            found.append((size(dict(old)), position, call, old, new, what))
    inputs = sum(by_source.values())
    common: dict[str, Any] = {
        "entry_points": len(compared), "compared": tuple(compared), "inputs": inputs,
        "inputs_by_source": by_source, "not_comparable": skipped,
        "nondeterministic": tuple(sorted(whole)), "unusable_inputs": unusable,
        "partly_nondeterministic": {entry: tuple(sorted(found)) for entry, found in
                                    sorted(parts.items()) if entry not in whole}}
    if found:
        _, _, call, old, new, what = min(found, key=lambda item: item[:2])
        renamed = result_names.get(call.entry, call.entry)
        example = Counterexample(
            entry_point=call.entry, result_entry_point=renamed if renamed != call.entry else "",
            source=call.source, input=render(old.get("input"), 1000), difference=what,
            smelly=_outcome_view(old), result=_outcome_view(new))
        return Equivalence(verdict="not_equivalent", counterexample=example,
                           reason=f"{call.entry}: {what} ({len(found)} of {inputs} inputs "
                                  "differ)", **common)
    if inputs:
        return Equivalence(verdict="equivalent", reason=f"{inputs} inputs on {len(compared)} "
                                                        "entry points behave the same", **common)
    if whole and not compared:
        reason = "every entry point with inputs is nondeterministic"
    elif empty_reason:
        reason = empty_reason
    elif unusable:
        reason = f"none of the {unusable} inputs could be used on both versions"
    else:
        reason = "no input reached a comparable entry point"
    return Equivalence(verdict="inconclusive", reason=reason, **common)
