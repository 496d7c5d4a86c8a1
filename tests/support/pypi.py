"""Real packages for tests: PyPI source distributions, downloaded once and cached.

The cache is `~/.cache/smellkit-test-data` (or `SMELLKIT_TEST_DATA`); a file lock keeps parallel
test workers from downloading the same archive twice.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path


def data_dir() -> Path:
    folder = Path(os.environ.get("SMELLKIT_TEST_DATA",
                                 Path.home() / ".cache" / "smellkit-test-data"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def sdist(name: str, version: str) -> Path:
    """The unpacked source distribution of `name==version` (its top folder, tests included)."""
    folder = data_dir()
    target = folder / f"{name}-{version}"
    with open(folder / f".{name}-{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / ".complete").exists():
            return target
        with tempfile.TemporaryDirectory(dir=folder) as scratch:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                            "--no-binary", ":all:", f"{name}=={version}",
                            "-d", scratch], check=True, capture_output=True)
            (archive,) = [item for item in Path(scratch).iterdir() if item.is_file()]
            unpacked = Path(scratch) / "unpacked"
            if archive.name.endswith(".zip"):
                with zipfile.ZipFile(archive) as handle:
                    handle.extractall(unpacked)
            else:
                with tarfile.open(archive) as handle:
                    handle.extractall(unpacked, filter="data")
            (top,) = list(unpacked.iterdir())
            shutil.rmtree(target, ignore_errors=True)
            shutil.move(str(top), target)
        (target / ".complete").touch()
        return target
