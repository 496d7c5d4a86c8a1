"""The worker process on a small package: calls and their outcomes, and bad input contained (a
hang, a hang that ignores the alarm, file writes, sys.exit, spawned processes, sockets, a crash
of the worker), each followed by a call that must still run."""

from __future__ import annotations

import os
import pickle
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from smellkit.evaluate.equivalence.execution import (
    Call,
    Limits,
    Version,
    network_isolation,
    run_calls,
)
from smellkit.sandbox.environment import Environment

MODULE = '''
import contextvars, itertools, os, signal, socket, subprocess, sys, threading, time

_local = threading.local()
depth = contextvars.ContextVar("depth")

def current():
    stack = getattr(_local, "stack", [])
    return stack[-1] if stack else None, depth.get(0)

def add(a, b):
    return a + b

def shout(items):
    items.append("!")
    print("shouting", len(items))
    return len(items)

def spin():
    while True:
        pass

def deaf():
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    time.sleep(60)

def write(path):
    with open(path, "w") as handle:
        handle.write("x")
    return "wrote"

def write_here():
    with open("here.txt", "w") as handle:
        handle.write("x")
    return sorted(os.listdir("."))

def leave():
    sys.exit(3)

def spawn():
    return subprocess.run(["true"]).returncode

def fork():
    return os.fork()

def connect():
    with socket.socket() as sock:
        sock.connect(("192.0.2.1", 80))

def die():
    os._exit(7)

def raise_slowly(size):
    return sum(itertools.chain(itertools.repeat(1, size), ["not a number"]))

reader = None

def command_line():
    return sys.argv[1:]

def ask(question):
    answer = reader() if reader is not None else sys.stdin.readline()
    return question, os.environ.get("MODE"), answer

def nan():
    return [float("nan"), {"b": 1, "a": {2, 1}}]

def where():
    print("printed by", __file__)

class Box:
    def __init__(self, value):
        self.value = value

    def grow(self, by=1):
        self.value += by
        return self
'''


@pytest.fixture
def package(tmp_path: Path) -> tuple[Path, Environment]:
    tree = tmp_path / "tree"
    (tree / "src" / "pkg").mkdir(parents=True)
    (tree / "src" / "pkg" / "__init__.py").write_text("")
    (tree / "src" / "pkg" / "mod.py").write_text(textwrap.dedent(MODULE))
    env = Environment(root=tmp_path, python=Path(sys.executable),
                      env={"PATH": os.environ["PATH"]}, source_path="src")
    return tree, env


def _call(name: str, *args: Any, **kwargs: Any) -> Call:
    module, _, qualname = name.partition(":")
    return Call(entry=f"{module}.{qualname}", smelly=(module, qualname),
                result=(module, qualname), payload=pickle.dumps((args, kwargs)),
                source="recorded")


def _run(package: tuple[Path, Environment], tmp_path: Path, calls: list[Call],
         per_call: float = 1.0, budget: float = 60.0) -> list[dict[str, Any]]:
    tree, env = package
    version = Version(tree=tree, env=env, scratch=tmp_path / "scratch",
                      limits=Limits(per_call=per_call, startup=3.0),
                      isolate_network=network_isolation() is None)
    return run_calls(calls, "smelly", version, time.monotonic() + budget)


def test_outcomes_hold_value_mutation_and_output(package: tuple[Path, Environment],
                                                 tmp_path: Path) -> None:
    outcomes = _run(package, tmp_path, [_call("pkg.mod:add", 2, 3), _call("pkg.mod:shout", ["a"]),
                                        _call("pkg.mod:add", 1, "x"), _call("pkg.mod:nan")])
    added, shouted, wrong, nan = outcomes
    assert added["status"] == "returned" and added["value"] == ["int", 5]
    assert shouted["printed"] == "shouting 2\n"
    assert shouted["args"] == ["list", [["list", [["list", [["str", "a"], ["str", "!"]]]]],
                                        ["dict", []]]]
    assert shouted["input"] == ["list", [["list", [["list", [["str", "a"]]]]], ["dict", []]]]
    assert wrong["status"] == "raised" and wrong["error"] == "TypeError"
    assert nan["value"][1][0] == ["float", "nan"]


def test_what_is_printed_names_no_version_s_folder(package: tuple[Path, Environment],
                                                   tmp_path: Path) -> None:
    """A warning names the file it comes from; each version lives in a folder of its own."""
    (printed,) = _run(package, tmp_path, [_call("pkg.mod:where")])
    assert printed["printed"] == "printed by <source>/pkg/mod.py\n"


def test_methods_are_called_with_their_recorded_receiver(package: tuple[Path, Environment],
                                                         tmp_path: Path) -> None:
    tree, _ = package
    sys.path.insert(0, str(tree / "src"))
    try:
        from pkg.mod import Box  # type: ignore[import-not-found]

        call = _call("pkg.mod:Box.grow", Box(2), by=5)
    finally:
        sys.path.remove(str(tree / "src"))
        for name in ("pkg.mod", "pkg"):
            sys.modules.pop(name, None)
    (outcome,) = _run(package, tmp_path, [call])
    assert outcome["status"] == "returned"
    assert outcome["value"] == ["pkg.mod.Box", [["value", ["int", 7]]]]
    assert outcome["args"][1][0][1][0] == ["pkg.mod.Box", [["value", ["int", 7]]]]


def test_a_busy_loop_times_out_and_the_next_call_runs(package: tuple[Path, Environment],
                                                      tmp_path: Path) -> None:
    hung, after = _run(package, tmp_path, [_call("pkg.mod:spin"), _call("pkg.mod:add", 1, 1)],
                       per_call=0.5)
    assert hung["status"] == "timeout"
    assert after["status"] == "returned" and after["value"] == ["int", 2]


def test_an_alarm_that_lands_after_a_slow_step_in_c_is_a_timeout(
        package: tuple[Path, Environment], tmp_path: Path) -> None:
    """A step in C that outlasts the limit and then raises: the alarm's handler runs in the
    worker's own handling of that exception. Still the call's timeout, not a failure to load
    the entry point."""
    hung, after = _run(package, tmp_path, [_call("pkg.mod:raise_slowly", 10 ** 8),
                                           _call("pkg.mod:add", 1, 1)], per_call=0.2)
    assert hung["status"] == "timeout"
    assert after["status"] == "returned" and after["value"] == ["int", 2]


def test_the_recorded_global_state_is_set_around_its_call_only(
        package: tuple[Path, Environment], tmp_path: Path) -> None:
    state = {"environ": ({"MODE": "loud"}, []), "stdin": "no\n"}
    swapped = {"globals": {"pkg.mod": {"reader": input}}, "stdin": "typed\n"}
    calls = [_call("pkg.mod:ask", "q"), _call("pkg.mod:ask", "q"), _call("pkg.mod:ask", "q")]
    calls[0] = replace(calls[0], payload=pickle.dumps((("q",), {}, state)))
    calls[1] = replace(calls[1], payload=pickle.dumps((("q",), {}, swapped)))
    with_state, with_global, plain = _run(package, tmp_path, calls)
    assert with_state["value"] == ["tuple", [["str", "q"], ["str", "loud"], ["str", "no\n"]]]
    assert with_global["value"] == ["tuple", [["str", "q"], ["NoneType", None],
                                              ["str", "typed"]]]
    assert plain["value"] == ["tuple", [["str", "q"], ["NoneType", None], ["str", ""]]]


def test_the_recorded_thread_locals_and_context_variables_are_held_around_the_call(
        package: tuple[Path, Environment], tmp_path: Path) -> None:
    """A context stack (click's `get_current_context`) read back by the code is part of the
    recorded call's input, and is gone again for the next call."""
    held = {"locals": {"pkg.mod": {"_local": {"stack": ["outer", "top"]}, "depth": 2}}}
    calls = [_call("pkg.mod:current"), _call("pkg.mod:current")]
    calls[0] = replace(calls[0], payload=pickle.dumps(((), {}, held)))
    inside, after = _run(package, tmp_path, calls)
    assert inside["value"] == ["tuple", [["str", "top"], ["int", 2]]]
    assert after["value"] == ["tuple", [["NoneType", None], ["int", 0]]]


def test_the_worker_s_own_command_line_is_not_an_input(package: tuple[Path, Environment],
                                                       tmp_path: Path) -> None:
    """Its request file differs per version: a CLI's main reading sys.argv must not see it."""
    (outcome,) = _run(package, tmp_path, [_call("pkg.mod:command_line")])
    assert outcome["value"] == ["list", []]


def test_a_hang_deaf_to_the_alarm_is_killed_and_the_rest_resumes(
        package: tuple[Path, Environment], tmp_path: Path) -> None:
    hung, after = _run(package, tmp_path, [_call("pkg.mod:deaf"), _call("pkg.mod:add", 1, 1)],
                       per_call=0.5)
    assert hung["status"] == "timeout"
    assert after["status"] == "returned"


def test_a_worker_that_dies_is_restarted_at_the_next_call(package: tuple[Path, Environment],
                                                          tmp_path: Path) -> None:
    died, after = _run(package, tmp_path, [_call("pkg.mod:die"), _call("pkg.mod:add", 1, 1)])
    assert died["status"] == "crashed"
    assert after["status"] == "returned"


def test_file_writes_outside_the_scratch_folder_are_refused(
        package: tuple[Path, Environment], tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    refused, inside = _run(package, tmp_path, [_call("pkg.mod:write", str(outside)),
                                               _call("pkg.mod:write_here")])
    assert refused["status"] == "raised" and refused["error"].endswith("Refused")
    assert "outside the scratch folder" in refused["message"]
    assert not outside.exists()
    assert inside["status"] == "returned" and inside["value"] == ["list", [["str", "here.txt"]]]
    assert not (tmp_path / "scratch" / "cwd").exists()  # the scratch cwd is removed afterwards


def test_sys_exit_is_an_outcome(package: tuple[Path, Environment], tmp_path: Path) -> None:
    left, after = _run(package, tmp_path, [_call("pkg.mod:leave"), _call("pkg.mod:add", 1, 1)])
    assert left["status"] == "raised" and left["error"] == "SystemExit"
    assert left["message"] == "3"
    assert after["status"] == "returned"


def test_spawning_processes_is_refused(package: tuple[Path, Environment],
                                       tmp_path: Path) -> None:
    spawned, forked = _run(package, tmp_path, [_call("pkg.mod:spawn"), _call("pkg.mod:fork")])
    for outcome in (spawned, forked):
        assert outcome["status"] == "raised" and outcome["error"].endswith("Refused")


def test_sockets_cannot_connect(package: tuple[Path, Environment], tmp_path: Path) -> None:
    (connected,) = _run(package, tmp_path, [_call("pkg.mod:connect")])
    assert connected["status"] == "raised" and connected["error"].endswith("Refused")


def test_a_spent_budget_leaves_calls_not_run(package: tuple[Path, Environment],
                                             tmp_path: Path) -> None:
    outcomes = _run(package, tmp_path, [_call("pkg.mod:add", 1, 1)], budget=0.0)
    assert outcomes == [{"status": "not_run", "index": 0}]


@pytest.mark.skipif(network_isolation() is not None, reason="no network namespace here")
def test_the_worker_has_no_network(package: tuple[Path, Environment], tmp_path: Path) -> None:
    tree, _ = package
    (tree / "src" / "pkg" / "net.py").write_text(
        "import socket\n\ndef interfaces():\n    return sorted(name for _, name in "
        "socket.if_nameindex())\n")
    (outcome,) = _run(package, tmp_path, [_call("pkg.net:interfaces")])
    assert outcome["value"] == ["list", [["str", "lo"]]]


def test_a_hang_the_other_version_did_not_have_ends_the_run(
        package: tuple[Path, Environment], tmp_path: Path) -> None:
    tree, env = package
    version = Version(tree=tree, env=env, scratch=tmp_path / "scratch",
                      limits=Limits(per_call=0.5, startup=3.0),
                      isolate_network=network_isolation() is None)
    calls = [_call("pkg.mod:spin"), _call("pkg.mod:spin"), _call("pkg.mod:add", 1, 1)]
    expected, new, after = run_calls(calls, "result", version, time.monotonic() + 60,
                                     may_hang=[0])
    assert expected["status"] == "timeout" and "stop" not in expected
    assert new["status"] == "timeout" and new["stop"]
    assert after["status"] == "not_run"
