"""The diff between two folders: new, deleted, renamed, binary, non-UTF-8, modes, symlinks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from smellkit.evaluate.errors import TreeDiffError
from smellkit.evaluate.patches.parse import parse_patch
from smellkit.evaluate.patches.treediff import diff_trees
from tests.evaluate.helpers import make_tree, read_tree

BODY = "".join(f"line {n} of a file long enough to be recognised after a move\n"
               for n in range(12))


def test_new_deleted_renamed_and_modified_files(tmp_path: Path) -> None:
    before = make_tree(tmp_path / "before", {"keep.py": "a = 1\n", "gone.py": "x = 1\n",
                                             "old/name.py": BODY, "same.py": "s\n"})
    after = make_tree(tmp_path / "after", {"keep.py": "a = 2\n", "new/file.py": "y = 1\n",
                                           "moved/name.py": BODY + "one more\n",
                                           "same.py": "s\n", "empty.py": ""})
    snapshot = read_tree(before), read_tree(after)
    patch = diff_trees(before, after)
    kinds = {(change.kind, change.old_path, change.new_path) for change in parse_patch(patch)}
    assert kinds == {("modify", "keep.py", "keep.py"), ("delete", "gone.py", None),
                     ("rename", "old/name.py", "moved/name.py"),
                     ("add", None, "new/file.py"), ("add", None, "empty.py")}
    assert "rename from old/name.py\nrename to moved/name.py\n" in patch
    assert (read_tree(before), read_tree(after)) == snapshot  # neither folder written
    assert diff_trees(before, before) == ""


def test_binary_and_non_utf8_files_become_binary_entries(tmp_path: Path) -> None:
    before = make_tree(tmp_path / "before", {"logo.png": b"\x89PNG\0\1", "l1.txt": b"caf\n"})
    after = make_tree(tmp_path / "after", {"logo.png": b"\x89PNG\0\2", "l1.txt": b"caf\xe9\n",
                                           "ok.py": "é = 1\n"})
    patch = diff_trees(before, after)
    assert "Binary files a/logo.png and b/logo.png differ\n" in patch
    assert "Binary files a/l1.txt and b/l1.txt differ\n" in patch
    binary = {change.new_path for change in parse_patch(patch) if change.binary}
    assert binary == {"logo.png", "l1.txt"}
    assert "+é = 1\n" in patch


def test_vcs_caches_and_ignored_paths_are_left_out(tmp_path: Path) -> None:
    before = make_tree(tmp_path / "before", {"m.py": "a\n", "tests/test_m.py": "t\n"})
    after = make_tree(tmp_path / "after", {
        "m.py": "a\n", ".git/HEAD": "ref\n", "pkg/__pycache__/m.cpython-311.pyc": b"\0",
        "stale.pyc": b"\0", ".venv/bin/python": "x\n", "calc.egg-info/PKG-INFO": "x\n"})
    assert diff_trees(before, after, ignore=["tests/"]) == ""
    assert "deleted file mode" in diff_trees(before, after)


def test_modes_and_symlinks(tmp_path: Path) -> None:
    before = make_tree(tmp_path / "before", {"run.sh": "echo\n", "data.txt": "d\n"})
    after = make_tree(tmp_path / "after", {"run.sh": "echo\n", "data.txt": "d\n"})
    os.chmod(after / "run.sh", 0o755)
    (after / "link").symlink_to("data.txt")
    (after / "outside").symlink_to("/etc")
    patch = diff_trees(before, after)
    assert "old mode 100644\nnew mode 100755\n" in patch
    targets = {change.new_path: change.symlink_target for change in parse_patch(patch)
               if change.new_mode == "120000"}
    assert targets == {"link": "data.txt", "outside": "/etc"}


def test_gitattributes_of_the_trees_do_not_convert_line_endings(tmp_path: Path) -> None:
    before = make_tree(tmp_path / "before", {".gitattributes": "* text=auto eol=lf\n",
                                             "w.txt": "a\r\nb\r\n"})
    after = make_tree(tmp_path / "after", {".gitattributes": "* text=auto eol=lf\n",
                                           "w.txt": "a\r\nc\r\n"})
    assert "-b\r\n+c\r\n" in diff_trees(before, after)


def test_missing_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TreeDiffError, match="not a folder"):
        diff_trees(tmp_path, tmp_path / "missing")
