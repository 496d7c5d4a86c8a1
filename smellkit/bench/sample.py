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


def sample(cases: Iterable[Case], per_cell: int, seed: int,
           smells: Sequence[str] | None = None) -> list[Case]:
    """At most `per_cell` cases per (repository, smell, difficulty).

    Within a cell, cases are taken greedily: first one whose target the smell has not used at
    another difficulty (a target is used once per smell while others remain), then the one
    whose files the dataset uses least so far, ties broken by a seeded hash, so the dataset
    spreads over as many targets and files as it can.
    """
    pool = sorted(cases, key=lambda case: case.instance_id)
    order = list(smells) if smells is not None else sorted({case.smell for case in pool})
    order += sorted({case.smell for case in pool} - set(order))
    used: Counter[str] = Counter()
    targets: Counter[tuple[str, str, str]] = Counter()
    chosen: list[Case] = []
    for repo in sorted({case.repo for case in pool}):
        for smell, difficulty in cell_order(order):
            cell = [case for case in pool if (case.repo, case.smell, case.difficulty)
                    == (repo, smell, difficulty)]
            cell.sort(key=lambda case: _rank(seed, case))
            for _ in range(min(per_cell, len(cell))):
                best = min(cell, key=lambda case: (
                    targets[target_key(case)],
                    sum(used[f"{case.repo}:{path}"] for path in case.files), _rank(seed, case)))
                cell.remove(best)
                chosen.append(best)
                used.update(f"{best.repo}:{path}" for path in best.files)
                targets[target_key(best)] += 1
    return chosen
