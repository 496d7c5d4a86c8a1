"""Harbor task directories checked by the `harbor` package from PyPI, not by a copy of its schema.

harbor needs Python >= 3.12, so it is installed into its own virtualenv (`tests.support.harbor`:
cached under the test-data folder, the pinned version, the newest interpreter found); without
one, or without PyPI, the test is skipped and says why. The check loads each task with
`harbor.models.task.task.Task` (its `TaskConfig` and path/test-script validation) and also
rejects any task.toml key harbor's models do not know (pydantic would silently ignore a
misspelt one). tests/bench/test_harbor_real.py runs a task under `harbor run`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from smellkit.bench.harbor import HarborExport, HarborOptions
from smellkit.config import RepoSpec, load_repo_spec
from smellkit.models import Case
from tests.bench import fakes

pytestmark = pytest.mark.slow

_CHECK = r'''
import json, sys, tomllib
from pydantic import BaseModel
from harbor.models.task.task import Task
from harbor.models.task.config import TaskConfig

def unknown(data, model, where):
    found = []
    for key, value in data.items():
        fields = {**{name: info for name, info in model.model_fields.items()},
                  **{info.alias: info for info in model.model_fields.values() if info.alias}}
        if key not in fields and key != "version":
            found.append(where + key)
            continue
        if key in ("metadata",) or not isinstance(value, dict):
            continue
        annotation = fields[key].annotation
        for option in getattr(annotation, "__args__", (annotation,)):
            if isinstance(option, type) and issubclass(option, BaseModel):
                found += unknown(value, option, where + key + ".")
                break
    return found

results = {}
for folder in sys.argv[1:]:
    try:
        task = Task(folder)
        data = tomllib.loads(open(folder + "/task.toml").read())
        results[folder] = {"ok": True, "unknown": unknown(data, TaskConfig, ""),
                           "name": task.name, "instruction": task.instruction[:40],
                           "timeout": task.config.verifier.timeout_sec,
                           "networks": [str(getattr(part.network_mode, "value", part.network_mode))
                                        for part in (task.config.environment,
                                                     task.config.agent, task.config.verifier)],
                           "hosts": task.config.agent.allowed_hosts}
    except Exception as error:
        results[folder] = {"ok": False, "error": f"{type(error).__name__}: {error}"}
print(json.dumps(results))
'''


def _harbor_python() -> Path:
    """The interpreter of a virtualenv with harbor installed, or a skip saying why not."""
    from tests.support.harbor import harbor_venv

    return harbor_venv() / "bin" / "python"


def _case(spec: RepoSpec, smell: str = "god_class") -> Case:
    return Case(**dict(fakes.harmless(smell, "hard", "mul")), repo=spec.name,  # type: ignore[arg-type]
                revision=spec.revision, source_path=spec.source_path,
                tests=("tests/test_ops.py::test_mul",))


def write_task(case: Case, spec: RepoSpec, checkout: Path, harbor_dir: Path,
               **options: object) -> Path:
    """The export without the scorer's dependency wheels (nothing here needs them)."""
    exporter = HarborExport(HarborOptions(pin_base=False, **options),  # type: ignore[arg-type]
                            harbor_dir / ".cache", dependencies=lambda cache, python: ([], False))
    return exporter.write_task(case, spec, checkout, harbor_dir)


def test_tasks_load_with_harbors_own_models(tmp_path: Path) -> None:
    python = _harbor_python()
    local = load_repo_spec(fakes.FIXTURES / "calc.toml")
    pypi = RepoSpec.model_validate({"name": "calcpypi", "source": {"pypi": "calc==0.1.0"},
                                    "source-path": "src"})
    git = RepoSpec.model_validate({"name": "calcgit", "source": {
        "git": "https://example.org/calc.git", "commit": "0123abc"}, "source-path": "src"})
    tasks = [write_task(_case(spec), spec, fakes.FIXTURES / "calcrepo", tmp_path)
             for spec in (local, pypi, git)]
    tasks.append(write_task(_case(local, "dead_code"), local, fakes.FIXTURES / "calcrepo",
                            tmp_path, allow_hosts=("api.anthropic.com", "*.openai.com")))
    tasks.append(write_task(_case(local, "feature_envy"), local, fakes.FIXTURES / "calcrepo",
                            tmp_path, setup_network="public"))
    checked = subprocess.run([str(python), "-c", _CHECK, *map(str, tasks)],
                             capture_output=True, text=True, check=True)
    results = json.loads(checked.stdout)
    for task in tasks:
        result = results[str(task)]
        assert result["ok"], result
        assert result["unknown"] == [], result
        assert result["name"] == f"smellkit/{task.name}"
        assert result["instruction"].startswith("Remove the ")
        assert result["networks"][2] == "no-network"
    networks = [results[str(task)]["networks"][:2] for task in tasks]  # [setup, agent]
    assert networks == [["no-network", "no-network"]] * 3 + [["allowlist", "allowlist"],
                                                             ["public", "no-network"]]
    assert results[str(tasks[-2])]["hosts"] == ["api.anthropic.com", "*.openai.com"]


def test_a_broken_task_is_refused_by_harbor(tmp_path: Path) -> None:
    """The check above can fail: harbor refuses a task without its test script."""
    python = _harbor_python()
    spec = load_repo_spec(fakes.FIXTURES / "calc.toml")
    task = write_task(_case(spec), spec, fakes.FIXTURES / "calcrepo", tmp_path)
    (task / "tests" / "test.sh").unlink()
    checked = subprocess.run([str(python), "-c", _CHECK, str(task)], capture_output=True,
                             text=True, check=True)
    result = json.loads(checked.stdout)[str(task)]
    assert not result["ok"] and "test.sh" in result["error"]
