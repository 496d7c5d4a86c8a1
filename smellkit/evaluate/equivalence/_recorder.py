"""A pytest plugin that records the arguments of chosen functions while a case's tests run on the
smelly code. Copied into the copy's source folder and loaded with `-p`; it imports only the stdlib
(pytest calls its hooks by name), and is never imported by smellkit.

Each call of a wanted function is seen when it starts (`sys.monitoring` PY_START on 3.12+, which
turns itself off for every other code object; `sys.setprofile` before) and its arguments,
receivers of methods and classes of classmethods included, are pickled there and then: the
pickle is the deep copy of the input as the function received it, before its body changed it.
With it goes the global state the tests changed (`Recorder.state`: environment variables,
what is left on a replaced stdin, the entry's module's reassigned globals, what the thread
holds in its package's thread-locals and context variables), as a third item of the pickled
tuple, which the worker sets around the replayed call.
A parameter that still holds its default object is left out of the input, so a replay runs each
version's own default (a dropped or changed default shows).
Open streams, generators and locks, which no pickler takes, are pickled as stand-ins (an
in-memory stream holding what was left to read, an empty iterator, a new lock: `_stand_in`).
What still does not pickle is counted and dropped. A function's records are capped (`limit` distinct
inputs, `max_bytes` each); identical inputs are kept once.

Controlled by SMELLKIT_RECORD (a JSON file: `entries` [{id, module, qualname, name, lines}],
`limit`, `max_bytes`, `out`, `tools`: a folder with cloudpickle, which pickles local functions
and classes by value). Records are appended to `out` as JSON lines as they are taken
(`{"id", "payload" (base64), "test"}`), so a run killed halfway keeps what it saw; a last line
`{"paths": [...]}` gives the `sys.path` entries the tests added and those the modules imported
since the start were found in (to unpickle objects of test modules), and one
`{"dropped": {id: count}}` the inputs that did not pickle.
"""

from __future__ import annotations

import _thread
import base64
import contextlib
import contextvars
import hashlib
import importlib
import io
import json
import os
import pickle
import sys
import threading
import types
from typing import Any

_CO_VARARGS, _CO_VARKEYWORDS = 0x04, 0x08
_SETTINGS_FILE = os.environ.get("SMELLKIT_RECORD")
_UNSET = object()
_RUNNER_VARIABLES = frozenset({"PYTEST_CURRENT_TEST"})
"""Environment variables the test runner itself changes per test: not the code's input."""


def _stand_in(value: Any) -> Any:
    """How to pickle a value no pickler takes but objects under test commonly hold (None for
    the others): an open stream as an in-memory one of its kind (holding what was left to read
    when it could be read without moving it), a generator as an empty iterator, a lock as a
    new lock. Both versions get the same stand-in, so a replay stays a fair comparison; it is
    an approximation of the input, which the tests' stream or generator was."""
    if isinstance(value, types.GeneratorType):
        return iter, ([],)
    for kind, make in _LOCKS:
        if isinstance(value, kind):
            return make, ()
    if not isinstance(value, io.IOBase) or isinstance(value, (io.StringIO, io.BytesIO)):
        return None
    text = isinstance(value, io.TextIOBase)
    left: Any = "" if text else b""
    try:
        if value.readable() and value.seekable():
            where = value.tell()
            left = value.read()
            value.seek(where)
    except Exception:  # closed, or not readable after all
        left = "" if text else b""
    return (io.StringIO if text else io.BytesIO), (left,)


def _lesser_states(state: dict[str, Any] | None) -> list[dict[str, Any] | None]:
    """The states to try a call's input with, most first: the whole state, the state without
    its thread-local part, none."""
    found: list[dict[str, Any] | None] = [state] if state else []
    if state and "locals" in state:
        rest = {key: value for key, value in state.items() if key != "locals"}
        if rest:
            found.append(rest)
    return [*found, None]


_LOCKS = ((type(threading.Lock()), _thread.allocate_lock),
          (type(threading.RLock()), threading.RLock))
"""Lock types and what makes a new one (by names that pickle on every version)."""


def _pickler(tools: str | None) -> Any:
    """A `dumps` that pickles with cloudpickle from the tools folder (appended to sys.path,
    never shadowing the project's own packages) when there is one, else with plain pickle;
    either way with the stand-ins of `_stand_in`."""
    base: Any = pickle.Pickler
    if tools:
        sys.path.append(tools)
        with contextlib.suppress(ImportError):
            base = importlib.import_module("cloudpickle").Pickler

    class Pickler(base):  # type: ignore[misc]
        def reducer_override(self, value: Any) -> Any:
            stand_in = _stand_in(value)
            if stand_in is not None:
                return stand_in
            parent = getattr(super(), "reducer_override", None)
            return parent(value) if parent is not None else NotImplemented

    def dumps(value: Any, protocol: int = 4) -> bytes:
        buffer = io.BytesIO()
        Pickler(buffer, protocol=protocol).dump(value)
        return buffer.getvalue()

    return dumps


class Recorder:
    def __init__(self, settings: dict[str, Any]):
        self.dumps = _pickler(settings.get("tools"))
        self.limit = int(settings.get("limit", 20))
        self.max_bytes = int(settings.get("max_bytes", 1 << 20))
        self.by_name: dict[tuple[str, str], dict[str, Any]] = {}
        self.by_line: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for entry in settings["entries"]:
            self.by_name[(entry["module"], entry["qualname"])] = entry
            self.by_line.setdefault((entry["module"], entry["name"]), []).append(entry)
        self.codes: dict[Any, dict[str, Any] | None] = {}
        self.defaults: dict[Any, tuple[tuple[Any, ...], dict[str, Any]] | None] = {}
        self.seen: dict[str, set[str]] = {}
        self.dropped: dict[str, int] = {}
        self.test = ""
        self.busy = False
        self.out = open(settings["out"], "a", encoding="utf-8")  # noqa: SIM115 - kept open
        self.start_path = list(sys.path)
        self.start_modules = set(sys.modules)
        self.environ = dict(os.environ)
        self.stdin = sys.stdin
        self.originals: dict[str, dict[str, Any]] = {}
        self.held: dict[str, tuple[int, list[tuple[str, str, Any]]]] = {}
        for module in dict.fromkeys(entry["module"] for entry in settings["entries"]):
            try:
                self.originals[module] = dict(vars(importlib.import_module(module)))
            except BaseException:  # a module that needs what the tests set up first
                continue

    def entry_of(self, code: Any, module: str) -> dict[str, Any] | None:
        if code in self.codes:
            return self.codes[code]
        qualname = getattr(code, "co_qualname", None)
        if qualname is not None:
            entry = self.by_name.get((module, qualname))
        else:  # before 3.11: the name and the first line (decorators included) identify it
            entry = next((item for item in self.by_line.get((module, code.co_name), ())
                          if item["lines"][0] <= code.co_firstlineno <= item["lines"][1]), None)
        self.codes[code] = entry
        return entry

    def capture(self, frame: Any, entry: dict[str, Any]) -> None:
        ident = entry["id"]
        seen = self.seen.setdefault(ident, set())
        if len(seen) >= self.limit:
            return
        args, kwargs = self.arguments(frame, entry)
        state = self.state(entry)
        payload = None
        pickled = False
        # the call with its whole state, then without the thread-local state (a context
        # stack holding what does not pickle, or too much of it), then without any state
        for kept in _lesser_states(state):
            try:
                made = self.dumps((tuple(args), kwargs, kept) if kept else
                                  (tuple(args), kwargs), protocol=4)
            except Exception:  # does not pickle: try with less state
                continue
            pickled = True
            if len(made) <= self.max_bytes:
                payload = made
                break
        if not pickled:
            self.dropped[ident] = self.dropped.get(ident, 0) + 1
            return
        if payload is None:
            return
        digest = hashlib.blake2b(payload, digest_size=12).hexdigest()
        if digest in seen:
            return
        seen.add(digest)
        self.out.write(json.dumps({"id": ident, "test": self.test,
                                   "payload": base64.b64encode(payload).decode()}) + "\n")
        self.out.flush()

    def defaults_of(self, code: Any, entry: dict[str, Any]) -> tuple[tuple[Any, ...],
                                                                     dict[str, Any]] | None:
        """The positional and keyword-only defaults of the function running `code` (found by
        the entry's module and qualname, decorators and descriptors unwrapped); None when it
        cannot be found."""
        if code in self.defaults:
            return self.defaults[code]
        found = None
        try:
            target: Any = sys.modules[entry["module"]]
            for part in entry["qualname"].split("."):
                holder = target
                target = vars(holder).get(part) if isinstance(holder, type) else None
                if target is None:
                    target = getattr(holder, part)
            target = getattr(target, "__func__", None) or getattr(target, "fget", None) or \
                target
            while getattr(target, "__code__", None) is not code and \
                    hasattr(target, "__wrapped__"):
                target = target.__wrapped__
            if getattr(target, "__code__", None) is code:
                found = (tuple(target.__defaults__ or ()), dict(target.__kwdefaults__ or {}))
        except Exception:  # a module or class not importable by that name
            found = None
        self.defaults[code] = found
        return found

    def arguments(self, frame: Any, entry: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """The call's arguments as the caller gave them: a parameter still holding its default
        (the very object) is left out, so a replay runs each version's own default (a changed
        default is a changed behaviour); the parameters after one left out are passed by
        keyword."""
        code = frame.f_code
        names = code.co_varnames
        count = code.co_argcount
        kwonly = code.co_kwonlyargcount
        values = frame.f_locals
        positional = [values[name] for name in names[:count]]
        position = count + kwonly
        extra: list[Any] = []
        if code.co_flags & _CO_VARARGS:
            extra = list(values[names[position]])
            position += 1
        found = self.defaults_of(code, entry)
        defaults, kwdefaults = found if found is not None else ((), {})
        first_default = count - len(defaults)

        def defaulted(index: int) -> bool:
            return index >= first_default and \
                positional[index] is defaults[index - first_default]

        # positional: up to the last parameter that needs its place (no default, positional
        # only and not defaulted, or followed by *args)
        last = count - 1 if extra else max(
            (index for index in range(count) if index < first_default or
             (index < code.co_posonlyargcount and not defaulted(index))), default=-1)
        args = positional[:last + 1] + extra
        kwargs = {names[index]: positional[index] for index in range(last + 1, count)
                  if not defaulted(index)}
        for name in names[count:count + kwonly]:
            if name not in kwdefaults or values[name] is not kwdefaults[name]:
                kwargs[name] = values[name]
        if code.co_flags & _CO_VARKEYWORDS:
            kwargs.update(values[names[position]])
        return args, kwargs

    def state(self, entry: dict[str, Any]) -> dict[str, Any] | None:
        """The global state the call runs in, where the tests changed it: environment
        variables set or removed since the run began, what is left to read on a replaced
        `sys.stdin`, and the entry's module's globals reassigned since its import (a prompt
        function a test runner swapped in, with the input it reads)."""
        found: dict[str, Any] = {}
        changed = {key: value for key, value in os.environ.items()
                   if self.environ.get(key) != value and key not in _RUNNER_VARIABLES}
        removed = [key for key in self.environ if key not in os.environ]
        if changed or removed:
            found["environ"] = (changed, removed)
        if sys.stdin is not self.stdin and sys.stdin is not None:
            stand_in = _stand_in(sys.stdin)
            if stand_in is not None:
                found["stdin"] = stand_in[1][0]
        module = sys.modules.get(entry["module"])
        originals = self.originals.get(entry["module"])
        if module is not None and originals is not None:
            swapped = {name: value for name, value in vars(module).items()
                       if name in originals and originals[name] is not value and
                       not name.startswith("__")}
            if swapped:
                found["globals"] = {entry["module"]: swapped}
        held = self.thread_state(entry["module"].partition(".")[0])
        if held:
            found["locals"] = held
        return found or None

    def thread_state(self, package: str) -> dict[str, dict[str, Any]]:
        """What this thread holds in the thread-locals and context variables that modules of
        `package` keep as globals (a context stack the code reads back: click's
        `get_current_context`), as {module: {name: attributes of the thread-local, or the
        variable's value}}; unset ones left out."""
        found: dict[str, dict[str, Any]] = {}
        for module, name, holder in self.holders(package):
            if isinstance(holder, contextvars.ContextVar):
                value = holder.get(_UNSET)
                if value is not _UNSET:
                    found.setdefault(module, {})[name] = value
                continue
            attributes = dict(getattr(holder, "__dict__", None) or {})
            if attributes:
                found.setdefault(module, {})[name] = attributes
        return found

    def holders(self, package: str) -> list[tuple[str, str, Any]]:
        """The thread-locals and context variables that modules of `package` keep as globals,
        found again when modules were imported since."""
        known = self.held.get(package)
        if known is not None and known[0] == len(sys.modules):
            return known[1]
        found = []
        for module_name, module in list(sys.modules.items()):
            if module is None or not (module_name == package or
                                      module_name.startswith(package + ".")):
                continue
            for name, value in list(vars(module).items()):
                if isinstance(value, (threading.local, contextvars.ContextVar)):
                    found.append((module_name, name, value))
        self.held[package] = (len(sys.modules), found)
        return found

    def on_start(self, frame: Any) -> bool:
        """Capture if the frame's code is wanted; False when it never will be."""
        entry = self.entry_of(frame.f_code, frame.f_globals.get("__name__", ""))
        if entry is None:
            return False
        if not self.busy:  # pickling runs code too; never record inside a capture
            self.busy = True
            try:
                self.capture(frame, entry)
            except Exception:
                self.dropped[entry["id"]] = self.dropped.get(entry["id"], 0) + 1
            finally:
                self.busy = False
        return True

    def start(self) -> None:
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            tool = monitoring.PROFILER_ID
            monitoring.use_tool_id(tool, "smellkit-record")
            disable = monitoring.DISABLE

            def started(code: Any, offset: int) -> Any:
                frame = sys._getframe(1)
                return None if self.on_start(frame) else disable

            monitoring.register_callback(tool, monitoring.events.PY_START, started)
            monitoring.set_events(tool, monitoring.events.PY_START)
            return

        def profile(frame: Any, event: str, arg: Any) -> None:
            if event == "call":
                self.on_start(frame)

        sys.setprofile(profile)
        threading.setprofile(profile)

    def module_roots(self) -> list[str]:
        """The `sys.path` folders the modules imported since the start were found in (a test
        module's folder, which pytest may have put on the path before the recorder started):
        an input holding an object of a class defined there unpickles only with it."""
        on_path = {os.path.abspath(path) for path in sys.path if path}
        found: list[str] = []
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if name in self.start_modules or not isinstance(file, str):
                continue
            folder = os.path.dirname(os.path.abspath(file))
            for _ in range(name.count(".") + (os.path.basename(file) == "__init__.py")):
                folder = os.path.dirname(folder)
            if folder in on_path and folder not in found:
                found.append(folder)
        return found

    def stop(self) -> None:
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            monitoring.set_events(monitoring.PROFILER_ID, 0)
            monitoring.free_tool_id(monitoring.PROFILER_ID)
        else:
            sys.setprofile(None)
            threading.setprofile(None)
        added = [os.path.abspath(path) for path in sys.path
                 if path not in self.start_path and path]
        added += [path for path in self.module_roots() if path not in added]
        self.out.write(json.dumps({"paths": added}) + "\n")
        self.out.write(json.dumps({"dropped": self.dropped}) + "\n")
        self.out.close()


_recorder: Recorder | None = None


def pytest_configure(config: Any) -> None:
    global _recorder
    if _SETTINGS_FILE and _recorder is None:
        with open(_SETTINGS_FILE, encoding="utf-8") as handle:
            _recorder = Recorder(json.load(handle))
        _recorder.start()


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    if _recorder is not None:
        _recorder.test = nodeid


def pytest_unconfigure(config: Any) -> None:
    global _recorder
    if _recorder is not None:
        _recorder.stop()
        _recorder = None
