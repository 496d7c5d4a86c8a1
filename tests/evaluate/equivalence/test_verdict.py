"""Canonical values, the comparison of two outcomes and the verdict, on hand-made outcomes."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from smellkit.evaluate.equivalence._worker import MAX_TREE, canonical, compact
from smellkit.evaluate.equivalence.comparison import difference, render, size
from smellkit.evaluate.equivalence.execution import Call
from smellkit.evaluate.equivalence.verdict import decide


class Point:
    def __init__(self, x: float, y: float):
        self.x, self.y = x, y


class Slotted:
    __slots__ = ("a",)

    def __init__(self, a: int):
        self.a = a


def test_canonical_values_are_equal_exactly_when_the_values_are_structurally_equal() -> None:
    nan = float("nan")
    assert canonical([nan, {"a": 1, "b": 2}]) == canonical([nan, {"b": 2, "a": 1}])
    assert canonical({3, 1, 2}) == canonical({1, 2, 3})
    assert canonical(Point(1, 2)) == canonical(Point(1, 2))
    assert canonical(Point(1, 2)) != canonical(Point(1, 3))
    assert canonical(Slotted(1)) != canonical(Slotted(2))
    assert canonical(1) != canonical(1.0) != canonical(True)
    assert canonical((1, 2)) != canonical([1, 2])
    assert canonical(object()) == canonical(object())  # no state: repr without the address
    looped: list[Any] = [1]
    looped.append(looped)
    assert canonical(looped) == ["list", [["int", 1], ["<cycle>", 1]]]
    assert canonical(len) == ["builtin_function_or_method", "builtins.len"]


def test_a_text_stream_is_compared_by_its_encoding_error_handler_and_content() -> None:
    """A stream's repr names neither its encoding nor its error handler: two streams that
    decode differently, or hold different bytes, must not look alike."""
    def stream(data: bytes = b"ok", **options: Any) -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(data), **options)

    assert canonical(stream(encoding="utf-8")) == canonical(stream(encoding="utf-8"))
    assert canonical(stream(encoding="ascii")) != canonical(stream(encoding="utf-8"))
    assert canonical(stream(encoding="utf-8", errors="replace")) != \
        canonical(stream(encoding="utf-8", errors="strict"))
    assert canonical(stream(b"one", encoding="utf-8")) != \
        canonical(stream(b"two", encoding="utf-8"))
    closed = stream(encoding="utf-8")
    closed.close()
    assert canonical(closed) != canonical(stream(encoding="utf-8"))


def _outcome(**fields: Any) -> dict[str, Any]:
    return {"status": "returned", "value": ["int", 1], "args": ["list", []], "printed": "",
            "input": ["list", []], **fields}


def test_difference_names_what_differs() -> None:
    base = _outcome()
    assert difference(base, _outcome()) is None
    assert difference(base, _outcome(value=["int", 2])) == "the return values differ"
    assert "mutation" in (difference(base, _outcome(args=["list", [["int", 1]]])) or "")
    assert difference(base, _outcome(printed="hi\n")) == "the printed output differs"
    raised = _outcome(status="raised", error="ValueError", message="bad")
    assert difference(base, raised) == "one returned, the other raised ValueError"
    assert difference(raised, {**raised, "error": "TypeError"}) == \
        "raised ValueError vs TypeError"
    assert difference(raised, {**raised, "message": "worse"}) is None
    assert difference(raised, {**raised, "message": "worse"}, messages=True) == \
        "the exception messages differ"
    assert difference(base, {"status": "timeout"}) == \
        "one returned, the other hung past the time limit"
    assert difference({"status": "timeout"}, {"status": "timeout"}) is None


def _calls(*entries: str) -> list[Call]:
    return [Call(entry=entry, smelly=("m", entry), result=("m", entry), payload=b"",
                 source="recorded") for entry in entries]


def test_entry_points_that_end_differently_on_two_smelly_runs_are_left_out() -> None:
    calls = _calls("m.f", "m.g")
    first = [_outcome(), _outcome()]
    second = [_outcome(status="raised", error="OSError", message="busy"), _outcome()]
    result = [_outcome(status="raised", error="KeyError", message="x"), _outcome()]
    verdict = decide(calls, first, second, result, {}, result_names={})
    assert verdict.verdict == "equivalent" and verdict.nondeterministic == ("m.f",)
    assert verdict.entry_points == 1 and verdict.inputs == 1 and verdict.compared == ("m.g",)


def test_only_the_nondeterministic_parts_of_an_entry_point_s_outcomes_are_left_out() -> None:
    """A progress bar returned holds the time it was made, so its two smelly runs never return
    the same value; what the call did to its arguments and printed is still deterministic, and
    compared (a mutant that appends to the caller's list shows there)."""
    calls = _calls("m.bar", "m.bar")
    first = [_outcome(value=["float", "1.0"]), _outcome(value=["float", "5.0"])]
    second = [_outcome(value=["float", "2.0"]), _outcome(value=["float", "6.0"])]
    same = [_outcome(value=["float", "3.0"]), _outcome(value=["float", "7.0"])]
    kept = decide(calls, first, second, same, {}, result_names={})
    assert kept.verdict == "equivalent" and kept.inputs == 2 and kept.nondeterministic == ()
    assert kept.partly_nondeterministic == {"m.bar": ("value",)}
    grown = [same[0], _outcome(value=["float", "7.0"], args=["list", [["NoneType", None]]])]
    caught = decide(calls, first, second, grown, {}, result_names={})
    assert caught.verdict == "not_equivalent" and caught.counterexample is not None
    assert "mutation" in caught.counterexample.difference
    ended = [same[0], _outcome(status="raised", error="TypeError", message="")]
    assert decide(calls, first, second, ended, {}, result_names={}).verdict == \
        "not_equivalent"


def test_the_smallest_counterexample_is_kept() -> None:
    calls = _calls("m.f", "m.f", "m.g")
    smelly = [_outcome(input=["list", ["long" * 20]]), _outcome(input=["list", ["x"]]),
              _outcome()]
    result = [_outcome(value=["int", 9], input=smelly[0]["input"]),
              _outcome(value=["int", 9], input=smelly[1]["input"]), _outcome()]
    verdict = decide(calls, smelly, smelly, result, {"m.h": "removed"},
                     result_names={"m.f": "m.f2"})
    assert verdict.verdict == "not_equivalent"
    example = verdict.counterexample
    assert example is not None and example.entry_point == "m.f"
    assert example.result_entry_point == "m.f2" and example.input == "[x]"
    assert example.smelly["value"] == "1" and example.result["value"] == "9"
    assert verdict.not_comparable == {"m.h": "removed"}
    assert "2 of 3 inputs differ" in verdict.reason


def test_a_timeout_against_a_slow_ending_is_unusable() -> None:
    """Near the limit, load decides which side of it a call falls on: not a difference; a hang
    against a quick ending still is."""
    calls = _calls("m.f", "m.g")
    smelly = [{**_outcome(), "seconds": 1.5}, {**_outcome(), "seconds": 0.01}]
    result = [{"status": "timeout"}, {"status": "timeout"}]
    verdict = decide(calls, smelly, smelly, result, {}, result_names={}, per_call=2.0)
    assert verdict.verdict == "not_equivalent" and verdict.unusable_inputs == 1
    assert verdict.counterexample is not None and verdict.counterexample.entry_point == "m.g"
    slow = decide(calls[:1], smelly[:1], smelly[:1], result[:1], {}, result_names={},
                  per_call=2.0)
    assert slow.verdict == "inconclusive" and slow.unusable_inputs == 1


def test_a_timeout_against_a_killed_worker_is_unusable() -> None:
    """Neither call ended: one was cut by the alarm, the other (deaf to it) with its worker."""
    calls = _calls("m.f")
    smelly = [{"status": "crashed"}]
    verdict = decide(calls, smelly, smelly, [{"status": "timeout"}], {}, result_names={},
                     per_call=2.0)
    assert verdict.verdict == "inconclusive" and verdict.unusable_inputs == 1


def test_inconclusive_says_why() -> None:
    calls = _calls("m.f")
    unstable = decide(calls, [_outcome(value=["int", 1])], [{"status": "timeout"}],
                      [_outcome()], {}, result_names={})
    assert unstable.verdict == "inconclusive" and "nondeterministic" in unstable.reason
    unusable = decide(calls, [_outcome()], [_outcome()], [{"status": "input_error"}], {},
                      result_names={})
    assert unusable.verdict == "inconclusive" and unusable.unusable_inputs == 1
    empty = decide([], [], [], [], {"m.f": "signature changed"}, result_names={},
                   empty_reason="no input was recorded")
    assert empty.verdict == "inconclusive" and empty.reason == "no input was recorded"
    assert empty.not_comparable == {"m.f": "signature changed"}


def test_render_reads_like_python() -> None:
    assert render(canonical({"a": [1, 2.5, None]})) == "{'a': [1, 2.5, None]}"
    assert render(canonical(Point(1, 2))).endswith("Point(x=1, y=2)")


def test_a_big_value_is_compared_by_its_digest_and_read_from_a_pruned_copy() -> None:
    big = {f"key{number}": list(range(40)) for number in range(40)}
    one, same, other = (compact(canonical(value))
                        for value in (big, dict(big), {**big, "key39": [0]}))
    assert one[0] == "<digest>" and one == same and one != other
    assert len(json.dumps(one[2])) <= MAX_TREE and one[3] == len(json.dumps(canonical(big)))
    assert render(one).startswith("{'key") and "..." in render(one)
    assert size({"input": one}) == one[3]
    small = canonical([1, 2])
    assert compact(small) == small


def test_a_case_cache_folder_changes_with_the_code_that_fills_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Inputs drawn and outcomes written by an older version are never reused after an upgrade
    that changes how they are made: the folder's key covers the sandbox scripts' bytes."""
    from smellkit.evaluate.equivalence import cache

    before = cache.case_key("case", 1)
    assert cache.case_key("case", 1) == before  # stable between predictions of one version
    cache._producers_digest.cache_clear()
    monkeypatch.setattr(cache, "_PRODUCERS", ("_generator.py", "_recorder.py"))
    try:
        assert cache.case_key("case", 1) != before
    finally:
        cache._producers_digest.cache_clear()
