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


def sample(cases: Iterable[Case], per_cell: int, seed: int,
           smells: Sequence[str] | None = None) -> list[Case]:
    """At most `per_cell` cases per (repository, smell, difficulty).

    Within a cell, cases are taken greedily: the one whose files the dataset uses least so far,
    ties broken by a seeded hash, so the dataset spreads over as many files as it can.
    """
    pool = sorted(cases, key=lambda case: case.instance_id)
    order = list(smells) if smells is not None else sorted({case.smell for case in pool})
    order += sorted({case.smell for case in pool} - set(order))
    used: Counter[str] = Counter()
    chosen: list[Case] = []
    for repo in sorted({case.repo for case in pool}):
        for smell, difficulty in cell_order(order):
            cell = [case for case in pool if (case.repo, case.smell, case.difficulty)
                    == (repo, smell, difficulty)]
            cell.sort(key=lambda case: _rank(seed, case))
            for _ in range(min(per_cell, len(cell))):
                best = min(cell, key=lambda case: (
                    sum(used[f"{case.repo}:{path}"] for path in case.files), _rank(seed, case)))
                cell.remove(best)
                chosen.append(best)
                used.update(f"{best.repo}:{path}" for path in best.files)
    return chosen
