"""How far a built dataset's smelly code strays from its repository's house style.

For every case of a dataset (`dataset.jsonl` of `smellkit build`) of one repository, its smelly
patch is applied to a copy of the repository's checkout (whose configuration ruff reads), and
three counts are taken over the Python files it changes:

- lines the patch adds that are longer than the repository's line length (its ruff, black,
  isort or flake8 setting, as `smellkit.injectors.cst.house` reads it);
- ruff's I001 findings (import blocks isort would sort) with the repository's own
  configuration, less those the original files already have;
- imports the patch adds of the repository's own modules written relative in a module whose
  other such imports are absolute, or the other way round (the repository's habit for a module
  that has none).

`--restyle` also counts the same cases after `restyle.restyle` (what the engine now does to every
edit): a dataset built before it gives before and after on the very same edits.

    python benchmarks/bench_house_style.py [--restyle] DATASET_DIR REPO CHECKOUT [...]

REPO names the dataset rows to read (their `repo` field); CHECKOUT is that repository's root
(the folder holding its pyproject.toml); patches apply to its `source_path`.
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

from smellkit.injectors.cst.house import HouseStyle, of_project
from smellkit.injectors.cst.layout import added_lines
from smellkit.injectors.cst.restyle import restyle
from smellkit.injectors.patches import apply_patch, patched_paths
from smellkit.project import Project

_FROM = re.compile(r"^\s*from\s+(\.*)([\w.]*)\s+import\b")

Texts = dict[str, "str | None"]


def _isort_findings(root: Path, paths: list[str]) -> Counter[str]:
    existing = [path for path in paths if (root / path).is_file()]
    if not existing:
        return Counter()
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-fix", "--no-cache",
                          "--select", "I001", "--output-format", "json", *existing],
                         cwd=root, capture_output=True, text=True, check=False)
    return Counter(str(Path(item["filename"]).relative_to(root.resolve()))
                   for item in json.loads(run.stdout or "[]"))


def _habit(lines: list[str], package: str) -> bool | None:
    """Whether these lines import the package's own modules relatively (None: no such
    import)."""
    relative = absolute = 0
    for line in lines:
        match = _FROM.match(line)
        if match and match.group(1):
            relative += 1
        elif match and match.group(2).partition(".")[0] == package:
            absolute += 1
    return None if relative == absolute == 0 else relative > absolute


def _write(source: Path, texts: Texts) -> None:
    for path, text in texts.items():
        target = source / path
        if text is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8", newline="")


def _counts(copy: Path, prefix: str, before: Texts, after: Texts, baseline: Counter[str],
            style: HouseStyle, package: str, repository: bool | None) -> Counter[str]:
    """The three counts of one case's files `after` (which were `before`)."""
    _write(copy / prefix, after)
    found: Counter[str] = Counter()
    for path, text in after.items():
        if text is None:
            continue
        lines = text.splitlines()
        added = [lines[number - 1] for number in sorted(added_lines(before[path], text))]
        found["long lines"] += sum(len(line) > style.line_length for line in added)
        habit = _habit((before[path] or "").splitlines(), package)
        habit = repository if habit is None else habit
        for line in added:
            match = _FROM.match(line)
            if habit is None or not match:
                continue
            relative = bool(match.group(1))
            if relative != habit and (relative or match.group(2).partition(".")[0] == package):
                found["relative/absolute mismatches"] += 1
    findings = _isort_findings(copy, [f"{prefix}/{path}" for path in after])
    found["I001 findings"] = sum(max(0, count - baseline.get(name, 0))
                                 for name, count in findings.items())
    found["cases with long lines"] = found["long lines"] > 0
    found["cases with I001"] = found["I001 findings"] > 0
    return found


def measure(dataset: Path, repo: str, checkout: Path, restyled: bool
            ) -> dict[str, Counter[str]]:
    rows = [json.loads(line) for line in (dataset / "dataset.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip()]
    rows = [row for row in rows if row["repo"] == repo]
    if not rows:
        return {}
    prefix = rows[0]["source_path"]
    project = Project.load(checkout / prefix, use_cache=False, jobs=1)
    style = of_project(project)
    package = sorted(item.name for item in (checkout / prefix).iterdir()
                     if (item / "__init__.py").is_file())[0]
    repository = style.relative
    totals: dict[str, Counter[str]] = {"as built": Counter(), "restyled": Counter()}
    for row in rows:
        with tempfile.TemporaryDirectory() as work:
            copy = Path(work) / "repo"
            shutil.copytree(checkout, copy, ignore=shutil.ignore_patterns(".git", "__pycache__"))
            source = copy / prefix
            paths = [path for path in patched_paths(row["smelly_patch"]) if path.endswith(".py")]
            before: Texts = {path: (source / path).read_text(encoding="utf-8")
                             if (source / path).is_file() else None for path in paths}
            baseline = _isort_findings(copy, [f"{prefix}/{path}" for path in paths])
            apply_patch(source, row["smelly_patch"])
            smelly: Texts = {path: (source / path).read_text(encoding="utf-8")
                             if (source / path).is_file() else None for path in paths}
            sides = {"as built": smelly}
            if restyled:
                sides["restyled"] = {
                    path: text if text is None else restyle(
                        style, before[path], text, path[:-3].replace("/", ".").removesuffix(
                            ".__init__"), path.endswith("__init__.py"))
                    for path, text in smelly.items()}
                for text in sides["restyled"].values():
                    if text is not None:
                        compile(text, "restyled", "exec")
            for side, texts in sides.items():
                totals[side]["cases"] += 1
                totals[side].update(_counts(copy, prefix, before, texts, baseline, style,
                                            package, repository))
    totals["as built"]["line length"] = style.line_length
    return {side: counts for side, counts in totals.items() if counts}


def main(arguments: list[str]) -> None:
    restyled = "--restyle" in arguments
    arguments = [item for item in arguments if item != "--restyle"]
    if not arguments or len(arguments) % 3:
        raise SystemExit(__doc__)
    for dataset, repo, checkout in zip(arguments[::3], arguments[1::3], arguments[2::3],
                                       strict=True):
        for side, counts in measure(Path(dataset), repo, Path(checkout), restyled).items():
            print(f"{repo} {side}: " + ", ".join(f"{key} {value}"
                                                 for key, value in sorted(counts.items())))


if __name__ == "__main__":
    main(sys.argv[1:])
