"""Harbor task directories: the layout, task.toml, the instruction, the manifest against what the
image build writes, the pristine smelly tree, the Dockerfile, the reward.json contract.

Nothing is downloaded: the scorer's dependency wheels are left out (`dependencies=_none`), and the
base image is not pinned (`pin_base=False`); tests/bench/test_harbor_docker.py does both."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest

from smellkit.bench.harbor import (
    VERIFIER_DIR,
    BundleError,
    HarborExport,
    HarborOptions,
    dockerfile,
)
from smellkit.bench.harbor._unpack_wheels import unpack
from smellkit.config import RepoSpec, load_repo_spec, tomllib
from smellkit.errors import UsageError
from smellkit.evaluate.score import ERROR_CATEGORIES, MetricDelta, Score
from smellkit.evaluate.verifier import failure_values, read_case, reward_values
from smellkit.formats.harbor import ERROR_CODES, RewardError, check_reward, write_reward
from smellkit.injectors.patches import apply_patch
from smellkit.models import Case
from tests.bench import fakes

FIXTURES = fakes.FIXTURES


def _none(cache: Path, python: str) -> tuple[list[Path], bool]:
    return [], False


def _case(injection_name: str = "mul") -> Case:
    return Case(**dict(fakes.harmless("feature_envy", "easy", injection_name)), repo="calc",
                revision="local", source_path="src",
                tests=("tests/test_ops.py::test_add", "tests/test_ops.py::test_mul"))


def _spec() -> RepoSpec:
    return load_repo_spec(FIXTURES / "calc.toml")


def _export(tmp: Path, case: Case | None = None, **options: object) -> Path:
    exporter = HarborExport(HarborOptions(pin_base=False, **options),  # type: ignore[arg-type]
                            tmp / "cache", dependencies=_none)
    return exporter.write_task(case or _case(), _spec(), FIXTURES / "calcrepo", tmp / "harbor")


def _files(task: Path) -> set[str]:
    return {path.relative_to(task).as_posix() for path in task.rglob("*") if path.is_file()}


def test_layout_and_task_toml(tmp_path: Path) -> None:
    spec = _spec()
    task = _export(tmp_path)
    assert task.name == "calc__feature_envy-easy-mul"
    config = tomllib.loads((task / "task.toml").read_text())
    assert config["task"]["name"] == "smellkit/calc__feature_envy-easy-mul"
    metadata = config["metadata"]
    assert metadata["smellbench_type"] == "feature_envy"
    assert metadata["targets"] == ["calc.ops.mul"]
    assert metadata["base_image"] == "python:3.11-slim" and metadata["system_pinned"] is False
    assert config["verifier"]["timeout_sec"] > spec.timeouts.test
    assert config["verifier"]["network_mode"] == "no-network"
    assert config["agent"]["network_mode"] == "no-network" and "allowed_hosts" not in \
        config["agent"]
    assert config["environment"]["network_mode"] == "no-network"  # setup: the agent's policy
    names = _files(task)
    assert {"task.toml", "instruction.md", "environment/Dockerfile", "environment/smelly.patch",
            "environment/original.sha256", "environment/no_original.py",
            "environment/verifier/unpack_wheels.py", "environment/verifier/record.py",
            "tests/test.sh", "tests/integrity.sh", "tests/case.json", "tests/smelly.tar.gz",
            "tests/manifest.sha256", "tests/manifest.roots", "tests/manifest.links",
            "tests/manifest.absent", "tests/tests.sha256", "tests/tests/test_ops.py",
            "solution/solve.sh",
            "solution/ground_truth.patch"} <= names
    assert [name for name in names if name.startswith("environment/verifier/smellkit-")
            and name.endswith(".whl")]
    assert not {"tests/selected.txt", "tests/reward.py", "tests/manifest.python"} & names
    assert not [name for name in names if name.startswith("environment/") and "test_" in name]
    assert not [path for path in (tmp_path / "harbor").iterdir() if path.name.startswith(".")]
    for script in ("tests/test.sh", "tests/integrity.sh", "solution/solve.sh"):
        assert (task / script).stat().st_mode & 0o111


def test_the_agents_network_is_the_allowlist_given_at_export(tmp_path: Path) -> None:
    task = _export(tmp_path, allow_hosts=("api.anthropic.com", "api.openai.com"))
    config = tomllib.loads((task / "task.toml").read_text())
    for table in ("agent", "environment"):
        assert config[table]["network_mode"] == "allowlist"
        assert config[table]["allowed_hosts"] == ["api.anthropic.com", "api.openai.com"]
    assert config["verifier"]["network_mode"] == "no-network"
    public = _export(tmp_path / "public", setup_network="public")
    config = tomllib.loads((public / "task.toml").read_text())
    assert config["environment"] == {**config["environment"], "network_mode": "public"}
    assert "allowed_hosts" not in config["environment"]
    assert config["agent"]["network_mode"] == "no-network"
    text = (task / "instruction.md").read_text()
    assert "`api.anthropic.com`, `api.openai.com`" in text and "package index" in text


def test_a_public_network_opens_every_phase_and_the_instruction_says_so(tmp_path: Path) -> None:
    """`--network public`, for Harbor environments that cannot enforce a policy (Harbor's docker
    environment without Docker Hub refuses `no-network`)."""
    task = _export(tmp_path, network="public")
    config = tomllib.loads((task / "task.toml").read_text())
    for table in ("agent", "environment", "verifier"):
        assert config[table]["network_mode"] == "public", table
        assert "allowed_hosts" not in config[table]
    assert config["metadata"]["network"] == "public"
    text = (task / "instruction.md").read_text()
    assert "the network is open" in text and "network is closed" not in text
    closed = _export(tmp_path / "closed")
    assert tomllib.loads((closed / "task.toml").read_text())["metadata"]["network"] == "closed"
    with pytest.raises(UsageError, match="--allow-host"):
        HarborOptions(network="public", allow_hosts=("api.example.com",))


def test_the_instruction_tells_the_truth_about_the_environment(tmp_path: Path) -> None:
    text = (_export(tmp_path) / "instruction.md").read_text()
    assert text.startswith("Remove the feature_envy in calc/ops.py.")
    assert "calc.ops.mul" not in text  # guided, not targeted
    assert "tests are not in this environment" in text and "2 tests of its own suite" in text
    assert "its tests will be run" not in text  # the old promise of tests the agent cannot see
    for fact in ("/app", "/opt/project-env", VERIFIER_DIR, "conftest.py", "*.pth",
                 "network is closed", "stopped before scoring"):
        assert fact in text, fact


def test_the_manifest_lists_exactly_what_the_image_build_writes(tmp_path: Path) -> None:
    task = _export(tmp_path)
    lines = (task / "tests" / "manifest.sha256").read_text().splitlines()
    manifest = dict(reversed(line.split("  ", 1)) for line in lines)
    assert (task / "tests" / "manifest.roots").read_text() == f"{VERIFIER_DIR}\n"
    installed = tmp_path / "installed"
    unpack(task / "environment" / "verifier", installed)
    written = {f"{VERIFIER_DIR}/{path.relative_to(installed).as_posix()}":
               hashlib.sha256(path.read_bytes()).hexdigest()
               for path in installed.rglob("*") if path.is_file()}
    assert written == manifest
    shipped = {path.split("/")[5] for path in manifest if path.split("/")[4] == "smellkit"}
    assert "evaluate" in shipped and "formats" in shipped
    assert not {"injectors", "bench", "cli.py", "report"} & shipped


def test_the_smelly_archive_is_the_tree_the_image_holds(tmp_path: Path) -> None:
    case = _case()
    task = _export(tmp_path, case)
    pristine = tmp_path / "pristine"
    with tarfile.open(task / "tests" / "smelly.tar.gz") as archive:
        assert all(member.mtime == 0 and member.uid == 0 for member in archive.getmembers())
        archive.extractall(pristine)
    expected = tmp_path / "expected"
    shutil.copytree(task / "environment" / "repo", expected)
    apply_patch(expected / "src", case.smelly_patch)
    assert not (pristine / "tests").exists() and not (expected / "tests").exists()
    assert {path.relative_to(pristine) for path in pristine.rglob("*")} == \
        {path.relative_to(expected) for path in expected.rglob("*")}
    assert (pristine / "src" / fakes.OPS).read_text() == (expected / "src" / fakes.OPS).read_text()
    again = tmp_path / "again"  # reproducible: the same case gives the same bytes
    exporter = HarborExport(HarborOptions(pin_base=False), tmp_path / "cache",
                            dependencies=_none)
    other = exporter.write_task(case, _spec(), FIXTURES / "calcrepo", again)
    assert (other / "tests" / "smelly.tar.gz").read_bytes() == \
        (task / "tests" / "smelly.tar.gz").read_bytes()


def test_case_json_carries_the_case_the_spec_and_the_setting(tmp_path: Path) -> None:
    case = _case()
    task = _export(tmp_path, case, setting="targeted")
    read, spec, setting = read_case(task / "tests" / "case.json")
    assert read.instance_id == case.instance_id and read.tests == case.tests
    assert read.ground_truth_patch == case.ground_truth_patch and read.source_path == "src"
    expected = _spec()
    assert (spec.name, spec.source_path, spec.tests_path, spec.test_command, spec.timeouts) == (
        expected.name, expected.source_path, expected.tests_path, expected.test_command,
        expected.timeouts)
    assert setting == "targeted"
    assert "calc.ops.mul" in (task / "instruction.md").read_text()


def test_original_hashes_name_the_changed_files(tmp_path: Path) -> None:
    task = _export(tmp_path)
    digest = hashlib.sha256((FIXTURES / "calcrepo" / "src" / fakes.OPS).read_bytes())
    assert (task / "environment" / "original.sha256").read_text() == \
        f"{digest.hexdigest()}  {fakes.OPS}\n"


def test_no_original_finds_a_copy_of_the_original_anywhere(tmp_path: Path) -> None:
    task = _export(tmp_path)
    image = tmp_path / "image"
    (image / "app" / "src" / "calc").mkdir(parents=True)
    (image / "app" / "src" / fakes.OPS).write_text("smelly\n")
    from smellkit.bench.harbor._no_original import find_originals

    assert find_originals(str(task / "environment" / "original.sha256"), str(image)) == []
    site = image / "venv" / "site-packages" / "calc"
    site.mkdir(parents=True)
    shutil.copyfile(FIXTURES / "calcrepo" / "src" / fakes.OPS, site / "ops.py")
    assert find_originals(str(task / "environment" / "original.sha256"), str(image)) == \
        [str(site / "ops.py")]


def test_pypi_dockerfile_fetches_patches_and_drops_tests_in_one_layer() -> None:
    spec = RepoSpec.model_validate({"name": "click", "source": {"pypi": "click==8.1.7"},
                                    "source-path": "src", "python": "3.12",
                                    "install": ["pip install -e ."]})
    text = dockerfile(spec)
    assert text.startswith("FROM python:3.12-slim\n")
    (fetch,) = [line for line in text.splitlines() if "pip download" in line]
    assert "click==8.1.7" in fetch and "git apply --directory=src" in fetch
    assert "--no-cache-dir" in fetch and "rm -rf /app/tests && " in fetch
    assert fetch.endswith("> /tmp/app-before") and "/opt/smellkit-build.generated" in text
    assert "RUN cd /app && pip install -e ." in text
    assert text.index("rm -rf /app/tests") < text.index("pip install -e .")
    assert "PIP_NO_CACHE_DIR=1" in text and "python3 -m venv /opt/project-env" in text
    assert text.index("no_original.py") < text.index("git init")
    assert text.rstrip().endswith("rm -rf /tmp/smellkit-verifier")
    assert "--expect" not in text
    custom = dockerfile(spec, base_image="registry.local/py:3.12", pinned=True)
    assert custom.startswith("FROM registry.local/py:3.12\n") and "--expect" in custom


def test_an_existing_task_is_kept_unless_exported_differently(tmp_path: Path) -> None:
    task = _export(tmp_path)
    (task / "marker").write_text("kept")
    assert (_export(tmp_path) / "marker").exists()
    again = _export(tmp_path, allow_hosts=("api.example.com",))
    assert not (again / "marker").exists()
    (again / "task.toml").write_text("half a file [")  # a broken task is written again
    assert (_export(tmp_path, allow_hosts=("api.example.com",)) / "instruction.md").exists()


def test_a_case_of_a_package_the_scorer_ships_is_refused(tmp_path: Path) -> None:
    wheel = tmp_path / "wheels" / "calc-1.0-py3-none-any.whl"
    wheel.parent.mkdir()
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("calc/__init__.py", "")

    def calc_wheel(cache: Path, python: str) -> tuple[list[Path], bool]:
        return [wheel], False

    exporter = HarborExport(HarborOptions(pin_base=False), tmp_path / "cache",
                            dependencies=calc_wheel)
    with pytest.raises(BundleError, match="ships its own copy of calc"):
        exporter.write_task(_case(), _spec(), FIXTURES / "calcrepo", tmp_path / "harbor")


def test_a_custom_base_needs_its_python_version(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="--base-python"):
        _export(tmp_path, base_image="somewhere/python:latest")
    task = _export(tmp_path, base_image="somewhere/python:latest", base_python="3.11")
    assert (task / "environment" / "Dockerfile").read_text().startswith(
        "FROM somewhere/python:latest\n")


# -- the reward.json contract ------------------------------------------------------------------

def test_check_reward_accepts_finite_numbers_only() -> None:
    assert check_reward({"reward": 1.0, "la": 1, "tpr": 0.5}) == {"reward": 1.0, "la": 1,
                                                                 "tpr": 0.5}
    for bad in (None, True, "1", math.nan, math.inf, [1]):
        with pytest.raises(RewardError):
            check_reward({"reward": 0.0, "x": bad})
    with pytest.raises(RewardError, match="needs a `reward`"):
        check_reward({"la": 1.0})


def test_reward_values_never_hold_null_or_bool(tmp_path: Path) -> None:
    assert set(ERROR_CATEGORIES) <= set(ERROR_CODES)
    assert sorted(ERROR_CODES.values()) == list(range(len(ERROR_CODES)))
    unmeasured = Score(instance_id="x", model="harbor", smell="dead_code",
                       apply_status="tampered", error_category="tampered")
    measured = Score(instance_id="x", model="harbor", smell="dead_code", applied=True,
                     tests_passed=3, tests_total=3, tpr=1.0, tests_timed_out=False, la=1.0,
                     residue=0, checks_passed=2, checks_total=2, equivalent=True,
                     metrics={"cc": MetricDelta(original=1.0, smelly=3.0, result=None)},
                     error_category="resolved", resolved=True, errors=("a", "b"))
    for score in (unmeasured, measured):
        values = reward_values(score)
        assert all(type(value) in (int, float) for value in values.values()), values
        assert "la" in values if score.la is not None else "la" not in values
        write_reward(tmp_path / "reward.json", values)
        written = json.loads((tmp_path / "reward.json").read_text())
        assert written == values
        # `reward` first: Harbor's progress bar shows the first key
        assert list(written) == ["reward", *sorted(key for key in written if key != "reward")]
    assert reward_values(unmeasured)["reward"] == 0.0
    assert reward_values(unmeasured)["error_category"] == ERROR_CODES["tampered"]
    resolved = reward_values(measured)
    assert resolved["reward"] == 1.0 and resolved["resolved"] == 1 and \
        resolved["tests_timed_out"] == 0 and resolved["equivalent"] == 1
    assert resolved["metric_cc_smelly"] == 3.0 and "metric_cc_result" not in resolved
    assert resolved["scoring_errors"] == 2
    assert failure_values("tampered_scorer") == {"reward": 0.0, "error_category": 8,
                                                 "tampered_scorer": 1,
                                                 "tampered_environment": 0}
