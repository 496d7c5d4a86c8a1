"""Pack files of the cache: written whole, read by key, damaged ones refused, merged newest."""

from __future__ import annotations

from pathlib import Path

from smellkit.project import _packs


def test_a_pack_gives_back_each_entry_by_its_table(tmp_path: Path) -> None:
    written = _packs.write_pack(tmp_path, [("a", b"first"), ("b", b""), ("c", b"third")])
    assert written is not None
    path, table = written
    assert _packs.read_table(path) == table
    spans = [(path, *table[key]) for key in ("c", "a", "b")]
    assert _packs.read_spans([*spans, None]) == [b"third", b"first", b"", None]
    assert _packs.packs_in(tmp_path) == [path]


def test_nothing_to_write_makes_no_pack(tmp_path: Path) -> None:
    assert _packs.write_pack(tmp_path, []) is None
    assert list(tmp_path.iterdir()) == []


def test_a_cut_or_foreign_pack_has_no_table(tmp_path: Path) -> None:
    written = _packs.write_pack(tmp_path, [("a", b"first")])
    assert written is not None
    path = written[0]
    whole = path.read_bytes()
    path.write_bytes(whole[:-3])
    assert _packs.read_table(path) is None
    path.write_bytes(b"SKPACK01")
    assert _packs.read_table(path) is None
    assert _packs.read_table(tmp_path / "gone.pack") is None


def test_merging_keeps_the_newest_bytes_of_each_key(tmp_path: Path) -> None:
    _packs.write_pack(tmp_path, [("a", b"old a"), ("b", b"only b")])
    _packs.write_pack(tmp_path, [("a", b"new a"), ("c", b"only c")])
    merged = dict(_packs.merged_entries(_packs.packs_in(tmp_path)))
    assert merged == {"a": b"new a", "b": b"only b", "c": b"only c"}
