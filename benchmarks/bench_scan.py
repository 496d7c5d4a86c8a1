"""Scan speed on the pandas 2.2.3 wheel: the parse floor, smellkit cold/warm/incremental, and peers.

Every figure is a whole process timed from the outside (wall clock, median of --runs), so the floor
and smellkit pay the same interpreter start-up. Each timed run comes right after a run of the floor,
and "x floor" is the median of those pairs' ratios: on a shared machine whose speed drifts by a
quarter within minutes, a ratio against one floor measured at the start would drift with it. Peak
memory ("peak RSS") is the proportional set size summed over the process tree (main process,
workers, forked children: shared pages counted once), sampled every 20 ms from /proc in one extra
run per row: sampling slows a big process down, so the timed runs are never sampled.

"cpu x floor" is the CPU time (user + system, summed over the process tree) of each timed run over
that of the floor run before it, median of the pairs. It bounds what parallel work can reach: the
floor runs on one core, so on N cores a run cannot take less than its "cpu x floor" / N in
"x floor".

Two scans are timed, each cold, warm and after three files change: the foundation's scan (call,
import, class and attribute graphs and every metric; `--no-smells`) and the full scan with all eight
detectors. The targets printed beside them are the issues' targets.

    python benchmarks/bench_scan.py [--runs 3] [--data DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import NamedTuple

PANDAS = "pandas==2.2.3"
WHEEL_GLOB = "pandas-2.2.3-*.whl"

FLOOR_SCRIPT = """
import ast, os, sys
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as handle:
                ast.parse(handle.read())
"""


def fetch_pandas(data: Path) -> Path:
    """The unpacked wheel (downloaded from PyPI once, then reused)."""
    tree = data / "pandas-2.2.3"
    if (tree / "pandas").is_dir():
        return tree
    data.mkdir(parents=True, exist_ok=True)
    wheels = list(data.glob(WHEEL_GLOB))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary",
                        ":all:", "--python-version", "3.11", "--platform",
                        "manylinux2014_x86_64", PANDAS, "-d", str(data), "-q"], check=True)
        wheels = list(data.glob(WHEEL_GLOB))
    with zipfile.ZipFile(wheels[0]) as archive:
        archive.extractall(tree)
    return tree


def _tree_rss(root_pid: int) -> int:
    """Resident bytes of a process and all its descendants."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        children.setdefault(int(fields[1]), []).append(pid)
        rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [root_pid]
    while stack:
        pid = stack.pop()
        total += _proportional(pid, rss.get(pid, 0))
        stack.extend(children.get(pid, []))
    return total


def _proportional(pid: int, rss: int) -> int:
    """The process's proportional set size (PSS): pages shared with its forked children are
    split between them, not counted once per process as RSS would; RSS where PSS is unreadable."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return rss


SAMPLE_SECONDS = 0.02


def timed(command: list[str], *, sample: bool = False) -> tuple[float, float, int]:
    """Wall seconds and CPU seconds (user + system of the whole process tree) of one run, and
    with `sample` its peak memory (0 without); the command must succeed. Reading a process's PSS
    makes the kernel walk its page tables while the process runs, which slowed a cold scan of
    pandas by seconds, so memory is measured in runs of its own, never in the runs that are
    timed."""
    peak = 0
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    done = threading.Event()

    def measure() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(process.pid))
            done.wait(SAMPLE_SECONDS)

    sampler = threading.Thread(target=measure, daemon=True)
    if sample:
        sampler.start()
    _, stderr = process.communicate()
    elapsed = time.perf_counter() - started
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    done.set()
    if sample:
        sampler.join()
    if process.returncode not in (0, 3):  # vulture exits 3 when it found dead code
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}): "
                         f"{stderr.decode()[-2000:]}")
    return elapsed, now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime, peak


class Row(NamedTuple):
    seconds: float
    ratio: float  # x floor
    cpu_ratio: float  # cpu x floor
    rss: int


class Paired:
    """Runs of commands, each timed right after a run of the floor."""

    def __init__(self, floor: list[str], runs: int):
        self.floor = floor
        self.runs = runs
        self.floors: list[float] = []

    def median_run(self, command: list[str], before: object = None) -> Row:
        """The median wall time of the timed runs, the medians of their wall and CPU ratios to
        the floor run before each, and the peak memory of one more run."""
        times: list[float] = []
        ratios: list[float] = []
        cpu_ratios: list[float] = []
        for _ in range(self.runs):
            floor, floor_cpu, _ = timed(self.floor)
            self.floors.append(floor)
            if callable(before):
                before()
            seconds, cpu, _ = timed(command)
            times.append(seconds)
            ratios.append(seconds / floor)
            cpu_ratios.append(cpu / floor_cpu)
        if callable(before):
            before()
        return Row(statistics.median(times), statistics.median(ratios),
                   statistics.median(cpu_ratios), timed(command, sample=True)[2])


def _edit_body(target: Path, statement: str) -> None:
    """Add `statement` after the last statement of the file's first function body."""
    import ast

    lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
    tree = ast.parse("".join(lines))
    function = next(node for node in ast.walk(tree)
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    last = function.body[-1]
    end = last.end_lineno or last.lineno
    lines.insert(end, " " * last.col_offset + statement + "\n")
    target.write_text("".join(lines), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", type=Path,
                        default=Path.home() / ".cache" / "smellkit-bench")
    parser.add_argument("--skip-peers", action="store_true")
    parser.add_argument("--edit", choices=("append", "body"), default="append",
                        help="how the 3 files change: a statement appended at the end of the "
                             "file (default), or one added inside the first function's body, "
                             "so that every later line moves")
    options = parser.parse_args()

    source = fetch_pandas(options.data)
    work = Path(tempfile.mkdtemp(prefix="smellkit-bench-"))
    tree = work / "pandas"
    shutil.copytree(source / "pandas", tree)
    files = sorted(tree.rglob("*.py"))
    cache = work / "cache"
    scan = ["smellkit", "scan", str(tree), "--include-tests", "--format", "json",
            "--no-progress", "--cache-dir", str(cache), "-o", os.devnull]
    python = sys.executable

    print(f"pandas 2.2.3 wheel: {len(files)} .py files, "
          f"{sum(f.stat().st_size for f in files) / 1e6:.1f} MB; {os.cpu_count()} cores; "
          f"median of {options.runs} runs")
    rows: list[tuple[str, Row, str]] = []
    floor_command = [python, "-c", FLOOR_SCRIPT, str(tree)]
    paired = Paired(floor_command, options.runs)
    floor_rss = timed(floor_command, sample=True)[2]

    counter = [0]

    def touch_three() -> None:
        counter[0] += 1
        for target in files[100:103]:
            if options.edit == "body":
                _edit_body(target, f"_benchmark_edit_{counter[0]} = {counter[0]}")
                continue
            with open(target, "a", encoding="utf-8") as handle:
                handle.write(f"\n_benchmark_edit_{counter[0]} = {counter[0]}\n")

    # issue targets: the foundation's scan (graphs + metrics) and the scan with every detector
    for label, extra, targets in (
            ("graphs + metrics", ["--no-smells"], ("<= 2.5x", "<= 0.15x", "<= 0.25x")),
            ("all detectors", [], ("<= 3x", "", ""))):
        command = scan + extra
        rows.append((f"scan {label}, cold cache", paired.median_run(
            command, before=lambda: shutil.rmtree(cache, ignore_errors=True)), targets[0]))
        timed(command)  # make sure the cache is full
        rows.append((f"scan {label}, warm", paired.median_run(command), targets[1]))
        rows.append((f"scan {label}, after 3 files change",
                     paired.median_run(command, before=touch_three), targets[2]))
    smellkit_rss = max(row.rss for _, row, _ in rows)

    if not options.skip_peers:
        for label, command in (
            ("radon cc (peer)", [python, "-m", "radon", "cc", str(tree)]),
            ("vulture (peer)", [python, "-m", "vulture", str(tree)]),
        ):
            rows.append((label, paired.median_run(command), ""))

    floors = paired.floors
    rows.insert(0, ("ast.parse, all files, one core (floor)",
                    Row(statistics.median(floors), 1.0, 1.0, floor_rss), ""))
    print(f"{'what':46} {'seconds':>8} {'x floor':>8} {'cpu x floor':>12} {'peak RSS':>10}"
          "  target")
    for label, row, target in rows:
        print(f"{label:46} {row.seconds:8.2f} {row.ratio:8.2f} {row.cpu_ratio:12.2f} "
              f"{row.rss / 2**20:8.0f} MB  {target}")
    print(f"floor: {len(floors)} runs, {min(floors):.2f}-{max(floors):.2f} s; x floor is the "
          "median ratio of each run to the floor run just before it; on "
          f"{os.cpu_count()} cores no run can go below its cpu x floor / {os.cpu_count()}")
    print(f"peak RSS target: <= 2.5 GB; smellkit's worst: {smellkit_rss / 2**30:.2f} GB")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
