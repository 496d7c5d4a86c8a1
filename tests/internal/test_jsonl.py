"""Append-only logs: durable lines, first record of a key wins, a partial last line is dropped."""

from __future__ import annotations

import threading
from pathlib import Path

from smellkit._internal.jsonl import JsonlLog, read_jsonl, write_atomic, write_jsonl


def test_appends_survive_reopening_and_keys_are_unique(tmp_path: Path) -> None:
    log = JsonlLog(tmp_path / "work" / "log.jsonl")
    assert log.append({"key": "a", "value": 1})
    assert not log.append({"key": "a", "value": 2})
    assert log.append({"key": "b", "value": 3})
    again = JsonlLog(tmp_path / "work" / "log.jsonl")
    assert again.get("a") == {"key": "a", "value": 1}
    assert "b" in again and len(again) == 2


def test_partial_last_line_is_cut_off_on_resume(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"key": "a"}\n{"key": "b"}\n{"key": "c", "va')
    log = JsonlLog(path)
    assert sorted(record["key"] for record in log) == ["a", "b"]
    assert path.read_bytes() == b'{"key": "a"}\n{"key": "b"}\n'
    log.append({"key": "c"})
    assert [row["key"] for row in read_jsonl(path)] == ["a", "b", "c"]


def test_a_line_that_is_not_json_ends_the_good_part(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"key": "a"}\nnot json\n{"key": "b"}\n')
    assert [record["key"] for record in JsonlLog(path)] == ["a"]


def test_parallel_appends_give_whole_lines(tmp_path: Path) -> None:
    log = JsonlLog(tmp_path / "log.jsonl")

    def writer(prefix: str) -> None:
        for number in range(50):
            log.append({"key": f"{prefix}{number}", "text": "x" * 500})

    threads = [threading.Thread(target=writer, args=(name,)) for name in "abcd"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(read_jsonl(tmp_path / "log.jsonl")) == 200


def test_atomic_writes_replace_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "out" / "data.jsonl"
    write_jsonl(path, [{"b": 1, "a": 2}])
    assert path.read_text() == '{"a": 2, "b": 1}\n'
    write_atomic(path, "new\n")
    assert path.read_text() == "new\n"
    assert [item.name for item in path.parent.iterdir()] == ["data.jsonl"]


def test_atomic_writes_get_the_usual_permissions(tmp_path: Path) -> None:
    import os
    import stat

    smellkit_umask = os.umask(0o022)
    try:
        write_atomic(tmp_path / "report.json", "{}")
    finally:
        os.umask(smellkit_umask)
    assert stat.S_IMODE((tmp_path / "report.json").stat().st_mode) == 0o644


def test_a_key_made_of_several_fields(tmp_path: Path) -> None:
    def key_of(record: dict[str, object]) -> str | None:
        first, second = record.get("id"), record.get("model")
        return f"{first}\0{second}" if isinstance(first, str) and isinstance(second, str) \
            else None

    path = tmp_path / "scores.jsonl"
    log = JsonlLog(path, key=key_of)
    assert log.append({"id": "a", "model": "m1"}) and log.append({"id": "a", "model": "m2"})
    assert not log.append({"id": "a", "model": "m1", "again": True})
    assert len(JsonlLog(path, key=key_of)) == 2 and "a\0m2" in JsonlLog(path, key=key_of)
