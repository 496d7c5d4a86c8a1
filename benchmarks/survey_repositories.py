"""Survey unpacked source trees for where each smell could be injected, to pick repositories.

For every tree and smell it prints the number of candidates and how many of them span 2, 3 and 4+
files (the file spans easy, medium and hard cases need), from `smellkit candidates --format json`.

    PYTHONPATH=. python3 benchmarks/survey_repositories.py /tmp/survey/src/markdown-3.7 ...
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SMELLS = (
    "data_clumps",
    "dead_code",
    "deep_inlining",
    "duplicated_code",
    "feature_envy",
    "god_class",
    "interface_segregation",
    "shotgun_surgery",
)


def candidate_spans(tree: Path, smell: str, cache_dir: Path) -> list[int]:
    """The number of files each candidate of SMELL in TREE touches."""
    command = [
        sys.executable, "-m", "smellkit", "candidates", str(tree), "--smell", smell,
        "--min-file-lines", "0", "-j", "1", "--cache-dir", str(cache_dir), "--format", "json",
    ]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise SystemExit(f"{tree} {smell}: smellkit candidates failed:\n{completed.stderr}")
    candidates = json.loads(completed.stdout or "[]")
    return [len(candidate.get("files") or [candidate["target"]["path"]])
            for candidate in candidates]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/smellkit-survey-cache"))
    args = parser.parse_args()
    print(f"{'tree':32} {'smell':22} {'all':>5} {'1':>4} {'2':>4} {'3':>4} {'4+':>4}")
    for tree in args.trees:
        for smell in SMELLS:
            spans = candidate_spans(tree, smell, args.cache_dir)
            counts = [sum(1 for span in spans if span == n) for n in (1, 2, 3)]
            wide = sum(1 for span in spans if span >= 4)
            columns = " ".join(f"{n:4}" for n in [*counts, wide])
            print(f"{tree.name:32} {smell:22} {len(spans):5} {columns}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
