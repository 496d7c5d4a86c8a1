"""Builds the slow tests share, cached under the test-data folder and keyed by smellkit's code.

A build made by other code (an older commit, another checkout sharing the cache) is never read:
the folder's name carries a digest of smellkit's source and the specs, so the tests here read
the cases this code makes, as a fresh machine would. Older folders of the same build are
removed when a new one is made, once no run has touched them for six hours.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tests.support.pypi import data_dir

ROOT = Path(__file__).resolve().parents[2]
IDLE = 6 * 3600
"""Seconds a stale build folder is left alone: a test run of other code (another checkout, or
this one before an edit) may still be reading it."""


def code_key(specs: Sequence[Path] = ()) -> str:
    """A digest of smellkit's source and `specs`."""
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted([*(ROOT / "smellkit").rglob("*.py"), *specs]):
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@contextmanager
def cached_build(group: str, name: str, specs: Sequence[Path],
                 data: Path | None = None) -> Iterator[Path]:
    """The output folder `<data>/<group>/<name>-<code key>` (data: the test-data folder), held
    under a lock (two test workers never build into it at once) with the stale folders of
    `name` that no run has touched for `IDLE` seconds removed."""
    folder = (data or data_dir()) / group
    folder.mkdir(exist_ok=True)
    out = folder / f"{name}-{code_key(specs)}"
    with open(folder / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for stale in folder.glob(f"{name}-*"):
            if stale != out and stale.is_dir() and time.time() - stale.stat().st_mtime > IDLE:
                shutil.rmtree(stale, ignore_errors=True)
        yield out
