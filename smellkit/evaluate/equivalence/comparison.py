"""Comparing two outcomes of one call (as the worker wrote them).

Compared, in this order: how the call ended (returned, raised, timed out, crashed), the
exception's type (its message only when asked: refactorings reword messages), the return value,
the state of the arguments after the call (receivers included: in-place mutation is behaviour),
and what was printed. Values are the worker's canonical trees (`_worker.canonical`): structural,
typed, NaN equal to NaN; an object without readable state (no `__dict__`, no `__slots__`) is
compared by its repr with memory addresses removed, which is the documented fallback for objects
whose `__eq__` cannot be called across two processes.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

UNUSABLE = frozenset({"input_error", "not_run"})
"""Outcomes that say nothing about the code: the input did not load, or the call never ran."""
ENDINGS = ("returned", "raised", "timeout", "crashed", "missing")


PARTS = ("message", "value", "args", "printed")
"""The parts of an outcome that can be left out of a comparison (`difference`'s `ignore`)
where the code is nondeterministic in them only; how the call ended (status, exception
type) is always compared."""
ENDING = "ending"


def differing_parts(first: dict[str, Any], second: dict[str, Any], *,
                    messages: bool = False) -> set[str]:
    """Which parts of two outcomes of the same call differ: `ENDING` when they ended
    differently (then nothing else is compared), else those of `PARTS` that differ."""
    status = first.get("status"), second.get("status")
    if status[0] != status[1] or (status[0] in ("raised", "missing") and
                                  first.get("error") != second.get("error")):
        return {ENDING}
    found = set()
    if status[0] in ("raised", "missing") and messages and \
            first.get("message") != second.get("message"):
        found.add("message")
    if status[0] == "returned" and first.get("value") != second.get("value"):
        found.add("value")
    if status[0] in ("returned", "raised"):
        if first.get("args") != second.get("args"):
            found.add("args")
        if first.get("printed", "") != second.get("printed", ""):
            found.add("printed")
    return found


def difference(first: dict[str, Any], second: dict[str, Any], *, messages: bool = False,
               ignore: Collection[str] = ()) -> str | None:
    """What differs between two outcomes of the same call, in a phrase; None when nothing does.
    `ignore`: parts (`PARTS`) not compared, where the code is nondeterministic."""
    found = differing_parts(first, second, messages=messages) - set(ignore)
    if ENDING in found:
        status = first.get("status"), second.get("status")
        if status[0] != status[1]:
            return f"one {_ending(first)}, the other {_ending(second)}"
        return f"raised {first.get('error')} vs {second.get('error')}"
    for part, phrase in (("message", "the exception messages differ"),
                         ("value", "the return values differ"),
                         ("args", "the arguments' state after the call differs (mutation)"),
                         ("printed", "the printed output differs")):
        if part in found:
            return phrase
    return None


def too_close_to_call(first: dict[str, Any], second: dict[str, Any], per_call: float) -> bool:
    """Whether one outcome is a timeout and the other ended only after half the time limit, or
    was killed with its worker: on a loaded machine the same code may fall on either side of
    the limit, and a call deaf to the alarm is killed at the worker's deadline instead, so that
    pair says nothing about behaviour (a hang the other version does not have ends well inside
    it)."""
    statuses = first.get("status"), second.get("status")
    if set(statuses) == {"crashed", "timeout"}:
        return True
    if statuses.count("timeout") != 1:
        return False
    other = second if statuses[0] == "timeout" else first
    seconds = other.get("seconds")
    return other.get("status") in ("returned", "raised") and \
        isinstance(seconds, (int, float)) and seconds > per_call / 2


def _ending(outcome: dict[str, Any]) -> str:
    status = outcome.get("status")
    if status == "raised":
        return f"raised {outcome.get('error')}"
    if status == "missing":
        return f"could not load the entry point ({outcome.get('error')})"
    return {"returned": "returned", "timeout": "hung past the time limit",
            "crashed": "killed the worker"}.get(str(status), str(status))


def size(outcome: dict[str, Any]) -> int:
    """How big the call's input is (to prefer the smallest counterexample)."""
    described = outcome.get("input", "")
    if isinstance(described, list) and len(described) == 4 and described[0] == "<digest>" \
            and isinstance(described[3], int):
        return described[3]
    return len(json.dumps(described, default=str))


def render(value: Any, limit: int = 600) -> str:
    """A canonical tree as short readable text: `type(value)` nodes, nested."""
    text = _render(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _render(value: Any) -> str:
    if not (isinstance(value, list) and len(value) >= 2 and isinstance(value[0], str)):
        return json.dumps(value, default=str) if not isinstance(value, str) else value
    kind, content = value[0], value[1]
    if kind == "<digest>" and len(value) >= 3:  # a big tree: its pruned copy (`compact`)
        return _render(value[2])
    if kind in ("NoneType", "bool", "int", "float", "str", "complex"):
        return repr(content) if kind in ("str",) else str(content)
    if kind in ("list", "tuple", "set", "frozenset") and isinstance(content, list):
        inner = ", ".join(_render(item) for item in content)
        return {"list": f"[{inner}]", "tuple": f"({inner})"}.get(kind, f"{kind}({{{inner}}})")
    if kind == "dict" and isinstance(content, list):
        return "{" + ", ".join(f"{_render(item[0])}: {_render(item[1])}"
                               if isinstance(item, list) and len(item) == 2 else _render(item)
                               for item in content) + "}"  # a pruned copy ends in "..."
    if isinstance(content, list) and all(isinstance(item, list) and len(item) == 2 and
                                         isinstance(item[0], str) for item in content):
        return f"{kind}(" + ", ".join(f"{key}={_render(item)}" for key, item in content) + ")"
    return f"{kind}({_render(content) if not isinstance(content, str) else content})"
