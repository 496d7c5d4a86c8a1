"""Harbor task directories: one per case, runnable by the `harbor` framework.

Layout (Harbor's `TaskPaths`): `task.toml`, `instruction.md`, `environment/Dockerfile` (the smelly
repository, without its tests, committed to git and tagged), `tests/test.sh` (saves the agent's
diff against that commit as `/logs/verifier/prediction.patch` for `smellkit evaluate`, copies the
hidden tests in, runs the selected ones, writes a numeric `/logs/verifier/reward.json`),
`solution/solve.sh` (applies the ground truth).
The repository's tests live only under `tests/`, so an agent never sees what it is scored with.
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
from pathlib import Path
from typing import Any

from smellkit.config import RepoSpec
from smellkit.formats.smellbench import to_smellbench
from smellkit.models import Case, InstructionSetting

APP = "/app"
SKIPPED_NAMES = {".git", "__pycache__", ".venv", ".tox", ".nox", ".pytest_cache", ".mypy_cache",
                 ".ruff_cache", ".smellkit-complete"}

BASE_TAG = "smellkit-smelly"
"""The image's commit of the code to refactor: the verifier diffs the agent's work against it."""
_EXCLUDED = r"__pycache__/\n*.py[co]\n.pytest_cache/\n.mypy_cache/\n.ruff_cache/\n*.egg-info/\n"
"""Never part of a prediction: what running the code and its tools leaves behind."""

_REWARD_PY = '''\
"""Harbor's numeric reward from pytest's JUnit XML: 1.0 only if every selected test passed."""
import json
import sys
import xml.etree.ElementTree as ET

junit, expected, out, status = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
tests = failures = 0
try:
    root = ET.parse(junit).getroot()
    for suite in ([root] if root.tag == "testsuite" else list(root)):
        tests += int(suite.get("tests", 0))
        failures += sum(int(suite.get(key, 0)) for key in ("failures", "errors", "skipped"))
except (OSError, ET.ParseError, ValueError):
    tests = failures = 0
passed = max(tests - failures, 0)
reward = 1.0 if status == 0 and tests >= expected and passed >= expected else 0.0
with open(out, "w") as handle:
    json.dump({"reward": reward, "tests_passed": passed, "tests_total": expected}, handle)
'''

_UNPACK_PY = '''\
"""Unpack the source archive (tar or zip) into the target folder, without its top folder."""
import pathlib
import shutil
import sys
import tarfile
import zipfile

archive, target = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
scratch = pathlib.Path("/tmp/unpacked")
if archive.name.endswith(".zip"):
    zipfile.ZipFile(archive).extractall(scratch)
else:
    tarfile.open(archive).extractall(scratch, filter="data")
(top,) = list(scratch.iterdir())
target.mkdir(parents=True, exist_ok=True)
for item in top.iterdir():
    shutil.move(str(item), target / item.name)
'''


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def toml_text(tables: dict[str, Any]) -> str:
    """A small TOML writer for flat tables of strings, numbers, booleans and lists (enough for
    task.toml; the standard library only reads TOML)."""
    lines: list[str] = []
    for key, value in tables.items():
        if not isinstance(value, dict):
            lines.append(f"{key} = {_toml_value(value)}")
    for key, value in tables.items():
        if isinstance(value, dict):
            lines.append(f"\n[{key}]")
            lines.extend(f"{name} = {_toml_value(item)}" for name, item in value.items())
    return "\n".join(lines) + "\n"


def _directory_flag(spec: RepoSpec) -> str:
    path = spec.source_path.strip("/")
    return f" --directory={shlex.quote(path)}" if path else ""


def task_config(case: Case, spec: RepoSpec) -> dict[str, Any]:
    """The task.toml tables (Harbor's `TaskConfig`)."""
    return {
        "schema_version": "1.4",
        "source": "smellkit",
        "task": {
            "name": f"smellkit/{case.instance_id}",
            "description": f"Remove an injected {case.smell} smell ({case.difficulty}) from "
                           f"{case.repo}, keeping behaviour",
            "keywords": ["refactoring", case.smell, case.difficulty, case.repo],
        },
        "metadata": {
            "instance_id": case.instance_id,
            "smell": case.smell,
            "smellbench_type": to_smellbench(case.smell),
            "difficulty": case.difficulty,
            "repo": case.repo,
            "revision": case.revision,
            "files": list(case.files),
            "targets": [target.location.qualname for target in case.targets],
            "target_level": sorted({target.level for target in case.targets}),
            "selected_tests": len(case.tests),
            "llm_tokens": case.llm_tokens,
        },
        "verifier": {"timeout_sec": float(spec.timeouts.test + 300)},
        "agent": {"timeout_sec": 3600.0},
        "environment": {"build_timeout_sec": float(spec.timeouts.install + 600), "cpus": 1,
                        "memory_mb": 4096, "workdir": APP},
    }


def dockerfile(case: Case, spec: RepoSpec) -> str:
    """The agent's environment: the smelly repository at /app, installed, without its tests.

    Fetching, patching and deleting the tests happen in one RUN step, so no image layer holds
    the tests. The tree is then committed to a fresh git repository, so an agent's diff is
    against the smelly version and no history reveals the original.
    """
    source = spec.source
    tests = shlex.quote(f"{APP}/{spec.tests_path.strip('/')}")
    steps: list[str] = []
    if source.pypi is not None:
        fetch = (f"python -m pip download --no-deps --no-binary :all: "
                 f"{shlex.quote(source.pypi)} -d /tmp/sdist "
                 f"&& python /tmp/unpack.py /tmp/sdist/* {APP} && rm -rf /tmp/sdist /tmp/unpacked")
        steps.append("COPY unpack.py /tmp/unpack.py")
    elif source.git is not None:
        fetch = (f"git clone --quiet {shlex.quote(source.git)} {APP} && cd {APP} "
                 f"&& git checkout --quiet {shlex.quote(str(source.commit))} && rm -rf .git")
    else:
        fetch = "true"
        steps.append(f"COPY repo/ {APP}/")
    steps.append("COPY smelly.patch /tmp/smelly.patch")
    steps.append(f"RUN {fetch} && cd {APP} && git apply{_directory_flag(spec)} /tmp/smelly.patch "
                 f"&& rm -f /tmp/smelly.patch && rm -rf {tests}")
    for command in spec.install:
        steps.append(f"RUN cd {APP} && {command}")
    env = "".join(f"ENV {key}={json.dumps(value)}\n" for key, value in sorted(spec.env.items()))
    return (
        f"FROM python:{_image_python(spec)}-slim\n"
        "RUN apt-get update && apt-get install -y --no-install-recommends git "
        "&& rm -rf /var/lib/apt/lists/*\n"
        f"{env}WORKDIR {APP}\n"
        + "\n".join(steps) + "\n"
        "RUN python -m pip install pytest\n"
        f"RUN git init --quiet && printf '{_EXCLUDED}' >> .git/info/exclude && git add -A "
        "&& git -c user.name=smellkit -c user.email=smellkit@localhost commit --quiet "
        f"-m 'the code to refactor' && git tag {BASE_TAG}\n"
    )


def _image_python(spec: RepoSpec) -> str:
    return spec.python if "." in spec.python else "3.11"


def test_script(case: Case, spec: RepoSpec) -> str:
    """Copies the hidden tests in, runs the selected ones, always (re)writes reward.json.

    The folders default to Harbor's mounts; the variables only exist so the script can be tried
    outside a container."""
    tests_path = shlex.quote(spec.tests_path.strip("/"))
    return (
        "#!/usr/bin/env bash\n"
        "# Score the refactoring: the selected tests must still pass. Always rewrites the reward.\n"
        "set -uo pipefail\n"
        f'APP="${{APP_DIR:-{APP}}}"; TESTS="${{TESTS_DIR:-/tests}}"; '
        'LOGS="${LOGS_DIR:-/logs}/verifier"\n'
        'mkdir -p "$LOGS"\n'
        'echo \'{"reward": 0.0}\' > "$LOGS/reward.json"\n'
        'cd "$APP" || exit 0\n'
        "# The agent's change against the code it was given (commits of its own included), for\n"
        "# `smellkit evaluate --harbor-jobs`; written before the hidden tests are copied in.\n"
        "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'\n"
        "if git rev-parse --git-dir >/dev/null 2>&1; then\n"
        f"  printf '{_EXCLUDED}' >> \"$(git rev-parse --git-dir)/info/exclude\"\n"
        f'  base=$(git rev-parse -q --verify "{BASE_TAG}^{{commit}}" '
        "|| git rev-list --max-parents=0 HEAD | tail -n 1)\n"
        '  git add -A >/dev/null 2>&1 && git diff --cached --no-color --no-ext-diff "$base" '
        '> "$LOGS/prediction.patch"\n'
        "fi\n"
        f"rm -rf {tests_path}\n"
        f'cp -r "$TESTS/{spec.tests_path.strip("/")}" {tests_path}\n'
        'mapfile -t SELECTED < "$TESTS/selected.txt"\n'
        f"{spec.test_command} -p no:cacheprovider -q "
        '--junitxml="$LOGS/junit.xml" "${SELECTED[@]}" > "$LOGS/pytest.log" 2>&1\n'
        "status=$?\n"
        'python "$TESTS/reward.py" "$LOGS/junit.xml" "${#SELECTED[@]}" "$LOGS/reward.json" '
        '"$status"\n'
    )


def solve_script(spec: RepoSpec) -> str:
    return (
        "#!/usr/bin/env bash\n"
        "# The reference solution: the exact inverse of the injected smell.\n"
        "set -euo pipefail\n"
        f'cd "${{APP_DIR:-{APP}}}"\n'
        f'git apply{_directory_flag(spec)} "${{SOLUTION_DIR:-/solution}}/ground_truth.patch"\n'
    )


def _copy_repo(checkout: Path, dest: Path, tests_path: str) -> None:
    """A local source tree for the image, without the tests folder and without VCS or caches."""
    skip = (checkout / tests_path.strip("/")).resolve()

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {name for name in names if name in SKIPPED_NAMES or name.endswith(".pyc")
                or (Path(folder) / name).resolve() == skip}

    shutil.copytree(checkout, dest, symlinks=True, ignore=ignore)


def write_task(case: Case, spec: RepoSpec, checkout: Path, harbor_dir: Path, *,
               setting: InstructionSetting = "guided") -> Path:
    """Write (or keep, if complete) `harbor_dir/<instance_id>/`; written in a scratch folder and
    renamed into place, so a kill never leaves half a task behind."""
    final = harbor_dir / case.instance_id
    if (final / "task.toml").is_file():
        return final
    harbor_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=harbor_dir, prefix=f".{case.instance_id}."))
    try:
        _fill(scratch, case, spec, checkout, setting)
        shutil.rmtree(final, ignore_errors=True)
        scratch.rename(final)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return final


def _fill(task: Path, case: Case, spec: RepoSpec, checkout: Path,
          setting: InstructionSetting) -> None:
    (task / "task.toml").write_text(toml_text(task_config(case, spec)), encoding="utf-8")
    instruction = case.instructions.get(setting) or case.instructions.get("open", "")
    (task / "instruction.md").write_text(
        f"{instruction.strip()}\n\nThe repository is in `{APP}`. Keep its behaviour unchanged: "
        "its tests will be run on your version.\n", encoding="utf-8")
    environment = task / "environment"
    environment.mkdir()
    (environment / "Dockerfile").write_text(dockerfile(case, spec), encoding="utf-8")
    (environment / "smelly.patch").write_bytes(case.smelly_patch.encode("utf-8"))
    if spec.source.pypi is not None:
        (environment / "unpack.py").write_text(_UNPACK_PY, encoding="utf-8")
    elif spec.source.git is None:
        _copy_repo(checkout, environment / "repo", spec.tests_path)
    tests = task / "tests"
    tests.mkdir()
    shutil.copytree(checkout / spec.tests_path.strip("/"), tests / spec.tests_path.strip("/"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (tests / "selected.txt").write_text("".join(f"{test}\n" for test in case.tests),
                                        encoding="utf-8")
    (tests / "reward.py").write_text(_REWARD_PY, encoding="utf-8")
    script = tests / "test.sh"
    script.write_text(test_script(case, spec), encoding="utf-8")
    script.chmod(0o755)
    solution = task / "solution"
    solution.mkdir()
    (solution / "ground_truth.patch").write_bytes(case.ground_truth_patch.encode("utf-8"))
    solve = solution / "solve.sh"
    solve.write_text(solve_script(spec), encoding="utf-8")
    solve.chmod(0o755)
