"""The git-style diff between two folders: how a final repository becomes a prediction's patch.

Both folders are written as trees into a throwaway git object store (blobs hashed here, raw bytes,
so no `.gitattributes` filter or line-ending conversion of the repositories applies), then git
diffs the trees with rename detection. New, deleted, renamed files, modes and symlinks come out
as `git apply` expects them. A binary file, or a text file that is not UTF-8, becomes a
`Binary files ... differ` entry: the patch stays a `str`, and the apply step refuses it.
Empty folders are not represented (git tracks files only).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
import zlib
from collections.abc import Collection, Iterator
from pathlib import Path

from smellkit.evaluate.errors import TreeDiffError
from smellkit.sandbox.checkout import COPY_EXCLUDES

SKIPPED_SUFFIXES = (".pyc", ".pyo", ".egg-info")
SKIPPED_NAMES = COPY_EXCLUDES | {".smellkit-complete"}
"""Never compared, copied or applied to: version control, caches, environments, bytecode (the
same names the build leaves out of a case's copy)."""


def skipped(name: str) -> bool:
    """A file or folder name that is not part of a repository's content."""
    return name in SKIPPED_NAMES or name.endswith(SKIPPED_SUFFIXES)


def _ignored(relative: str, ignore: Collection[str]) -> bool:
    return any(relative == item or relative.startswith(item + "/") for item in ignore)


def walk_entries(root: Path, *, ignore: Collection[str] = ()) -> Iterator[tuple[str, Path]]:
    """(relative POSIX path, path) of every regular file and symlink under `root`, in a stable
    order, without following symlinks and without skipped or ignored names."""
    ignore = {item.strip("/") for item in ignore if item.strip("/")}
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        relative_base = base.relative_to(root).as_posix()
        kept = []
        for name in sorted([*dirs, *files]):
            relative = name if relative_base == "." else f"{relative_base}/{name}"
            if skipped(name) or _ignored(relative, ignore):
                continue
            path = base / name
            if path.is_symlink() or (name in files and path.is_file()):
                yield relative, path
            elif name in dirs:
                kept.append(name)
        dirs[:] = kept


def _git() -> str:
    git = shutil.which("git")
    if git is None:
        raise TreeDiffError("git is needed to compare folders", hint="install git")
    return git


def git_env(home: Path) -> dict[str, str]:
    """An environment where no user or system git configuration changes what git does."""
    return {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), "LC_ALL": "C",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0"}


def _run(command: list[str], env: dict[str, str], stdin: bytes = b"") -> bytes:
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, check=False,
                          timeout=600)
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        raise TreeDiffError(f"`{' '.join(command[1:4])}` failed: {message}")
    return done.stdout


def _store(objects: Path, data: bytes) -> str:
    """Write one blob into the loose object store; its id."""
    raw = b"blob %d\0" % len(data) + data
    digest = hashlib.sha1(raw, usedforsecurity=False).hexdigest()  # git's object id
    target = objects / digest[:2] / digest[2:]
    if not target.exists():
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(zlib.compress(raw, 1))
    return digest


def _tree(git: str, repo: Path, root: Path, ignore: Collection[str], env: dict[str, str],
          name: str) -> str:
    """Store the files of `root` as one git tree; its id."""
    entries = []
    for relative, path in walk_entries(root, ignore=ignore):
        try:
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                mode, data = "120000", os.fsencode(os.readlink(path))
            else:
                mode = "100755" if info.st_mode & stat.S_IXUSR else "100644"
                data = path.read_bytes()
        except OSError as error:
            raise TreeDiffError(f"cannot read: {error.strerror}", path=path) from error
        digest = _store(repo / "objects", data)
        entries.append(f"{mode} {digest}\t".encode() + os.fsencode(relative) + b"\0")
    env = {**env, "GIT_INDEX_FILE": str(repo / f"index-{name}")}
    _run([git, "--git-dir", str(repo), "update-index", "-z", "--index-info"], env,
         b"".join(entries))
    return _run([git, "--git-dir", str(repo), "write-tree"], env).decode().strip()


def diff_trees(before: Path | str, after: Path | str, *, ignore: Collection[str] = ()) -> str:
    """The patch that turns folder `before` into folder `after` (paths relative to both roots,
    `a/` and `b/` prefixes). `ignore` lists relative paths (files or folders) left out on both
    sides, e.g. the hidden tests a solver never saw. Neither folder is written to."""
    before, after = Path(before), Path(after)
    for folder in (before, after):
        if not folder.is_dir():
            raise TreeDiffError("not a folder", path=folder)
    git = _git()
    with tempfile.TemporaryDirectory(prefix="smellkit-diff-") as scratch:
        env = git_env(Path(scratch))
        repo = Path(scratch) / "store.git"
        _run([git, "init", "--quiet", "--bare", str(repo)], env)
        old = _tree(git, repo, before, ignore, env, "old")
        new = _tree(git, repo, after, ignore, env, "new")
        output = _run([git, "--git-dir", str(repo), "-c", "core.quotepath=true", "diff-tree",
                       "-p", "-M", "--no-color", "--no-ext-diff", "--no-textconv",
                       "--src-prefix=a/", "--dst-prefix=b/", old, new], env)
    return _decode(output)


_PATH_LINE = re.compile(rb"^(?:---|\+\+\+) (.*)$", re.MULTILINE)


def _decode(output: bytes) -> str:
    """The diff as text; a file whose lines are not UTF-8 is written as a binary change."""
    try:
        return output.decode("utf-8")
    except UnicodeDecodeError:
        pass
    blocks = re.split(rb"(?m)^(?=diff --git )", output)
    parts = []
    for block in blocks:
        try:
            parts.append(block.decode("utf-8"))
            continue
        except UnicodeDecodeError:
            pass
        names = _PATH_LINE.findall(block)
        head = re.split(rb"(?m)^(?:--- |@@ )", block, maxsplit=1)[0]
        if len(names) < 2:
            raise TreeDiffError("git wrote a change that is neither text nor binary")
        parts.append(head.decode("utf-8", "replace") + "Binary files "
                     + names[0].decode("ascii", "replace") + " and "
                     + names[1].decode("ascii", "replace") + " differ\n")
    return "".join(parts)
