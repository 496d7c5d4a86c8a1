"""Real cases for the signal tests: a smell injected by smellkit's own injectors into a small
fixture repository (tests/injectors/fixtures), laid out as a build would lay it out.

Each case lives in a repository whose analysed code sits under `src/` (so the prediction's
patch, relative to the repository root, has to be mapped to the source folder) beside a
`README.md` outside it. The original, smelly and result trees are separate folders.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.patches.parse import prefix_paths
from smellkit.evaluate.score import Score
from smellkit.evaluate.signals import CaseAnalysis, measure, prepare
from smellkit.injectors.patches import apply_patch, make_patch
from smellkit.models import Case, Difficulty
from smellkit.project import Project
from tests.injectors.support import injected
from tests.injectors.test_fixtures import FIXTURES, target

SOURCE = "src"

ONE_PER_SMELL: dict[str, tuple[str, Difficulty]] = {
    "data_clumps": ("endpoints", "hard"),
    "dead_code": ("shop", "hard"),
    "deep_inlining": ("ledger", "hard"),
    "duplicated_code": ("reports", "hard"),
    "feature_envy": ("ledger", "easy"),
    "god_class": ("console", "hard"),
    "interface_segregation": ("storage", "hard"),
    "shotgun_surgery": ("order_keys", "hard"),
}
"""The fixture and difficulty each smell's end-to-end tests use (the hardest: most files)."""


def load(root: Path) -> Project:
    return Project.load(root, use_cache=False, jobs=1)


@dataclass
class Built:
    """One injected case, its trees and its prepared analysis."""

    case: EvalCase
    original: Path
    smelly: Path
    scratch: Path
    analysis: CaseAnalysis

    def result_tree(self, name: str, patch: str = "") -> Path:
        """A copy of the smelly repository with `patch` (relative to the repository root)."""
        tree = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.scratch)) / "tree"
        shutil.copytree(self.smelly, tree)
        if patch.strip():
            apply_patch(tree, patch)
        return tree

    def score(self, name: str, patch: str = "", tree: Path | None = None) -> Score:
        """The signals of `patch` applied to the smelly repository (or of the given tree)."""
        result = tree if tree is not None else self.result_tree(name, patch)
        score = Score(instance_id=self.case.instance_id, model=name, smell=self.case.smell)
        return measure(self.analysis, load(result / SOURCE), patch, score)

    @property
    def oracle_patch(self) -> str:
        return prefix_paths(self.case.ground_truth_patch, SOURCE)


def build(smell: str, fixture: str, difficulty: Difficulty, scratch: Path, *,
          with_original: bool = True) -> Built:
    """Inject `smell` into the fixture `fixture`, lay out the trees, prepare the analysis."""
    folder = FIXTURES / smell / fixture
    injection = injected(folder / "before", smell, difficulty, target(folder, difficulty))
    case = Case(**dict(injection), repo=fixture, revision="local", source_path=SOURCE,
                tests=())
    original = scratch / "original"
    shutil.copytree(folder / "before", original / SOURCE,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (original / "README.md").write_text("# fixture\n\nNot Python.\n", encoding="utf-8")
    smelly = scratch / "smelly"
    shutil.copytree(original, smelly)
    apply_patch(smelly / SOURCE, injection.smelly_patch)
    evaluated = EvalCase.from_case(case)
    analysis = prepare(evaluated, load(original / SOURCE) if with_original else None,
                       load(smelly / SOURCE))
    return Built(evaluated, original, smelly, scratch, analysis)


def partial_patch(built: Built) -> str:
    """The ground truth applied to one file only: the target's file, else the first file."""
    case = built.case.case
    assert case is not None
    wanted = case.targets[0].location.path
    files = sorted(case.files, key=lambda path: (path != wanted, path))
    path = files[0]
    before = (built.smelly / SOURCE / path)
    after = (built.original / SOURCE / path)
    patch = make_patch({path: before.read_text() if before.exists() else None},
                       {path: after.read_text() if after.exists() else None})
    return prefix_paths(patch, SOURCE)


def edit(built: Built, name: str, files: dict[str, str | None]) -> tuple[str, Path]:
    """A patch (repository-relative) writing `files` over the smelly repository, and its tree."""
    before = {path: (built.smelly / path).read_text() if (built.smelly / path).exists()
              else None for path in files}
    patch = make_patch(before, files)
    return patch, built.result_tree(name, patch)
