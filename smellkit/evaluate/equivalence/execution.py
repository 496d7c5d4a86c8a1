"""Running calls on one version of the code in a contained worker process (`_worker.py`).

The worker runs with the case's environment interpreter and imports only the version it is
given: the version's source folder (and the test folders the recording needed) first on
`sys.path`. Every run starts from the same empty scratch folder as its cwd (HOME and TMPDIR
point there too), with PYTHONHASHSEED and `random` seeded, in a new session (the runner kills
the whole group at the time limit) and, where the platform allows it, a new network namespace
(`unshare -rn`). A worker that dies or hangs past the limit is restarted at the next call, the
call it died in recorded as `crashed` or `timeout`; calls left when the case's budget is spent
are `not_run`.
"""

from __future__ import annotations

import functools
import json
import pickle
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smellkit.sandbox.environment import Environment
from smellkit.sandbox.runner import LocalRunner

NETWORK_PREFIX = ("unshare", "-rn")


@dataclass(frozen=True)
class Call:
    """One call to make on both versions: the entry point's name on each side and the pickled
    `(args, kwargs)`."""

    entry: str
    smelly: tuple[str, str]
    result: tuple[str, str]
    payload: bytes
    source: str
    """recorded, generated or mutated."""


@dataclass(frozen=True)
class Limits:
    per_call: float = 2.0
    memory: int = 2 << 30
    """Bytes of address space per worker (RLIMIT_AS); 0: no limit."""
    seed: int = 0
    startup: float = 10.0
    """Seconds a worker is given to start and import the code, besides its calls' limits."""


@functools.cache
def network_isolation() -> str | None:
    """Why calls cannot be cut off from the network here (None when `unshare -rn` works)."""
    try:
        done = subprocess.run([*NETWORK_PREFIX, "true"], capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"`unshare -rn` cannot run: {error}"
    if done.returncode != 0:
        return f"`unshare -rn` failed: {done.stderr.strip() or done.returncode}"
    return None


def run_calls(calls: Sequence[Call], side: str, tree: Path, env: Environment,
              extra_paths: Sequence[str], scratch: Path, limits: Limits, deadline: float,
              *, isolate_network: bool = True, tools: Path | None = None
              ) -> list[dict[str, Any]]:
    """Each call's outcome on one version (`side`: smelly or result) of the code in `tree`."""
    work = scratch / "worker"
    work.mkdir(parents=True, exist_ok=True)
    inputs = work / f"{side}.inputs"
    names = [call.smelly if side == "smelly" else call.result for call in calls]
    with open(inputs, "wb") as handle:
        pickle.dump([[call.entry, *name, call.payload] for call, name in zip(calls, names)],
                    handle)
    script = work / "smellkit_equivalence_worker.py"
    if not script.exists():
        shutil.copyfile(Path(__file__).with_name("_worker.py"), script)
    results = work / f"{side}.results.jsonl"
    results.unlink(missing_ok=True)
    cwd = scratch / "cwd"
    source = (tree / env.source_path).resolve()
    paths = [str(source), *(str((tree / path).resolve()) for path in extra_paths)]
    outcomes: dict[int, dict[str, Any]] = {}
    start = 0
    while start < len(calls):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        shutil.rmtree(cwd, ignore_errors=True)
        cwd.mkdir(parents=True)
        request = work / f"{side}.request.json"
        request.write_text(json.dumps({
            "paths": paths, "inputs": str(inputs), "results": str(results), "start": start,
            "seed": limits.seed, "per_call": limits.per_call, "memory": limits.memory,
            "tools": str(tools) if tools is not None else None}))
        variables = {**env.env, "PYTHONPATH": ":".join(paths), "PYTHONHASHSEED": str(limits.seed),
                     "HOME": str(cwd), "TMPDIR": str(cwd), "PYTHONDONTWRITEBYTECODE": "1",
                     "PYTHONIOENCODING": "utf-8"}
        argv = [str(env.python), str(script), str(request)]
        if isolate_network:
            argv = [*NETWORK_PREFIX, *argv]
        timeout = min(left, limits.startup + limits.per_call * 1.5 * (len(calls) - start))
        run = LocalRunner().run(argv, cwd=cwd, env=variables, timeout=timeout)
        outcomes.update(_read(results))
        done = [index for index in outcomes if index >= start]
        following = max(done) + 1 if done else start
        if following >= len(calls):
            break
        # the worker ended before its last call: the next one killed it or hung past the limit
        status = "timeout" if run.timed_out else "crashed"
        outcomes[following] = {"status": status, "index": following,
                               "message": run.describe(5)[-500:]}
        start = following + 1
    shutil.rmtree(cwd, ignore_errors=True)
    return [outcomes.get(index, {"status": "not_run", "index": index})
            for index in range(len(calls))]


def _read(results: Path) -> Mapping[int, dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    try:
        lines = results.read_text(encoding="utf-8").splitlines()
    except OSError:
        return found
    for line in lines:
        try:
            item = json.loads(line)
        except json.JSONDecodeError:  # cut short by a kill
            continue
        if isinstance(item, dict) and isinstance(item.get("index"), int):
            found[item["index"]] = item
    return found
