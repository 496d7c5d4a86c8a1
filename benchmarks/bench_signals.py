"""Time to compute the deterministic signals of one prediction, on click 8.1.7 (sdist from PyPI).

For each smell, one case is injected into click's `src/` (the first of hard, medium, easy that
the injector makes at the seed), laid out as original, smelly and result repositories, and
scored: `prepare` once, then `measure` for the oracle (the ground truth), an empty patch and the
ground truth applied to one file only. Loading the result (`Project.load`, the caller's work,
from the fact cache as a scorer would) is timed apart; `measure` is the median of --repeat runs,
each on a freshly loaded result so that no graph is reused. Tests are not run.

    python benchmarks/bench_signals.py [--repeat 5] [--smell S ...]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench_inject import fetch_sdist

from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.patches.parse import prefix_paths
from smellkit.evaluate.score import Score
from smellkit.evaluate.signals import measure, prepare
from smellkit.injectors.engine import inject
from smellkit.injectors.patches import apply_patch, make_patch
from smellkit.injectors.registry import injectors
from smellkit.models import Case, Injection
from smellkit.project import Project


def _one_file(injection: Injection, smelly: Path, original: Path) -> str:
    """The ground truth restricted to the first file it changes."""
    path = sorted(injection.files)[0]
    before, after = smelly / "src" / path, original / "src" / path
    return prefix_paths(make_patch({path: before.read_text() if before.exists() else None},
                                   {path: after.read_text() if after.exists() else None}), "src")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=Path.home() / ".cache" / "smellkit-bench")
    parser.add_argument("--smell", action="append", help="only these smells (repeatable)")
    arguments = parser.parse_args()
    click = fetch_sdist(arguments.data, "click", "8.1.7")
    print(f"{'smell':22} {'level':6} {'prepare':>8} {'load':>6} "
          f"{'oracle':>7} {'noop':>7} {'partial':>7}  (seconds; measure = median)")
    for smell in arguments.smell or sorted(injectors()):
        with tempfile.TemporaryDirectory() as scratch:
            original = Path(scratch) / "original"
            shutil.copytree(click / "src", original / "src")
            project = Project.load(original / "src")
            injection = next((item for difficulty in ("hard", "medium", "easy")
                              if isinstance(item := inject(project, smell, difficulty,
                                                           seed=arguments.seed), Injection)),
                             None)
            if injection is None:
                print(f"{smell:22} no injection")
                continue
            smelly = Path(scratch) / "smelly"
            shutil.copytree(original, smelly)
            apply_patch(smelly / "src", injection.smelly_patch)
            case = EvalCase.from_case(Case(**dict(injection), repo="click", revision="8.1.7",
                                           source_path="src", tests=()))
            started = time.perf_counter()
            analysis = prepare(case, Project.load(original / "src"),
                               Project.load(smelly / "src"))
            prepared = time.perf_counter() - started
            cells, loads = [], []
            for name, patch in (("oracle", prefix_paths(injection.ground_truth_patch, "src")),
                                ("noop", ""), ("partial", _one_file(injection, smelly,
                                                                    original))):
                tree = Path(scratch) / name
                shutil.copytree(smelly, tree)
                if patch:
                    apply_patch(tree, patch)
                runs = []
                for _ in range(arguments.repeat):
                    started = time.perf_counter()
                    result = Project.load(tree / "src")
                    loads.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    measure(analysis, result, patch,
                            Score(instance_id=case.instance_id, model=name, smell=smell))
                    runs.append(time.perf_counter() - started)
                cells.append(statistics.median(runs))
            print(f"{smell:22} {injection.difficulty:6} {prepared:8.2f} "
                  f"{statistics.median(loads):6.2f} " + " ".join(f"{cell:7.3f}" for cell in cells))


if __name__ == "__main__":
    main()
