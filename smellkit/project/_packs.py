"""Pack files: many small cache entries in one file, with their keys and offsets at its end.

The fact cache has one entry per source file. Written as one file each, a cold scan of pandas
created 1,411 files, and right after the cache folder was cleared that took ext4 up to 2 s of
kernel time: each new inode is searched for past every recently deleted one. A pack holds a whole
batch of entries (a scan's parse), is written once under a temporary name and renamed into place,
and is never changed afterwards; readers find an entry by offset.

Layout: the entries' bytes one after another; the pickled table `{key: (offset, length)}`; the
table's length as 8 bytes, little-endian; the magic `SKPACK01`.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

MAGIC = b"SKPACK01"
_TAIL = 8 + len(MAGIC)
SUFFIX = ".pack"

Table = dict[str, tuple[int, int]]
"""Key -> (offset, length) of its bytes in the pack."""
Span = tuple[Path, int, int]
"""Where one entry's bytes are: pack, offset, length."""


def packs_in(folder: Path) -> list[Path]:
    """The packs of a folder, oldest first (names start with the time they were written)."""
    try:
        names = sorted(name for name in os.listdir(folder) if name.endswith(SUFFIX))
    except OSError:
        return []
    return [folder / name for name in names]


def write_pack(folder: Path, entries: Iterable[tuple[str, bytes]]) -> tuple[Path, Table] | None:
    """The entries as a new pack in `folder` (a key given twice keeps its last bytes), and its
    table; None when nothing was given or the folder cannot be written."""
    name = f"{time.time_ns():020d}-{os.getpid()}"
    temporary = folder / f"{name}.tmp"
    table: Table = {}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open(temporary, "wb") as handle:
            offset = 0
            for key, data in entries:
                handle.write(data)
                table[key] = (offset, len(data))
                offset += len(data)
            tail = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
            handle.write(tail + len(tail).to_bytes(8, "little") + MAGIC)
        if not table:
            os.unlink(temporary)
            return None
        target = folder / f"{name}{SUFFIX}"
        os.replace(temporary, target)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return None
    return target, table


def read_table(path: Path) -> Table | None:
    """A pack's table; None for a pack that is damaged, foreign or gone."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size < _TAIL:
                return None
            handle.seek(size - _TAIL)
            tail = handle.read(_TAIL)
            length = int.from_bytes(tail[:8], "little")
            if tail[8:] != MAGIC or length > size - _TAIL:
                return None
            handle.seek(size - _TAIL - length)
            table = pickle.loads(handle.read(length))
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError,
            ImportError, IndexError, KeyError):
        return None
    return table if isinstance(table, dict) else None


def read_spans(spans: Sequence[Span | None]) -> list[bytes | None]:
    """The bytes at each span (None where there is none or it cannot be read), opening each
    pack once."""
    found: list[bytes | None] = [None] * len(spans)
    by_pack: dict[Path, list[tuple[int, int, int]]] = {}
    for position, span in enumerate(spans):
        if span is not None:
            by_pack.setdefault(span[0], []).append((position, span[1], span[2]))
    for path, wanted in by_pack.items():
        try:
            with open(path, "rb") as handle:
                for position, offset, length in wanted:
                    found[position] = _read(handle, offset, length)
        except OSError:
            continue
    return found


def merged_entries(packs: Sequence[Path]) -> Iterator[tuple[str, bytes]]:
    """Every entry of the packs, the newest bytes of each key only, read one at a time."""
    tables = [(path, read_table(path) or {}) for path in packs]
    newest: dict[str, Path] = {}
    for path, table in tables:
        for key in table:
            newest[key] = path
    for path, table in tables:
        try:
            with open(path, "rb") as handle:
                for key, (offset, length) in table.items():
                    data = _read(handle, offset, length) if newest[key] == path else None
                    if data is not None:
                        yield key, data
        except OSError:
            continue


def _read(handle: BinaryIO, offset: int, length: int) -> bytes | None:
    """`length` bytes at `offset`; None when the pack ends before (it was cut)."""
    handle.seek(offset)
    data = handle.read(length)
    return data if len(data) == length else None
