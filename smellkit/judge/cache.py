"""The judge's disk cache: one JSON file per (model, prompt hash, sample index), so a rerun, a
second output folder or a resumed run asks the server nothing it already answered validly.

Only valid replies are stored (a failure is asked again next time). Files are written
atomically; an unreadable entry counts as absent.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from smellkit._internal.jsonl import write_atomic
from smellkit.project.options import default_cache_dir


def prompt_hash(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> str:
    """The hash of exactly what a model is asked (messages and reply schema)."""
    text = json.dumps({"messages": messages, "schema": schema}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def cache_key(model: str, prompt: str, sample: int) -> str:
    return hashlib.sha256(f"{model}\0{prompt}\0{sample}".encode()).hexdigest()


class ReplyCache:
    """Valid replies on disk under `folder` (default: the smellkit cache's `judge/`)."""

    def __init__(self, folder: Path | str | None = None, *, enabled: bool = True):
        self.folder = Path(folder) if folder is not None else default_cache_dir() / "judge"
        self.enabled = enabled

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        if not self.enabled:
            return None
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) and isinstance(entry.get("text"), str) else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        if self.enabled:
            write_atomic(self._path(key), json.dumps(entry, sort_keys=True) + "\n")
