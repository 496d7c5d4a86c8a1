"""How many tests a case may select, and which: few tests that together run what the case is
about, instead of up to the limit for every definition it involves.

A case's bound is `limit` (SmellBench: 10) per *target method*. Its target methods are the
functions and methods it asks a solver to act on, read from its `targets` in the smelly version:
a target at method level counts once; a target at class level counts once for each function or
method of the case's `locations` defined inside that class (the methods a god class absorbed),
and once if it lists none (an interface whose implementers the case changes). Call sites,
red herrings and other locations do not raise the bound: they are code the selected tests should
also run, not more methods to test.

Within the bound, tests are chosen by greedy set cover: each pick is the test that runs the most
of what is still uncovered (weighted, so targets come before the code around them), the fastest
first on a tie, then an order shuffled with the seed. Coverage goes in rounds: every element's
first test before any element's second, so breadth comes before depth.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from smellkit.models import Injection

FUNCTION_KINDS = frozenset({"function", "method", "nested_function"})


def target_methods(injection: Injection) -> tuple[str, ...]:
    """The case's target methods (see the module's docstring), in the case's order."""
    found: dict[str, None] = {}
    for target in injection.targets:
        name = target.location.qualname
        if target.level == "method" or target.location.kind in FUNCTION_KINDS:
            found[name] = None
            continue
        inside = [item.qualname for item in injection.locations
                  if item.kind in FUNCTION_KINDS and item.qualname.startswith(f"{name}.")]
        found.update(dict.fromkeys(inside or [name]))
    return tuple(found) or (injection.candidate.target.qualname,)


def selection_budget(injection: Injection, limit: int) -> int:
    """The most tests the case may select: `limit` per target method."""
    return limit * len(target_methods(injection))


@dataclass(frozen=True)
class Need:
    """Something the selected tests should run: the tests that do, how many of them are wanted
    (`depth`) and how much covering it is worth against the other needs of a round."""

    tests: frozenset[str]
    depth: int = 1
    weight: int = 1


def cover(needs: Mapping[str, Need], budget: int, *, seed: str,
          durations: Mapping[str, float] | None = None) -> tuple[str, ...]:
    """At most `budget` tests chosen greedily to meet `needs` (see the module's docstring);
    sorted. Needs no test can meet are skipped; depth beyond a need's tests is not asked."""
    durations = durations or {}
    candidates = sorted({test for need in needs.values() for test in need.tests})
    rank = {test: index for index, test in enumerate(
        random.Random(seed).sample(candidates, len(candidates)))}
    chosen: set[str] = set()
    rounds = max((need.depth for need in needs.values()), default=0)
    for depth in range(1, rounds + 1):
        while len(chosen) < budget:
            gains: dict[str, int] = {}
            for need in needs.values():
                wanted = min(depth, need.depth, len(need.tests))
                if len(need.tests & chosen) >= wanted:
                    continue
                for test in need.tests - chosen:
                    gains[test] = gains.get(test, 0) + need.weight
            if not gains:
                break
            chosen.add(min(gains, key=lambda test: (-gains[test], durations.get(test, 0.0),
                                                     rank[test])))
    return tuple(sorted(chosen))


def member_needs(name: str, by_qualname: Mapping[str, Iterable[str]], *,
                 weight: int = 1) -> dict[str, Need]:
    """One need per covered definition inside `name` (a class or module without tests of its
    own), so the cover spreads over its members instead of piling onto one."""
    return {member: Need(frozenset(tests), weight=weight)
            for member, tests in sorted(by_qualname.items())
            if member.startswith(f"{name}.") and tests}
