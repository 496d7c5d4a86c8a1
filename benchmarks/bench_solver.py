"""The call-graph solve of the pandas 2.2.3 wheel (tests included): time, work and memory, for
this tree and optionally a git revision beside it.

Each run is a process of its own: it loads the facts from a cache filled by an untimed first run,
then builds the call graph without astroid (`build_call_graph(index, budget=0)`, so the result
depends on nothing but the code) and reports:

- seconds / CPU s: wall and CPU (user + system) time of `build_call_graph` alone;
- steps: values the solver's worklist propagated (`Propagation.steps`), exact from run to run;
- nodes, sites: the solver's nodes and call sites (implicit ones included);
- unresolved: explicit call sites with no target and nothing known about the callee;
- edges: edges of the call graph;
- facts RSS / peak RSS: resident memory after the facts are loaded, and the process's peak
  (`ru_maxrss`, kept by the kernel, so measuring it does not slow the run).

The time figures are medians of `--runs`; runs of the two trees alternate, so that a shared
machine's drift reaches both alike. Compare CPU seconds only between rows of one invocation.

    python benchmarks/bench_solver.py [--baseline REV] [--runs 3] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scan import fetch_pandas

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, os, resource, sys, time
from smellkit.graphs.calls import build_call_graph
from smellkit.project import Project

project = Project.load(sys.argv[1], include_tests=True, cache_dir=sys.argv[2], jobs=2,
                       detailed=False)
index = project.index
with open("/proc/self/statm") as handle:
    facts_rss = int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
started, cpu = time.perf_counter(), time.process_time()
graph = build_call_graph(index, budget=0)
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
solver = graph.solver
print(json.dumps({
    "seconds": seconds, "cpu": cpu, "steps": solver.steps, "nodes": len(solver.pts),
    "sites": len(solver.sites), "unresolved": graph.unresolved,
    "edges": graph.graph.number_of_edges(), "facts_rss": facts_rss,
    "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""

COLUMNS = ("seconds", "cpu", "steps", "nodes", "sites", "unresolved", "edges", "facts_rss",
           "peak_rss")


def solve_once(code: Path, pandas: Path, cache: Path) -> dict[str, float]:
    """One run of the solve with the code under `code`, in a fresh process."""
    environment = dict(os.environ, PYTHONPATH=str(code))
    done = subprocess.run([sys.executable, "-c", CHILD, str(pandas), str(cache)],
                          env=environment, capture_output=True, text=True, cwd=code)
    if done.returncode:
        raise SystemExit(f"the solve with {code} failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def row(label: str, runs: list[dict[str, float]]) -> str:
    """Medians of the runs (the counts are the same in every run)."""
    median = {column: statistics.median(run[column] for run in runs) for column in COLUMNS}
    return (f"{label:12} {median['seconds']:8.2f} {median['cpu']:7.2f} {median['steps']:10.0f} "
            f"{median['nodes']:9.0f} {median['sites']:8.0f} {median['unresolved']:10.0f} "
            f"{median['edges']:8.0f} {median['facts_rss'] / 2**20:7.0f} MB "
            f"{median['peak_rss'] / 2**20:6.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="a git revision to measure beside this tree")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", type=Path,
                        default=Path.home() / ".cache" / "smellkit-bench")
    options = parser.parse_args()
    pandas = fetch_pandas(options.data) / "pandas"
    with tempfile.TemporaryDirectory(prefix="smellkit-solver-") as scratch:
        trees: list[tuple[str, Path]] = []
        if options.baseline:
            checkout = Path(scratch) / "baseline"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet",
                            str(checkout), options.baseline], check=True)
            trees.append((options.baseline, checkout))
        trees.append(("this tree", ROOT))
        try:
            caches = {label: Path(scratch) / f"cache-{number}"
                      for number, (label, _) in enumerate(trees)}
            for label, code in trees:  # fills the facts cache; not timed
                solve_once(code, pandas, caches[label])
            runs: dict[str, list[dict[str, float]]] = {label: [] for label, _ in trees}
            for _ in range(options.runs):
                for label, code in trees:
                    runs[label].append(solve_once(code, pandas, caches[label]))
        finally:
            if options.baseline:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                                str(Path(scratch) / "baseline")], check=False)
    print(f"call-graph solve of pandas 2.2.3 (tests included, no astroid); median of "
          f"{options.runs} runs; {os.cpu_count()} cores")
    print(f"{'code':12} {'seconds':>8} {'CPU s':>7} {'steps':>10} {'nodes':>9} {'sites':>8} "
          f"{'unresolved':>10} {'edges':>8} {'facts RSS':>10} {'peak RSS':>9}")
    for label, _ in trees:
        print(row(label, runs[label]))


if __name__ == "__main__":
    main()
