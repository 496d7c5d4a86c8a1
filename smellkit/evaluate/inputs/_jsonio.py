"""Records from a JSON or JSONL file, whichever it is, told apart by content, not by extension.

Each record keeps where it came from (a line, a list index or a key) so that later errors can
point at it; a bad JSONL line is reported and the other lines are still read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from smellkit.evaluate.errors import InputFormatError

Layout = Literal["jsonl", "json-list", "json-dict", "json-object", "empty"]


@dataclass(frozen=True)
class Raw:
    """One record as parsed, or the reason a JSONL line could not be parsed (`problem`)."""

    value: Any
    line: int | None = None
    key: str | None = None
    problem: str | None = None


def _is_record(data: dict[str, Any], record_keys: tuple[str, ...]) -> bool:
    """A single record (an object holding its own id), not a mapping keyed by id."""
    return isinstance(data.get(record_keys[0]), str) and any(k in data for k in record_keys[1:])


def read_records(path: Path, *, record_keys: tuple[str, ...], expected: str) -> tuple[Layout,
                                                                                       list[Raw]]:
    """The records of `path` and its layout; raises InputFormatError if no part of it is JSON.

    `record_keys` names the id field first, then fields only a record (not a keyed mapping) has;
    `expected` describes the accepted formats for the error message.
    """
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputFormatError(f"cannot read: {error.strerror}", path=path) from error
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputFormatError(f"not UTF-8 text (byte {error.start})", path=path,
                               hint=f"expected {expected}") from error
    if not text.strip():
        return "empty", []
    try:
        whole = json.loads(text)
    except ValueError as error:
        return "jsonl", _jsonl(text, path, error, expected)
    if isinstance(whole, list):
        return "json-list", [Raw(item, key=f"[{index}]") for index, item in enumerate(whole)]
    if isinstance(whole, dict):
        if _is_record(whole, record_keys):  # one record: a JSONL line, or a pretty-printed one
            one_line = "\n" not in text.strip()
            return ("jsonl" if one_line else "json-object"), [Raw(whole, line=1)]
        return "json-dict", [Raw(value, key=str(key)) for key, value in whole.items()]
    raise InputFormatError(f"holds a JSON {type(whole).__name__}, not records", path=path,
                           hint=f"expected {expected}")


def _jsonl(text: str, path: Path, whole_error: ValueError, expected: str) -> list[Raw]:
    """One record per non-blank line; a line that is not JSON becomes a `problem`."""
    records: list[Raw] = []
    parsed = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            records.append(Raw(json.loads(line), line=number))
            parsed += 1
        except ValueError as error:
            records.append(Raw(None, line=number, problem=f"not valid JSON ({error})"))
    if parsed == 0:
        raise InputFormatError(f"not JSON or JSONL ({whole_error})", path=path,
                               hint=f"expected {expected}")
    return records
