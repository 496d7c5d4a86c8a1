"""Packages the recording run and the workers borrow from smellkit's own installation, put at the
end of their `sys.path` (never shadowing the project's own packages).

cloudpickle pickles what plain pickle refuses and tests are full of: functions defined inside
test functions (click commands' callbacks), lambdas and local classes, by value. It is pure
Python; the payloads it makes are read by the same interpreter that made them (the case's
environment), with the same copy of it. Without it (the `equivalence` extra is not installed)
only what plain pickle takes is recorded.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

BORROWED = ("cloudpickle",)


def tools_folder(scratch: Path) -> tuple[Path, tuple[str, ...]]:
    """A folder holding copies of the borrowed packages that are installed, and the names of
    those that are not."""
    folder = scratch / "tools"
    folder.mkdir(parents=True, exist_ok=True)
    missing = []
    for name in BORROWED:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            missing.append(name)
            continue
        target = folder / name
        if not target.exists():
            shutil.copytree(Path(next(iter(spec.submodule_search_locations))), target,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return folder, tuple(missing)
