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
from smellkit.sandbox.runner import LocalRunner, RunResult

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


SCRIPTS = {"_worker.py": "smellkit_equivalence_worker.py",
           "_generator.py": "smellkit_equivalence_generator.py"}
"""The scripts run in the case's interpreter, by the names they import each other with."""


@dataclass(frozen=True)
class Version:
    """One version of the code and how its worker processes run."""

    tree: Path
    env: Environment
    scratch: Path
    limits: Limits
    extra_paths: tuple[str, ...] = ()
    """Folders (relative to `tree`) put after the source folder on `sys.path`: the test
    modules the recording found, whose objects inputs may refer to."""
    isolate_network: bool = True
    tools: Path | None = None

    @property
    def work(self) -> Path:
        return self.scratch / "worker"

    def launch(self, script: str, name: str, request: Mapping[str, Any],
               timeout: float) -> RunResult:
        """Run `script` (a key of SCRIPTS) on this version with `request` (plus the paths,
        tools, seed and limits every script reads), in an empty scratch cwd."""
        self.work.mkdir(parents=True, exist_ok=True)
        for source, target in SCRIPTS.items():
            if not (self.work / target).exists():
                shutil.copyfile(Path(__file__).with_name(source), self.work / target)
        cwd = self.scratch / "cwd"
        shutil.rmtree(cwd, ignore_errors=True)
        cwd.mkdir(parents=True)
        source_root = (self.tree / self.env.source_path).resolve()
        paths = [str(source_root), *(str((self.tree / path).resolve())
                                     for path in self.extra_paths)]
        limits = self.limits
        file = self.work / f"{name}.request.json"
        file.write_text(json.dumps({
            "paths": paths, "tools": str(self.tools) if self.tools is not None else None,
            "seed": limits.seed, "per_call": limits.per_call, "memory": limits.memory,
            **request}))
        variables = {**self.env.env, "PYTHONPATH": ":".join(paths),
                     "PYTHONHASHSEED": str(limits.seed), "HOME": str(cwd), "TMPDIR": str(cwd),
                     "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}
        argv = [str(self.env.python), str(self.work / SCRIPTS[script]), str(file)]
        if self.isolate_network:
            argv = [*NETWORK_PREFIX, *argv]
        try:
            return LocalRunner().run(argv, cwd=cwd, env=variables, timeout=timeout)
        finally:
            shutil.rmtree(cwd, ignore_errors=True)


def run_calls(calls: Sequence[Call], side: str, version: Version, deadline: float, *,
              may_hang: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """Each call's outcome on one version (`side`: smelly or result) of the code. With
    `may_hang` (the calls that hung on the other version), a call that hangs and is not among
    them ends the run: that difference decides the verdict, and the calls after it are
    `not_run` rather than waited for."""
    version.work.mkdir(parents=True, exist_ok=True)
    inputs = version.work / f"{side}.inputs"
    names = [call.smelly if side == "smelly" else call.result for call in calls]
    with open(inputs, "wb") as handle:
        pickle.dump([[call.entry, *name, call.payload] for call, name in zip(calls, names)],
                    handle)
    results = version.work / f"{side}.results.jsonl"
    results.unlink(missing_ok=True)
    outcomes: dict[int, dict[str, Any]] = {}
    start = 0
    while start < len(calls):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        timeout = min(left, version.limits.startup +
                      version.limits.per_call * 1.5 * (len(calls) - start))
        run = version.launch("_worker.py", side, {
            "inputs": str(inputs), "results": str(results), "start": start,
            "may_hang": list(may_hang) if may_hang is not None else None}, timeout)
        outcomes.update(_read(results))
        done = [index for index in outcomes if index >= start]
        following = max(done) + 1 if done else start
        if following >= len(calls) or (done and outcomes[max(done)].get("stop")):
            break
        if may_hang is not None and following not in may_hang:
            outcomes[following] = {"status": "timeout" if run.timed_out else "crashed",
                                   "index": following, "message": run.describe(5)[-500:]}
            break
        # the worker ended before its last call: the next one killed it or hung past the limit
        status = "timeout" if run.timed_out else "crashed"
        outcomes[following] = {"status": status, "index": following,
                               "message": run.describe(5)[-500:]}
        start = following + 1
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
