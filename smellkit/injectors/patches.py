"""Unified diffs that `git apply` accepts (new and deleted files included), and applying them.

Patches are made from exact file texts, so applying the smelly patch and then the ground-truth
patch gives back the original byte for byte, line endings and missing final newlines included.
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from smellkit.errors import PatchError

_NO_NEWLINE = "\\ No newline at end of file\n"
_HEADER = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.MULTILINE)


def _lines(text: str) -> list[str]:
    """Lines as git counts them: split on "\n" only (a form feed or "\r" is not a line end)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


def _range(start: int, stop: int) -> str:
    """A hunk header's range in unified-diff form: `start,length`, `start` alone for one line."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _diff_lines(old: list[str], new: list[str]) -> list[str]:
    """The hunks of a unified diff with three lines of context.

    difflib's `unified_diff` treats lines as junk once they are common in a file of 200+ lines,
    so blank lines stop anchoring matches and an unchanged method can show as deleted and re-added
    around an insertion; matching without autojunk shows the insertion as what it is.
    """
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    lines: list[str] = []
    for group in matcher.get_grouped_opcodes(3):
        first, last = group[0], group[-1]
        lines.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(" " + line for line in old[i1:i2])
                continue
            lines.extend("-" + line for line in old[i1:i2])
            lines.extend("+" + line for line in new[j1:j2])
    return lines


def _hunks(old: str, new: str) -> list[str]:
    """The hunk lines of one file's diff, each ending in a newline."""
    lines: list[str] = []
    for line in _diff_lines(_lines(old), _lines(new)):
        if line.endswith("\n"):
            lines.append(line)
        else:  # the last line of a file without a final newline
            lines.append(line + "\n")
            lines.append(_NO_NEWLINE)
    return lines


def check_path(path: str) -> str:
    """A repository-relative POSIX path, or a PatchError if it could escape the repository."""
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path or " " in path:
        raise PatchError(f"unsafe path {path!r} in patch",
                         hint="paths must be relative to the repository, without '..' or spaces")
    return pure.as_posix()


def make_patch(before: Mapping[str, str | None], after: Mapping[str, str | None]) -> str:
    """The diff turning `before` into `after` (path -> text; None or absent = no such file)."""
    parts: list[str] = []
    for path in sorted(set(before) | set(after)):
        check_path(path)
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        parts.append(f"diff --git a/{path} b/{path}\n")
        if old is None:
            parts.append("new file mode 100644\n--- /dev/null\n")
        else:
            if new is None:
                parts.append("deleted file mode 100644\n")
            parts.append(f"--- a/{path}\n")
        parts.append("+++ /dev/null\n" if new is None else f"+++ b/{path}\n")
        parts.extend(_hunks(old or "", new or ""))
    return "".join(parts)


def patched_paths(patch: str) -> list[str]:
    """Every path a patch touches, checked not to escape the repository."""
    paths: list[str] = []
    for match in _HEADER.finditer(patch):
        for path in match.groups():
            if check_path(path) not in paths:
                paths.append(path)
    return paths


def apply_patch(root: Path, patch: str, *, reverse: bool = False) -> None:
    """Apply with `git apply` in `root` (which need not be a git repository); all or nothing."""
    if not patch.strip():
        return
    if not _HEADER.search(patch):
        raise PatchError("not a unified diff with `diff --git` headers",
                         hint="make patches with `git diff` or smellkit")
    patched_paths(patch)
    git = shutil.which("git")
    if git is None:
        raise PatchError("git is needed to apply patches", hint="install git")
    command = [git, "apply", "--whitespace=nowarn", *(["--reverse"] if reverse else []), "-"]
    # Outside a work tree git apply works like `patch`; GIT_DIR keeps an enclosing repository out.
    result = subprocess.run(command, cwd=root, input=patch.encode(), capture_output=True,
                            env={"GIT_DIR": str(Path(root) / ".smellkit-no-git"),
                                 "PATH": str(Path(git).parent), "HOME": str(root)},
                            check=False)
    if result.returncode != 0:
        message = result.stderr.decode(errors="replace").strip().splitlines()
        raise PatchError("patch does not apply: " + "; ".join(message[:5]), path=root,
                         hint="was it made against this version of the repository?")
