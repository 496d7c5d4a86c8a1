"""Apply one prediction's patch to an isolated copy of a case's smelly repository.

The source tree is only read. The patch is parsed and checked first (see `guard` for what is
refused and what counts as tampering); only then is the tree copied and the patch applied,
trying in order `git apply`, `git apply --recount --ignore-whitespace` (hunk counts off,
whitespace drift) and GNU `patch -p1 --fuzz=2` (context drift; first as a dry run, since
`patch` is not all-or-nothing). Afterwards the copy is compared with the source: every changed
path must be one the patch names, no new symlink may point outside the copy, and the source must
be as it was. As every named path was checked to be inside the repository and not to go through
a symlink, this is what keeps all writes inside the copy. Every outcome is a value; nothing here
raises for a bad patch.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from smellkit.evaluate.errors import EvaluateError
from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.inputs.predictions import Prediction
from smellkit.evaluate.patches.guard import (
    changed_paths,
    config_problem,
    escaping_links,
    patch_problems,
    protected_paths,
    snapshot,
    tamper_problem,
)
from smellkit.evaluate.patches.parse import (
    AmbiguousPatchError,
    FileChange,
    PatchFormatError,
    normal_folder,
    parse_patch,
    prefix_paths,
)
from smellkit.evaluate.patches.treediff import git_env, skipped

ApplyStatus = Literal["applied", "empty", "apply_failed", "refused", "tampered"]

METHODS = ("git apply", "git apply --recount --ignore-whitespace", "patch -p1 --fuzz=2")
"""How a patch is applied, in the order tried; `ApplyOutcome.method` names the one that worked."""


class ApplyOutcome(BaseModel):
    """What became of one patch. `empty` is scored as the unchanged smelly code; `refused` and
    `tampered` name every reason found (`problems`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: ApplyStatus
    reason: str = ""
    problems: tuple[str, ...] = ()
    method: str | None = None
    root: str | None = None
    """The copy, for `applied`, `empty` and a `tampered` found after applying; else None."""
    changes: tuple[FileChange, ...] = ()
    attempts: tuple[str, ...] = ()
    """Why each method tried before the one that worked (or all of them) failed."""

    @property
    def usable(self) -> bool:
        """Whether the copy at `root` is a solver's result that may be tested and scored."""
        return self.status in ("applied", "empty")


def _outcome(status: ApplyStatus, problems: Iterable[str], **fields: object) -> ApplyOutcome:
    items = tuple(problems)
    return ApplyOutcome.model_validate({"status": status, "problems": items,
                                        "reason": "; ".join(items), **fields})


def _copy(tree: Path, dest: Path) -> None:
    """Copy without caches, VCS data or special files; symlinks stay links."""
    def ignore(folder: str, names: list[str]) -> set[str]:
        left_out = set()
        for name in names:
            mode = os.lstat(os.path.join(folder, name)).st_mode
            if skipped(name) or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)
                                     or stat.S_ISLNK(mode)):
                left_out.add(name)
        return left_out

    shutil.copytree(tree, dest, symlinks=True, ignore=ignore)


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> str | None:
    """None when the command succeeded, else the first lines of what it said."""
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:.0f}s"
    if done.returncode == 0:
        return None
    said = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()
    return "; ".join(said[:4]) or f"exit code {done.returncode}"


def _apply(patch: bytes, root: Path, timeout: float) -> tuple[str | None, list[str]]:
    """Try each method in turn; the one that worked (or None) and why the others failed."""
    attempts: list[str] = []
    git, gnu_patch = shutil.which("git"), shutil.which("patch")
    with tempfile.TemporaryDirectory(prefix="smellkit-apply-") as scratch:
        patch_file = Path(scratch) / "prediction.diff"
        patch_file.write_bytes(patch)
        # No repository: git apply then works like `patch`, and no enclosing one is touched.
        env = {**git_env(Path(scratch)), "GIT_DIR": str(Path(scratch) / "no-repository")}
        for method in METHODS:
            if method.startswith("git"):
                if git is None:
                    attempts.append(f"{method}: git is not installed")
                    continue
                extra = method.split()[2:]
                failed = _run([git, "apply", "--whitespace=nowarn", *extra, str(patch_file)],
                              root, env, timeout)
            else:
                if gnu_patch is None:
                    attempts.append(f"{method}: patch is not installed")
                    continue
                argv = [gnu_patch, "-p1", "--fuzz=2", "--batch", "--forward", "--silent",
                        "--no-backup-if-mismatch", "--reject-file=-", "-i", str(patch_file)]
                failed = (_run([*argv, "--dry-run"], root, env, timeout)
                          or _run(argv, root, env, timeout))
            if failed is None:
                return method, attempts
            attempts.append(f"{method}: {failed}")
    return None, attempts


def apply_patch_to_copy(patch: str, smelly_tree: Path | str, scratch: Path | str, *,
                        protected: Iterable[str] = (), name: str = "repo",
                        timeout: float = 120.0) -> ApplyOutcome:
    """Apply `patch` (paths relative to the repository root) to a copy of `smelly_tree` made
    at `scratch/name`. `protected` lists the hidden tests and the tests folder (files, folders
    or node ids). Raises EvaluateError only for a caller's mistake (a missing tree, a copy
    destination that exists)."""
    tree = Path(smelly_tree).resolve()
    scratch = Path(scratch)
    if not tree.is_dir():
        raise EvaluateError("the smelly tree is not a folder", path=tree)
    if name in ("", ".", "..") or "/" in name or os.sep in name:
        raise EvaluateError(f"bad copy name {name!r}", hint="one folder name, e.g. the id")
    scratch.mkdir(parents=True, exist_ok=True)
    dest = scratch.resolve() / name
    if dest.exists() or os.path.lexists(dest):
        raise EvaluateError("copy destination already exists", path=dest,
                            hint="give a fresh scratch folder or name per prediction")
    if dest.is_relative_to(tree):
        raise EvaluateError("the scratch folder is inside the smelly tree", path=dest)
    guarded = protected_paths(protected)
    source = snapshot(tree)

    if not patch.strip():
        _copy(tree, dest)
        return _outcome("empty", (), root=str(dest), reason="empty patch: scored as no change")
    try:
        changes = parse_patch(patch)
        data = patch.encode("utf-8", "surrogateescape")
    except AmbiguousPatchError as error:
        return _outcome("refused", [error.message])
    except (PatchFormatError, UnicodeEncodeError) as error:
        return _outcome("apply_failed", [f"malformed patch: {error}"])
    refusals = patch_problems(changes, tree)
    if refusals:
        return _outcome("refused", refusals, changes=changes)
    named = {path for change in changes for path in change.paths}
    tampering = [problem for path in sorted(named)
                 if (problem := tamper_problem(path, guarded))]
    if tampering:
        return _outcome("tampered", tampering, changes=changes)

    _copy(tree, dest)
    method, attempts = _apply(data, dest, timeout)
    if method is None:
        shutil.rmtree(dest)
        return _outcome("apply_failed", ["the patch does not apply"], changes=changes,
                        attempts=tuple(attempts))
    after = snapshot(dest, every_name=True)
    changed = changed_paths(tree, source, dest, after)
    problems = [f"{path}: changed, but the patch does not name it"
                for path in sorted(changed - named)]
    problems += [f"{path}: symbolic link pointing outside the repository"
                 for path in escaping_links(dest, after) if path in changed]
    if snapshot(tree) != source:
        problems.append(f"{tree}: the source tree changed while the patch was applied")
    if problems:
        shutil.rmtree(dest)
        return _outcome("refused", problems, changes=changes, method=method,
                        attempts=tuple(attempts))
    tampering = [problem for path in sorted(changed)
                 if (problem := tamper_problem(path, guarded) or config_problem(path, tree, dest))]
    status: ApplyStatus = "tampered" if tampering else "applied"
    return _outcome(status, tampering, changes=changes, method=method, root=str(dest),
                    attempts=tuple(attempts))


def apply_prediction(prediction: Prediction, case: EvalCase, smelly_tree: Path | str,
                     scratch: Path | str, *, name: str = "repo",
                     timeout: float = 120.0) -> ApplyOutcome:
    """`apply_patch_to_copy` for a prediction, protecting the case's tests folder and tests."""
    return apply_patch_to_copy(prediction.patch, smelly_tree, scratch,
                               protected=case.protected_paths(), name=name, timeout=timeout)


def rooted(prediction: Prediction, case: EvalCase, smelly_tree: Path | str) -> Prediction:
    """The prediction with its paths moved under the case's source path when it was written
    from there, as the dataset's own patches are (`ground_truth_patch`, `smelly_patch`): every
    file it changes or deletes exists under the source path and none at the repository root.
    Submitting a case's ground truth as a prediction is then scored as the oracle is, by every
    signal that reads the patch."""
    patch = _rooted(prediction.patch, case.source_path, Path(smelly_tree))
    return prediction if patch == prediction.patch else \
        prediction.model_copy(update={"patch": patch})


def _rooted(patch: str, source_path: str, tree: Path) -> str:
    folder = normal_folder(source_path)
    if not folder or not patch.strip():
        return patch
    try:
        changes = parse_patch(patch)
    except (AmbiguousPatchError, PatchFormatError):
        return patch  # refused with its reason when applied
    old = [change.old_path for change in changes if change.old_path is not None]
    if not old or any((tree / path).exists() for path in old) or \
            not all((tree / folder / path).is_file() for path in old):
        return patch
    try:
        return prefix_paths(patch, folder)
    except PatchFormatError:
        return patch
