"""The Score commands: `evaluate`, `run` (agents), `judge`, `crosscheck`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from smellkit.cli.group import fail, main
from smellkit.errors import SmellkitError, UsageError
from smellkit.report.progress import (
    build_progress,
    stderr_console,
)

if TYPE_CHECKING:
    pass


@main.command("evaluate")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.argument("predictions", nargs=-1, type=click.Path(path_type=Path))
@click.option("--out", "-o", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Output folder: scores.jsonl, input_errors.jsonl, run.json.")
@click.option("--baseline", "baselines", multiple=True, type=click.Choice(["oracle", "noop"]),
              help="Score a baseline too: the ground truth (oracle) or no change (noop).")
@click.option("--repos", type=click.Path(path_type=Path), default=None,
              help="A folder of final repositories, one per instance id, as predictions.")
@click.option("--harbor-jobs", type=click.Path(path_type=Path), default=None,
              help="A Harbor jobs folder: each trial's verifier/prediction.patch.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=2, show_default=True,
              help="Predictions scored at once.")
@click.option("--runner", type=click.Choice(["local", "docker"]), default=None,
              help="Where tests run (default: the spec's runner, else local).")
@click.option("--full-suite", is_flag=True,
              help="Also run every test that passes on the original code.")
@click.option("--spec", "specs", multiple=True, type=click.Path(path_type=Path),
              metavar="FILE", help="A repo spec, instead of the one the build recorded.")
@click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
              help="Checkouts and environments (default: the build's cache).")
@click.option("--no-tests", is_flag=True,
              help="Run no tests: static signals only (for measuring their speed).")
@click.option("--no-progress", is_flag=True, help="No progress bars.")
@click.option("--equivalence", is_flag=True,
              help="Also test each result against the smelly code by differential testing "
                   "(recorded inputs of the functions the patch could change).")
@click.option("--equivalence-budget", type=click.FloatRange(min=1), default=None,
              help="Seconds of differential testing per prediction (default 240).")
def evaluate_command(dataset: Path, predictions: tuple[Path, ...], out_dir: Path,
                     baselines: tuple[str, ...], repos: Path | None, harbor_jobs: Path | None,
                     jobs: int, runner: str | None, full_suite: bool, specs: tuple[Path, ...],
                     cache_dir: Path | None, no_tests: bool, no_progress: bool,
                     equivalence: bool, equivalence_budget: float | None) -> None:
    """Score PREDICTIONS (SWE-bench JSONL/JSON, mini-swe-agent preds.json) on DATASET (a
    build's output folder or dataset file); resumable: run again to score what is missing."""
    from smellkit.evaluate.scorer import evaluate

    try:
        options = _equivalence_options(equivalence, equivalence_budget)
        with build_progress(enabled=not no_progress) as progress:
            report = evaluate(dataset, list(predictions), out_dir, baselines=baselines,
                              repos=repos, harbor_jobs=harbor_jobs, jobs=jobs,
                              runner=runner,  # type: ignore[arg-type]
                              full_suite=full_suite, tests=not no_tests, specs=specs,
                              cache_dir=cache_dir, progress=progress, equivalence=options)
    except SmellkitError as error:
        fail(error)
        return
    from smellkit.report.scores import print_evaluation

    console = stderr_console()
    print_evaluation(report, console)
    if (out_dir / "scores.jsonl").is_file():
        _write_score_reports(out_dir, console)
    sys.exit(report.exit_code)


def _equivalence_options(enabled: bool, budget: float | None) -> Any:
    """The equivalence options `--equivalence` and `--equivalence-budget` ask for (None: off)."""
    if not enabled:
        if budget is not None:
            raise UsageError("--equivalence-budget needs --equivalence")
        return None
    from smellkit.evaluate.equivalence import EquivalenceOptions

    return EquivalenceOptions() if budget is None else EquivalenceOptions(case_budget=budget)


def _write_score_reports(out_dir: Path, console: Any) -> None:
    """summary.json/.csv/.md and report.html beside scores.jsonl; without the `report` extra,
    a note says how to get them (the scores themselves are complete either way)."""
    from smellkit.evaluate.reports import write_reports
    from smellkit.evaluate.reports.frame import ReportExtraMissing

    try:
        paths = write_reports(out_dir)
    except ReportExtraMissing as error:
        console.print(f"no summaries or report.html: {error}")
        return
    console.print(f"summaries and plots: {paths.summary_md}, {paths.report_html}")


def _assignments(values: tuple[str, ...], option: str) -> dict[str, str]:
    """NAME=VALUE pairs, or NAME alone for the value of NAME in this environment."""
    import os

    found: dict[str, str] = {}
    for item in values:
        name, sep, value = item.partition("=")
        if not name or not name.replace("_", "").isalnum():
            raise UsageError(f"{option} {item!r}: expected NAME or NAME=VALUE")
        if not sep:
            if name not in os.environ:
                raise UsageError(f"{option} {name}: {name} is not set here",
                                 hint=f"give its value: {option} {name}=VALUE")
            value = os.environ[name]
        found[name] = value
    return found


@main.command("run")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option("--agent", "-a", required=True, metavar="NAME",
              help="claude-code, codex, qwen-coder (qwen-code), openhands, aider, "
                   "mini-swe-agent or command.")
@click.option("--model", "-m", default="", help="The model the agent uses.")
@click.option("--setting", required=True, type=click.Choice(["open", "guided", "targeted"]),
              help="Which of the case's instructions the agent gets.")
@click.option("--out", "-o", "predictions", type=click.Path(path_type=Path), required=True,
              help="The predictions file (JSONL); logs go to PREDICTIONS.logs/ beside it.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Agents run at once.")
@click.option("--timeout", type=click.FloatRange(min=1), default=1800, show_default=True,
              help="Seconds each run may take; then its process group is killed.")
@click.option("--limit", type=click.IntRange(min=0), default=None,
              help="Only the first N cases (after --instance).")
@click.option("--instance", "instances", multiple=True, metavar="ID",
              help="Only this instance id; repeatable.")
@click.option("--runner", type=click.Choice(["local", "docker"]), default="local",
              show_default=True, help="Where the agent runs.")
@click.option("--image", default=None, help="The Docker image holding the agent's CLI.")
@click.option("--base-url", default=None, help="The model API's base URL.")
@click.option("--key-var", default=None, metavar="NAME[=FROM]",
              help="The variable the agent reads its key from (default: the adapter's), "
                   "and the variable here holding it.")
@click.option("--agent-arg", "agent_args", multiple=True, metavar="ARG",
              help="An extra argument for the agent's command line; repeatable.")
@click.option("--env", "env_vars", multiple=True, metavar="NAME[=VALUE]",
              help="Another variable for the agent (NAME alone: its value here); repeatable.")
@click.option("--command", "command", default=None,
              help="The command agent's shell command, with {instruction_file}, "
                   "{workspace}, {model} and {usage_file}.")
@click.option("--name", default=None,
              help="model_name_or_path of the predictions (default AGENT/MODEL/SETTING).")
@click.option("--prices", type=click.Path(path_type=Path), default=None,
              help="A price table (JSON or TOML), for agents that report no cost.")
@click.option("--spec", "specs", multiple=True, type=click.Path(path_type=Path),
              metavar="FILE", help="A repo spec, instead of the one the build recorded.")
@click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
              help="Checkouts (default: the build's cache).")
@click.option("--work-dir", type=click.Path(path_type=Path), default=None,
              help="Where workspaces are made (default: a temporary folder).")
@click.option("--keep-workspaces", is_flag=True, help="Leave the workspaces for inspection.")
@click.option("--no-progress", is_flag=True, help="No progress bars.")
def run_command(dataset: Path, agent: str, model: str, setting: str, predictions: Path,
                jobs: int, timeout: float, limit: int | None, instances: tuple[str, ...],
                runner: str, image: str | None, base_url: str | None, key_var: str | None,
                agent_args: tuple[str, ...], env_vars: tuple[str, ...], command: str | None,
                name: str | None, prices: Path | None, specs: tuple[Path, ...],
                cache_dir: Path | None, work_dir: Path | None, keep_workspaces: bool,
                no_progress: bool) -> None:
    """Run a coding agent on every case of DATASET; one prediction per case, resumable."""
    from smellkit.agents import AgentConfig, run_agents
    from smellkit.report.runs import run_summary_table

    try:
        key, _, key_from = (key_var or "").partition("=")
        config = AgentConfig(model=model, base_url=base_url, key_var=key or None,
                             key_from=key_from or None, flags=agent_args,
                             env=_assignments(env_vars, "--env"), command=command)
        with build_progress(enabled=not no_progress) as progress:
            report = run_agents(dataset, predictions, agent=agent, config=config,
                                setting=setting, name=name, jobs=jobs, timeout=timeout,
                                limit=limit, instances=instances, runner=runner, image=image,
                                specs=specs, cache_dir=cache_dir, work_dir=work_dir,
                                keep_workspaces=keep_workspaces, prices=prices,
                                progress=progress)
    except SmellkitError as error:
        fail(error)
        return
    stderr_console().print(run_summary_table(report))


@main.command("judge")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.argument("predictions", nargs=-1, type=click.Path(path_type=Path))
@click.option("--out", "-o", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Output folder: verdicts.jsonl, judge_summary.json/.md, judge_run.json, "
                   "and the scores and their reports with the judge's columns.")
@click.option("--model", "judge_models", multiple=True, metavar="MODEL",
              help="A judge model; repeatable (each judges every prediction). Default: "
                   "$SMELLKIT_JUDGE_MODEL.")
@click.option("--base-url", default=None, metavar="URL",
              help="An OpenAI-compatible server (default: $SMELLKIT_JUDGE_BASE_URL, else "
                   "$OPENAI_BASE_URL, else OpenAI's).")
@click.option("--api-key-env", default=None, metavar="NAME",
              help="The environment variable holding the key (default: "
                   "SMELLKIT_JUDGE_API_KEY, else OPENAI_API_KEY).")
@click.option("--samples", type=click.IntRange(min=1), default=3, show_default=True,
              help="Samples per verdict (the median of each score is kept).")
@click.option("--baseline", "baselines", multiple=True, type=click.Choice(["oracle", "noop"]),
              help="Judge a baseline too: the ground truth (oracle) or no change (noop).")
@click.option("--scores", "scores_dir", type=click.Path(path_type=Path), default=None,
              help="Read Score rows from this `smellkit evaluate` folder instead of scoring.")
@click.option("--analysis", type=click.Choice(["case", "model"]), default="case",
              show_default=True, help="The smell analysis: from the case record, or written "
                                      "by a model (SmellBench's pre-step).")
@click.option("--analysis-model", default=None, metavar="MODEL",
              help="The model that writes the analysis (default: the first --model).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              help="Requests in flight at once.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=120.0, show_default=True,
              help="Seconds before a request is cut off and retried.")
@click.option("--retries", type=click.IntRange(min=0), default=4, show_default=True,
              help="Retries after 429, 5xx, a lost connection or a time-out.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Sample i is asked with seed SEED + i (and temperature 0).")
@click.option("--max-tokens", type=click.IntRange(min=64), default=2048, show_default=True)
@click.option("--structured", type=click.Choice(["auto", "json_schema", "json_object",
                                                  "prompt"]), default="auto", show_default=True,
              help="How to ask for JSON (auto: a JSON schema, falling back when refused).")
@click.option("--price", "prices", multiple=True, metavar="MODEL=IN,OUT",
              help="USD per million prompt and completion tokens of MODEL; repeatable.")
@click.option("--judge-cache", type=click.Path(path_type=Path), default=None,
              help="The replies' cache (default: $SMELLKIT_CACHE_DIR/judge, else "
                   "~/.cache/smellkit/judge).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the replies' cache.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=2, show_default=True,
              help="Predictions scored at once (when this run scores).")
@click.option("--runner", type=click.Choice(["local", "docker"]), default=None,
              help="Where the scoring's tests run (default: the spec's runner, else local).")
@click.option("--no-progress", is_flag=True, help="No progress bars.")
def judge_command(dataset: Path, predictions: tuple[Path, ...], out_dir: Path,
                  judge_models: tuple[str, ...], base_url: str | None, api_key_env: str | None,
                  samples: int, baselines: tuple[str, ...], scores_dir: Path | None,
                  analysis: str, analysis_model: str | None, concurrency: int, timeout: float,
                  retries: int, seed: int, max_tokens: int, structured: str,
                  prices: tuple[str, ...], judge_cache: Path | None, no_cache: bool, jobs: int,
                  runner: str | None, no_progress: bool) -> None:
    """Judge PREDICTIONS of DATASET with an LLM and cross-check every verdict against the
    scores (resumable: run again to judge what is missing)."""
    import os

    from smellkit.judge.cache import ReplyCache
    from smellkit.judge.client import MODEL_ENV, ClientOptions, parse_price
    from smellkit.judge.run import judge

    try:
        models = judge_models or tuple(filter(None, [os.environ.get(MODEL_ENV)]))
        key = None
        if api_key_env is not None:
            key = os.environ.get(api_key_env)
            if not key:
                raise UsageError(f"${api_key_env} is not set", hint="export it, or leave out "
                                 "--api-key-env for SMELLKIT_JUDGE_API_KEY / OPENAI_API_KEY")
        options = ClientOptions(
            base_url=base_url, api_key=key, timeout=timeout, retries=retries,
            concurrency=concurrency, seed=seed, max_tokens=max_tokens,
            structured=structured,  # type: ignore[arg-type]
            prices=dict(parse_price(text) for text in prices),
            cache=ReplyCache(judge_cache, enabled=not no_cache))
        with build_progress(enabled=not no_progress) as progress:
            report = judge(dataset, list(predictions), out_dir, judge_models=models,
                           baselines=baselines, scores=scores_dir, samples=samples,
                           client=options, analysis=analysis,  # type: ignore[arg-type]
                           analysis_model=analysis_model,
                           evaluate_options={"jobs": jobs, "runner": runner},
                           progress=progress)
    except SmellkitError as error:
        fail(error)
        return
    from smellkit.report.judge import print_judging

    console = stderr_console()
    print_judging(report, console)
    _write_score_reports(out_dir, console)
    sys.exit(report.exit_code)


@main.command("crosscheck")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.argument("scores_dir", type=click.Path(path_type=Path))
@click.argument("verdicts", type=click.Path(path_type=Path))
@click.option("--out", "-o", "out_dir", type=click.Path(path_type=Path), required=True,
              help="Output folder: verdicts.jsonl (cross-checked), crosscheck_errors.jsonl, "
                   "judge_summary.json/.md, and the score reports with the judge's columns.")
@click.option("--model", default=None, metavar="NAME",
              help="The predictions' model the verdicts judged, when the file does not say.")
@click.option("--judge-model", default=None, metavar="NAME",
              help="The judge's name, when the file does not say.")
@click.option("--predictions", "predictions", multiple=True, type=click.Path(path_type=Path),
              help="The judged predictions: the cross-check then also knows which involved "
                   "files each patch left untouched; repeatable.")
def crosscheck_command(dataset: Path, scores_dir: Path, verdicts: Path, out_dir: Path,
                       model: str | None, judge_model: str | None,
                       predictions: tuple[Path, ...]) -> None:
    """Cross-check VERDICTS of any judge (SmellBench's judge_rubric.py output, JSONL or CSV)
    against SCORES_DIR (a `smellkit evaluate` folder) of the predictions of DATASET."""
    from smellkit.judge.external import crosscheck_verdicts

    try:
        report = crosscheck_verdicts(dataset, scores_dir, verdicts, out_dir, model=model,
                                     judge_model=judge_model, predictions=predictions)
    except SmellkitError as error:
        fail(error)
        return
    from smellkit.report.judge import print_crosscheck

    console = stderr_console()
    print_crosscheck(report, console)
    _write_score_reports(out_dir, console)
    sys.exit(report.exit_code)
