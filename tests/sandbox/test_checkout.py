"""Fetching pristine trees and copying them: local folders are used as is and never written."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from smellkit.config import parse_repo_spec
from smellkit.sandbox.checkout import COMPLETE, copy_tree, fetch, tree_hash
from smellkit.sandbox.errors import SandboxError

TINY = Path(__file__).parent / "fixtures" / "tinyrepo"


def test_path_source_is_the_folder_itself(tmp_path: Path) -> None:
    spec = parse_repo_spec({"name": "tiny", "source": {"path": str(TINY)}})
    before = tree_hash(TINY)
    assert fetch(spec, tmp_path) == TINY.resolve()
    assert tree_hash(TINY) == before
    assert not (tmp_path / "sources").exists()


def test_missing_path_source_says_which_field(tmp_path: Path) -> None:
    spec = parse_repo_spec({"name": "tiny", "source": {"path": str(tmp_path / "gone")}})
    with pytest.raises(SandboxError, match=r"source\.path"):
        fetch(spec, tmp_path)


def test_copy_leaves_out_vcs_caches_and_environments(tmp_path: Path) -> None:
    source = tmp_path / "repo"
    shutil.copytree(TINY, source)
    for junk in (".git/HEAD", "src/tinypkg/__pycache__/x.pyc", ".venv/bin/python",
                 ".pytest_cache/v", "tinypkg.egg-info/PKG-INFO", "src/tinypkg/old.pyc"):
        (source / junk).parent.mkdir(parents=True, exist_ok=True)
        (source / junk).write_text("junk")
    (source / "link").symlink_to("/usr")
    copy = copy_tree(source, tmp_path / "copy")
    files = sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(TINY).as_posix() for p in TINY.rglob("*")
                           if p.is_file())
    assert (copy / "link").is_symlink()  # copied as a link, not followed into /usr
    assert tree_hash(copy) == tree_hash(source) == tree_hash(TINY)
    (copy / "src" / "tinypkg" / "util.py").write_text("changed = True\n")
    assert tree_hash(copy) != tree_hash(TINY)
    with pytest.raises(SandboxError, match="already exists"):
        copy_tree(source, copy)


def test_copy_knows_an_environment_by_its_content_not_its_name(tmp_path: Path) -> None:
    source = tmp_path / "repo"
    shutil.copytree(TINY, source)
    (source / "src" / "venv").mkdir()
    (source / "src" / "venv" / "__init__.py").write_text("NAME = 'a package named venv'\n")
    (source / "env-3.11").mkdir()
    (source / "env-3.11" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (source / "env-3.11" / "lib.py").write_text("junk")
    copy = copy_tree(source, tmp_path / "copy")
    assert (copy / "src" / "venv" / "__init__.py").is_file()
    assert not (copy / "env-3.11").exists()


def test_git_source_is_cloned_at_the_commit_once(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    origin = tmp_path / "origin"
    shutil.copytree(TINY, origin)

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(origin), "-c", "user.name=t", "-c",
                               "user.email=t@example.org", *args], check=True,
                              capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "first")
    first = git("rev-parse", "HEAD")
    (origin / "src" / "tinypkg" / "util.py").write_text("later = True\n")
    git("commit", "-q", "-am", "second")
    spec = parse_repo_spec({"name": "tiny", "source": {"git": str(origin), "commit": first}})
    tree = fetch(spec, tmp_path / "cache")
    assert (tree / COMPLETE).is_file()
    assert "def scaled" in (tree / "src" / "tinypkg" / "util.py").read_text()  # the old commit
    assert fetch(spec, tmp_path / "cache") == tree  # cached: no second clone
    bad = parse_repo_spec({"name": "tiny", "source": {"git": str(origin), "commit": "f" * 40}})
    with pytest.raises(SandboxError, match=r"source\.commit"):
        fetch(bad, tmp_path / "cache")
