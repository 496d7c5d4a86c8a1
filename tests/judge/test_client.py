"""The client against a real HTTP server on loopback: valid replies, repair, truncation,
retries on 429 and on a hang, structured-output fallback, the cache, usage and cost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from smellkit.judge.client import JudgeClient, Price, parse_price
from smellkit.judge.errors import JudgeError, ServerError
from smellkit.judge.reply import Expected, Parsed, ReplyError, parse_reply
from tests.judge.conftest import options
from tests.judge.server import Hang, Reply, Status, prompt_text, scores, verdict_json

EXPECTED = Expected(specific={"method_placement": "Method Placement"}, case={})
MESSAGES = [{"role": "system", "content": "judge"}, {"role": "user", "content": "the diff"}]
GOOD = scores(8, 7, 9, 6)


def ask(client: JudgeClient, sample: int = 0) -> Any:
    return client.ask(MESSAGES, model="judge-a", sample=sample, schema=EXPECTED.schema(),
                      schema_name="verdict", validate=lambda text: parse_reply(text, EXPECTED))


def test_valid_verdict_is_read_with_temperature_zero_and_a_seed(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Reply(verdict_json(body, GOOD)))
    client = JudgeClient(options(server, tmp_path, seed=40))
    outcome = ask(client, sample=2)
    parsed: Parsed = outcome.value
    assert parsed.scores["smell_elimination"] == 8
    assert parsed.scores["smell_specific.method_placement"] == 5
    assert parsed.missing == ()
    body = server.requests[0]
    assert body["temperature"] == 0 and body["seed"] == 42
    assert body["response_format"]["type"] == "json_schema"
    assert outcome.usage.requests == 1 and outcome.usage.prompt_tokens == 100
    assert outcome.usage.cost_usd is None  # no price known for judge-a


def test_malformed_json_then_a_valid_reply_to_the_repair_request(serve: Any, tmp_path: Path):
    def script(body: dict[str, Any], n: int) -> Reply:
        return Reply('{"smell_elimination": {"score": 8, "justif') if n == 0 else \
            Reply(verdict_json(body, GOOD))

    server = serve(script)
    outcome = ask(JudgeClient(options(server, tmp_path)))
    assert outcome.value.scores["code_quality"] == 6
    assert outcome.usage.requests == 2 and outcome.usage.repairs == 1
    repair = server.requests[1]["messages"]
    assert repair[-2]["role"] == "assistant" and repair[-1]["role"] == "user"
    assert "not a valid answer" in repair[-1]["content"]


def test_invalid_twice_is_a_reply_error_and_nothing_is_cached(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Reply(json.dumps({"smell_elimination": {"score": 14}})))
    client = JudgeClient(options(server, tmp_path))
    with pytest.raises(ReplyError, match="smell_elimination"):
        ask(client)
    assert server.count() == 2
    with pytest.raises(ReplyError):
        ask(client)
    assert server.count() == 4  # asked again: failures are not cached


def test_truncated_reply_is_repaired(serve: Any, tmp_path: Path):
    def script(body: dict[str, Any], n: int) -> Reply:
        full = verdict_json(body, GOOD)
        return Reply(full[:len(full) // 2], finish_reason="length") if n == 0 else Reply(full)

    server = serve(script)
    outcome = ask(JudgeClient(options(server, tmp_path)))
    assert outcome.value.scores["structural_soundness"] == 9
    assert "cut off" in server.requests[1]["messages"][-1]["content"]


def test_429_then_success_is_retried(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Status(429, retry_after=0.01) if n < 2 else
                   Reply(verdict_json(body, GOOD)))
    outcome = ask(JudgeClient(options(server, tmp_path)))
    assert outcome.value.scores["smell_elimination"] == 8
    assert server.count() == 3 and outcome.usage.retries == 2


def test_5xx_beyond_the_retries_is_a_server_error(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Status(503))
    with pytest.raises(ServerError, match="failed 3 times"):
        ask(JudgeClient(options(server, tmp_path, retries=2)))
    assert server.count() == 3


def test_hang_times_out_and_is_retried(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Hang(3.0) if n == 0 else Reply(verdict_json(body, GOOD)))
    outcome = ask(JudgeClient(options(server, tmp_path, timeout=0.5)))
    assert outcome.value.scores["smell_elimination"] == 8
    assert server.count() == 2 and outcome.usage.retries == 1


def test_server_without_json_schema_falls_back_to_the_prompt(serve: Any, tmp_path: Path):
    def script(body: dict[str, Any], n: int) -> Reply | Status:
        if "response_format" in body:
            return Status(400)
        return Reply("Here it is:\n```json\n" + verdict_json(body, GOOD) + "\n```")

    server = serve(script)
    client = JudgeClient(options(server, tmp_path))
    assert ask(client).value.scores["smell_elimination"] == 8
    assert [body.get("response_format", {}).get("type") for body in server.requests] == \
        ["json_schema", "json_object", None]
    ask(client, sample=1)  # the mode that worked is kept for the model
    assert "response_format" not in server.requests[-1]


def test_other_4xx_is_a_server_error_naming_the_fix(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Status(404))
    with pytest.raises(ServerError, match=r"404.*--base-url"):
        ask(JudgeClient(options(server, tmp_path)))


def test_rerun_is_served_from_the_cache(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Reply(verdict_json(body, GOOD)))
    first = ask(JudgeClient(options(server, tmp_path / "cache")))
    again = ask(JudgeClient(options(server, tmp_path / "cache")))
    assert server.count() == 1
    assert again.cached and again.value == first.value and again.usage.cached == 1
    ask(JudgeClient(options(server, tmp_path / "cache")), sample=1)
    assert server.count() == 2  # another sample index is another key


def test_cost_from_configured_prices(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Reply(verdict_json(body, GOOD), prompt_tokens=1000,
                                         completion_tokens=500))
    client = JudgeClient(options(server, tmp_path, prices={"judge-a": Price(2.5, 10.0)}))
    outcome = ask(client)
    assert outcome.usage.cost_usd == pytest.approx((1000 * 2.5 + 500 * 10.0) / 1e6)
    assert client.totals.cost_usd == outcome.usage.cost_usd
    assert client.totals.prompt_tokens == 1000


def test_prompt_text_reaches_the_server(serve: Any, tmp_path: Path):
    server = serve(lambda body, n: Reply(verdict_json(body, GOOD)))
    ask(JudgeClient(options(server, tmp_path)))
    assert "the diff" in prompt_text(server.requests[0])


def test_price_option_parsing():
    assert parse_price("gpt-4o=2.5,10") == ("gpt-4o", Price(2.5, 10.0))
    with pytest.raises(JudgeError, match="MODEL=IN,OUT"):
        parse_price("gpt-4o=2.5")
