"""Injections on real code read as a person's: the tells scan finds nothing in them, and each
spans the files its difficulty promises (SmellBench's rule: easy 2, medium 3 or more, hard 4 or
more)."""

from __future__ import annotations

from pathlib import Path

from smellkit.injectors.engine import find_candidates, inject
from smellkit.injectors.tells import scan
from smellkit.models import DIFFICULTIES, SPANS, Difficulty, Injection
from tests.injectors.support import SMALL, load


def spanned(injection: Injection) -> set[str]:
    """The files the smell spans: those changed and those of its targets and definitions."""
    return {*injection.files, *(item.path for item in injection.locations)}


def human_injections(root: Path, smell: str, tries: int,
                     seeds: tuple[int, ...] = (0, 1)) -> dict[Difficulty, list[Injection]]:
    """Injections at each difficulty over the first `tries` candidates and some seeds; fails
    when one of them has a tell or spans the wrong number of files."""
    project = load(root)
    candidates = find_candidates(project, smell, options=SMALL)[:tries]
    made: dict[Difficulty, list[Injection]] = {}
    for difficulty in DIFFICULTIES:
        made[difficulty] = []
        for seed in seeds:
            for candidate in candidates:
                outcome = inject(project, smell, difficulty, candidate=candidate, seed=seed,
                                 options=SMALL)
                if isinstance(outcome, Injection):
                    made[difficulty].append(outcome)
        least, most = SPANS[difficulty]
        for injection in made[difficulty]:
            files = spanned(injection)
            assert len(files) >= least and (most is None or len(files) <= most), \
                (injection.id, sorted(files))
    everything = [item for items in made.values() for item in items]
    found = {case: tells for case, tells in scan(root, everything, alternatives=True).items()
             if tells}
    assert not found, found
    return made
