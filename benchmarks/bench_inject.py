"""Injection yield and throughput on click 8.1.7 and jinja2 3.1.4 (sdists from PyPI).

For each repository and smell: how many candidates the graphs offer (default filters: files of at
least 500 lines), and for each difficulty how many of the first N sampled candidates an injector
turns into a record; optionally (--verify) how many of those pass every round-trip property.
Throughput is injection records per minute of wall time spent injecting, one injection context per
repository as the build uses (no LLM is involved: zero tokens per case).

    python benchmarks/bench_inject.py [--per-cell 10] [--verify] [--smell S ...] [--reasons]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from smellkit.injectors.base import InjectionContext
from smellkit.injectors.engine import find_candidates, inject, verify
from smellkit.injectors.registry import injectors
from smellkit.models import DIFFICULTIES, Injection
from smellkit.project import Project

SDISTS = (("click", "8.1.7", "src"), ("jinja2", "3.1.4", "src"))


def fetch_sdist(data: Path, name: str, version: str) -> Path:
    """The unpacked sdist's top folder (downloaded from PyPI once, then reused)."""
    target = data / f"{name}-{version}"
    if target.is_dir():
        return target
    data.mkdir(parents=True, exist_ok=True)
    archives = list(data.glob(f"{name}-{version}.tar.gz"))
    if not archives:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                        ":all:", f"{name}=={version}", "-d", str(data), "-q"], check=True)
        archives = list(data.glob(f"{name}-{version}.tar.gz"))
    with tarfile.open(archives[0]) as archive:
        archive.extractall(data, filter="data")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-cell", type=int, default=10,
                        help="candidates tried per smell and difficulty")
    parser.add_argument("--verify", action="store_true", help="also check every round trip")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=Path.home() / ".cache" / "smellkit-bench")
    parser.add_argument("--smell", action="append", help="only these smells (repeatable)")
    parser.add_argument("--reasons", action="store_true",
                        help="print why each refused candidate was refused")
    arguments = parser.parse_args()
    header = f"{'repo':8} {'smell':22} {'cands':>5} " + " ".join(
        f"{difficulty:>14}" for difficulty in DIFFICULTIES)
    print(header)
    print("-" * len(header))
    made = 0
    spent = 0.0
    for name, version, source in SDISTS:
        root = fetch_sdist(arguments.data, name, version) / source
        project = Project.load(root)
        context = InjectionContext(project)  # shared, as the build shares it: files parsed once
        for smell in arguments.smell or injectors():
            pool = find_candidates(project, smell, seed=arguments.seed, context=context)
            cells = []
            reasons: list[str] = []
            for difficulty in DIFFICULTIES:
                tried = ok = verified = 0
                refusals: list[str] = []
                for candidate in pool[: arguments.per_cell]:
                    started = time.perf_counter()
                    outcome = inject(project, smell, difficulty, candidate=candidate,
                                     seed=arguments.seed, context=context)
                    spent += time.perf_counter() - started
                    tried += 1
                    if isinstance(outcome, Injection):
                        ok += 1
                        if arguments.verify:
                            verified += verify(root, outcome, original=project).ok
                    else:
                        refusals.append(f"  {difficulty} {candidate.target.qualname}: "
                                        f"{outcome.reason}")
                made += ok
                reasons.extend(refusals)
                cell = f"{ok}/{tried}" + (f" ({verified} ok)" if arguments.verify else "")
                cells.append(f"{cell:>14}")
            print(f"{name:8} {smell:22} {len(pool):>5} " + " ".join(cells), flush=True)
            if arguments.reasons:
                print("\n".join(reasons), flush=True)
    rate = made / spent * 60 if spent else 0.0
    print(f"\n{made} injections in {spent:.1f} s of injecting: {rate:.0f} cases per minute, "
          "0 LLM tokens")


if __name__ == "__main__":
    main()
