"""Reading a judge's reply: the four general dimensions are required, a missing criterion is
recorded, the overall score has a fixed denominator, samples are combined by the median."""

from __future__ import annotations

import json

import pytest

from smellkit.judge.reply import Expected, ReplyError, combine, extract_json, parse_reply

EXPECTED = Expected(specific={"method_placement": "Method Placement",
                              "data_locality": "Data Locality"},
                    case={"targets_restructured": "Targets Restructured"})


def reply(**changes: object) -> str:
    data: dict[str, object] = {
        "smell_elimination": {"score": 8, "justification": "a"},
        "cross_file_coordination": {"score": 6, "justification": "b"},
        "structural_soundness": {"score": 9, "justification": "c"},
        "code_quality": {"score": 7, "justification": "d"},
        "smell_specific": {"Method Placement": {"score": 9, "justification": "e"},
                           "data-locality": {"score": 5, "justification": "f"}},
        "targets_restructured": {"score": 4, "justification": "g"}, "summary": "ok"}
    data.update(changes)
    return json.dumps({key: value for key, value in data.items() if value is not None})


def test_keys_spelled_otherwise_still_match():
    parsed = parse_reply(reply(), EXPECTED)
    assert parsed.scores == {"smell_elimination": 8, "cross_file_coordination": 6,
                             "structural_soundness": 9, "code_quality": 7,
                             "smell_specific.method_placement": 9,
                             "smell_specific.data_locality": 5, "case.targets_restructured": 4}
    assert parsed.missing == () and parsed.summary == "ok"


def test_missing_criteria_are_recorded_and_count_zero_in_the_overall():
    parsed = parse_reply(reply(smell_specific={"Method Placement": {"score": 9}},
                               targets_restructured={"score": "high"}), EXPECTED)
    assert parsed.missing == ("smell_specific.data_locality", "case.targets_restructured")
    combined = combine([parsed], EXPECTED)
    assert combined.missing == parsed.missing
    assert combined.overall == pytest.approx((8 + 6 + 9 + 7 + 9) / 7, abs=1e-4)


@pytest.mark.parametrize(("change", "problem"), [
    ({"code_quality": None}, "code_quality: Field required"),
    ({"smell_elimination": {"score": 11}}, "smell_elimination.score"),
    ({"smell_elimination": 8}, "smell_elimination"),
])
def test_general_dimensions_are_required_and_bounded(change: dict[str, object], problem: str):
    with pytest.raises(ReplyError, match=problem):
        parse_reply(reply(**change), EXPECTED)


def test_json_is_found_in_prose_and_fences():
    text = "Here you go.\n```json\n" + reply() + "\n```\nThanks."
    assert parse_reply(text, EXPECTED).scores["code_quality"] == 7
    assert extract_json('noise {"a": {"b": 1}} trailing') == {"a": {"b": 1}}
    with pytest.raises(ReplyError, match="no JSON object"):
        extract_json('{"smell_elimination": {"score": 8')


def test_median_and_agreement_of_samples():
    samples = [parse_reply(reply(smell_elimination={"score": value}), EXPECTED)
               for value in (2, 8, 9)]
    combined = combine(samples, EXPECTED)
    assert combined.scores["smell_elimination"] == 8
    assert combined.agreement_by_key["smell_elimination"] == pytest.approx(1 - (6 + 0 + 1) / 30,
                                                                           abs=1e-4)
    assert combined.agreement == pytest.approx(
        (combined.agreement_by_key["smell_elimination"] + 3) / 4, abs=1e-4)


def test_schema_requires_the_general_dimensions():
    schema = EXPECTED.schema()
    assert schema["required"][:4] == ["smell_elimination", "cross_file_coordination",
                                      "structural_soundness", "code_quality"]
    assert set(schema["properties"]["smell_specific"]["properties"]) == {"method_placement",
                                                                         "data_locality"}
