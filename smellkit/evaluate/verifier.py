"""The scorer of an exported Harbor task, run inside its container by `tests/test.sh` after the
agent has finished, without network:

    python -I -S -B ... -m smellkit.evaluate.verifier --case /tests/case.json \\
        --smelly /tests/smelly.tar.gz --app /app --tests-dir /tests --out /logs/verifier \\
        --project-python /opt/project-env/bin/python

What the agent did is the difference between the pristine smelly tree (`smelly.tar.gz`, which
arrives with /tests after the agent phase, so the agent never had it) and `/app` as the agent left
it: the agent's own git history plays no part. That difference is written to
`prediction.patch` (what `smellkit evaluate --harbor-jobs` re-scores) and scored by the same code
as `smellkit evaluate` (`score_prediction`): applied to a copy with tamper detection, the hidden
tests copied in and the case's selected tests run with the image's project interpreter, the
signals measured against the original (the pristine tree plus the ground-truth patch from
`case.json`), the category derived. Nothing is fetched or installed.

Outputs in `--out`: `prediction.patch`, `score.json` (the `Score` row), `verdict.txt` (the
category and why, for a person) and, last, `reward.json` (see `reward_values`; the format rules
are in `smellkit.formats.harbor`). The exit code is 0 when a reward was written, whatever it is.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tarfile
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from smellkit.config import RepoSpec
from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.inputs.predictions import Origin, Prediction
from smellkit.evaluate.patches.apply import apply_patch_to_copy
from smellkit.evaluate.patches.parse import prefix_paths
from smellkit.evaluate.patches.treediff import diff_trees
from smellkit.evaluate.score import Score
from smellkit.evaluate.scoring import ScoreOptions, score_prediction
from smellkit.evaluate.workspace import Repository, Signals, load_signals, prepare_case
from smellkit.formats.harbor import (
    ERROR_CODES,
    PREDICTION_PATCH,
    REWARD_JSON,
    SCORE_JSON,
    VERDICT_TXT,
    write_reward,
)
from smellkit.formats.smellbench import from_row
from smellkit.sandbox.environment import Environment, base_env
from smellkit.sandbox.runner import LocalRunner, Runner

MODEL = "harbor"
"""The `model` of the row written in the container (the agent and model are Harbor's to know;
`smellkit evaluate --harbor-jobs` names rows `<agent>:<model>`)."""

CASE_FORMAT = 1
"""The version of `case.json`: {"format", "case" (a dataset row), "spec", "setting"}."""

_SCALARS = ("applied", "tests_passed", "tests_total", "tpr", "tests_timed_out",
            "full_suite_passed", "full_suite_total", "la", "loc_precision", "loc_recall",
            "red_herrings_touched", "residue", "checks_passed", "checks_total", "gt_precision",
            "gt_recall", "gt_f1", "gap_closed", "files_changed", "files_involved",
            "files_outside", "lines_outside", "equivalent", "resolved", "seconds",
            "test_seconds")
"""The numeric (and boolean) fields of `Score` copied into reward.json under their own names."""


def reward_values(score: Score) -> dict[str, float | int]:
    """reward.json for a scored row: `reward` (1.0 resolved, else 0.0), `error_category` as its
    code (`ERROR_CODES`), `tampered_scorer` and `tampered_environment` (0: the integrity checks
    passed, or the row would not exist), `scoring_errors` (how many problems the row lists),
    every numeric field of the row under its own name (booleans as 0/1) and each metric as
    `metric_<name>_<original|smelly|result>`. A field that was not measured (None) is left out."""
    values: dict[str, float | int] = {
        "reward": 1.0 if score.resolved else 0.0,
        "error_category": ERROR_CODES[score.error_category],
        "tampered_scorer": 0,
        "tampered_environment": 0,
        "scoring_errors": len(score.errors),
    }
    for name in _SCALARS:
        value = getattr(score, name)
        if value is None:
            continue
        values[name] = int(value) if isinstance(value, bool) else value
    for metric, delta in sorted(score.metrics.items()):
        for version in ("original", "smelly", "result"):
            number = getattr(delta, version)
            if number is not None:
                values[f"metric_{metric}_{version}"] = number
    return values


def failure_values(category: str) -> dict[str, float | int]:
    """reward.json when there is no row: reward 0 and the code of what happened."""
    return {"reward": 0.0, "error_category": ERROR_CODES[category],
            "tampered_scorer": int(category == "tampered_scorer"),
            "tampered_environment": int(category == "tampered_environment")}


def verdict(score: Score) -> str:
    """The category in words, with the evidence that decided it."""
    category = score.error_category
    tests = (f"{score.tests_passed}/{score.tests_total} selected tests pass"
             if score.tests_total is not None else "tests not run")
    if category == "resolved":
        head = "resolved"
    elif category == "tampered":
        head = f"tampered: {score.apply_reason}"
    elif category == "no_patch":
        head = "no_patch: the repository is as it was given (no change)"
    elif category == "apply_failed":
        head = f"apply_failed: the change could not be applied ({score.apply_status}: " \
               f"{score.apply_reason})"
    elif category == "broke_tests":
        head = f"broke_tests: {tests}"
    elif category == "wrong_location":
        head = "wrong_location: the change does not touch every target of the case " \
               f"(la={score.la})"
    elif category == "incomplete_fix":
        head = f"incomplete_fix: residue {score.residue}, structural checks " \
               f"{score.checks_passed}/{score.checks_total}"
        if score.failed_checks:
            head += "; failing: " + "; ".join(score.failed_checks[:5])
    else:
        head = f"{category}"
    lines = [f"reward {1.0 if score.resolved else 0.0}: {head}",
             f"tests: {tests}; la {score.la}; residue {score.residue}; checks "
             f"{score.checks_passed}/{score.checks_total}; files changed {score.files_changed}"]
    lines += [f"problem: {error}" for error in score.errors]
    return "\n".join(lines) + "\n"


def read_case(path: Path | str) -> tuple[EvalCase, RepoSpec, str]:
    """The case, its repository's spec and the instruction setting from `case.json`."""
    record = json.loads(Path(path).read_text(encoding="utf-8"))
    if record.get("format") != CASE_FORMAT:
        raise ValueError(f"{path}: case.json format {record.get('format')!r}, expected "
                         f"{CASE_FORMAT}")
    case = EvalCase.from_case(from_row(record["case"]))
    return case, RepoSpec.model_validate(record["spec"]), str(record.get("setting") or "")


def unpack(archive: Path | str, dest: Path) -> Path:
    """A tar archive of a tree (members relative to its root) into `dest`. Only files,
    folders and links that stay inside are accepted (the archive is the exporter's, but
    interpreters before 3.11.4, such as Debian 12's, have no `data` filter to rely on)."""
    dest.mkdir(parents=True)
    with tarfile.open(archive) as handle:
        members = handle.getmembers()
        for member in members:
            parts = Path(member.name).parts
            link = member.linkname if member.issym() else ""
            if member.name.startswith("/") or ".." in parts or not (
                    member.isfile() or member.isdir() or member.issym()) or (
                    link and (link.startswith("/") or _climbs(member.name, link))):
                raise ValueError(f"{archive}: refusing member {member.name!r}")
        if hasattr(tarfile, "data_filter"):
            handle.extractall(dest, members=members, filter="data")
        else:  # checked above
            handle.extractall(dest, members=members)
    return dest


def _climbs(name: str, link: str) -> bool:
    depth = len(Path(name).parts) - 1
    for part in Path(link).parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return True
    return False


def _copy_tests(tests_dir: Path, tests_path: str, tree: Path) -> None:
    source = tests_dir / tests_path
    if tests_path and source.is_dir():
        shutil.copytree(source, tree / tests_path, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def original_tree(pristine: Path, case: EvalCase, tests_dir: Path, work: Path) -> Path:
    """The original repository: the pristine smelly tree plus the ground-truth patch, with the
    hidden tests. Raises ValueError if the ground truth does not apply (a broken task)."""
    patch = prefix_paths(case.ground_truth_patch, case.source_path)
    outcome = apply_patch_to_copy(patch, pristine, work, name="original")
    if outcome.status not in ("applied", "empty") or outcome.root is None:
        why = "; ".join((*outcome.problems, *outcome.attempts)) or outcome.reason
        raise ValueError(f"the ground-truth patch does not apply to the smelly tree: {why}")
    root = Path(outcome.root)
    _copy_tests(tests_dir, case.tests_path.strip("/"), root)
    return root


def project_environment(python: Path, spec: RepoSpec) -> Environment:
    """The image's environment for the repository's tests: its venv (the folder above
    `bin/python`), PATH first, the spec's variables."""
    venv = python.parent.parent
    return Environment(root=venv, python=python, env=base_env(venv, spec),
                       source_path=spec.source_path)


def generated_paths(listing: Path | None) -> tuple[str, ...]:
    """The paths (relative to /app) the image build's install commands wrote, from the list
    the build made; none when there is no list."""
    if listing is None or not listing.is_file():
        return ()
    lines = listing.read_text(encoding="utf-8", errors="replace").splitlines()
    return tuple(line.removeprefix("./") for line in lines if line.strip())


def verify(case_file: Path, smelly_archive: Path, app: Path, tests_dir: Path, out: Path, *,
           project_python: Path, generated: Path | None = None, signals: Signals | None = None,
           runner: Runner | None = None, work: Path | None = None) -> Score:
    """Score `app` against the pristine smelly tree and write every output but reward.json
    (see `main`); returns the row. `generated` lists files of `app` the image build made,
    which are not the agent's. Raises for a broken task (unreadable case, a ground truth
    that does not apply, an app folder that cannot be read), never for what the agent did."""
    case, spec, setting = read_case(case_file)
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="smellkit-verify-", dir=work))
    try:
        pristine = unpack(smelly_archive, scratch / "pristine")
        patch = diff_trees(pristine, app, ignore=generated_paths(generated))
        (out / PREDICTION_PATCH).write_text(patch, encoding="utf-8")
        smelly = scratch / "smelly"
        shutil.copytree(pristine, smelly, symlinks=True)
        _copy_tests(tests_dir, case.tests_path.strip("/"), smelly)
        original = original_tree(pristine, case, tests_dir, scratch)
        repository = Repository(spec=spec, cache=scratch, checkout=original,
                                facts=scratch / "facts",
                                env=project_environment(project_python, spec),
                                runner=runner or LocalRunner())
        chosen = signals if signals is not None else load_signals()
        prepared = prepare_case(repository, case, smelly, chosen)
        prediction = Prediction(instance_id=case.instance_id, model=MODEL, patch=patch,
                                source=Origin(path=str(app)), setting=setting or None)
        score = score_prediction(prepared, prediction, chosen,
                                 ScoreOptions(tests=True, scratch=scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    (out / SCORE_JSON).write_text(score.model_dump_json(indent=2) + "\n", encoding="utf-8")
    (out / VERDICT_TXT).write_text(verdict(score), encoding="utf-8")
    return score


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m smellkit.evaluate.verifier",
                                     description="Score an exported Harbor task's /app.")
    parser.add_argument("--case", type=Path, required=True, help="tests/case.json")
    parser.add_argument("--smelly", type=Path, required=True, help="tests/smelly.tar.gz")
    parser.add_argument("--app", type=Path, required=True, help="the agent's repository")
    parser.add_argument("--tests-dir", type=Path, required=True,
                        help="the folder holding the hidden tests (tests/<tests-path>)")
    parser.add_argument("--out", type=Path, required=True, help="/logs/verifier")
    parser.add_argument("--project-python", type=Path, required=True,
                        help="the interpreter of the repository's environment")
    parser.add_argument("--generated", type=Path, default=None,
                        help="files of the app the image build wrote (not the agent's work)")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default TMP)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Score, then write reward.json; a crash still writes a reward (0, `verifier_error`) and
    the traceback goes to stderr (Harbor keeps it in test-stdout.txt)."""
    args = _parser().parse_args(argv)
    started = time.perf_counter()
    out: Path = args.out
    values: dict[str, Any]
    try:
        score = verify(args.case, args.smelly, args.app, args.tests_dir, out,
                       project_python=args.project_python, generated=args.generated,
                       work=args.work)
        values = reward_values(score)
    except Exception as error:
        traceback.print_exc()
        out.mkdir(parents=True, exist_ok=True)
        (out / VERDICT_TXT).write_text(
            f"reward 0.0: verifier_error: the scorer failed: {type(error).__name__}: {error}\n",
            encoding="utf-8")
        values = failure_values("verifier_error")
    write_reward(out / REWARD_JSON, values)
    print(f"smellkit verifier: reward {values['reward']} in "
          f"{time.perf_counter() - started:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
