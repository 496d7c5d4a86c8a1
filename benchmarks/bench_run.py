"""What `smellkit run` adds around an agent, on a click 8.1.7 dataset: per case, making the
workspace (smelly tree, tests removed, the one commit, the private git copy), starting the agent
and taking its patch, measured with an agent that does nothing but append one line (`command`).

Builds a small click dataset once (from its PyPI sdist; reused afterwards, as
bench_evaluate.py does), runs the no-op agent on every case with one and with two jobs, and
prints the median wall time per case against the floor: copying the checkout (what making a
workspace must at least do). A real agent takes minutes per case; the target for the overhead
is under 2 s per case.

    python benchmarks/bench_run.py [--data DIR] [--per-cell 1]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from smellkit.agents import AgentConfig, run_agents
from smellkit.bench import build

SPEC = Path(__file__).resolve().parents[1] / "examples" / "specs" / "click.toml"
AGENT = "echo '# touched' >> src/click/core.py"


def _run(dataset: Path, out: Path, jobs: int) -> tuple[list[float], float]:
    started = time.perf_counter()
    report = run_agents(dataset, out, agent="command", config=AgentConfig(command=AGENT),
                        setting="open", jobs=jobs)
    wall = time.perf_counter() - started
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert report.exit_reasons == {"finished": len(rows)}, report
    assert all("src/click/core.py" in row["model_patch"] for row in rows)
    return [row["duration_s"] for row in rows], wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path,
                        default=Path.home() / ".cache" / "smellkit-bench" / "evaluate")
    parser.add_argument("--per-cell", type=int, default=1)
    arguments = parser.parse_args()
    dataset = arguments.data / f"click-per-cell-{arguments.per_cell}"
    built = build(SPEC, dataset, cache_dir=arguments.data / "cache", per_cell=arguments.per_cell,
                  spare=0, jobs=2, seed=0, harbor=False)
    print(f"dataset: {built.cases} click cases in {dataset}")
    with tempfile.TemporaryDirectory(prefix="bench-run-") as scratch:
        work = Path(scratch)
        agent_times, one = _run(dataset, work / "one.jsonl", jobs=1)
        _, two = _run(dataset, work / "two.jsonl", jobs=2)
        record = json.loads(next((dataset / "specs").glob("*.json")).read_text())
        checkout = next(path for path in (Path(record["cache-dir"]) / "sources").iterdir()
                        if path.is_dir())
        copies = []
        for number in range(5):
            started = time.perf_counter()
            shutil.copytree(checkout, work / f"copy-{number}", symlinks=True)
            copies.append(time.perf_counter() - started)
    cases = len(agent_times)
    per_case = one / cases
    print(f"\n{'step':44} {'seconds':>8}")
    print("-" * 53)
    print(f"{'per case, everything (1 job)':44} {per_case:8.3f}")
    print(f"{'  of it the agent (median)':44} {statistics.median(agent_times):8.3f}")
    print(f"{'floor: copy the checkout (median)':44} {statistics.median(copies):8.3f}")
    print(f"\nwall time for {cases} cases: {one:.1f}s with 1 job, {two:.1f}s with 2 "
          f"({one / max(two, 1e-9):.2f}x)")
    print(f"target under 2 s per case: {'meets' if per_case < 2.0 else 'MISSES'} it")


if __name__ == "__main__":
    main()
