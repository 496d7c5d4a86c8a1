"""Repo specs: the example files load; each broken file is refused naming its field."""

from __future__ import annotations

from pathlib import Path

import pytest

from smellkit.config import RepoSpec, find_python, load_repo_spec, parse_repo_spec
from smellkit.errors import ConfigError

SPECS = Path(__file__).parent / "specs"
EXAMPLES = Path(__file__).parents[2] / "examples" / "specs"


def test_path_source_resolves_against_the_spec_file() -> None:
    spec = load_repo_spec(SPECS / "valid_path.toml")
    assert spec.source.kind == "path"
    assert spec.local_path() == (SPECS.parent / "fixtures" / "tinyrepo").resolve()
    assert spec.revision == "local"
    assert spec.env == {"TZ": "UTC"}
    assert spec.exclude_tests == ("tests/test_util.py::test_hangs", "*::test_skipped")
    assert spec.timeouts.per_test == 5 and spec.timeouts.test == 600  # the rest are defaults
    assert spec.spec_path == (SPECS / "valid_path.toml").resolve()


def test_git_source_records_its_commit() -> None:
    spec = load_repo_spec(SPECS / "valid_git.toml")
    assert spec.source.kind == "git"
    assert spec.revision == "9f8a3ee6f1fd7a0a7e80f8ef3c5beb5d3e1c8c2a"
    assert spec.install == ("pip install -e .",)
    assert spec.test_command == "python -m pytest -x"


def test_pypi_source_revision_names_the_release() -> None:
    spec = load_repo_spec(SPECS / "valid_pypi.toml")
    assert spec.source.kind == "pypi"
    assert spec.revision == "pypi:click==8.1.7"
    assert spec.install[1] == "pip install -r requirements/tests.txt"


def test_dumps_use_kebab_case_and_leave_out_the_spec_path() -> None:
    spec = load_repo_spec(SPECS / "valid_pypi.toml")
    dumped = spec.model_dump(by_alias=True)
    assert "spec_path" not in dumped and "spec-path" not in dumped
    assert dumped["source-path"] == "src" and dumped["timeouts"]["per-test"] == 60
    assert parse_repo_spec(dumped) == spec.model_copy(update={"spec_path": None})


@pytest.mark.parametrize("path", sorted(SPECS.glob("broken_*.toml")), ids=lambda p: p.stem)
def test_broken_spec_names_the_file_and_field(path: Path) -> None:
    expected = path.read_text().splitlines()[0].removeprefix("# expect: ").strip()
    with pytest.raises(ConfigError) as caught:
        load_repo_spec(path)
    assert path.name in str(caught.value)
    if expected == "-":  # not TOML at all: there is no field to name
        assert caught.value.field is None and "TOML" in str(caught.value)
    else:
        assert caught.value.field == expected, str(caught.value)
        assert f"{expected}:" in str(caught.value)


def test_unknown_key_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"known keys: .*tests-path"):
        load_repo_spec(SPECS / "broken_unknown_key.toml")


def test_missing_file_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="cannot read the repo spec"):
        load_repo_spec(SPECS / "nothing-here.toml")


def test_spec_path_cannot_be_set_in_the_file() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_repo_spec({"name": "x", "source": {"path": "."}, "spec-path": "/elsewhere"})
    assert caught.value.field == "spec-path"


def test_missing_interpreter_names_the_python_field() -> None:
    with pytest.raises(ConfigError) as caught:
        find_python("3.99", path="repo.toml")
    assert caught.value.field == "python" and "python3.99" in str(caught.value)
    assert Path(find_python("3")).is_file()


@pytest.mark.parametrize("name", ["click.toml", "jinja2.toml"])
def test_examples_load(name: str) -> None:
    spec = load_repo_spec(EXAMPLES / name)
    assert isinstance(spec, RepoSpec) and spec.source.kind == "pypi"
    assert spec.revision.startswith("pypi:")


def test_suite_and_selection_commands(tmp_path: Path) -> None:
    from smellkit.sandbox.testrun import selection_argv, suite_argv

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").touch()

    def spec(command: str) -> RepoSpec:
        return parse_repo_spec({"name": "x", "source": {"path": "."}, "test-command": command})

    assert suite_argv(spec("python -m pytest"), tmp_path) == ["python", "-m", "pytest", "tests"]
    subset = spec("python -m pytest -p no:warnings tests/test_a.py -x")
    assert suite_argv(subset, tmp_path) == subset.test_command.split()
    assert selection_argv(subset, tmp_path) == ["python", "-m", "pytest", "-p", "no:warnings",
                                                "-x"]
    assert selection_argv(spec("pytest tests"), tmp_path) == ["pytest"]


def test_the_runner_is_local_or_docker(tmp_path: Path) -> None:
    spec = tmp_path / "repo.toml"
    spec.write_text('name = "r"\nrunner = "docker"\n[source]\npath = "."\n')
    assert load_repo_spec(spec).runner == "docker"
    spec.write_text('name = "r"\nrunner = "vm"\n[source]\npath = "."\n')
    with pytest.raises(ConfigError, match="runner"):
        load_repo_spec(spec)
