"""Per-repository virtualenvs: built once, reused, rebuilt when half-built; the case copy's code
is what tests import, and the pristine tree is never written to."""

from __future__ import annotations

from pathlib import Path

import pytest

from smellkit.config import RepoSpec, find_python, parse_repo_spec
from smellkit.sandbox.checkout import copy_tree, tree_hash
from smellkit.sandbox.environment import READY, Environment, environment_key, imported_from, prepare
from smellkit.sandbox.errors import SandboxError
from tests.sandbox.conftest import prepare_or_skip, sandbox_cache


def test_environment_is_reused_and_the_checkout_untouched(
        tiny_spec: RepoSpec, tiny_checkout: Path, tiny_env: Environment) -> None:
    before = tree_hash(tiny_checkout)
    again = prepare(tiny_spec, tiny_checkout, tiny_env.root.parent.parent)
    assert again == tiny_env
    assert (tiny_env.root / READY).is_file()
    assert tiny_env.python.is_file() and tiny_env.python.parent == tiny_env.venv / "bin"
    assert tiny_env.env["PATH"].startswith(str(tiny_env.venv / "bin"))
    assert tree_hash(tiny_checkout) == before
    assert not any(tiny_checkout.rglob("*.egg-info")) and not (tiny_checkout / "build").exists()


def test_case_copy_code_is_what_gets_imported(tiny_env: Environment, tiny_checkout: Path,
                                              tmp_path: Path) -> None:
    copy = copy_tree(tiny_checkout, tmp_path / "case")
    where = imported_from(tiny_env, copy, "tinypkg.util")
    assert where == copy / "src" / "tinypkg" / "util.py"
    # Without the copy on PYTHONPATH the editable install's tree is found, not the copy:
    # this is what env_for() prevents.
    plain = imported_from(tiny_env, copy, "tinypkg.util", env=tiny_env.env)
    assert not plain.is_relative_to(copy)


def test_key_changes_with_install_commands_and_local_content(
        tiny_spec: RepoSpec, tiny_checkout: Path, tmp_path: Path) -> None:
    python = "/usr/bin/python3"
    base = environment_key(tiny_spec, python, tiny_checkout)
    other = tiny_spec.model_copy(update={"install": ("pip install .",)})
    assert environment_key(other, python, tiny_checkout) != base
    copy = copy_tree(tiny_checkout, tmp_path / "edited")
    (copy / "src" / "tinypkg" / "extra.py").write_text("x = 1\n")
    assert environment_key(tiny_spec, python, copy) != base
    assert environment_key(tiny_spec, python, tiny_checkout) == base


def test_failing_install_names_the_command_and_half_built_env_is_rebuilt(
        tmp_path: Path, tiny_checkout: Path) -> None:
    spec = parse_repo_spec({"name": "broken", "source": {"path": str(tiny_checkout)},
                            "install": ["echo installing; exit 7"]})
    python = find_python(spec.python)
    root = tmp_path / "envs" / environment_key(spec, python, tiny_checkout)
    (tmp_path / "seeds").symlink_to(sandbox_cache() / "seeds")  # pip seeded once per session
    (root / "venv").mkdir(parents=True)  # an earlier attempt, killed before the ready marker
    (root / "left-over").write_text("half-built")
    with pytest.raises(SandboxError, match=r"exit 7.*exited with 7") as caught:
        prepare_or_skip(spec, tiny_checkout, tmp_path)  # not a network failure: raised
    assert "install.log" in str(caught.value)
    assert not (root / "left-over").exists(), "a half-built environment must be rebuilt"
    assert (root / "venv" / "bin" / "python").exists() and not (root / READY).exists()
    assert "installing" in (root / "install.log").read_text()


def test_ready_environment_survives_a_new_python_process(tiny_env: Environment) -> None:
    restored = Environment.model_validate_json((tiny_env.root / READY).read_text())
    assert restored == tiny_env and restored.mounts()[0] == tiny_env.root
