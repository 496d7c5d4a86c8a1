"""Scripted stand-ins for the agents' command-line tools, installed on PATH by the tests.

Each reads the prompt the way the real tool does (stdin, `-p`, `-t`, `--message`, after `--`),
checks the flags the adapter must pass, edits the workspace the same way (modifies, creates,
deletes and renames a file, and leaves scratch files the patch must not hold), and prints the
real tool's output format with fixed usage numbers (`EXPECTED_USAGE`). `STANDIN_MODE` (passed
with `--env`) makes it misbehave: `timeout`, `crash`, `malformed`, `tamper`, `escape`,
`secret`, `budget`, or `gentle` (only appends a comment to
`STANDIN_FILE`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from smellkit.agents.base import Usage

EXECUTABLES = {"claude-code": "claude", "codex": "codex", "qwen-coder": "qwen",
               "openhands": "openhands", "aider": "aider", "mini-swe-agent": "mini"}

EXPECTED_USAGE = {
    "claude-code": Usage(input_tokens=100 + 20 + 300, output_tokens=50, cached_input_tokens=300,
                         cost_usd=0.0123, cost_source="agent", turns=3, tool_calls=2,
                         duration_s=4.5),
    "codex": Usage(input_tokens=1000 + 500, cached_input_tokens=200 + 100, output_tokens=70,
                   turns=2, tool_calls=2),
    "qwen-coder": Usage(input_tokens=900, output_tokens=40, cached_input_tokens=100, turns=2,
                        tool_calls=1, duration_s=2.0),
    "openhands": Usage(input_tokens=1200 + 30, output_tokens=80 + 5, cached_input_tokens=400,
                       cost_usd=0.021, cost_source="agent", turns=3 + 1, tool_calls=2),
    "aider": Usage(input_tokens=4200 + 950, output_tokens=1100 + 12, cached_input_tokens=3000,
                   cost_usd=0.05, cost_source="agent", turns=2),
    "mini-swe-agent": Usage(input_tokens=700 + 800, output_tokens=60 + 30,
                            cached_input_tokens=500, cost_usd=0.0042, cost_source="agent",
                            turns=2, tool_calls=2),
    "command": Usage(input_tokens=11, output_tokens=22, cost_usd=0.5, cost_source="agent",
                     turns=1),
}

BODY = r'''
import json, os, pathlib, subprocess, sys, time

args = sys.argv[1:]
mode = os.environ.get("STANDIN_MODE", "normal")


def fail(message):
    print(f"stand-in {TOOL}: {message}", file=sys.stderr)
    sys.exit(64)


def need(*flags):
    for flag in flags:
        if flag not in args:
            fail(f"missing flag {flag} in {args}")


def after(flag):
    if flag not in args:
        fail(f"missing {flag}")
    return args[args.index(flag) + 1]


if TOOL == "claude":
    need("--print", "--verbose", "--permission-mode", "bypassPermissions")
    if after("--output-format") != "stream-json":
        fail("not stream-json")
    prompt = sys.stdin.read()
elif TOOL == "codex":
    if args[:1] != ["exec"]:
        fail("not exec")
    need("--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "--")
    prompt = args[args.index("--") + 1]
    if not os.environ.get("CODEX_API_KEY") or \
            os.environ.get("CODEX_API_KEY") != os.environ.get("OPENAI_API_KEY"):
        fail("the key is not in CODEX_API_KEY too")
elif TOOL == "qwen":
    need("--yolo")
    if after("--output-format") != "stream-json" or after("--auth-type") != "openai":
        fail("bad format or auth type")
    if "--openai-api-key" in args:
        fail("the key must not be on the command line")
    prompt = after("-p")
elif TOOL == "openhands":
    need("--headless", "--json", "--override-with-envs")
    prompt = after("-t")
    if not os.environ.get("LLM_MODEL"):
        fail("LLM_MODEL not set")
elif TOOL == "aider":
    need("--yes-always", "--no-auto-commits", "--no-gitignore", "--analytics-disable")
    prompt = after("--message")
elif TOOL == "mini":
    need("-y", "--exit-immediately")
    prompt = after("-t")
    config = pathlib.Path(os.environ["HOME"]) / ".config" / "mini-swe-agent" / ".env"
    if os.environ.get("MSWEA_CONFIGURED") != "true" or not config.is_file():
        fail("mini-swe-agent would ask its set-up questions")
else:  # command: instruction_file workspace usage_file
    prompt = pathlib.Path(args[0]).read_text()
    if pathlib.Path(args[1]).resolve() != pathlib.Path.cwd().resolve():
        fail("not run in the workspace")
if not prompt.strip():
    fail("empty prompt")

home = pathlib.Path(os.environ["HOME"])
real_home = pathlib.Path(os.path.expanduser("~" + os.environ.get("STANDIN_USER", "")))
checks = {
    "home": str(home).endswith("/home"),
    "tmp": os.environ.get("TMPDIR", "").endswith("/tmp"),
    "leak": "STANDIN_LEAK" in os.environ,
    "git": subprocess.run(["git", "log", "--format=%s"], capture_output=True,
                          text=True).stdout.strip(),
}

if mode == "timeout":
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    pathlib.Path(os.environ["STANDIN_PIDS"]).write_text(f"{os.getpid()} {child.pid}")
    print('{"type": "system", "subtype": "init"}', flush=True)
    time.sleep(120)

ws = pathlib.Path.cwd()
ops = ws / os.environ.get("STANDIN_FILE", "src/calc/ops.py")
ops.write_text(ops.read_text() + "\n\n# refactored by the stand-in\n")
if mode != "gentle":  # gentle: the one harmless change above
    (ws / "src" / "calc" / "helpers.py").write_text(
        f"# task: {prompt.splitlines()[0][:40]}\n# env: {json.dumps(checks, sort_keys=True)}\n")
    (ws / "pyproject.toml").unlink()
    (ws / "src" / "calc" / "__init__.py").rename(ws / "src" / "calc" / "package.py")
    (ws / "src" / "calc" / "table.bin").write_bytes(bytes(range(256)) * 4)
(ws / ".aider.chat.history.md").write_text("scratch\n")
(ws / "src" / "calc" / "__pycache__").mkdir(exist_ok=True)
(ws / "src" / "calc" / "__pycache__" / "ops.cpython-312.pyc").write_bytes(b"\x00\x01")
(home / ".config").mkdir(exist_ok=True)
(home / ".config" / "settings.json").write_text("{}")
subprocess.run(["git", "commit", "-qam", "agent commit"], capture_output=True)

if mode == "tamper":
    (ws / "tests").mkdir(exist_ok=True)
    (ws / "tests" / "test_ops.py").write_text("def test_nothing():\n    pass\n")
    (ws / "conftest.py").write_text("collect_ignore_glob = ['*']\n")
if mode == "escape":
    (ws / ".." / "escaped.txt").write_text("out\n")
    (ws / ".." / ".." / "escaped-too.txt").write_text("out\n")
    with open(ws / ".." / ".." / "base.git" / "info" / "exclude", "a") as exclude:
        exclude.write("src/\n")  # tries to hide its changes from the patch
if mode == "secret":
    key = os.environ.get(os.environ["STANDIN_KEY_VAR"], "")
    print(f"the key is {key}", file=sys.stderr)
    (ws / "leaked.txt").write_text(f"key={key}\n")
if mode == "crash":
    print('{"type": "system", "subtype": "init"}')
    print("Traceback: the stand-in crashed", file=sys.stderr)
    sys.exit(3)
if mode == "malformed":
    print("this is not JSON {")
    print('{"type": "assistant", "message": {"content": [')
    sys.exit(0)


def emit(event):
    print(json.dumps(event), flush=True)


if TOOL in ("claude", "qwen"):
    emit({"type": "system", "subtype": "init", "cwd": str(ws), "tools": ["Bash", "Edit"]})
    emit({"type": "assistant", "message": {"content": [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}})
    emit({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "src", "is_error": False}]}})
    if TOOL == "claude":
        emit({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": "t2", "name": "Edit", "input": {}}]}})
        emit({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "ok"}]}})
        subtype = "error_max_budget_usd" if mode == "budget" else "success"
        emit({"type": "result", "subtype": subtype, "is_error": mode == "budget",
              "duration_ms": 4500, "duration_api_ms": 4000, "num_turns": 3,
              "result": "Done.", "total_cost_usd": 0.0123,
              "usage": {"input_tokens": 100, "cache_creation_input_tokens": 20,
                        "cache_read_input_tokens": 300, "output_tokens": 50}})
    else:
        emit({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 2000,
              "num_turns": 2, "result": "Done.",
              "usage": {"input_tokens": 900, "output_tokens": 40,
                        "cache_read_input_tokens": 100, "total_tokens": 940}})
elif TOOL == "codex":
    emit({"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"})
    emit({"type": "turn.started"})
    emit({"type": "item.completed", "item": {"id": "item_0", "type": "reasoning",
                                             "text": "thinking"}})
    emit({"type": "item.completed", "item": {
        "id": "item_1", "type": "command_execution", "command": "bash -lc ls",
        "aggregated_output": "src\n", "exit_code": 0, "status": "completed"}})
    emit({"type": "turn.completed", "usage": {"input_tokens": 1000, "cached_input_tokens": 200,
                                              "output_tokens": 50}})
    emit({"type": "turn.started"})
    emit({"type": "item.completed", "item": {
        "id": "item_2", "type": "file_change", "status": "completed",
        "changes": [{"path": str(ops), "kind": "update"}]}})
    emit({"type": "item.completed", "item": {"id": "item_3", "type": "agent_message",
                                             "text": "Done."}})
    emit({"type": "turn.completed", "usage": {"input_tokens": 500, "cached_input_tokens": 100,
                                              "output_tokens": 20}})
elif TOOL == "openhands":
    conv = home / ".openhands" / "conversations" / "5f0c2a9e8d7b4c6a"
    (conv / "events").mkdir(parents=True)
    def metrics(prompt_tokens, completion, cached, cost, calls):
        return {"accumulated_cost": cost, "response_latencies": [{"latency": 1.0}] * calls,
                "accumulated_token_usage": {"prompt_tokens": prompt_tokens,
                                            "completion_tokens": completion,
                                            "cache_read_tokens": cached,
                                            "cache_write_tokens": 0}}
    (conv / "base_state.json").write_text(json.dumps({
        "id": "5f0c2a9e-8d7b-4c6a", "execution_status": "finished",
        "stats": {"usage_to_metrics": {"agent": metrics(1200, 80, 400, 0.02, 3),
                                       "condenser": metrics(30, 5, 0, 0.001, 1)}}}))
    for number, kind in enumerate(["MessageEvent", "ActionEvent", "ObservationEvent",
                                   "ActionEvent", "ObservationEvent", "MessageEvent"]):
        (conv / "events" / f"event-{number:05d}-x.json").write_text(
            json.dumps({"kind": kind, "id": number}))
    emit({"type": "action", "kind": "ActionEvent"})
    print("Conversation ID: 5f0c2a9e8d7b4c6a")
elif TOOL == "aider":
    pathlib.Path(after("--chat-history-file")).write_text(f"# aider chat\n> {prompt}\n")
    (ws / ".aider.tags.cache.v4").mkdir(exist_ok=True)
    print("Aider v0.86.1\nMain model: " + after("--model"))
    print("Applied edit to src/calc/ops.py")
    print("Tokens: 4.2k sent, 1.1k cache write, 3.0k cache hit, 1.1k received. "
          "Cost: $0.03 message, $0.03 session.")
    print("Tokens: 950 sent, 12 received. Cost: $0.02 message, $0.05 session.")
elif TOOL == "mini":
    def response(prompt_tokens, completion, cached):
        return {"usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                          "prompt_tokens_details": {"cached_tokens": cached}}}
    pathlib.Path(after("-o")).write_text(json.dumps({
        "info": {"model_stats": {"instance_cost": 0.0042, "api_calls": 2},
                 "exit_status": "LimitsExceeded" if mode == "budget" else "Submitted",
                 "submission": "", "mini_version": "2.4.6"},
        "messages": [
            {"role": "system", "content": "You are..."},
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": "ls", "extra": {
                "actions": [{"command": "ls"}], "response": response(700, 60, 200)}},
            {"role": "tool", "content": "src"},
            {"role": "assistant", "content": "submit", "extra": {
                "actions": [{"command": "echo COMPLETE"}], "response": response(800, 30, 300)}},
            {"role": "tool", "content": ""}],
        "trajectory_format": "mini-swe-agent-1.1"}))
else:
    pathlib.Path(args[2]).write_text(json.dumps(
        {"input_tokens": 11, "output_tokens": 22, "cost_usd": 0.5, "turns": 1}))
'''


def install(bin_dir: Path, agent: str) -> Path:
    """The stand-in for `agent`'s executable in `bin_dir` (or, for `command`, a script)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    name = EXECUTABLES.get(agent, "fake-agent")
    tool = name if agent != "command" else "command"
    path = bin_dir / name
    path.write_text(f"#!{sys.executable}\nTOOL = {tool!r}\n{BODY}")
    path.chmod(0o755)
    return path
