"""Reading what a patch changes: git headers, quoted names, plain diffs, ambiguity, prefixes."""

from __future__ import annotations

import pytest

from smellkit.evaluate.patches.parse import (
    AmbiguousPatchError,
    PatchFormatError,
    normal_folder,
    parse_patch,
    prefix_paths,
    quote,
    unquote,
)

RENAME = ("diff --git a/my dir/a b.py b/new dir/c.py\nsimilarity index 90%\n"
          "rename from my dir/a b.py\nrename to new dir/c.py\n")


def test_git_headers_renames_modes_and_empty_files() -> None:
    patch = (RENAME + "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
             "diff --git a/x y.py b/x y.py\nnew file mode 100644\nindex 0000000..e69de29\n"
             'diff --git "a/t\\tab.py" "b/t\\tab.py"\ndeleted file mode 100644\n'
             '--- "a/t\\tab.py"\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n')
    changes = parse_patch(patch)
    assert [(c.kind, c.old_path, c.new_path) for c in changes] == [
        ("rename", "my dir/a b.py", "new dir/c.py"), ("modify", "run.sh", "run.sh"),
        ("add", None, "x y.py"), ("delete", "t\tab.py", None)]
    assert (changes[1].old_mode, changes[1].new_mode) == ("100644", "100755")


def test_plain_unified_diff_is_read_with_unidiff() -> None:
    patch = "--- a/m.py\t2024-01-01\n+++ b/m.py\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n"
    (change,) = parse_patch(patch)
    assert (change.kind, change.old_path) == ("modify", "m.py")
    with pytest.raises(PatchFormatError):
        parse_patch("--- a/m.py\n+++ b/m.py\n@@ -1,5 +1,5 @@\n-a\n+b\n@@ bogus\n")


def test_binary_markers_and_symlink_targets() -> None:
    patch = ("diff --git a/i.png b/i.png\nindex 1..2 100644\nGIT binary patch\nliteral 3\n"
             "zcmZ\n\nliteral 0\n\n"
             "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n"
             "@@ -0,0 +1 @@\n+../../etc\n\\ No newline at end of file\n")
    image, link = parse_patch(patch)
    assert image.binary and not link.binary
    assert link.symlink_target == "../../etc"


def test_prose_and_empty_name_are_format_errors() -> None:
    with pytest.raises(PatchFormatError, match="no file changes"):
        parse_patch("I refactored the code as asked.\n")
    with pytest.raises(PatchFormatError, match="cannot tell"):
        parse_patch("diff --git a/x b/y\nnew file mode 100644\n")


def test_a_file_only_unidiff_sees_is_ambiguous() -> None:
    """A plain `---`/`+++` pair hidden after a git hunk: git apply would apply it too."""
    patch = ("diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n"
             "--- a/hidden.py\n+++ b/hidden.py\n@@ -1 +1 @@\n-x\n+y\n")
    with pytest.raises(AmbiguousPatchError, match=r"hidden\.py"):
        parse_patch(patch)


def test_absolute_names_stay_absolute_for_the_path_check() -> None:
    (change,) = parse_patch("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n")
    assert change.old_path == "/etc/passwd"


def test_quote_round_trips() -> None:
    for name in ("plain/name.py", 'q"uote', "tab\there", "nl\nx", "é.py", "bad\udce9"):
        quoted = quote(name)
        assert unquote(quoted)[0] == name if quoted.startswith('"') else quoted == name
    assert quote("é.py") == "é.py"


def test_prefix_paths_moves_every_name() -> None:
    patch = (RENAME + "diff --git a/m.py b/m.py\nindex 1..2 100644\n--- a/m.py\n+++ b/m.py\n"
             "@@ -1 +1 @@\n--- a/not-a-header\n++++ b/not-a-header\n"
             "diff --git a/n.py b/n.py\nnew file mode 100644\n--- /dev/null\n+++ b/n.py\n"
             "@@ -0,0 +1 @@\n+n\n")
    moved = prefix_paths(patch, "src/")
    assert [(c.old_path, c.new_path) for c in parse_patch(moved)] == [
        ("src/my dir/a b.py", "src/new dir/c.py"), ("src/m.py", "src/m.py"),
        (None, "src/n.py")]
    assert "--- a/not-a-header\n++++ b/not-a-header\n" in moved  # hunk lines untouched
    assert "--- /dev/null\n+++ b/src/n.py\n" in moved
    assert prefix_paths(patch, "") == patch
    with pytest.raises(PatchFormatError):
        prefix_paths("--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-a\n+b\n", "src")


@pytest.mark.parametrize("folder", ["", ".", "./", "/", " . "])
def test_a_root_folder_however_written_moves_nothing(folder: str) -> None:
    patch = ("diff --git a/pkg/m.py b/pkg/m.py\n--- a/pkg/m.py\n+++ b/pkg/m.py\n"
             "@@ -1 +1 @@\n-a\n+b\n")
    assert prefix_paths(patch, folder) == patch
    assert normal_folder("./src/") == "src" and normal_folder("a/./b") == "a/b"
