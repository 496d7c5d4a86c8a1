"""Recorded inputs: the arguments the case's selected tests pass to the entry points, captured
while those tests run on a copy of the smelly version (`_recorder.py`, a pytest plugin loaded
into the run the build's runner and environment make, as for the selected tests themselves).
"""

from __future__ import annotations

import base64
import binascii
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smellkit.config import RepoSpec
from smellkit.evaluate.equivalence.entries import EntryPoint
from smellkit.sandbox.environment import Environment
from smellkit.sandbox.runner import Runner
from smellkit.sandbox.testrun import run_tests

RECORDER_MODULE = "smellkit_equivalence_recorder"
RECORD_DIR = ".smellkit-record"


@dataclass
class Recording:
    """What the tests passed to each entry point (pickled `(args, kwargs)`, distinct, in the
    order seen), the test that made each, and what could not be kept."""

    inputs: dict[str, list[bytes]] = field(default_factory=dict)
    tests: dict[str, list[str]] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    """Entry point -> calls whose arguments did not pickle."""
    paths: tuple[str, ...] = ()
    """`sys.path` entries the tests added, relative to the tree (test modules to unpickle)."""
    problem: str = ""
    """Why nothing could be recorded (the tests could not run), if so."""
    seconds: float = 0.0
    complete: bool = False
    """The tests ran to their end (not killed at the run's time limit): what was recorded is
    all the tests pass, and can be kept for the case's next predictions."""

    @property
    def count(self) -> int:
        return sum(len(items) for items in self.inputs.values())


def record(entries: Sequence[EntryPoint], smelly_tree: Path, spec: RepoSpec, env: Environment,
           runner: Runner, tests: Sequence[str], scratch: Path, *, seed: int = 0,
           limit: int = 20, max_bytes: int = 1 << 20, tools: Path | None = None) -> Recording:
    """Run `tests` on a copy of `smelly_tree` (made in `scratch`, removed afterwards) recording
    at most `limit` distinct inputs per entry point; `tools` is the folder of borrowed packages
    (`tools.tools_folder`)."""
    if not entries or not tests:
        return Recording(problem="no entry point to record" if not entries
                         else "the case selects no tests to record inputs with")
    copy = scratch / "record"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(smelly_tree, copy, symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".smellkit-run-*"))
    try:
        source = copy / spec.source_path
        shutil.copyfile(Path(__file__).with_name("_recorder.py"), source / f"{RECORDER_MODULE}.py")
        folder = copy / RECORD_DIR
        folder.mkdir()
        out = folder / "records.jsonl"
        settings = folder / "settings.json"
        settings.write_text(json.dumps({
            "entries": [{"id": item.name, "module": item.module, "qualname": item.qualname,
                         "name": item.qualname.rpartition(".")[2],
                         "lines": [item.first_line, item.def_line]} for item in entries],
            "limit": limit, "max_bytes": max_bytes, "out": str(out),
            "tools": str(tools) if tools is not None else None}))
        # the tests' temporary files go in the copy, removed with it: an input naming one
        # then names a missing file on every later run, where under pytest's shared folder,
        # pruned by any other pytest session, it would exist on one run and not the next
        addopts = " ".join(filter(None, [env.env.get("PYTEST_ADDOPTS", ""),
                                         f"-p {RECORDER_MODULE}",
                                         f"--basetemp={folder / 'tmp'}"]))
        recording_env = env.model_copy(update={"env": {
            **env.env, "SMELLKIT_RECORD": str(settings), "PYTEST_ADDOPTS": addopts}})
        run = run_tests(recording_env, copy, spec, tests, runner, seed=seed)
        recording = read_records(out, copy)
        recording.seconds = run.seconds
        recording.complete = not run.timed_out
        if not recording.count and not run.passed:
            recording.problem = f"the selected tests did not run on the smelly code " \
                                f"({run.summary()})"
        return recording
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def worker_lines(path: Path) -> list[tuple[dict[str, Any], bytes | None]]:
    """The JSON lines a worker wrote, each with its decoded `payload` (None when it has none);
    a line cut short by a kill, or a payload that does not decode, is skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    found: list[tuple[dict[str, Any], bytes | None]] = []
    for line in lines:
        try:
            item = json.loads(line)
            payload = base64.b64decode(item["payload"]) if "payload" in item else None
        except (json.JSONDecodeError, binascii.Error, TypeError):
            continue
        found.append((item, payload))
    return found


def read_records(out: Path, root: Path) -> Recording:
    """The recorder's lines (`worker_lines`)."""
    recording = Recording()
    base = root.resolve()
    paths: list[str] = []
    for item, payload in worker_lines(out):
        if payload is not None:
            recording.inputs.setdefault(item["id"], []).append(payload)
            recording.tests.setdefault(item["id"], []).append(str(item.get("test", "")))
        elif "paths" in item:
            for path in item["paths"]:
                try:
                    relative = Path(path).resolve().relative_to(base).as_posix()
                except ValueError:
                    continue
                if relative not in paths:
                    paths.append(relative)
        elif "dropped" in item:
            recording.dropped = {str(key): int(value) for key, value in item["dropped"].items()}
    recording.paths = tuple(paths)
    return recording
