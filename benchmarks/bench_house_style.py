"""How far a built dataset's smelly code strays from its repository's house style.

For every case of a dataset (`dataset.jsonl` of `smellkit build`), its smelly patch is applied
to a copy of the repository's checkout (whose configuration ruff reads), and three counts are
taken over the files it changes:

- lines the patch adds that are longer than the repository's line length (its ruff, black, isort
  or flake8 setting, as `smellkit.injectors.cst.house` reads it);
- ruff's I001 findings (import blocks isort would sort) with the repository's own configuration,
  less those the original files already have;
- imports the patch adds of the repository's own modules written relative in a module whose
  other such imports are absolute, or the other way round (the repository's habit for a module
  that has none).

    python benchmarks/bench_house_style.py DATASET_DIR REPO CHECKOUT [DATASET_DIR REPO CHECKOUT ...]

REPO names the dataset rows to read (their `repo` field); CHECKOUT is that repository's root
(the folder holding its pyproject.toml); the patch applies to its `source_path`.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from smellkit.injectors.cst.house import config_folder, configured_line_length
from smellkit.injectors.patches import apply_patch, patched_paths

_FROM = re.compile(r"^\s*from\s+(\.*)([\w.]*)\s+import\b")


def _isort_findings(root: Path, paths: list[str]) -> Counter[str]:
    existing = [path for path in paths if (root / path).is_file()]
    if not existing:
        return Counter()
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-fix", "--no-cache",
                          "--select", "I001", "--output-format", "json", *existing],
                         cwd=root, capture_output=True, text=True, check=False)
    return Counter(item["filename"] for item in json.loads(run.stdout or "[]"))


def _habit(lines: list[str], package: str) -> bool | None:
    """Whether these import lines write the package's own modules relative (None: no such
    import)."""
    relative = absolute = 0
    for line in lines:
        match = _FROM.match(line)
        if match and match.group(1):
            relative += 1
        elif match and match.group(2).partition(".")[0] == package:
            absolute += 1
    return None if relative == absolute == 0 else relative > absolute


def _mismatches(old: str | None, new: str, added: list[str], package: str,
                repository: bool | None) -> int:
    habit = _habit((old or "").splitlines(), package)
    habit = repository if habit is None else habit
    count = 0
    for line in added:
        match = _FROM.match(line)
        if habit is None or not match:
            continue
        relative = bool(match.group(1))
        if relative != habit and (relative or match.group(2).partition(".")[0] == package):
            count += 1
    return count


def measure(dataset: Path, repo: str, checkout: Path) -> dict[str, int]:
    rows = [json.loads(line) for line in (dataset / "dataset.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip()]
    rows = [row for row in rows if row["repo"] == repo]
    limit = configured_line_length(config_folder(checkout)) or 88
    totals: Counter[str] = Counter(cases=len(rows))
    for row in rows:
        with tempfile.TemporaryDirectory() as work:
            copy = Path(work) / "repo"
            shutil.copytree(checkout, copy, ignore=shutil.ignore_patterns(".git", "__pycache__"))
            source = copy / row["source_path"]
            paths = [path for path in patched_paths(row["smelly_patch"]) if path.endswith(".py")]
            before = {path: (source / path).read_text(encoding="utf-8")
                      if (source / path).is_file() else None for path in paths}
            prefix = Path(row["source_path"])
            old_findings = _isort_findings(copy, [str(prefix / path) for path in paths])
            apply_patch(source, row["smelly_patch"])
            new_findings = _isort_findings(copy, [str(prefix / path) for path in paths])
            package = sorted(item.name for item in source.iterdir()
                             if (item / "__init__.py").is_file())[0]
            repository = _habit([line for item in source.rglob("*.py")
                                 for line in item.read_text(encoding="utf-8").splitlines()],
                                package)
            added_by_file: dict[str, list[str]] = {}
            current = None
            for line in row["smelly_patch"].splitlines():
                if line.startswith("+++ "):
                    current = line[6:] if line.startswith("+++ b/") else None
                elif line.startswith("+") and current is not None:
                    added_by_file.setdefault(current, []).append(line[1:])
            for path, added in added_by_file.items():
                if not path.endswith(".py"):
                    continue
                long = sum(len(line) > limit for line in added)
                totals["long lines"] += long
                totals["added lines"] += len(added)
                totals["relative/absolute mismatches"] += _mismatches(
                    before.get(path), (source / path).read_text(encoding="utf-8"), added,
                    package, repository)
            totals["cases with long lines"] += any(
                len(line) > limit for path, added in added_by_file.items()
                if path.endswith(".py") for line in added)
            unsorted = sum(max(0, count - old_findings.get(name, 0))
                           for name, count in new_findings.items())
            totals["I001 findings"] += unsorted
            totals["cases with I001"] += unsorted > 0
    totals["line length"] = limit
    return dict(totals)


def main(arguments: list[str]) -> None:
    if not arguments or len(arguments) % 3:
        raise SystemExit(__doc__)
    for dataset, repo, checkout in zip(arguments[::3], arguments[1::3], arguments[2::3],
                                       strict=True):
        result = measure(Path(dataset), repo, Path(checkout))
        print(f"{dataset} {repo}: " + ", ".join(f"{key} {value}"
                                                for key, value in result.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
