"""Property: the diff of two folders, applied to a copy of the first, gives the second byte for
byte (new, deleted, renamed, emptied files, modes, line endings, missing final newlines)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from smellkit.evaluate.patches.apply import apply_patch_to_copy
from smellkit.evaluate.patches.parse import parse_patch, prefix_paths
from smellkit.evaluate.patches.treediff import diff_trees
from tests.evaluate.helpers import make_tree, read_tree

# No name is both a file and a folder, so any two trees can be compared.
PATHS = ("a.py", "b.txt", "pkg/__init__.py", "pkg/core.py", "pkg/sub/deep.py", "docs/x y.md",
         "pkg/é.py")
LINE = st.sampled_from(["import os", "x = 1", "def f():", "    return x", "", "# é ∑",
                        "\tindented", "trailing  "])


@st.composite
def contents(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(LINE, max_size=12))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    final_newline = draw(st.booleans())
    text = ending.join(lines)
    if lines and final_newline:
        text += ending
    return text.encode()


@st.composite
def trees(draw: st.DrawFn) -> dict[str, tuple[bytes, bool]]:
    paths = draw(st.sets(st.sampled_from(PATHS), max_size=len(PATHS)))
    return {path: (draw(contents()), draw(st.booleans())) for path in sorted(paths)}


@st.composite
def pairs(draw: st.DrawFn) -> tuple[dict[str, tuple[bytes, bool]], dict[str, tuple[bytes, bool]]]:
    """A smelly tree and a final one that shares, edits, moves and drops some of its files."""
    smelly = draw(trees())
    final = draw(trees())
    for path, value in smelly.items():
        choice = draw(st.sampled_from(["keep", "move", "other"]))
        free = [p for p in PATHS if p not in final]
        if choice == "keep":
            final[path] = value
        elif choice == "move" and free and value[0].count(b"\n") > 3:
            final[draw(st.sampled_from(free))] = value
    return smelly, final


def _write(root: Path, files: dict[str, tuple[bytes, bool]]) -> Path:
    make_tree(root, {path: data for path, (data, _) in files.items()})
    for path, (_, executable) in files.items():
        os.chmod(root / path, 0o755 if executable else 0o644)
    return root


def _modes(root: Path) -> dict[str, bool]:
    return {path: os.access(root / path, os.X_OK) for path in read_tree(root)}


@settings(max_examples=60, deadline=None)
@given(pairs())
def test_diff_then_apply_reproduces_the_final_tree(
        pair: tuple[dict[str, tuple[bytes, bool]], dict[str, tuple[bytes, bool]]]) -> None:
    smelly_files, final_files = pair
    with tempfile.TemporaryDirectory() as scratch:
        smelly = _write(Path(scratch) / "smelly", smelly_files)
        final = _write(Path(scratch) / "final", final_files)
        patch = diff_trees(smelly, final)
        outcome = apply_patch_to_copy(patch, smelly, Path(scratch) / "work")
        assert outcome.status == ("empty" if not patch else "applied"), outcome.reason
        assert outcome.method in (None, "git apply")
        assert outcome.root is not None
        copy = Path(outcome.root)
        assert read_tree(copy) == read_tree(final)
        assert _modes(copy) == _modes(final)
        assert diff_trees(copy, final) == ""
        if patch:
            moved = parse_patch(prefix_paths(patch, "src"))
            assert [c.paths for c in moved] == [
                tuple(f"src/{p}" for p in c.paths) for c in parse_patch(patch)]
