"""Packages the recording run and the workers borrow from smellkit's own installation, put at the
end of their `sys.path` (never shadowing the project's own packages).

- cloudpickle pickles what plain pickle refuses and tests are full of: functions defined inside
  test functions (click commands' callbacks), lambdas and local classes, by value. The payloads
  it makes are read by the same interpreter that made them (the case's environment).
- hypothesis (and sortedcontainers, which it needs) draws the generated and mutated inputs,
  inside the smelly version's worker, where the project's own types can be built.

All are pure Python. A missing one (the `equivalence` extra is not installed) narrows what the
check does: only what plain pickle takes is recorded, or no input is generated.
"""

from __future__ import annotations

import atexit
import importlib.metadata
import shutil
import tempfile
import threading
from functools import partial
from pathlib import Path

BORROWED = ("cloudpickle", "hypothesis", "sortedcontainers", "exceptiongroup")
_SKIPPED = ("_hypothesis_pytestplugin.py",)
_lock = threading.Lock()
_made: list[tuple[Path, tuple[str, ...]]] = []


def _copy(name: str, folder: Path) -> bool:
    """The top-level files and packages of distribution `name` copied into `folder`."""
    try:
        distribution = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    tops = {Path(str(item)).parts[0] for item in distribution.files or ()}
    for top in sorted(tops):
        if top.endswith((".dist-info", ".egg-info", ".pth")) or top in ("..", "__pycache__") \
                or top in _SKIPPED:
            continue
        source = Path(str(distribution.locate_file(top)))
        target = folder / top
        if source.is_dir():
            shutil.copytree(source, target, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif source.is_file() and source.suffix == ".py":
            shutil.copyfile(source, target)
    return True


def tools_folder() -> tuple[Path, tuple[str, ...]]:
    """The folder of the borrowed packages that are installed (made once per process, removed
    at exit), and the names of those that are not (`exceptiongroup` is only needed before
    Python 3.11)."""
    with _lock:
        if not _made:
            folder = Path(tempfile.mkdtemp(prefix="smellkit-equivalence-tools-"))
            atexit.register(partial(shutil.rmtree, folder, ignore_errors=True))
            missing = tuple(name for name in BORROWED if not _copy(name, folder))
            _made.append((folder, missing))
        return _made[0]
