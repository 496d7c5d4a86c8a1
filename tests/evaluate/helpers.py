"""Small trees on disk for the evaluate tests: made from a dict, read back into one."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def make_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write `files` (relative path -> text or bytes) under `root`, exactly as given."""
    root.mkdir(parents=True, exist_ok=True)
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def read_tree(root: Path) -> dict[str, bytes | str]:
    """Every file (bytes) and symlink ("-> target") under `root`, by relative path."""
    found: dict[str, bytes | str] = {}
    for folder, _dirs, names in os.walk(root):
        for name in [*names, *(d for d in _dirs if (Path(folder) / d).is_symlink())]:
            path = Path(folder) / name
            key = path.relative_to(root).as_posix()
            found[key] = f"-> {os.readlink(path)}" if path.is_symlink() else path.read_bytes()
    return found
