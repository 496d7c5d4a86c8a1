"""The Harbor verifier outside a container: `smellkit.evaluate.verifier` on a task exported from a
real injected case (feature envy in the ledger fixture, one hidden test), and test.sh's
integrity step on a folder standing for the image's root (`SMELLKIT_FS_ROOT`).

What each agent did is played on a copy of the pristine smelly tree, as /app holds it; the
repository's tests run with the interpreter running these tests (it has pytest), standing in for
the image's project environment. tests/bench/test_harbor_docker.py runs the same in containers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from smellkit.bench.harbor import VERIFIER_DIR, HarborExport, HarborOptions
from smellkit.bench.harbor._unpack_wheels import unpack
from smellkit.config import RepoSpec
from smellkit.evaluate import verifier
from smellkit.formats.harbor import ERROR_CODES
from smellkit.injectors.patches import patched_paths
from smellkit.models import Case
from tests.injectors.support import injected
from tests.injectors.test_fixtures import FIXTURES, target

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git applies the patches")

TEST = '''\
from bank.run import demo


def test_demo():
    assert demo() == [3.0, 0.0, 0.6, -53.0, 10.0, -10.6]
'''
FORCE_PASS = '''\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
'''
RECORD = Path(__file__).parents[2] / "smellkit" / "bench" / "harbor" / "_record.py"


def _none(cache: Path, python: str) -> tuple[list[Path], bool]:
    return [], False


@pytest.fixture(scope="module")
def task(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The exported task of a real feature-envy case (the original has one test in tests/)."""
    tmp = tmp_path_factory.mktemp("ledger-task")
    folder = FIXTURES / "feature_envy" / "ledger"
    injection = injected(folder / "before", "feature_envy", "easy", target(folder, "easy"))
    repo = tmp / "repo"
    shutil.copytree(folder / "before", repo / "src", ignore=shutil.ignore_patterns("__pycache__"))
    (repo / "tests").mkdir()
    (repo / "tests" / "test_bank.py").write_text(TEST)
    case = Case(**dict(injection), repo="ledger", revision="local", source_path="src",
                tests_path="tests", tests=("tests/test_bank.py::test_demo",))
    spec = RepoSpec.model_validate({"name": "ledger", "source": {"path": str(repo)},
                                    "source-path": "src", "test-command": "python -m pytest",
                                    "tests-path": "tests"})
    exporter = HarborExport(HarborOptions(pin_base=False), tmp / "cache", dependencies=_none)
    return exporter.write_task(case, spec, repo, tmp / "harbor")


def _app(task: Path, tmp: Path) -> Path:
    """/app as the image holds it before the agent: the pristine smelly tree."""
    app = tmp / "app"
    app.mkdir()
    with tarfile.open(task / "tests" / "smelly.tar.gz") as archive:
        archive.extractall(app)
    return app


def _solve(task: Path, app: Path) -> None:
    subprocess.run(["bash", str(task / "solution" / "solve.sh")], check=True,
                   env={**os.environ, "APP_DIR": str(app),
                        "SOLUTION_DIR": str(task / "solution")})


def _verify(task: Path, app: Path, logs: Path) -> tuple[dict[str, float], str]:
    code = verifier.main(["--case", str(task / "tests" / "case.json"),
                          "--smelly", str(task / "tests" / "smelly.tar.gz"), "--app", str(app),
                          "--tests-dir", str(task / "tests"), "--out", str(logs),
                          "--project-python", sys.executable])
    assert code == 0
    reward = json.loads((logs / "reward.json").read_text())
    assert all(type(value) in (int, float) for value in reward.values()), reward
    return reward, (logs / "verdict.txt").read_text()


def test_the_oracle_scores_1(task: Path, tmp_path: Path) -> None:
    app = _app(task, tmp_path)
    _solve(task, app)
    reward, verdict = _verify(task, app, tmp_path / "logs")
    assert reward["reward"] == 1.0 and reward["error_category"] == ERROR_CODES["resolved"], \
        verdict
    assert reward["tests_passed"] == reward["tests_total"] == 1 and reward["la"] == 1.0
    assert verdict.startswith("reward 1.0: resolved")
    patch = (tmp_path / "logs" / "prediction.patch").read_text()
    ground_truth = (task / "solution" / "ground_truth.patch").read_text()
    assert sorted(patched_paths(patch)) == sorted(f"src/{path}"
                                                  for path in patched_paths(ground_truth))
    score = json.loads((tmp_path / "logs" / "score.json").read_text())
    assert score["resolved"] is True and score["model"] == "harbor"


def test_noop_scores_0(task: Path, tmp_path: Path) -> None:
    reward, verdict = _verify(task, _app(task, tmp_path), tmp_path / "logs")
    assert reward["reward"] == 0.0 and reward["error_category"] == ERROR_CODES["no_patch"]
    assert verdict.startswith("reward 0.0: no_patch")
    assert (tmp_path / "logs" / "prediction.patch").read_text() == ""


@pytest.mark.parametrize("where", ["conftest.py", "tests/conftest.py"])
def test_a_conftest_forcing_passes_scores_0_as_tampered(task: Path, tmp_path: Path,
                                                        where: str) -> None:
    app = _app(task, tmp_path)
    _solve(task, app)
    (app / where).parent.mkdir(exist_ok=True)
    (app / where).write_text(FORCE_PASS)
    reward, verdict = _verify(task, app, tmp_path / "logs")
    assert reward["reward"] == 0.0 and reward["error_category"] == ERROR_CODES["tampered"]
    assert "tests_passed" not in reward  # never run
    assert verdict.startswith("reward 0.0: tampered: ") and where in verdict, verdict


def test_a_pth_plugin_scores_0_as_tampered(task: Path, tmp_path: Path) -> None:
    app = _app(task, tmp_path)
    _solve(task, app)
    (app / "src" / "zz_plugin.pth").write_text("import os; os.environ['X'] = '1'\n")
    reward, verdict = _verify(task, app, tmp_path / "logs")
    assert reward["error_category"] == ERROR_CODES["tampered"] and reward["reward"] == 0.0
    assert "src/zz_plugin.pth: test machinery" in verdict


def test_broken_behaviour_scores_0(task: Path, tmp_path: Path) -> None:
    app = _app(task, tmp_path)
    _solve(task, app)
    account = app / "src" / "bank" / "run.py"
    account.write_text(account.read_text().replace("return [", "return [1] + ["))
    reward, verdict = _verify(task, app, tmp_path / "logs")
    assert reward["error_category"] == ERROR_CODES["broke_tests"], verdict
    assert reward["tests_passed"] == 0 and reward["tests_total"] == 1


def test_the_agents_git_history_does_not_decide_what_changed(task: Path, tmp_path: Path) -> None:
    """An agent that commits its work and moves the image's tag to its own commit would show an
    empty `git diff smellkit-smelly`; the pristine copy still sees the change."""
    app = _app(task, tmp_path)
    git = ["git", "-c", "user.name=a", "-c", "user.email=a@b"]
    subprocess.run([*git, "init", "-q"], cwd=app, check=True)
    subprocess.run([*git, "add", "-A"], cwd=app, check=True)
    subprocess.run([*git, "commit", "-qm", "smelly"], cwd=app, check=True)
    _solve(task, app)
    subprocess.run([*git, "commit", "-qam", "mine"], cwd=app, check=True)
    subprocess.run([*git, "tag", "smellkit-smelly"], cwd=app, check=True)
    reward, _ = _verify(task, app, tmp_path / "logs")
    assert reward["reward"] == 1.0 and reward["files_changed"] >= 1


def test_files_the_image_build_wrote_into_app_are_not_the_agents(task: Path,
                                                                 tmp_path: Path) -> None:
    app = _app(task, tmp_path)
    (app / "src" / "bank" / "_version.py").write_text("VERSION = '1.0'\n")  # by an install
    listing = tmp_path / "generated"
    listing.write_text("./src/bank/_version.py\n")
    score = verifier.verify(task / "tests" / "case.json", task / "tests" / "smelly.tar.gz",
                            app, task / "tests", tmp_path / "logs",
                            project_python=Path(sys.executable), generated=listing)
    assert score.error_category == "no_patch"
    unlisted = verifier.verify(task / "tests" / "case.json", task / "tests" / "smelly.tar.gz",
                               app, task / "tests", tmp_path / "logs2",
                               project_python=Path(sys.executable))
    assert unlisted.apply_status == "applied" and unlisted.files_changed == 1


def test_a_broken_task_still_writes_a_reward(task: Path, tmp_path: Path) -> None:
    app = _app(task, tmp_path)
    broken = tmp_path / "case.json"
    record = json.loads((task / "tests" / "case.json").read_text())
    record["case"]["ground_truth_patch"] = record["case"]["smelly_patch"]  # does not apply
    broken.write_text(json.dumps(record))
    logs = tmp_path / "logs"
    assert verifier.main(["--case", str(broken), "--smelly", str(task / "tests/smelly.tar.gz"),
                          "--app", str(app), "--tests-dir", str(task / "tests"),
                          "--out", str(logs), "--project-python", sys.executable]) == 0
    assert json.loads((logs / "reward.json").read_text()) == {
        "reward": 0.0, "error_category": ERROR_CODES["verifier_error"], "tampered_scorer": 0,
        "tampered_environment": 0}
    assert "verifier_error" in (logs / "verdict.txt").read_text()


# -- test.sh's integrity step on a folder standing for the image ----------------------------

@pytest.fixture
def root(task: Path, tmp_path: Path) -> Iterator[Path]:
    """The image's files that integrity.sh checks: the scorer as the build extracts it, and a
    small project environment recorded as the build records it (`record.py --env`)."""
    root = tmp_path / "root"
    unpack(task / "environment" / "verifier", root / VERIFIER_DIR.lstrip("/"))
    env = root / "opt" / "project-env"
    (env / "lib" / "site-packages" / "pkg").mkdir(parents=True)
    (env / "lib" / "site-packages" / "pkg" / "__init__.py").write_text("X = 1\n")
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (env / "lib64").symlink_to("lib")
    subprocess.run([sys.executable, "-I", "-S", str(RECORD), "--env", str(env), "--root",
                    str(root), "--out", str(root / "opt" / "smellkit-build")], check=True)
    yield root


def _test_sh(task: Path, root: Path, logs: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "SMELLKIT_FS_ROOT": str(root),
           "SMELLKIT_INTEGRITY_ONLY": "1", "TESTS_DIR": str(task / "tests"),
           "LOGS_DIR": str(logs), "APP_DIR": str(root / "app")}
    return subprocess.run(["bash", str(task / "tests" / "test.sh")], env=env,
                          capture_output=True, text=True, timeout=300)


def _stale(logs: Path) -> None:
    verifier_logs = logs / "verifier"
    verifier_logs.mkdir(parents=True)
    (verifier_logs / "reward.json").write_text('{"reward": 1.0}')  # written by the agent
    (verifier_logs / "reward.txt").write_text("1.0")
    (verifier_logs / "score.json").write_text("{}")


def test_a_clean_image_passes_and_stale_rewards_are_removed(task: Path, root: Path,
                                                            tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    _stale(logs)
    cache = root / VERIFIER_DIR.lstrip("/") / "lib" / "smellkit" / "__pycache__"
    cache.mkdir()
    (cache / "scoring.cpython-311.pyc").write_bytes(b"planted bytecode")
    done = _test_sh(task, root, logs)
    assert done.returncode == 0, done.stderr
    assert (logs / "verifier" / "integrity.log").read_text() == ""
    assert sorted(path.name for path in (logs / "verifier").iterdir()) == ["integrity.log"]
    assert not cache.exists()  # bytecode is deleted, never compared or loaded


def _tampered(task: Path, root: Path, tmp_path: Path) -> tuple[dict[str, float], str]:
    logs = tmp_path / "logs"
    _stale(logs)
    done = _test_sh(task, root, logs)
    assert done.returncode == 0, done.stderr
    reward = json.loads((logs / "verifier" / "reward.json").read_text())
    return reward, (logs / "verifier" / "verdict.txt").read_text()


def test_an_edited_scorer_file_is_caught(task: Path, root: Path, tmp_path: Path) -> None:
    scoring = root / VERIFIER_DIR.lstrip("/") / "lib" / "smellkit" / "evaluate" / "scoring.py"
    scoring.write_text(scoring.read_text() + "\nRESOLVED = True\n")
    reward, verdict = _tampered(task, root, tmp_path)
    assert reward == {"reward": 0.0, "error_category": ERROR_CODES["tampered_scorer"],
                      "tampered_scorer": 1, "tampered_environment": 0}
    assert verdict.startswith("reward 0.0: tampered_scorer: ")
    assert "smellkit/evaluate/scoring.py: FAILED" in verdict


def test_a_file_added_to_the_scorer_is_caught(task: Path, root: Path, tmp_path: Path) -> None:
    (root / VERIFIER_DIR.lstrip("/") / "lib" / "aaa.pth").write_text("import os\n")
    reward, verdict = _tampered(task, root, tmp_path)
    assert reward["tampered_scorer"] == 1 and "lib/aaa.pth: added" in verdict


def test_a_pth_in_the_project_environment_is_caught(task: Path, root: Path,
                                                    tmp_path: Path) -> None:
    site = root / "opt" / "project-env" / "lib" / "site-packages"
    (site / "force_pass.pth").write_text("import pkg\n")
    reward, verdict = _tampered(task, root, tmp_path)
    assert reward == {"reward": 0.0, "error_category": ERROR_CODES["tampered_environment"],
                      "tampered_scorer": 0, "tampered_environment": 1}
    assert "site-packages/force_pass.pth: added" in verdict


def test_a_redirected_link_in_the_project_environment_is_caught(task: Path, root: Path,
                                                                 tmp_path: Path) -> None:
    link = root / "opt" / "project-env" / "lib64"
    link.unlink()
    link.symlink_to("/tmp")
    reward, verdict = _tampered(task, root, tmp_path)
    assert reward["tampered_environment"] == 1 and "lib64: link changed" in verdict


def test_ld_so_preload_is_refused(task: Path, root: Path, tmp_path: Path) -> None:
    (root / "etc").mkdir()
    (root / "etc" / "ld.so.preload").write_text("/tmp/force.so\n")
    reward, verdict = _tampered(task, root, tmp_path)
    assert reward["tampered_scorer"] == 1 and "ld.so.preload" in verdict


def test_a_file_left_in_tests_before_the_upload_is_caught(task: Path, root: Path,
                                                          tmp_path: Path) -> None:
    """Harbor copies tests/ over whatever /tests holds: a conftest.py the agent put into the
    hidden tests' folder beforehand would be copied along with them."""
    tests = tmp_path / "uploaded"
    shutil.copytree(task / "tests", tests)
    (tests / "tests" / "conftest.py").write_text(FORCE_PASS)
    logs = tmp_path / "logs"
    env = {"PATH": os.environ["PATH"], "SMELLKIT_FS_ROOT": str(root),
           "SMELLKIT_INTEGRITY_ONLY": "1", "TESTS_DIR": str(tests), "LOGS_DIR": str(logs)}
    subprocess.run(["bash", str(tests / "test.sh")], env=env, check=True, timeout=300)
    reward = json.loads((logs / "verifier" / "reward.json").read_text())
    assert reward["tampered_scorer"] == 1 and reward["reward"] == 0.0
    assert "tests/conftest.py: not part of the task" in (logs / "verifier" /
                                                          "verdict.txt").read_text()
