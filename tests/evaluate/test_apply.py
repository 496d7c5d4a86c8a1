"""Applying a prediction to a copy: what applies, what is refused, what counts as tampering."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import smellkit.evaluate.patches.apply as apply_module
from smellkit.evaluate.errors import EvaluateError
from smellkit.evaluate.inputs.dataset import EvalCase
from smellkit.evaluate.inputs.predictions import Origin, Prediction
from smellkit.evaluate.patches.apply import (
    ApplyOutcome,
    apply_patch_to_copy,
    apply_prediction,
    rooted,
)
from smellkit.evaluate.patches.parse import parse_patch
from smellkit.evaluate.patches.treediff import diff_trees
from tests.evaluate.helpers import make_tree, read_tree

LINES = "".join(f"line{n} = {n}\n" for n in range(1, 11))
PYPROJECT = ('[project]\nname = "calc"\nversion = "1.0"\n\n'
             '[tool.pytest.ini_options]\naddopts = "-q"\n\n[tool.ruff]\nline-length = 100\n')
FILES = {"calc/ops.py": LINES, "calc/util.py": "def helper():\n    return 1\n",
         "tests/test_ops.py": "def test_ok():\n    assert True\n", "pyproject.toml": PYPROJECT,
         "setup.cfg": "[metadata]\nname = calc\n\n[tool:pytest]\naddopts = -q\n",
         "tox.ini": "[tox]\nenvlist = py311\n"}


@pytest.fixture
def smelly(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "smelly", FILES)


def _final(tmp_path: Path, smelly: Path, changes: dict[str, str | None]) -> str:
    """The patch from `smelly` to a copy with `changes` made (None deletes a file)."""
    final = make_tree(tmp_path / "final", {k: v for k, v in FILES.items() if k not in changes})
    make_tree(final, {k: v for k, v in changes.items() if v is not None})
    return diff_trees(smelly, final)


def _apply(patch: str, smelly: Path, tmp_path: Path, **options: object) -> ApplyOutcome:
    before = read_tree(smelly)
    outcome = apply_patch_to_copy(patch, smelly, tmp_path / "scratch",
                                  protected=["tests"], **options)  # type: ignore[arg-type]
    assert read_tree(smelly) == before, "the smelly tree must never change"
    assert (outcome.root is not None) == (Path(tmp_path / "scratch" / "repo").exists())
    return outcome


def test_modify_add_delete_and_rename(smelly: Path, tmp_path: Path) -> None:
    body = "def helper():\n    return 1\n\n\ndef more():\n    return 2\n"
    patch = _final(tmp_path, smelly, {"calc/ops.py": LINES.replace("line5 = 5", "line5 = 6"),
                                      "calc/new.py": "x = 1\n", "calc/util.py": None,
                                      "calc/helpers.py": body})
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == "applied" and outcome.method == "git apply" and outcome.usable
    assert outcome.root is not None
    assert read_tree(Path(outcome.root)) == read_tree(tmp_path / "final")
    assert {change.kind for change in outcome.changes} == {"modify", "add", "rename"}


def test_empty_patch_is_scored_as_no_change(smelly: Path, tmp_path: Path) -> None:
    outcome = _apply("  \n", smelly, tmp_path)
    assert outcome.status == "empty" and outcome.usable and outcome.root is not None
    assert read_tree(Path(outcome.root)) == read_tree(smelly)


def test_patch_that_does_not_apply_fails_after_every_method(smelly: Path,
                                                            tmp_path: Path) -> None:
    patch = ("diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
             "@@ -1,3 +1,3 @@\n nothing\n-like\n+this\n here\n")
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == "apply_failed" and outcome.root is None and not outcome.usable
    assert [attempt.split(":")[0] for attempt in outcome.attempts] == list(apply_module.METHODS)
    prose = _apply("I could not finish the refactoring.\n", smelly, tmp_path)
    assert prose.status == "apply_failed" and "malformed patch" in prose.reason


def test_wrong_hunk_counts_apply_with_recount(smelly: Path, tmp_path: Path) -> None:
    patch = ("diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
             "@@ -1,9 +1,9 @@\n line1 = 1\n-line2 = 2\n+line2 = 20\n line3 = 3\n")
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == "applied"
    assert outcome.method == "git apply --recount --ignore-whitespace"
    assert outcome.attempts[0].startswith("git apply:")


def test_drifted_context_applies_with_fuzz(smelly: Path, tmp_path: Path) -> None:
    patch = ("diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
             "@@ -3,5 +3,5 @@\n line3 = 3 # was changed since\n line4 = 4\n-line5 = 5\n"
             "+line5 = 50\n line6 = 6\n line7 = 7\n")
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == "applied" and outcome.method == "patch -p1 --fuzz=2"
    assert outcome.root is not None
    assert "line5 = 50\n" in (Path(outcome.root) / "calc/ops.py").read_text()
    assert sorted(read_tree(Path(outcome.root))) == sorted(FILES)  # no .orig or .rej left


@pytest.mark.parametrize(("name", "header", "reason"), [
    ("dotdot", "--- a/../evil.py\n+++ b/../evil.py\n", "climbs out"),
    ("absolute", "--- /tmp/evil.py\n+++ /tmp/evil.py\n", "absolute path"),
    ("git-prefix-absolute", "--- a//tmp/evil.py\n+++ b//tmp/evil.py\n", "absolute path"),
    ("into-git", "--- a/.git/hooks/pre-commit\n+++ b/.git/hooks/pre-commit\n", "into .git"),
])
def test_escaping_paths_are_refused(smelly: Path, tmp_path: Path, name: str, header: str,
                                    reason: str) -> None:
    outcome = _apply(header + "@@ -1 +1 @@\n-a\n+b\n", smelly, tmp_path)
    assert outcome.status == "refused" and reason in outcome.reason, name
    assert outcome.root is None


def test_rename_out_of_the_tree_is_refused(smelly: Path, tmp_path: Path) -> None:
    patch = ("diff --git a/calc/util.py b/calc/util.py\nsimilarity index 100%\n"
             "rename from calc/util.py\nrename to ../../util.py\n")
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == "refused" and "'../../util.py' climbs out" in outcome.reason


def test_symlink_made_by_the_patch_pointing_outside_is_refused(smelly: Path,
                                                               tmp_path: Path) -> None:
    link = ("diff --git a/calc/evil b/calc/evil\nnew file mode 120000\nindex 0000000..1234567\n"
            "--- /dev/null\n+++ b/calc/evil\n@@ -0,0 +1 @@\n+{target}\n"
            "\\ No newline at end of file\n")
    for target in ("../../outside", "/etc/passwd"):
        outcome = _apply(link.format(target=target), smelly, tmp_path)
        assert outcome.status == "refused" and "outside the repository" in outcome.reason
    inside = _apply(link.format(target="ops.py"), smelly, tmp_path)
    assert inside.status == "applied" and inside.root is not None
    assert os.readlink(Path(inside.root) / "calc/evil") == "ops.py"


def test_writing_through_a_symlink_of_the_tree_is_refused(smelly: Path,
                                                          tmp_path: Path) -> None:
    outside = make_tree(tmp_path / "outside", {"target.py": "secret = 1\n"})
    (smelly / "calc" / "out").symlink_to(outside)
    (smelly / "calc" / "cfg.py").symlink_to(outside / "target.py")
    through = ("diff --git a/calc/out/x.py b/calc/out/x.py\nnew file mode 100644\n"
               "--- /dev/null\n+++ b/calc/out/x.py\n@@ -0,0 +1 @@\n+evil = 1\n")
    outcome = _apply(through, smelly, tmp_path)
    assert outcome.status == "refused" and "through the symbolic link calc/out" in outcome.reason
    edit = ("diff --git a/calc/cfg.py b/calc/cfg.py\n--- a/calc/cfg.py\n+++ b/calc/cfg.py\n"
            "@@ -1 +1 @@\n-secret = 1\n+secret = 2\n")
    outcome = _apply(edit, smelly, tmp_path)
    assert outcome.status == "refused" and "edited as a file" in outcome.reason
    assert read_tree(outside) == {"target.py": b"secret = 1\n"}
    # A link of the tree that points outside but is left alone does not block a patch.
    fine = _apply(_final(tmp_path, smelly, {"calc/ops.py": "x = 1\n"}), smelly, tmp_path)
    assert fine.status == "applied"


@pytest.mark.parametrize("body", [
    "GIT binary patch\nliteral 3\nzcmZ\n\nliteral 0\n\n",
    "Binary files a/calc/logo.png and b/calc/logo.png differ\n",
])
def test_binary_patches_are_refused(smelly: Path, tmp_path: Path, body: str) -> None:
    patch = "diff --git a/calc/logo.png b/calc/logo.png\nindex 1..2 100644\n" + body
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == "refused" and "binary patch" in outcome.reason


def test_binary_change_from_a_final_repository_is_refused(smelly: Path, tmp_path: Path) -> None:
    final = make_tree(tmp_path / "final", {**FILES, "calc/data.bin": b"\0\1\2"})
    outcome = _apply(diff_trees(smelly, final), smelly, tmp_path)
    assert outcome.status == "refused" and "calc/data.bin: binary patch" in outcome.reason


@pytest.mark.parametrize(("path", "reason"), [
    ("conftest.py", "test machinery (conftest.py)"),
    ("calc/conftest.py", "test machinery (conftest.py)"),
    ("calc/evil.pth", "test machinery (evil.pth)"),
    ("sitecustomize.py", "test machinery"),
    ("pytest.ini", "test machinery"),
    ("tests/test_ops.py", "protected test path (tests)"),
    ("tests/helpers/new.py", "protected test path (tests)"),
])
def test_test_machinery_and_tests_are_tampering(smelly: Path, tmp_path: Path, path: str,
                                                reason: str) -> None:
    patch = _final(tmp_path, smelly, {path: "import os\n"})
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == "tampered" and reason in outcome.reason
    assert outcome.root is None and not outcome.usable


def test_deleting_a_test_is_tampering(smelly: Path, tmp_path: Path) -> None:
    outcome = _apply(_final(tmp_path, smelly, {"tests/test_ops.py": None}), smelly, tmp_path)
    assert outcome.status == "tampered"


@pytest.mark.parametrize(("path", "old", "new", "status"), [
    ("pyproject.toml", 'addopts = "-q"', 'addopts = "-q -k not_slow"', "tampered"),
    ("pyproject.toml", "line-length = 100", "line-length = 120", "applied"),
    ("pyproject.toml", '[tool.ruff]', '[tool.pytest]\nminversion = "9"\n\n[tool.ruff]',
     "tampered"),
    ("pyproject.toml", "[tool.ruff]", "# a comment\n[tool.ruff]", "applied"),
    ("pyproject.toml", '[project]', '[project', "tampered"),
    ("setup.cfg", "addopts = -q", "addopts = -q -x", "tampered"),
    ("setup.cfg", "name = calc", "name = calc2", "applied"),
    ("tox.ini", "envlist = py311", "envlist = py312", "applied"),
    ("tox.ini", "envlist = py311", "envlist = py311\n\n[pytest]\naddopts = -p no:x", "tampered"),
])
def test_only_the_pytest_part_of_shared_config_files_is_protected(
        smelly: Path, tmp_path: Path, path: str, old: str, new: str, status: str) -> None:
    patch = _final(tmp_path, smelly, {path: FILES[path].replace(old, new)})
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == status, outcome.reason
    assert outcome.usable == (status == "applied")
    if status == "tampered":
        assert outcome.root is not None and path in outcome.reason


def test_moving_pyproject_away_is_tampering(smelly: Path, tmp_path: Path) -> None:
    patch = _final(tmp_path, smelly, {"pyproject.toml": None, "pyproject.toml.bak": PYPROJECT})
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == "tampered" and "pytest configuration" in outcome.reason


def test_a_change_the_headers_do_not_name_is_refused(smelly: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The last line of defence: what changed is compared with what the patch declared."""
    patch = _final(tmp_path, smelly, {"calc/ops.py": "x = 1\n", "calc/util.py": "y = 1\n"})
    real = parse_patch
    monkeypatch.setattr(apply_module, "parse_patch",
                        lambda text: tuple(c for c in real(text) if c.new_path != "calc/util.py"))
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == "refused" and outcome.root is None
    assert "calc/util.py: changed, but the patch does not name it" in outcome.reason


def test_apply_prediction_protects_the_cases_tests(smelly: Path, tmp_path: Path) -> None:
    case = EvalCase(instance_id="calc__x", repo="calc", smell="dead_code", format="smellbench",
                    tests=("tests/test_ops.py::test_ok",))
    patch = _final(tmp_path, smelly, {"tests/test_ops.py": "def test_ok():\n    pass\n"})
    prediction = Prediction(instance_id="calc__x", model="m", patch=patch,
                            source=Origin(path="p.jsonl", line=1))
    outcome = apply_prediction(prediction, case, smelly, tmp_path / "scratch")
    assert outcome.status == "tampered" and "tests/test_ops.py" in outcome.reason


def test_a_prediction_written_from_the_source_path_applies_under_it(tmp_path: Path) -> None:
    """The dataset's own patches are relative to the case's source path: a case's ground truth
    submitted as a prediction applies there, as the oracle does; a patch naming a file of the
    repository root stays where it is."""
    smelly = make_tree(tmp_path / "smelly", {"src/calc/ops.py": LINES, "ops.py": LINES,
                                             "tests/test_ops.py": FILES["tests/test_ops.py"]})
    before = make_tree(tmp_path / "before", {"calc/ops.py": LINES, "ops.py": LINES})
    after = make_tree(tmp_path / "after", {"calc/ops.py": LINES.replace("line3 = 3", "line3 = 4"),
                                           "ops.py": LINES.replace("line5 = 5", "line5 = 6")})
    case = EvalCase(instance_id="calc__x", repo="calc", smell="dead_code", format="smellbench",
                    source_path="src", tests=("tests/test_ops.py::test_ok",))
    for number, (path, text) in enumerate((("calc/ops.py", "line3 = 4"),
                                           ("ops.py", "line5 = 6"))):
        patch = diff_trees(before, after).split("diff --git")
        only = "diff --git" + next(part for part in patch if f"a/{path} " in part)
        prediction = Prediction(instance_id="calc__x", model="m", patch=only,
                                source=Origin(path="p.jsonl", line=1))
        outcome = apply_prediction(rooted(prediction, case, smelly), case, smelly,
                                   tmp_path / f"scratch{number}")
        assert outcome.status == "applied", outcome.reason
        moved = path.startswith("calc/")  # only under src: moved; also at the root: kept
        changed = Path(outcome.root or "") / ("src/" + path if moved else path)
        assert text in changed.read_text(encoding="utf-8")


def test_caller_mistakes_raise(smelly: Path, tmp_path: Path) -> None:
    with pytest.raises(EvaluateError, match="not a folder"):
        apply_patch_to_copy("", tmp_path / "missing", tmp_path / "scratch")
    apply_patch_to_copy("", smelly, tmp_path / "scratch")
    with pytest.raises(EvaluateError, match="already exists"):
        apply_patch_to_copy("", smelly, tmp_path / "scratch")
    with pytest.raises(EvaluateError, match="inside the smelly tree"):
        apply_patch_to_copy("", smelly, smelly / "scratch")
    with pytest.raises(EvaluateError, match="bad copy name"):
        apply_patch_to_copy("", smelly, tmp_path / "scratch", name="../elsewhere")


def test_a_path_through_a_symlink_the_patch_makes_is_refused(smelly: Path,
                                                             tmp_path: Path) -> None:
    patch = ("diff --git a/calc/t b/calc/t\nnew file mode 120000\n--- /dev/null\n+++ b/calc/t\n"
             "@@ -0,0 +1 @@\n+../tests\n\\ No newline at end of file\n"
             "diff --git a/calc/t/test_new.py b/calc/t/test_new.py\nnew file mode 100644\n"
             "--- /dev/null\n+++ b/calc/t/test_new.py\n@@ -0,0 +1 @@\n+def test_x(): pass\n")
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == "refused" and "symbolic link calc/t the patch makes" in outcome.reason


def test_an_ambiguous_patch_is_refused(smelly: Path, tmp_path: Path) -> None:
    patch = ("diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
             "@@ -1 +1 @@\n-line1 = 1\n+line1 = 0\n"
             "--- a/tests/test_ops.py\n+++ b/tests/test_ops.py\n@@ -1 +1 @@\n"
             "-def test_ok():\n+def test_gone():\n")
    outcome = _apply(patch, smelly, tmp_path)
    assert outcome.status == "refused" and "ambiguous patch" in outcome.reason
