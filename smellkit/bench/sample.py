"""Seeded sampling of validated cases, balanced over smells, difficulties and files.

The result depends only on the set of cases and the seed, never on the order they were validated
in (validation runs in parallel), so two builds with one seed give the same dataset.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence

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


def twins(first: frozenset[tuple[str, str]], second: frozenset[tuple[str, str]]) -> bool:
    union = len(first | second)
    return bool(union) and len(first & second) / union >= TWIN_OVERLAP


def sample(cases: Iterable[Case], per_cell: int, seed: int,
           smells: Sequence[str] | None = None) -> list[Case]:
    """At most `per_cell` cases per (repository, smell, difficulty).

    Within a cell, cases are taken greedily: first one whose target the smell has not used at
    another difficulty (a target is used once per smell while others remain), then one that is
    no twin of a case the smell already holds (`twins`), then the one whose files the dataset
    uses least so far, ties broken by a seeded hash, so the dataset spreads over as many
    targets, edits and files as it can.
    """
    pool = sorted(cases, key=lambda case: case.instance_id)
    order = list(smells) if smells is not None else sorted({case.smell for case in pool})
    order += sorted({case.smell for case in pool} - set(order))
    used: Counter[str] = Counter()
    targets: Counter[tuple[str, str, str]] = Counter()
    prints = {case.id: footprint(case) for case in pool}
    chosen: list[Case] = []
    for repo in sorted({case.repo for case in pool}):
        for smell, difficulty in cell_order(order):
            cell = [case for case in pool if (case.repo, case.smell, case.difficulty)
                    == (repo, smell, difficulty)]
            cell.sort(key=lambda case: _rank(seed, case))
            held = [case for case in chosen if (case.repo, case.smell) == (repo, smell)]  # twins
            for _ in range(min(per_cell, len(cell))):
                best = min(cell, key=lambda case: (
                    targets[target_key(case)],
                    sum(twins(prints[case.id], prints[other.id]) for other in held),
                    sum(used[f"{case.repo}:{path}"] for path in case.files), _rank(seed, case)))
                cell.remove(best)
                chosen.append(best)
                held.append(best)
                used.update(f"{best.repo}:{path}" for path in best.files)
                targets[target_key(best)] += 1
    return chosen
