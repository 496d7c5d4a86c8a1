"""The pristine source tree of a repository, fetched once, and isolated copies of it for cases.

The user's checkout (a `path` source) and the cached tree are read-only inputs: every install, test
run and injected smell works on a copy, so one case can never leak into another.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from smellkit.config import RepoSpec
from smellkit.project import is_environment
from smellkit.sandbox.errors import SandboxError

COPY_EXCLUDES = frozenset({
    ".git", ".hg", ".svn", "__pycache__", ".venv", ".tox", ".nox", ".pytest_cache",
    ".mypy_cache", ".ruff_cache", ".hypothesis", ".eggs", ".coverage", "htmlcov",
})
"""Names never copied into a case: version control, environments, caches, coverage data. Other
environments are known by what they hold (`project.is_environment`): `venv/` may be a package."""

COMPLETE = ".smellkit-complete"
"""Written last into a fetched tree, so an interrupted fetch is redone, not trusted."""


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive file lock, so parallel builds fetch or install a repository only once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _key(spec: RepoSpec) -> str:
    identity = f"{spec.source.kind}\0{spec.source.git or spec.source.pypi}\0{spec.revision}"
    return f"{spec.name}-{hashlib.sha256(identity.encode()).hexdigest()[:12]}"


def fetch(spec: RepoSpec, cache_dir: Path) -> Path:
    """The pristine source tree of `spec`: the local folder itself, or a cached download."""
    local = spec.local_path()
    if local is not None:
        if not local.is_dir():
            raise SandboxError("source folder does not exist", path=local,
                               hint="fix source.path (relative to the spec file)")
        return local
    target = Path(cache_dir) / "sources" / _key(spec)
    with locked(target.with_suffix(".lock")):
        if (target / COMPLETE).exists():
            return target
        shutil.rmtree(target, ignore_errors=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".fetch-") as scratch:
            tree = (_fetch_pypi(spec, Path(scratch)) if spec.source.pypi is not None
                    else _fetch_git(spec, Path(scratch)))
            (tree / COMPLETE).write_text(spec.revision + "\n")
            tree.rename(target)
    return target


def _run(command: list[str], what: str, spec: RepoSpec, timeout: float) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as error:
        raise SandboxError(f"{what} timed out after {timeout:.0f}s", path=spec.spec_path,
                           hint="check the network, or raise timeouts.install") from error
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise SandboxError(f"{what} failed: {tail}", path=spec.spec_path)


def _fetch_pypi(spec: RepoSpec, scratch: Path) -> Path:
    requirement = str(spec.source.pypi)
    download = scratch / "download"
    _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
          requirement, "-d", str(download)], f"pip download {requirement} (field source.pypi)",
         spec, spec.timeouts.install)
    archives = [item for item in download.iterdir() if item.is_file()]
    if len(archives) != 1:
        raise SandboxError(f"expected one sdist for {requirement}, got {len(archives)}",
                           path=spec.spec_path)
    unpacked = scratch / "unpacked"
    archive = archives[0]
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as handle:
            handle.extractall(unpacked)
    else:
        with tarfile.open(archive) as handle:
            handle.extractall(unpacked, filter="data")
    tops = list(unpacked.iterdir())
    return tops[0] if len(tops) == 1 and tops[0].is_dir() else unpacked


def _fetch_git(spec: RepoSpec, scratch: Path) -> Path:
    tree = scratch / "tree"
    commit = str(spec.source.commit)
    _run(["git", "clone", "--quiet", "--no-checkout", str(spec.source.git), str(tree)],
         "git clone (field source.git)", spec, spec.timeouts.install)
    _run(["git", "-C", str(tree), "-c", "advice.detachedHead=false", "checkout", "--quiet",
          commit], f"git checkout {commit} (field source.commit)", spec, spec.timeouts.install)
    return tree


def ignored_in_copies(folder: str, names: list[str]) -> set[str]:
    """What `shutil.copytree` leaves out of a copy of a repository (its `ignore` callback)."""
    return {name for name in names
            if name in COPY_EXCLUDES or name.endswith((".pyc", ".pyo")) or name == COMPLETE
            or name.endswith(".egg-info") or is_environment(Path(folder, name))}


def copy_tree(src: Path, dest: Path) -> Path:
    """An isolated copy of `src` at `dest` (which must not exist), without VCS data and caches.

    Symlinks are copied as links, so a link out of the tree is not followed into a huge folder.
    """
    src, dest = Path(src), Path(dest)
    if dest.exists():
        raise SandboxError("copy destination already exists", path=dest,
                           hint="give a fresh folder per case")
    shutil.copytree(src, dest, symlinks=True, ignore=ignored_in_copies)
    return dest


def tree_hash(root: Path, *, extra: str = "") -> str:
    """A content hash of the files `copy_tree` would copy: the cache key of a test map."""
    digest = hashlib.sha256(extra.encode())
    root = Path(root)
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(name for name in dirs if not ignored_in_copies(folder, [name]))
        for name in sorted(files):
            if ignored_in_copies(folder, [name]):
                continue
            path = Path(folder) / name
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            try:
                digest.update(hashlib.sha256(path.read_bytes()).digest())
            except OSError:
                digest.update(b"<unreadable>")
    return digest.hexdigest()[:16]
