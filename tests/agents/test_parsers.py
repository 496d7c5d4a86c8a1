"""The adapters' readings of output the stand-ins do not produce: error results, failed turns,
rounded counts, failed states; the redactor; the price table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smellkit.agents import AgentConfig, AgentError, Usage, get_adapter
from smellkit.agents.base import AgentOutput, RunContext
from smellkit.agents.execute import exit_reason
from smellkit.agents.prices import load_prices, with_cost
from smellkit.agents.redact import Redactor
from smellkit.agents.streamjson import parse_stream


def _output(tmp_path: Path, stdout: str, exit_code: int = 0) -> AgentOutput:
    context = RunContext(workspace=tmp_path / "ws", io=tmp_path / "io", home=tmp_path / "home",
                         instruction="do it", instruction_file=tmp_path / "io" / "i.md",
                         config=AgentConfig(model="m"))
    for folder in (context.io, context.home, context.workspace):
        folder.mkdir(parents=True, exist_ok=True)
    return AgentOutput(stdout=stdout, stderr="", exit_code=exit_code, timed_out=False,
                       context=context)


def test_an_error_result_is_not_finished_even_when_its_subtype_says_success() -> None:
    parsed = parse_stream(json.dumps({
        "type": "result", "subtype": "success", "is_error": True, "result": "API Error: 529",
        "num_turns": 1, "usage": {"input_tokens": 5, "output_tokens": 0}}),
        input_includes_cache=False)
    assert parsed.finished is False and parsed.error == "API Error: 529"
    assert exit_reason(parsed, 0, False) == "crash"
    assert parsed.usage.input_tokens == 5


def test_codex_failed_turn(tmp_path: Path) -> None:
    stdout = "\n".join(json.dumps(event) for event in [
        {"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
        {"type": "error", "message": "Reconnecting... 1/5"},
        {"type": "turn.failed", "error": {"message": "stream disconnected"}}])
    parsed = get_adapter("codex").parse(_output(tmp_path, stdout, exit_code=1))
    assert parsed.finished is False and parsed.error == "stream disconnected"
    assert parsed.usage == Usage(tool_calls=0, turns=0)


def test_aider_counts_with_suffixes(tmp_path: Path) -> None:
    stdout = ("Tokens: 1.5M sent, 12k received. Cost: $1.20 message, $1.20 session.\n"
              "Tokens: 999 sent, 1.0k received.\n")
    parsed = get_adapter("aider").parse(_output(tmp_path, stdout))
    assert parsed.usage == Usage(input_tokens=1_500_999, output_tokens=13_000,
                                 cached_input_tokens=0, cost_usd=1.2, cost_source="agent",
                                 turns=2)
    assert get_adapter("aider").parse(_output(tmp_path, "no usage here")).problems


def test_openhands_failed_state_and_missing_state(tmp_path: Path) -> None:
    output = _output(tmp_path, "")
    adapter = get_adapter("openhands")
    assert adapter.parse(output).finished is None and adapter.parse(output).problems
    conversation = output.context.home / ".openhands" / "conversations" / "abc"
    conversation.mkdir(parents=True)
    (conversation / "base_state.json").write_text(json.dumps({"execution_status": "stuck"}))
    parsed = adapter.parse(output)
    assert parsed.finished is False and "'stuck'" in (parsed.error or "")


def test_mini_other_exit_status_is_a_crash(tmp_path: Path) -> None:
    output = _output(tmp_path, "")
    (output.context.io / "mini.traj.json").write_text(json.dumps(
        {"info": {"exit_status": "FormatError", "model_stats": {"api_calls": 1}}}))
    parsed = get_adapter("mini-swe-agent").parse(output)
    assert exit_reason(parsed, 0, False) == "crash" and parsed.error == "exit status 'FormatError'"


def test_mini_cost_of_zero_after_calls_is_unknown(tmp_path: Path) -> None:
    output = _output(tmp_path, "")
    (output.context.io / "mini.traj.json").write_text(json.dumps(
        {"info": {"exit_status": "Submitted",
                  "model_stats": {"api_calls": 3, "instance_cost": 0.0}}}))
    parsed = get_adapter("mini-swe-agent").parse(output)
    assert parsed.finished and parsed.usage.cost_usd is None and parsed.usage.turns == 3


def test_qwen_alias_and_names() -> None:
    assert get_adapter("qwen-code").name == "qwen-coder"
    assert get_adapter("mini").name == "mini-swe-agent"


def test_redactor_replaces_in_one_pass(tmp_path: Path) -> None:
    redactor = Redactor({"API_KEY": "sk-abcdef123", "NAME_KEY": "API_KEY", "SHORT": "abc"})
    assert redactor.text("sk-abcdef123 API_KEY abc") == \
        "[REDACTED:API_KEY] [REDACTED:NAME_KEY] abc"
    (tmp_path / "bytes.bin").write_bytes(b"\xff\xfe sk-abcdef123")
    redactor.copy(tmp_path / "bytes.bin", tmp_path / "out" / "bytes.bin")
    assert b"sk-abcdef123" not in (tmp_path / "out" / "bytes.bin").read_bytes()


def test_price_table(tmp_path: Path) -> None:
    table = load_prices(None)
    usage = Usage(input_tokens=1_000_000, cached_input_tokens=400_000, output_tokens=100_000)
    priced = with_cost(usage, "openai/gpt-5", table)
    assert priced.cost_usd == pytest.approx(0.6 * 1.25 + 0.4 * 0.125 + 0.1 * 10.0)
    assert with_cost(usage, "unknown-model", table).cost_usd is None
    reported = usage.model_copy(update={"cost_usd": 9.0, "cost_source": "agent"})
    assert with_cost(reported, "gpt-5", table) == reported
    bad = tmp_path / "prices.toml"
    bad.write_text('[gpt-5]\ninput = 1.0\n')
    with pytest.raises(AgentError, match="gpt-5: Field required"):
        load_prices(bad)
