"""The recorder on every interpreter found here: `sys.setprofile` before Python 3.12,
`sys.monitoring` from 3.12 on. Arguments are pickled as each call starts (so a mutation by the
body is not seen), receivers included, duplicates and unpicklable inputs counted."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from smellkit.evaluate.equivalence.recording import read_records

PYENV = Path.home() / ".pyenv" / "versions"
INTERPRETERS = sorted({sys.executable, *(str(path) for path in PYENV.glob("3.1[0-9]*/bin/python")
                                           if path.is_file())})

MODULE = '''
import contextvars, os, sys, threading

_local = threading.local()
depth = contextvars.ContextVar("depth")

def current():
    stack = getattr(_local, "stack", [])
    return stack[-1] if stack else None, depth.get(0)

def default_reader():
    return sys.stdin.readline()

reader = default_reader

def ask(question):
    return question, os.environ.get("MODE"), reader()

def grow(items, step=1, *more, **named):
    items.append(step)
    return len(items)

class Counter:
    def __init__(self, start):
        self.value = start

    def bump(self, by):
        self.value += by
        return self.value

    @staticmethod
    def twice(x):
        return 2 * x

def takes_lambda(function):
    return function(1)

class Bar:
    def __init__(self, out):
        self.out = out
        self.items = (number for number in range(3))
        self.lock = threading.Lock()

    def draw(self, text):
        self.out.write(text)

def scale(x, factor=2, /, power=1, *, offset=0):
    return x * factor ** power + offset
'''

SCRIPT = '''
import importlib.util, json, os, sys
sys.path.insert(0, sys.argv[1])
spec = importlib.util.spec_from_file_location("recorder", sys.argv[2])
recorder = importlib.util.module_from_spec(spec)
spec.loader.exec_module(recorder)
settings = json.load(open(sys.argv[3]))
active = recorder.Recorder(settings)
active.start()
import pkg.mod as mod
items = []
mod.grow(items, 5, 6, 7, key="v")
mod.grow(items, 5, 6, 7, key="v")  # the same input again (items differ: recorded anew)
counter = mod.Counter(1)
counter.bump(2)
counter.bump(2)
mod.Counter.twice(4)
mod.takes_lambda(lambda value: value)
import io
mod.Bar(sys.stdout).draw("x")
mod.Bar(io.TextIOWrapper(io.BytesIO(b"left to read"))).draw("y")
os.environ["MODE"] = "loud"
stdin = sys.stdin
sys.stdin = io.TextIOWrapper(io.BytesIO(b"yes\\nno\\n"))
sys.stdin.readline()
mod.reader = input
mod.ask("q")
mod.reader = mod.default_reader
del os.environ["MODE"]
sys.stdin = stdin
mod.scale(1)
mod.scale(1, 3)
mod.scale(1, power=5)
mod.scale(1, 2, 1, offset=4)  # explicit defaults: the same objects, left out as defaults are
mod.current()
mod._local.stack = ["outer", "top"]
token = mod.depth.set(2)
mod.current()
del mod._local.stack
mod.depth.reset(token)
active.stop()
'''


@pytest.mark.parametrize("python", INTERPRETERS)
def test_calls_are_recorded_as_they_start(python: str, tmp_path: Path) -> None:
    version = subprocess.run([python, "-c", "import sys; print(sys.version_info >= (3, 10))"],
                             capture_output=True, text=True)
    if version.stdout.strip() != "True":
        pytest.skip(f"{python} is older than 3.10")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(textwrap.dedent(MODULE))
    out = tmp_path / "records.jsonl"
    lines = textwrap.dedent(MODULE).splitlines()

    def span(name: str) -> list[int]:
        line = next(number for number, text in enumerate(lines, 1)
                    if text.strip().startswith(f"def {name}("))
        return [line - 1 if lines[line - 2].strip().startswith("@") else line, line]

    entries = [{"id": f"pkg.mod.{name}", "module": "pkg.mod", "qualname": name,
                "name": name.rpartition(".")[2], "lines": span(name.rpartition(".")[2])}
               for name in ("grow", "Counter.__init__", "Counter.bump", "Counter.twice",
                            "takes_lambda", "scale", "Bar.draw", "ask", "current")]
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"entries": entries, "out": str(out), "limit": 20}))
    recorder = Path(__file__).parents[3] / "smellkit" / "evaluate" / "equivalence" / \
        "_recorder.py"
    done = subprocess.run([python, "-c", SCRIPT, str(tmp_path), str(recorder), str(settings)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    recording = read_records(out, tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        grows = [pickle.loads(item) for item in recording.inputs["pkg.mod.grow"]]
        bumps = [pickle.loads(item) for item in recording.inputs["pkg.mod.Counter.bump"]]
        scales = [pickle.loads(item) for item in recording.inputs["pkg.mod.scale"]]
        bars = [pickle.loads(item) for item in recording.inputs["pkg.mod.Bar.draw"]]
        asks = [pickle.loads(item) for item in recording.inputs["pkg.mod.ask"]]
        currents = [pickle.loads(item) for item in recording.inputs["pkg.mod.current"]]
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("pkg.mod", "pkg"):
            sys.modules.pop(name, None)
    # the first call saw an empty list (the body appended after the capture)
    assert grows == [(([], 5, 6, 7), {"key": "v"}), (([5], 5, 6, 7), {"key": "v"})]
    assert [(vars(receiver), args) for (receiver, *args), _ in bumps] == \
        [({"value": 1}, [2]), ({"value": 3}, [2])]
    # what still holds its default is left out (a replay runs each version's own default);
    # a positional-only parameter keeps its place, the others after a gap go by keyword
    assert scales == [((1,), {}), ((1, 3), {}), ((1,), {"power": 5}), ((1,), {"offset": 4})]
    # the global state the script changed goes with the input: the environment variable it
    # set, what was left on the stdin it swapped in, the module global it reassigned
    assert asks == [(("q",), {}, {"environ": ({"MODE": "loud"}, []), "stdin": "no\n",
                                  "globals": {"pkg.mod": {"reader": input}}})]
    # and what the thread held in its package's thread-locals and context variables (a
    # context stack the code reads back), when it held anything
    assert currents == [((), {}), ((), {}, {"locals": {"pkg.mod": {
        "_local": {"stack": ["outer", "top"]}, "depth": 2}}})]
    # streams, generators and locks no pickler takes are kept as stand-ins
    assert [(bar.out.getvalue(), list(bar.items), text) for (bar, text), _ in bars] == \
        [("", [], "x"), ("left to read", [], "y")]
    assert all(bar.lock.acquire(blocking=False) for (bar, _), _ in bars)
    assert "pkg.mod.Bar.draw" not in recording.dropped
    assert len(recording.inputs["pkg.mod.Counter.__init__"]) == 1
    assert len(recording.inputs["pkg.mod.Counter.twice"]) == 1
    assert recording.dropped == {"pkg.mod.takes_lambda": 1}  # plain pickle: no lambdas
    # the folder the package was imported from was on the path before the recorder started
    # (as pytest puts a test module's folder there before its plugins start): the replay
    # needs it all the same, to unpickle objects of classes defined there
    assert recording.paths == (".",)
