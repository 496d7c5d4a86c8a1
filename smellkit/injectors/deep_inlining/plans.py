"""What an injection pastes: call sites of the function, each with the sites inside its callee
to paste first (a chain), as discovery stores them on the candidate and the injection orders
and counts them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from smellkit.injectors.deep_inlining.sites import Site
from smellkit.models import Difficulty

if TYPE_CHECKING:
    from smellkit.injectors.base import InjectionContext
    from smellkit.injectors.deep_inlining.sites import SiteFinder

MIN_HELPERS: dict[Difficulty, int] = {"easy": 1, "medium": 2, "hard": 3}


@dataclass
class Plan:
    """A call site to inline, and the sites inside its callee to inline first (a chain)."""

    site: Site
    inner: list[Plan] = field(default_factory=list)



def chains_of(finder: SiteFinder, qualname: str, depth: int, seen: frozenset[str]) -> list[Plan]:
    plans: list[Plan] = []
    for site in finder.sites(qualname):
        if site.callee in seen:
            continue
        inner = chains_of(finder, site.callee, depth - 1, seen | {site.callee}) if depth > 1 \
            else []
        plans.append(Plan(site, inner))
    return plans


def run_only(finder: SiteFinder, plan: Plan) -> Plan:
    """The plan without the inner helpers its callees call only under a branch (an error
    path, `self.fail_eof(...)` under `if ... == "eof"`): pasted, they are lines a test that
    runs the call may never run."""
    always = finder.always_run(plan.site.callee)
    return Plan(plan.site, [run_only(finder, inner) for inner in plan.inner
                            if inner.site.line in always])


def flattened(plans: Sequence[Plan]) -> list[Plan]:
    return [item for plan in plans for item in (plan, *flattened(plan.inner))]


def depth_of(plan: Plan) -> int:
    return 1 + max((depth_of(inner) for inner in plan.inner), default=0)


def trimmed(plan: Plan, depth: int) -> Plan:
    return Plan(plan.site, [trimmed(inner, depth - 1) for inner in plan.inner] if depth > 1 else [])


def dumped(plan: Plan) -> dict[str, Any]:
    site = plan.site
    return {"caller": site.caller, "callee": site.callee, "line": site.line, "form": site.form,
            "method": site.method, "inner": [dumped(inner) for inner in plan.inner]}


def loaded(data: dict[str, Any]) -> Plan:
    return Plan(Site(data["caller"], data["callee"], int(data["line"]), data["form"],
                     bool(data["method"])), [loaded(inner) for inner in data.get("inner", [])])


def complexity(context: InjectionContext, qualname: str) -> int:
    measure = getattr(context.index.definitions.get(qualname), "measure", None)
    return measure.cc if measure is not None else 1


def branches_of(context: InjectionContext, plan: Plan) -> int:
    """The branches the plan's pasted bodies add (their cyclomatic complexity beyond 1)."""
    return sum(complexity(context, item.site.callee) - 1 for item in flattened([plan]))


def files_of(context: InjectionContext, plans: Sequence[Plan], path: str) -> set[str]:
    return {path, *(context.path_of(plan.site.callee) or path for plan in flattened(plans))}


def distinct_first(plans: Sequence[Plan]) -> list[Plan]:
    """The plans in their order, but a second call of a helper already planned after every
    first one: the function grows by different helpers before it repeats one."""
    seen: set[str] = set()
    first: list[Plan] = []
    again: list[Plan] = []
    for plan in plans:
        (again if plan.site.callee in seen else first).append(plan)
        seen.add(plan.site.callee)
    return [*first, *again]


def enough(difficulty: Difficulty, chosen: Sequence[Plan], renamed: bool) -> bool:
    """Enough distinct helpers, and at medium and hard some indirection: a chain (a helper's
    helper pasted inside it) or parameters bound to renamed locals or defaults."""
    if len({plan.site.callee for plan in flattened(chosen)}) < MIN_HELPERS[difficulty]:
        return False
    return difficulty == "easy" or any(depth_of(plan) >= 2 for plan in chosen) or renamed
