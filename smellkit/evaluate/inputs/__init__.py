"""Every source of predictions of one run, read into one `PredictionRead`: prediction files
(`predictions.read_predictions`), a `--repos` folder of final repositories, a Harbor jobs folder
and the built-in baselines. Each source is read on its own (its bad records are error values),
then one (instance, model) given by two sources is a duplicate like any other: the first source
in that order wins.

Harbor (0.26, checked against its real output) writes `jobs/<job>/{config.json, lock.json,
result.json, job.log}` and one folder per trial, `<trial>/{lock.json, config.json, result.json,
trial.log, agent/, verifier/, artifacts/}`; the verifier of a smellkit task saves the agent's
diff against the code it was given as `verifier/prediction.patch`. A trial is a folder whose
`config.json` is a trial config (it has `task` and `trial_name`). A trial Harbor planned but
never started (it stopped first, e.g. refusing the environment) has only `lock.json` (with a
`task`): it is reported as an error, never skipped silently. The instance id is the task's name
without the `smellkit/` (or other) organisation prefix (`result.json` `task_name`, else the task
folder's name in `config.json`); the model is `<agent>:<model>` (the `--model` given to Harbor,
else the one the agent reported; the agent's name alone when there is none). Usage is Harbor's
`agent_result` in smellkit's names (`USAGE`). Repeated attempts of one task by one agent and
model (`harbor run -k 3`) are duplicates: the first trial, in name order, is scored, the others
reported.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from smellkit.evaluate.errors import InputFormatError
from smellkit.evaluate.inputs.dataset import DatasetRead
from smellkit.evaluate.inputs.predictions import (
    Baseline,
    Origin,
    Prediction,
    PredictionError,
    PredictionRead,
    _collect,
    baseline_predictions,
    predictions_from_repos,
    read_predictions,
)
from smellkit.evaluate.patches.guard import protected_paths

PATCH = Path("verifier") / "prediction.patch"
USAGE = {"n_input_tokens": "input_tokens", "n_cache_tokens": "cached_input_tokens",
         "n_output_tokens": "output_tokens", "cost_usd": "cost_usd"}
"""Harbor's `AgentContext` fields and the names `smellkit run` records the same facts under."""


def _json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _is_trial(config: dict[str, Any] | None) -> bool:
    return config is not None and isinstance(config.get("task"), dict) and "trial_name" in config


def _never_started(folder: Path) -> bool:
    """A trial's lock.json without its config.json: planned, never run."""
    lock = _json(folder / "lock.json")
    return (lock is not None and isinstance(lock.get("task"), dict)
            and not (folder / "config.json").exists())


def trial_folders(root: Path) -> list[Path]:
    """Every trial folder under `root` (a jobs folder, one job, or one trial), in name order:
    those Harbor ran and those it planned but never started."""
    found = {path.parent for path in root.rglob("config.json")
             if _is_trial(_json(path))}
    found |= {path.parent for path in root.rglob("lock.json") if _never_started(path.parent)}
    return sorted(found)


def _get(data: dict[str, Any] | None, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _instance_id(config: dict[str, Any], result: dict[str, Any] | None) -> str | None:
    name = _get(result, "task_name") or _get(config, "task", "name")
    if not isinstance(name, str) or not name:
        path = _get(config, "task", "path")
        name = Path(path).name if isinstance(path, str) and path else None
    return name.rsplit("/", 1)[-1] if name else None


def _model(config: dict[str, Any], result: dict[str, Any] | None) -> tuple[str, str | None]:
    agent = _get(result, "agent_info", "name") or _get(config, "agent", "name") or \
        _get(config, "agent", "import_path")
    model = _get(config, "agent", "model_name")
    if not model:
        name = _get(result, "agent_info", "model_info", "name")
        provider = _get(result, "agent_info", "model_info", "provider")
        model = f"{provider}/{name}" if name and provider else name
    agent = agent if isinstance(agent, str) and agent else None
    if isinstance(model, str) and model:
        return (f"{agent}:{model}" if agent else model), agent
    return agent or "harbor", agent


def _seconds(result: dict[str, Any] | None) -> float | None:
    started = _get(result, "agent_execution", "started_at")
    finished = _get(result, "agent_execution", "finished_at")
    try:
        delta = (datetime.fromisoformat(finished) - datetime.fromisoformat(started))
    except (TypeError, ValueError):
        return None
    return max(delta.total_seconds(), 0.0)


def _usage(result: dict[str, Any] | None) -> dict[str, Any]:
    context = _get(result, "agent_result")
    return {name: context[key] for key, name in USAGE.items()
            if isinstance(context, dict) and context.get(key) is not None}


def _trial(trial: Path) -> Prediction | list[PredictionError]:
    config = _json(trial / "config.json") or {}
    result = _json(trial / "result.json")

    def error(field: str | None, message: str) -> list[PredictionError]:
        return [PredictionError(path=str(trial), field=field, message=message)]

    if _never_started(trial):
        task = _get(_json(trial / "lock.json"), "task", "name") or trial.name
        return error(None, f"Harbor never started this trial of {task!r} (only lock.json: it "
                           f"stopped before; see {trial.parent / 'job.log'} and harbor run's "
                           "output)")
    instance_id = _instance_id(config, result)
    if instance_id is None:
        return error("task_name", "neither result.json nor config.json names the task")
    patch_file = trial / PATCH
    if not patch_file.is_file():
        crashed = _get(result, "exception_info", "exception_type")
        why = f" (the trial ended with {crashed})" if crashed else ""
        return error(None, f"no {PATCH.as_posix()} for {instance_id!r}{why}: the verifier did "
                           "not run, or the task was exported before smellkit's verifier saved "
                           "predictions (export the Harbor tasks again)")
    try:
        patch = patch_file.read_bytes().decode("utf-8", "surrogateescape")
    except OSError as failure:
        return error(None, f"cannot read {patch_file}: {failure.strerror or failure}")
    model, agent = _model(config, result)
    return Prediction(instance_id=instance_id, model=model, patch=patch,
                      source=Origin(path=str(patch_file)), agent=agent,
                      exit_reason=_get(result, "exception_info", "exception_type"),
                      usage=_usage(result), duration_s=_seconds(result))


def predictions_from_harbor_jobs(root: Path | str) -> PredictionRead:
    """One prediction per trial under `root`; a trial without a saved patch is an error value
    beside the others. Raises InputFormatError when `root` holds no trial at all."""
    folder = Path(root)
    if not folder.is_dir():
        raise InputFormatError("not a folder", path=folder,
                               hint="--harbor-jobs takes Harbor's jobs folder (`harbor run -o`)")
    trials = trial_folders(folder)
    if not trials:
        raise InputFormatError("no Harbor trial found (no config.json with `task` and "
                               "`trial_name`)", path=folder,
                               hint="pass the jobs folder `harbor run` wrote (default: jobs)")
    predictions: list[Prediction] = []
    errors: list[PredictionError] = []
    _collect((_trial(trial) for trial in trials), {}, predictions, errors)
    return PredictionRead(predictions=tuple(predictions), errors=tuple(errors),
                          formats={str(folder): "harbor-jobs"})


def _merge(reads: Iterable[PredictionRead]) -> PredictionRead:
    predictions: list[Prediction] = []
    errors: list[PredictionError] = []
    formats: dict[str, str] = {}
    items: list[Prediction | list[PredictionError]] = []
    for read in reads:
        errors.extend(read.errors)
        formats.update(read.formats)
        items.extend(read.predictions)
    _collect(items, {}, predictions, errors)
    return PredictionRead(predictions=tuple(predictions), errors=tuple(errors), formats=formats)


def gather_predictions(data: DatasetRead, files: Sequence[Path | str] = (), *,
                       baselines: Sequence[str] = (), repos: Path | str | None = None,
                       harbor_jobs: Path | str | None = None,
                       smelly_trees: Mapping[str, Path] | None = None) -> PredictionRead:
    """All predictions of a run. `smelly_trees` (instance id -> smelly tree) serves `repos`:
    each final repository is diffed against its case's smelly tree, the tests folders left out
    on both sides (a solver never had them)."""
    reads: list[PredictionRead] = []
    if files:
        reads.append(read_predictions(files))
    if repos is not None:
        tests = protected_paths(case.tests_path for case in data.cases if case.tests_path)
        reads.append(predictions_from_repos(repos, smelly_trees or {}, ignore=tests))
    if harbor_jobs is not None:
        reads.append(predictions_from_harbor_jobs(harbor_jobs))
    for kind in dict.fromkeys(baselines):  # an unknown kind is a UsageError
        found = baseline_predictions(data.cases, cast(Baseline, kind))
        reads.append(PredictionRead(predictions=found, formats={f"<{kind}>": "baseline"}))
    return _merge(reads)


def repos_instances(repos: Path | str | None) -> set[str]:
    """The instance ids a `--repos` folder has a final repository for (its folder names)."""
    if repos is None or not Path(repos).is_dir():
        return set()
    return {entry.name for entry in Path(repos).iterdir()
            if entry.is_dir() and not entry.name.startswith(".")}
