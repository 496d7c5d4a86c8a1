"""The worker: calls entry points of one version of the code on pickled inputs and writes what
each call did, one JSON line per call. Run as a script by the case's own interpreter (it imports
only the stdlib and the code under test), never imported by smellkit.

`python _worker.py REQUEST.json`. The request names the version's source roots (put first on
`sys.path`), the inputs file (a pickle of `[entry id, module, qualname, payload]` rows, payload
itself the pickled `(args, kwargs)` of one call), where results go, the first call to make, the
seed, the per-call time limit and the memory limit; and, optionally, `may_hang`: the calls that
hung on the other version, so a hang elsewhere ends the run (one difference is enough).

Containment, in this process: the memory, file-size and core limits (`resource.setrlimit`); an
audit hook that refuses writes outside the scratch folder (the cwd), process spawning, signals to
other processes and socket connections, each refusal raised in the call as PermissionError; a
per-call alarm; `SystemExit` and every other exception caught as the call's outcome. Around it the
parent runs this process in a new network namespace and session, kills it at the case's time
budget, and resumes at the next call when it dies. The hook is a guard against code that does
these things by accident, not a security boundary: the namespace, the limits and the kill are.

Outcomes are compared by the parent as canonical JSON trees (`canonical`): values by structure,
the type named at every node, NaN equal to NaN, objects by their class and attributes; a big
tree by its digest (`compact`).
"""

from __future__ import annotations

import contextvars
import hashlib
import io
import json
import math
import os
import pickle
import random
import re
import resource
import signal
import sys
import time
import types
from typing import Any

MAX_DEPTH = 12
MAX_ITEMS = 200
MAX_TEXT = 2000
GENERATOR_ITEMS = 1000
MAX_TREE = 1000
"""Characters of a canonical tree's JSON written as they are; a bigger tree (a receiver holding
a whole command tree) is written as its digest (`compact`)."""
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_PATH_EVENTS = {
    "os.remove": 0, "os.rename": 0, "os.rmdir": 0, "os.mkdir": 0, "os.chmod": 0,
    "os.chown": 0, "os.symlink": 1, "os.link": 1, "os.truncate": 0, "os.utime": 0,
    "shutil.rmtree": 0, "shutil.move": 1, "shutil.copyfile": 1, "shutil.copytree": 1,
}
"""Audit events that change the file system -> the position of the path they change."""
_FORBIDDEN = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
              "os.fork", "os.forkpty", "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill",
              "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg",
              "socket.getaddrinfo", "socket.gethostbyname", "os.startfile")


class CallTimeout(BaseException):
    """Raised in the call by the alarm: BaseException so `except Exception` cannot swallow it."""


class Refused(PermissionError):
    """What the audit hook raises: the call tried something the worker does not allow."""


def _inside(path: object, scratch: str) -> bool:
    if isinstance(path, int):
        return True  # an open descriptor: it was allowed when it was opened
    try:
        text = os.fsdecode(path)  # type: ignore[arg-type]
    except TypeError:
        return False
    full = os.path.realpath(os.path.join(scratch, text))
    return full == scratch or full.startswith(scratch + os.sep)


def install_guard(scratch: str) -> None:
    """The audit hook (see the module docstring); active for the rest of the process."""
    scratch = os.path.realpath(scratch)
    active = [True]

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if not active[0]:
            return
        if event == "open":
            path, mode, flags = (*args, None, None, None)[:3]
            writes = (isinstance(mode, str) and any(ch in mode for ch in "wax+")) or \
                (isinstance(flags, int) and flags & _WRITE_FLAGS)
            if writes and not _inside(path, scratch):
                raise Refused(f"writing {path!r} outside the scratch folder is not allowed")
        elif event in _PATH_EVENTS:
            position = _PATH_EVENTS[event]
            if len(args) > position and not _inside(args[position], scratch):
                raise Refused(f"{event} on {args[position]!r} outside the scratch folder is "
                              "not allowed")
        elif event.startswith(_FORBIDDEN):
            raise Refused(f"{event} is not allowed while checking equivalence")

    sys.addaudithook(hook)


def set_limits(memory: int) -> None:
    for limit, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_FSIZE, 64 << 20),
                         (resource.RLIMIT_CORE, 0)):
        if value <= 0:
            continue
        try:
            _, hard = resource.getrlimit(limit)
            wanted = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(limit, (wanted, hard))
        except (ValueError, OSError):
            pass


# -- canonical values ---------------------------------------------------------------------------

def type_name(kind: type) -> str:
    module = getattr(kind, "__module__", "") or ""
    name = getattr(kind, "__qualname__", getattr(kind, "__name__", "?"))
    return name if module == "builtins" else f"{module}.{name}"


_ROOTS: list[str] = []
"""This version's source roots, longest first: what is printed names them in its paths."""


def _placeless(text: str) -> str:
    """`text` with this version's source roots written as `<source>`: a warning names the
    file it comes from, and each version lives in a folder of its own."""
    for root in _ROOTS:
        text = text.replace(root, "<source>")
    return text


def _text(value: str) -> str:
    return value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + f"...<{len(value)} chars>"


def _float(value: float) -> Any:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


def _sort_key(item: Any) -> str:
    return json.dumps(item, sort_keys=True, default=str)


def computed_value(*args: Any, **kwargs: Any) -> str:
    """A function the generator passes where code may take one (a default computed when it is
    needed): deterministic, and pickled by reference to this module, which both versions'
    workers import under the same name."""
    return "computed"


def canonical(value: Any, depth: int = 0, seen: dict[int, int] | None = None) -> Any:
    """A JSON tree equal for two values exactly when they are structurally equal: each node is
    `[type name, content]`. Containers recurse (dicts and sets order-free, as `==` is);
    floats keep NaN equal to NaN; functions, classes and modules are their qualified names;
    numpy arrays are dtype, shape and items, pandas objects their `to_dict()`; other objects
    are their class and their attributes (`__dict__` and `__slots__`), recursively; an object
    met again on the path is a back-reference; what has no readable state is its repr with
    addresses removed."""
    seen = {} if seen is None else seen
    kind = type(value)
    name = type_name(kind)
    if value is None or isinstance(value, (bool, str)):
        return [name, _text(value) if isinstance(value, str) else value]
    if isinstance(value, int):
        return [name, value if abs(value) < 2 ** 53 else str(value)]
    if isinstance(value, float):
        return [name, _float(value)]
    if isinstance(value, complex):
        return [name, [_float(value.real), _float(value.imag)]]
    if isinstance(value, (bytes, bytearray)):
        return [name, _text(bytes(value[:MAX_TEXT]).hex())]
    if depth > MAX_DEPTH:
        return [name, "<too deep>"]
    if id(value) in seen:
        return ["<cycle>", depth - seen[id(value)]]
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                          type, types.ModuleType)):
        owner = getattr(value, "__self__", None)
        qualified = getattr(value, "__qualname__", getattr(value, "__name__", "?"))
        module = getattr(value, "__module__", None) or ""
        return [name, f"{module}.{qualified}" if module else qualified] + (
            [canonical(owner, depth + 1, seen)]
            if isinstance(value, types.MethodType) else [])
    seen[id(value)] = depth
    try:
        return [name, _content(value, depth, seen)]
    finally:
        del seen[id(value)]


def _content(value: Any, depth: int, seen: dict[int, int]) -> Any:
    def inner(item: Any) -> Any:
        return canonical(item, depth + 1, seen)

    if isinstance(value, (list, tuple)):
        return [inner(item) for item in value[:MAX_ITEMS]] + (
            [f"<{len(value)} items>"] if len(value) > MAX_ITEMS else [])
    if isinstance(value, dict):
        pairs = [[inner(key), inner(item)] for key, item in list(value.items())[:MAX_ITEMS]]
        return sorted(pairs, key=_sort_key)
    if isinstance(value, (set, frozenset)):
        return sorted((inner(item) for item in list(value)[:MAX_ITEMS]), key=_sort_key)
    if isinstance(value, BaseException):
        return [inner(value.args), _attributes(value, depth, seen)]
    if isinstance(value, (io.StringIO,)):
        return _text(value.getvalue())
    if isinstance(value, io.TextIOWrapper):
        return _stream(value, depth, seen)
    if isinstance(value, io.BytesIO):
        return "<closed>" if value.closed else _text(value.getvalue()[:MAX_TEXT].hex())
    module = type(value).__module__ or ""
    if module.startswith("numpy") and hasattr(value, "tolist") and hasattr(value, "dtype"):
        return [str(value.dtype), list(getattr(value, "shape", ())), inner(value.tolist())]
    if module.startswith("pandas") and hasattr(value, "to_dict"):
        try:
            return inner(value.to_dict())
        except Exception:  # a pandas object without a dict form
            pass
    if isinstance(value, types.GeneratorType) or type(value).__name__ == "generator":
        return "<generator>"
    state = _attributes(value, depth, seen)
    if state is not None:
        return state
    try:
        return _text(_ADDRESS.sub("", repr(value)))
    except Exception as error:  # a repr that raises
        return f"<repr raised {type(error).__name__}>"


def _stream(value: io.TextIOWrapper, depth: int, seen: dict[int, int]) -> Any:
    """A text stream's observable state: its encoding and error handler (how it will decode
    and encode), whether it is closed, the binary stream under it and its own attributes; its
    repr names none of the first two."""
    try:
        buffer = None if value.closed else value.buffer
        return [value.encoding, value.errors, value.closed,
                canonical(buffer, depth + 1, seen), _attributes(value, depth, seen)]
    except Exception as error:  # a detached stream
        return f"<stream: {type(error).__name__}>"


def _attributes(value: Any, depth: int, seen: dict[int, int]) -> Any:
    names: dict[str, Any] = {}
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict):
        names.update(state)
    for kind in type(value).__mro__:
        for slot in getattr(kind, "__slots__", ()) if isinstance(
                getattr(kind, "__slots__", ()), (tuple, list)) else ():
            if slot not in ("__dict__", "__weakref__") and hasattr(value, slot):
                names.setdefault(slot, getattr(value, slot))
    if not names and state is None:
        return None
    return sorted([[key, canonical(item, depth + 1, seen)] for key, item in names.items()
                   if isinstance(key, str)], key=_sort_key)


def compact(tree: Any) -> Any:
    """`tree` when its JSON is short; else `["<digest>", digest, pruned copy, length]`: equal
    exactly when the trees are (the digest), with a copy cut at some depth to read. The
    outcomes of a case's calls are written, read and kept by the thousand: whole trees of big
    objects made most of the check's time."""
    text = json.dumps(tree, default=str)
    if len(text) <= MAX_TREE:
        return tree
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    depth = 12
    pruned = _pruned(tree, depth)
    while depth > 1 and len(json.dumps(pruned, default=str)) > MAX_TREE:
        depth -= 2
        pruned = _pruned(tree, depth)
    return ["<digest>", digest, pruned, len(text)]


def _pruned(value: Any, depth: int) -> Any:
    if not isinstance(value, list):
        return value
    if depth <= 0:
        return "..."
    return [_pruned(item, depth - 1) for item in value[:20]] + (["..."] if len(value) > 20
                                                                else [])


# -- calls --------------------------------------------------------------------------------------

def resolve(module: str, qualname: str) -> Any:
    """The function to call: the module's attribute path, a descriptor unwrapped to its
    function (staticmethod, classmethod, property getter), a decorated function to the function
    the recording saw (`__wrapped__`)."""
    target: Any = __import__(module, fromlist=["_"])
    parts = qualname.split(".")
    for index, part in enumerate(parts):
        holder = target
        found = vars(holder).get(part) if isinstance(holder, type) else None
        target = found if found is not None else getattr(holder, part)
        if index < len(parts) - 1 and not isinstance(target, type):
            raise LookupError(f"{'.'.join(parts[:index + 1])} is not a class")
    if isinstance(target, (staticmethod, classmethod)):
        target = target.__func__
    elif isinstance(target, property):
        target = target.fget
    name = parts[-1]
    while getattr(getattr(target, "__code__", None), "co_name", name) != name and \
            hasattr(target, "__wrapped__"):
        target = target.__wrapped__
    if not callable(target):
        raise LookupError(f"{module}.{qualname} is not callable")
    return target


def _drain(value: Any) -> Any:
    """A generator's items (up to GENERATOR_ITEMS): what it yields is its behaviour."""
    if isinstance(value, types.GeneratorType):
        items = []
        for item in value:
            items.append(item)
            if len(items) >= GENERATOR_ITEMS:
                break
        return ("<generated>", items)
    return value


def _alarm(signum: int, frame: Any) -> None:
    raise CallTimeout()


def _timed(target: Any, args: Any, kwargs: Any, limit: float) -> dict[str, Any]:
    """The call's ending under the alarm. The alarm's signal is handled between bytecodes, so
    after a long step in C (a huge string built) it can surface anywhere, even in an `except`
    clause that was handling what the call raised: the outer handler takes it wherever it
    lands, and the outcome is a timeout."""
    try:
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            value: Any = _drain(target(*args, **kwargs))
            ending: dict[str, Any] = {"status": "returned"}
        except CallTimeout:
            raise
        except BaseException as error:  # SystemExit and KeyboardInterrupt are outcomes too
            message = str(error.code) if isinstance(error, SystemExit) else str(error)
            value = None
            ending = {"status": "raised", "error": type_name(type(error)),
                      "message": _text(_ADDRESS.sub("", message))}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except CallTimeout:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return {"status": "timeout"}
    if ending["status"] == "returned":
        try:
            ending["value"] = compact(canonical(value))
        except BaseException as error:  # state that cannot be read
            ending["value"] = f"<unreadable: {type(error).__name__}>"
    return ending


def call(target: Any, payload: bytes, seed: int, limit: float) -> dict[str, Any]:
    """One call on a fresh copy of its input (unpickled anew), with what it printed."""
    try:
        args, kwargs, *rest = pickle.loads(payload)
    except Exception as error:
        return {"status": "input_error", "error": type_name(type(error)),
                "message": _text(str(error))}
    try:
        restore = set_state(rest[0] if rest else None)
    except Exception as error:  # a module of the state that does not import here
        return {"status": "input_error", "error": type_name(type(error)),
                "message": _text(f"the recorded global state cannot be set: {error}")}
    try:
        return _call(target, args, kwargs, seed, limit)
    finally:
        restore()


def set_state(state: dict[str, Any] | None) -> Any:
    """Set the global state a recorded call ran in (environment variables, stdin, module
    globals, thread-locals and context variables: see the recorder's `Recorder.state`);
    returns what puts it back."""
    undo: list[Any] = []
    if state:
        if "environ" in state:
            changed, removed = state["environ"]
            saved = dict(os.environ)
            os.environ.update(changed)
            for key in removed:
                os.environ.pop(key, None)

            def environ_back(saved: dict[str, str] = saved) -> None:
                os.environ.clear()
                os.environ.update(saved)

            undo.append(environ_back)
        if "stdin" in state:
            left = state["stdin"]
            stdin = sys.stdin
            sys.stdin = io.TextIOWrapper(io.BytesIO(
                left.encode("utf-8") if isinstance(left, str) else left), encoding="utf-8")
            undo.append(lambda: setattr(sys, "stdin", stdin))
        for module_name, values in state.get("globals", {}).items():
            module = __import__(module_name, fromlist=["_"])
            before = dict(vars(module))
            for name, value in values.items():
                setattr(module, name, value)

            def globals_back(module: Any = module, before: dict[str, Any] = before,
                             names: tuple[str, ...] = tuple(values)) -> None:
                for name in names:
                    if name in before:
                        setattr(module, name, before[name])

            undo.append(globals_back)
        for module_name, values in state.get("locals", {}).items():
            module = __import__(module_name, fromlist=["_"])
            for name, value in values.items():
                undo.append(_hold(getattr(module, name), value))

    def restore() -> None:
        for step in reversed(undo):
            step()

    return restore


def _hold(holder: Any, value: Any) -> Any:
    """Make this thread's `holder` (a thread-local or a context variable) hold what the recorded
    thread held (a thread-local's attributes, a variable's value); returns what puts it back."""
    if isinstance(holder, contextvars.ContextVar):
        token = holder.set(value)
        return lambda: holder.reset(token)
    attributes = holder.__dict__
    before = dict(attributes)
    attributes.clear()
    attributes.update(value)

    def back() -> None:
        attributes.clear()
        attributes.update(before)

    return back


def _call(target: Any, args: Any, kwargs: Any, seed: int, limit: float) -> dict[str, Any]:
    try:
        described = compact(canonical([list(args), kwargs]))
    except BaseException as error:  # state that cannot be read
        described = f"<unreadable: {type(error).__name__}>"
    random.seed(seed)
    printed = io.StringIO()
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = printed
    started = time.perf_counter()
    outcome: dict[str, Any]
    try:
        outcome = _timed(target, args, kwargs, limit)
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    outcome["seconds"] = round(time.perf_counter() - started, 4)
    try:
        outcome["args"] = compact(canonical([list(args), kwargs]))
    except BaseException as error:  # an argument whose state cannot be read
        outcome["args"] = f"<unreadable: {type(error).__name__}>"
    outcome["printed"] = _text(_placeless(printed.getvalue()))
    outcome["input"] = described
    return outcome


def main(request_path: str) -> int:
    with open(request_path, encoding="utf-8") as handle:
        request = json.load(handle)
    for path in reversed(request["paths"]):
        sys.path.insert(0, path)
    _ROOTS[:] = sorted({str(path).rstrip("/") for path in request["paths"]}, key=len,
                       reverse=True)
    if request.get("tools"):
        sys.path.append(request["tools"])  # cloudpickle, to read what it pickled
    results = open(request["results"], "a", encoding="utf-8")  # noqa: SIM115 - kept open
    with open(request["inputs"], "rb") as handle:
        rows = pickle.load(handle)
    # the worker's own command line (its request file differs per version) is not the code's
    # input: code that reads sys.argv (a CLI's main without args) sees the same on both sides
    sys.argv = sys.argv[:1]
    set_limits(int(request.get("memory", 0)))
    install_guard(os.getcwd())
    signal.signal(signal.SIGALRM, _alarm)
    seed, limit = int(request["seed"]), float(request["per_call"])
    may_hang = request.get("may_hang")
    may_hang = set(may_hang) if isinstance(may_hang, list) else None
    targets: dict[tuple[str, str], Any] = {}
    for index in range(int(request["start"]), len(rows)):
        _, module, qualname, payload = rows[index]
        key = (module, qualname)
        try:
            if key not in targets:
                targets[key] = resolve(module, qualname)
            outcome = call(targets[key], payload, seed, limit)
        except BaseException as error:  # the entry point cannot be imported or found
            outcome = {"status": "missing", "error": type_name(type(error)),
                       "message": _text(str(error))}
        outcome["index"] = index
        stop = may_hang is not None and outcome["status"] == "timeout" and index not in may_hang
        if stop:  # a hang the other version did not have: the verdict is known, stop waiting
            outcome["stop"] = True
        results.write(json.dumps(outcome, default=str) + "\n")
        results.flush()
        if stop:
            break
    results.close()
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1])
    sys.stdout.flush()
    os._exit(code)  # threads or atexit handlers the code under test left must not keep it alive
