"""Fact extraction speed on the pandas 2.2.3 wheel, in one process: `ast.parse` alone, the worker's
whole `parse_file`, and the difference (the extraction overhead), with a breakdown by stage.

The issue's target for a cold scan is 2.5x plain `ast.parse` of all files on one core, so the
overhead of extraction is what this watches. Files are read into memory first and the garbage
collector is off, as in the parse workers; each figure is the best of --runs, in CPU seconds of
this process (`time.process_time`), so other work on the machine disturbs it less than wall time.

    python benchmarks/bench_extract.py [--runs 3] [--every 1] [--data DIR]
"""

from __future__ import annotations

import argparse
import ast
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_scan import fetch_pandas

from smellkit.facts import extract
from smellkit.facts.blocks import function_blocks
from smellkit.facts.fingerprints import fingerprint_module
from smellkit.facts.reachability import Reads, liveness
from smellkit.metrics.complexity import measure_module
from smellkit.project.parsing import SourceFile, parse_file


def load(root: Path, every: int) -> list[tuple[SourceFile, bytes]]:
    """Every `every`-th Python file under `root` (sorted), with its bytes."""
    files = sorted(root.rglob("*.py"))[::every]
    items = []
    for file in files:
        relative = file.relative_to(root.parent).as_posix()
        parts = relative[:-3].split("/")
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        items.append((SourceFile(str(file), relative, ".".join(parts), is_package),
                      file.read_bytes()))
    return items


def best_of(runs: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def stages(items: list[tuple[SourceFile, bytes]]) -> dict[str, float]:
    """Seconds spent in each extraction stage, over all files (each tree parsed once, untimed).

    Reachability is timed as `extract` runs it, with the names read collected by the facts' walk
    (so that cost is in "facts walk")."""
    spent = dict.fromkeys(("complexity", "reachability", "fingerprints", "blocks",
                           "extract (all)"), 0.0)
    clock = time.process_time
    for source_file, data in items:
        tree = ast.parse(data)
        source = data.decode("utf-8")
        module = source_file.module
        for name, function, arguments in (
                ("complexity", measure_module, (tree, source)),
                ("reachability", liveness, (tree, module, Reads())),
                ("fingerprints", fingerprint_module, (tree, source, module)),
                ("blocks", function_blocks, (tree, module)),
                ("extract (all)", extract, (tree, source, source_file.path, module,
                                            source_file.is_package))):
            start = clock()
            function(*arguments)
            spent[name] += clock() - start
    spent["facts walk"] = spent["extract (all)"] - sum(
        spent[name] for name in ("complexity", "reachability", "fingerprints", "blocks"))
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--every", type=int, default=1, help="take every N-th file (3: a third)")
    parser.add_argument("--data", type=Path, default=Path.home() / ".cache" / "smellkit-bench")
    options = parser.parse_args()
    items = load(fetch_pandas(options.data) / "pandas", options.every)
    gc.disable()
    parse_only = best_of(options.runs, lambda: [ast.parse(data) for _, data in items])
    whole = best_of(options.runs, lambda: [parse_file(source_file, data, sys.maxsize)
                                           for source_file, data in items])
    overhead = whole - parse_only
    print(f"pandas 2.2.3: {len(items)} files, best of {options.runs}")
    print(f"  ast.parse only      {parse_only:7.2f} s")
    print(f"  parse_file          {whole:7.2f} s   ({whole / parse_only:.2f}x ast.parse)")
    print(f"  extraction overhead {overhead:7.2f} s   ({overhead / parse_only:.2f}x ast.parse)")
    print("stages (one run):")
    for name, seconds in stages(items).items():
        print(f"  {name:<19} {seconds:7.2f} s")


if __name__ == "__main__":
    main()
