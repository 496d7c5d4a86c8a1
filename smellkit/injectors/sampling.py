"""Seeded, stratified sampling of candidates, so early files and big packages are not favoured.

SmellBench's authors warn that agents picking spots drift to the first files they read. Here the
order is a seeded round-robin over packages, then over files within a package, then over the
candidates of a file: every package gets a turn before any gets a second one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from smellkit.models import Candidate

T = TypeVar("T")


def _round_robin(groups: list[list[T]]) -> list[T]:
    order: list[T] = []
    depth = 0
    while any(depth < len(group) for group in groups):
        order.extend(group[depth] for group in groups if depth < len(group))
        depth += 1
    return order


def _grouped(items: Sequence[Candidate], key_of: str, rng: random.Random) -> list[list[Candidate]]:
    groups: dict[str, list[Candidate]] = {}
    for item in items:
        path = item.target.path
        key = path.rsplit("/", 1)[0] if key_of == "package" and "/" in path else (
            "" if key_of == "package" else path)
        groups.setdefault(key, []).append(item)
    keys = sorted(groups)
    rng.shuffle(keys)
    return [groups[key] for key in keys]


def stratified(candidates: Sequence[Candidate], seed: int,
               limit: int | None = None) -> list[Candidate]:
    """All candidates (or the first `limit`) in a seeded order balanced over packages and files."""
    rng = random.Random(seed)
    ordered = sorted(candidates, key=lambda item: (item.target.path, item.target.start_line,
                                                   item.target.qualname, item.reason))
    by_package: list[list[Candidate]] = []
    for package in _grouped(ordered, "package", rng):
        files = _grouped(package, "file", rng)
        for group in files:
            rng.shuffle(group)
        by_package.append(_round_robin(files))
    order = _round_robin(by_package)
    return order if limit is None else order[:limit]
