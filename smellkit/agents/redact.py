"""Keeping secrets out of everything a run writes: logs, trajectories, the patch, the record.

The values of the key variable (and of any variable given to the agent whose name says it is a
secret) are replaced by `[REDACTED:NAME]` wherever they occur, before anything is written. A
value shorter than `MIN_SECRET` characters is not treated as a secret (it would match too much).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH", re.IGNORECASE)
MIN_SECRET = 6


class Redactor:
    """Replaces known secret values in text and files."""

    def __init__(self, secrets: Mapping[str, str]):
        names: dict[str, str] = {}
        for name, value in secrets.items():
            if value and len(value) >= MIN_SECRET:
                names.setdefault(value, name)
        self._names = names
        # one pass, longest value first: a replacement is never searched again
        self._pattern = re.compile("|".join(re.escape(value) for value in
                                            sorted(names, key=len, reverse=True))) \
            if names else None

    @classmethod
    def for_environment(cls, env: Mapping[str, str], key_vars: tuple[str, ...]) -> Redactor:
        """The key variables plus every variable whose name looks like a secret's."""
        return cls({name: value for name, value in env.items()
                    if name in key_vars or SECRET_NAME.search(name)})

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda match: f"[REDACTED:{self._names[match.group(0)]}]",
                                 text)

    def write(self, path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(text), encoding="utf-8")

    def copy(self, source: Path, dest: Path) -> None:
        """Copy a file or folder, text redacted; bytes that are not UTF-8 are redacted as
        Latin-1 (every byte a character), so a secret is found in any file."""
        if source.is_dir() and not source.is_symlink():
            for item in sorted(source.rglob("*")):
                if item.is_file() and not item.is_symlink():
                    self.copy(item, dest / item.relative_to(source))
            return
        if not source.is_file():
            return
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not self:
            shutil.copyfile(source, dest)
            return
        data = source.read_bytes()
        try:
            dest.write_text(self.text(data.decode("utf-8")), encoding="utf-8")
        except UnicodeDecodeError:
            dest.write_bytes(self.text(data.decode("latin-1")).encode("latin-1", "replace"))
