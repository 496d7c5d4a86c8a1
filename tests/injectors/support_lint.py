"""Tells of machine-made code in an injection's smelly patch, for the injector tests: lint
errors the patch adds (undefined names, unused imports, redefinitions, unused locals) and new
names that end in a counter or use words the repository does not."""

from __future__ import annotations

import re
from pathlib import Path

from smellkit.injectors.naming import Vocabulary, is_numbered, words
from smellkit.injectors.patches import patched_paths
from smellkit.injectors.tells import added_tells, injection_files
from smellkit.models import Injection
from smellkit.project import Project


def added_lint(root: Path, injection: Injection) -> set[str]:
    """Lint errors of the changed files that the original files do not have (the engine's own
    tells check, run again on the record)."""
    return set(added_tells(*injection_files(root, injection)))


_NEW_NAME = re.compile(r"^\+\s*(?:def|class)\s+(\w+)|^\+\s*(\w+)\s*=", re.MULTILINE)


def new_names(project: Project, injection: Injection) -> set[str]:
    """Names the patch defines (functions, classes, assigned names, new modules' stems) that
    the original does not use anywhere."""
    known = {name.rpartition(".")[2] for name in project.index.definitions}
    known.update(stem.rpartition(".")[2] for stem in project.index.modules)
    found = {first or second for first, second in _NEW_NAME.findall(injection.smelly_patch)}
    found.update(path.rpartition("/")[2][:-3] for path in patched_paths(injection.smelly_patch)
                 if path.endswith(".py") and not (project.root / path).exists())
    return {name for name in found if name not in known}


def tells(project: Project, injection: Injection) -> list[str]:
    """New names that end in a counter, or made of words the repository never uses."""
    vocabulary = Vocabulary.of(project.index)
    known = set(vocabulary.counts) | _CONVENTIONS
    existing: set[str] = set()  # locals and parameters of moved code are the original's
    for facts in project.files:
        text = (project.root / facts.path).read_text(encoding="utf-8")
        existing.update(re.findall(r"[A-Za-z_]\w*", text))
    known.update(word for name in existing for word in words(name))
    found = []
    for name in sorted(new_names(project, injection) - existing):
        if name.startswith("__") and name.endswith("__"):
            continue
        if is_numbered(name) or (name.endswith("_") and not name.startswith("__")):
            found.append(f"{name}: numbered or padded")
        unknown = [word for word in words(name) if word not in known]
        if unknown:
            found.append(f"{name}: {', '.join(unknown)} not among the repository's words")
    return found


_CONVENTIONS = frozenset({"mixin", "self", "cls"})
"""Words every Python code base uses in names of their kind."""
