"""The folder an agent works in, and what is read back from it.

Per case and run, under a work folder:

```
<case>/
  base.git/          a copy of the workspace's repository, out of the agent's reach (in a
                     container; its configuration and excludes are rewritten before use in any
                     case): the patch is computed with it, so whatever the agent does to .git
                     (commits, resets, excludes, hooks) changes nothing about what is recorded
  sandbox/           all the agent sees (the Docker runner mounts only this folder)
    workspace/       the smelly repository at the case's revision, tests folder removed,
                     committed as the only commit of a fresh git repository
    home/  tmp/      HOME and TMPDIR
    io/              the prompt file, and the files agents write for us (trajectories, usage)
```

The smelly tree is made as scoring makes it (`evaluate.workspace.make_smelly_tree`: the build's
cached checkout plus the case's smelly patch), then moved into place.

The patch: `git add -A` into base.git's index, then `git diff --cached --binary -M` against the
initial commit, so new, deleted, renamed and binary files are all in it. The repository's own
.gitignore files count, as in any checkout; on top of them, `SCRATCH_PATTERNS` (base.git's
`info/exclude`) leave out what agents and tools write for themselves.

Writes outside the workspace: the local runner does not confine the agent (it runs as you, with
HOME and TMPDIR pointed at the run's scratch folders; use the Docker runner to confine it), but
anything it leaves in the folders around its workspace (`sandbox/`, `<case>/`) is found and
reported (`outside_writes`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from smellkit.agents.base import AgentError
from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.patches.treediff import git_env
from smellkit.evaluate.workspace import Repository, make_smelly_tree

SCRATCH_PATTERNS = (
    ".aider*", ".claude/", ".codex/", ".qwen/", ".openhands/", ".openhands-state/",
    ".mini-swe-agent/", "__pycache__/", "*.pyc", "*.pyo", ".pytest_cache/", ".mypy_cache/",
    ".ruff_cache/", ".hypothesis/", ".coverage", ".coverage.*", "*.egg-info/", ".venv/",
    ".tox/", ".nox/", "node_modules/",
)
"""What is never part of an agent's patch, at any depth: the agents' own state and chat
histories (`.aider*`, `.claude/`, ...), caches and bytecode, environments and packages the
agent installed. Kept in base.git's `info/exclude`, which the agent cannot reach."""

INITIAL_MESSAGE = "Initial commit"
AUTHOR = ("smellkit", "smellkit@localhost")
FIXED_DATE = "2000-01-01T00:00:00+0000"
EXPECTED = {"sandbox": {"workspace", "home", "tmp", "io"}, "case": {"sandbox", "base.git"}}


@dataclass(frozen=True)
class Workspace:
    root: Path
    base_git: Path
    sandbox: Path
    workspace: Path
    home: Path
    tmp: Path
    io: Path
    base_commit: str
    removed: tuple[str, ...]
    """The hidden paths taken out of the repository (the tests folder, the selected tests)."""

    @classmethod
    def layout(cls, root: Path, base_commit: str = "",
               removed: tuple[str, ...] = ()) -> Workspace:
        sandbox = root / "sandbox"
        return cls(root=root, base_git=root / "base.git", sandbox=sandbox,
                   workspace=sandbox / "workspace", home=sandbox / "home", tmp=sandbox / "tmp",
                   io=sandbox / "io", base_commit=base_commit, removed=removed)


def _git(args: list[str], env: dict[str, str], *, cwd: Path | None = None,
         git_dir: Path | None = None, work_tree: Path | None = None,
         timeout: float = 600) -> bytes:
    git = shutil.which("git")
    if git is None:
        raise AgentError("git is needed to record an agent's patch", hint="install git")
    prefix = [git]
    if git_dir is not None:
        prefix += ["--git-dir", str(git_dir)]
    if work_tree is not None:
        prefix += ["--work-tree", str(work_tree)]
    done = subprocess.run([*prefix, "-c", "core.quotepath=true", "-c", "core.autocrlf=false",
                           "-c", "core.fileMode=true", *args], cwd=cwd, env=env,
                          capture_output=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise AgentError(f"git {args[0]} failed: "
                         f"{done.stderr.decode(errors='replace').strip()[-500:]}")
    return done.stdout


def hidden_paths(case: EvalCase, tests_path: str) -> tuple[str, ...]:
    """The tests folder (the case's, else the spec's) and the files of the selected tests."""
    paths = [case.tests_path or tests_path.strip("/")]
    paths += [test.split("::", 1)[0] for test in case.tests]
    return tuple(sorted({path.strip("/") for path in paths if path.strip("/") not in ("", ".")}))


def _remove(root: Path, relative: str) -> bool:
    target = root / relative
    inside = os.path.realpath(target).startswith(os.path.realpath(root) + os.sep)
    if not inside or not (target.exists() or target.is_symlink()):
        return False
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    else:
        target.unlink()
    return True


def prepare_workspace(repository: Repository, case: EvalCase, root: Path) -> Workspace:
    """A fresh workspace for `case` at `root` (anything there is removed first). Raises
    EvaluateError when the smelly patch does not apply, AgentError when git fails."""
    shutil.rmtree(root, ignore_errors=True)
    layout = Workspace.layout(root)
    for folder in (layout.home, layout.tmp, layout.io):
        folder.mkdir(parents=True)
    tree = make_smelly_tree(repository, case, root / "prepare")
    tree.rename(layout.workspace)
    shutil.rmtree(root / "prepare", ignore_errors=True)
    removed = tuple(path for path in hidden_paths(case, repository.spec.tests_path)
                    if _remove(layout.workspace, path))
    env = {**git_env(layout.tmp), "GIT_AUTHOR_NAME": AUTHOR[0], "GIT_AUTHOR_EMAIL": AUTHOR[1],
           "GIT_COMMITTER_NAME": AUTHOR[0], "GIT_COMMITTER_EMAIL": AUTHOR[1],
           "GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE}
    work = layout.workspace
    _git(["init", "--quiet", "--initial-branch=main", str(work)], env)
    with open(work / ".git" / "config", "a", encoding="utf-8") as config:
        config.write(f"[user]\n\tname = {AUTHOR[0]}\n\temail = {AUTHOR[1]}\n")  # commits work
    _git(["add", "-A"], env, cwd=work)
    _git(["commit", "--quiet", "--no-verify", "--allow-empty", "-m", INITIAL_MESSAGE], env,
         cwd=work)
    commit = (work / ".git" / "refs" / "heads" / "main").read_text().strip()
    # one pack instead of a loose object per file in up to 256 folders: the two copies of
    # the repository are then cheap to make and to remove
    _git(["repack", "-a", "-d", "-q"], env, cwd=work)
    _git(["prune-packed", "-q"], env, cwd=work)
    shutil.copytree(work / ".git", layout.base_git, symlinks=True)
    _own_settings(layout.base_git)
    return Workspace.layout(root, commit, removed)


def _own_settings(base_git: Path) -> None:
    """base.git's configuration and excludes as smellkit writes them: rewritten before the
    patch is taken, so an agent that reached them (local runner) cannot hide its changes."""
    (base_git / "config").write_text("[core]\n\trepositoryformatversion = 0\n"
                                      "\tfilemode = true\n\tbare = false\n")
    (base_git / "info").mkdir(exist_ok=True)
    (base_git / "info" / "exclude").write_text("\n".join(SCRATCH_PATTERNS) + "\n")


def capture_patch(workspace: Workspace) -> str:
    """The diff from the initial commit to the workspace as it is now, with new, deleted,
    renamed and binary files; text that is not UTF-8 is kept with replacement characters."""
    env = git_env(workspace.root)
    _own_settings(workspace.base_git)

    def git(args: list[str]) -> bytes:
        return _git(args, env, cwd=workspace.workspace, git_dir=workspace.base_git,
                    work_tree=workspace.workspace)

    git(["add", "-A", "--", "."])
    output = git(["diff", "--cached", "--binary", "-M", "--no-color", "--no-ext-diff",
                  "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", workspace.base_commit,
                  "--"])
    return output.decode("utf-8", errors="replace")


def _listing(folder: Path) -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
        try:
            stat = path.lstat()
        except OSError:
            continue
        found[path.relative_to(folder).as_posix()] = (stat.st_mtime_ns, stat.st_size)
    return found


def snapshot(workspace: Workspace) -> dict[str, tuple[int, int]]:
    """What lies around the workspace (not inside its own folders) and base.git, to compare
    after the run (before the patch is taken, which writes base.git's index)."""
    found: dict[str, tuple[int, int]] = {
        f"base.git/{name}": value for name, value in _listing(workspace.base_git).items()}
    for level, folder in (("sandbox", workspace.sandbox), ("case", workspace.root)):
        for entry in sorted(folder.iterdir()) if folder.is_dir() else ():
            if entry.name in EXPECTED[level]:
                continue
            relative = entry.relative_to(workspace.root).as_posix()
            found[relative] = (entry.lstat().st_mtime_ns, entry.lstat().st_size)
            if entry.is_dir() and not entry.is_symlink():
                found.update({f"{relative}/{name}": value
                              for name, value in _listing(entry).items()})
    return found


def outside_writes(workspace: Workspace, before: dict[str, tuple[int, int]]) -> list[str]:
    """Paths (relative to the case folder) created or changed around the workspace since
    `before`; the agent had no business writing them."""
    after = snapshot(workspace)
    return sorted(path for path, value in after.items() if before.get(path) != value)
