"""Seeded sampling of validated cases, balanced over smells, difficulties and files.

The result depends only on the set of cases and the seed, never on the order they were validated
in (validation runs in parallel), so two builds with one seed give the same dataset.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from smellkit.models import DIFFICULTIES, Case, Difficulty


def _rank(seed: int, case: Case) -> str:
    return hashlib.blake2b(f"{seed}|{case.instance_id}".encode(), digest_size=8).hexdigest()


def cell_order(smells: Sequence[str]) -> list[tuple[str, Difficulty]]:
    """Every (smell, difficulty) cell in the order cells are filled and exported."""
    return [(smell, difficulty) for smell in smells for difficulty in DIFFICULTIES]


def target_key(case: Case) -> tuple[str, str, str]:
    """What "the same target" means: one candidate target of one smell in one repository."""
    return case.repo, case.smell, case.candidate.target.qualname


TWIN_OVERLAP = 0.5
"""Two cases of one smell whose smelly patches change this share of the same original lines
(Jaccard) are twins: the same edit at another target (one set of functions absorbed by two
holders of a module), which a dataset holds once while other cases remain."""


def footprint(case: Case) -> frozenset[tuple[str, str]]:
    """The original lines the smelly patch removes or rewrites, by file and text."""
    found: set[tuple[str, str]] = set()
    path = ""
    for line in case.smelly_patch.splitlines():
        if line.startswith("--- "):
            path = line[4:].removeprefix("a/")
        elif line.startswith("-") and line[1:].strip():
            found.add((path, line[1:].strip()))
    return frozenset(found)


_DEFINED = re.compile(r"^\+(?:[ \t]*(?:async[ \t]+)?def|[ \t]*class)[ \t]+(\w+)"
                      r"|^\+(\w+)[ \t]*(?::[^=]*)?=[^=]")


def new_names(case: Case) -> frozenset[str]:
    """Names the smelly patch defines (functions, classes, module variables) on lines it adds
    and on none it removes: the helpers a case makes up, which no two cases of a repository
    should share, whatever their targets (a fixed word list reads as machine-made, and so does
    the same made-up helper in two cases of one class)."""
    added: set[str] = set()
    removed: set[str] = set()
    for line in case.smelly_patch.splitlines():
        if line.startswith(("+++", "---")):
            continue
        if line.startswith("+"):
            added.update(name for match in _DEFINED.finditer(line) for name in match.groups()
                         if name)
        elif line.startswith("-"):
            removed.update(name for match in _DEFINED.finditer("+" + line[1:])
                           for name in match.groups() if name)
    return frozenset(added - removed - {"__init__"})


def twins(first: frozenset[tuple[str, str]], second: frozenset[tuple[str, str]]) -> bool:
    union = len(first | second)
    return bool(union) and len(first & second) / union >= TWIN_OVERLAP


def _coverable(cells: Sequence[Sequence[Case]], barred: frozenset[tuple[str, str, str]]) -> int:
    """How many of `cells` can each take a case at a target of its own, none in `barred` (a
    maximum matching of cells to targets; cells are few, so a plain search)."""
    if not cells:
        return 0
    rest = cells[1:]
    best = _coverable(rest, barred)
    for key in {target_key(case) for case in cells[0]} - barred:
        best = max(best, 1 + _coverable(rest, barred | {key}))
        if best == len(cells):
            break
    return best


@dataclass
class _Picks:
    """The cases one smell of one repository has taken so far, by difficulty."""

    seed: int
    prints: Mapping[str, frozenset[tuple[str, str]]]
    used: Counter[str]
    """Files the whole dataset uses, by `repo:path`."""
    names: Mapping[str, frozenset[str]]
    """The names each case makes up (`new_names`), by case id."""
    named: set[str]
    """The names the repository's picked cases made up."""
    cells: dict[Difficulty, list[Case]]
    picked: dict[Difficulty, list[Case]] = field(default_factory=dict)
    targets: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    owner: dict[tuple[str, str, str], Difficulty] = field(default_factory=dict)
    """The difficulty that first took each target."""

    def take(self, difficulty: Difficulty, options: Sequence[Case]) -> None:
        held = [case for items in self.picked.values() for case in items]
        cell = {path for case in self.picked.get(difficulty, ()) for path in case.files}
        best = min(options, key=lambda case: (
            self.targets[target_key(case)],
            sum(twins(self.prints[case.id], self.prints[other.id]) for other in held),
            len(self.names[case.id] & self.named),
            sum(path in cell for path in case.files),
            sum(self.used[f"{case.repo}:{path}"] for path in case.files),
            _rank(self.seed, case)))
        self.cells[difficulty].remove(best)
        self.picked.setdefault(difficulty, []).append(best)
        self.used.update(f"{best.repo}:{path}" for path in best.files)
        self.targets[target_key(best)] += 1
        self.named.update(self.names[best.id])
        self.owner.setdefault(target_key(best), difficulty)

    def free(self, difficulty: Difficulty) -> list[Case]:
        """The cell's cases at targets no difficulty has taken yet."""
        return [case for case in self.cells[difficulty] if target_key(case) not in self.owner]


def _pick(picks: _Picks, per_cell: int, candidates: int | None) -> list[Case]:
    """One smell of one repository: see `sample`."""
    cells = picks.cells
    filled = [difficulty for difficulty in DIFFICULTIES if cells[difficulty]]
    count = candidates if candidates is not None else len(
        {target_key(case) for difficulty in filled for case in cells[difficulty]})
    # too few candidates for the smell's cells: a target may serve several difficulties. The
    # cells are the difficulties, not those that validated a case: with two candidates, one
    # that never injects must not keep the other from serving easy and medium
    shared = count < len(DIFFICULTIES)
    reach = _coverable([cells[difficulty] for difficulty in filled], frozenset())
    for number, difficulty in enumerate(filled):  # one case each, at a target of its own
        later = [cells[other] for other in filled[number + 1:]]
        covered = len(picks.picked)
        options = [case for case in picks.free(difficulty) if covered + 1 + _coverable(
            later, frozenset({*picks.owner, target_key(case)})) >= reach]
        if options:
            picks.take(difficulty, options)
        elif shared:  # the least used target another difficulty has
            picks.take(difficulty, cells[difficulty])
    for difficulty in filled:  # then more at targets no other difficulty took
        while len(picks.picked.get(difficulty, ())) < per_cell and picks.free(difficulty):
            picks.take(difficulty, picks.free(difficulty))
    return [case for difficulty in filled for case in picks.picked.get(difficulty, ())]


def sample(cases: Iterable[Case], per_cell: int, seed: int,
           smells: Sequence[str] | None = None,
           candidates: Mapping[tuple[str, str], int] | None = None) -> list[Case]:
    """At most `per_cell` cases per (repository, smell, difficulty).

    A target serves one difficulty of a smell in a repository (issue 15's diversity rule): each
    difficulty first takes one case at a target of its own, chosen so that as many difficulties
    as can be get one, then fills its cell with targets no other difficulty took. Only when the
    repository has fewer candidates of the smell (`candidates`, by repository and smell; else
    the distinct targets of its cases) than the smell has difficulties does a difficulty left
    without a target of its own take one case at another's, the least used.
    Within those bounds cases are taken greedily: first one that is no twin of a case the smell
    already holds (`twins`), then one making up no name that another case of the repository
    made up (`new_names`; at the same target too: a target serving two difficulties need not
    repeat its helper), then the one whose files its cell, then the dataset, uses
    least so far, ties broken by a seeded hash, so the dataset spreads over as many targets,
    edits, names and files as it can.
    """
    pool = sorted(cases, key=lambda case: case.instance_id)
    order = list(smells) if smells is not None else sorted({case.smell for case in pool})
    order += sorted({case.smell for case in pool} - set(order))
    used: Counter[str] = Counter()
    prints = {case.id: footprint(case) for case in pool}
    names = {case.id: new_names(case) for case in pool}
    chosen: list[Case] = []
    for repo in sorted({case.repo for case in pool}):
        named: set[str] = set()
        for smell in order:
            cells = {difficulty: sorted((case for case in pool if (
                case.repo, case.smell, case.difficulty) == (repo, smell, difficulty)),
                key=lambda case: _rank(seed, case)) for difficulty in DIFFICULTIES}
            picks = _Picks(seed=seed, prints=prints, used=used, names=names, named=named,
                           cells=cells)
            chosen.extend(_pick(picks, per_cell, (candidates or {}).get((repo, smell))))
    return chosen
