"""The labelled corpus: findings of real libraries judged by hand, and how they join to a scan.

Labels live in `benchmarks/labels/<library>-<version>.jsonl`, one judged finding a line; which
findings were judged is recorded in `benchmarks/labels/sampling.json` (seeded, stratified by
library, smell and severity), so precision can be weighted back to every finding of a stratum. A
stratum whose findings changed after a detector was fixed may be judged again whole: its `census`
is its size then and `added` the labels written then (the findings it had not judged yet).

A label names its finding by a stable key: smell, path, qualname and what tells two findings at
one place apart (dead code's kind, the clump's parameters, the other copies of a clone, the
envied class, shotgun surgery's form and knowledge). No line numbers, so an edit elsewhere in a
file does not orphan a label; a key that several findings share gets `#2`, `#3` in line order.
"""

from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from smellkit.models import Finding, Severity

ROOT = Path(__file__).resolve().parent.parent
LABELS = Path(__file__).resolve().parent / "labels"
SAMPLING_FILE = LABELS / "sampling.json"

LIBRARIES: tuple[tuple[str, str], ...] = (
    ("attrs", "24.2.0"),
    ("click", "8.1.7"),
    ("docutils", "0.21.2"),
    ("jinja2", "3.1.4"),
    ("marshmallow", "3.23.1"),
    ("python-dateutil", "2.9.0.post0"),
    ("sqlparse", "0.5.2"),
    ("tomlkit", "0.13.2"),
    ("tornado", "6.4.1"),
    ("XlsxWriter", "3.2.0"),
    ("fpdf2", "2.8.1"),
    ("pygments", "2.18.0"),
    ("cmd2", "2.5.0"),
    ("kombu", "5.4.2"),
    ("fsspec", "2024.10.0"),
    ("sphinx", "8.1.3"),
    ("pylint", "3.3.1"),
    ("nltk", "3.9.1"),
    ("twisted", "24.10.0"),
    ("babel", "2.16.0"),
    ("pyparsing", "3.2.0"),
)
"""The labelled libraries, PyPI sdists scanned from their top folder with default options.
requests, rich and werkzeug are kept out: they are the independent check."""

_RARE_SMELLS = frozenset({"feature_envy", "god_class", "interface_segregation"})
JUDGED_SMELLS: dict[str, frozenset[str]] = {
    library: _RARE_SMELLS for library in ("XlsxWriter", "fpdf2", "pygments", "cmd2", "kombu",
                                          "fsspec", "sphinx", "pylint", "nltk", "twisted")}
"""Libraries judged for some smells only: these ten were added for the smells the first nine
hardly show, and every finding of those smells there is labelled; their other findings are left
out of the benchmark (they were never sampled). A library not listed (the first nine, babel and
pyparsing) is judged for every smell."""


def judged(library: str, smell: str) -> bool:
    """Whether the benchmark counts this library's findings of this smell."""
    return smell in JUDGED_SMELLS.get(library, frozenset({smell}))


SEED = 19
Verdict = Literal["true", "false", "debatable"]


class Label(BaseModel):
    """One finding judged by reading the code against the smell's definition."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    library: str
    version: str
    smell: str
    path: str
    qualname: str
    start_line: int = Field(ge=1)
    key: str
    severity: Severity
    label: Verdict
    reason: str = Field(min_length=10)


class Stratum(BaseModel):
    """How many findings a stratum held when it was sampled, and how many were judged."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    population: int = Field(ge=0)
    sampled: int = Field(ge=0)
    census: int | None = Field(default=None, ge=0)
    """Set when the stratum was later judged whole: how many findings it held then."""
    added: int = Field(default=0, ge=0)
    """Labels written at that census beyond the sample (findings new since, or left unjudged)."""

    @property
    def size(self) -> int:
        """Its findings when last judged: at the census if any, else at the sampling."""
        return self.population if self.census is None else self.census

    @property
    def whole(self) -> bool:
        return self.census is not None or self.sampled == self.population


class Sampling(BaseModel):
    """The sampling rule and, per `library|smell|severity`, the stratum it was applied to."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int
    rule: str
    strata: dict[str, Stratum]


def sample_size(population: int) -> int:
    """Judged findings of a stratum: all of up to 2, else 2, 3 from 10 on and 5 from 30 on.
    (`random.sample` draws its first picks alike for 3 and 5 from more than 21 findings, so the
    top tier only added findings to the strata sampled with 3 before.)"""
    if population < 10:
        return min(population, 2)
    return 3 if population < 30 else 5


SAMPLING_RULE = ("per library, smell and severity: all findings of up to 2, else 2, 3 from "
                 "a stratum of 10 or more and 5 from 30 or more; drawn with "
                 "random.Random(f'{seed}|{stratum}') from the stratum's findings sorted by key")


def label_file(library: str, version: str) -> Path:
    return LABELS / f"{library}-{version}.jsonl"


def stratum_name(library: str, smell: str, severity: str) -> str:
    return f"{library}|{smell}|{severity}"


def _detail(finding: Finding) -> str:
    """What tells this finding apart from another of its smell at the same qualname."""
    evidence = finding.evidence
    smell = finding.smell
    if smell in ("dead_code", "interface_segregation"):
        return str(evidence.get("kind", ""))
    if smell == "data_clumps":
        return str(evidence.get("parameters", ""))
    if smell == "feature_envy":
        return str(evidence.get("envied_class", ""))
    if smell == "shotgun_surgery":
        knowledge = next((str(evidence[field]) for field in ("key", "helper", "alias")
                          if field in evidence), "")
        return f"{evidence.get('form', '')}:{knowledge}"
    if smell == "duplicated_code":
        return ",".join(sorted({item.qualname for item in finding.related}))
    return ""


def keys_of(findings: Sequence[Finding]) -> list[str]:
    """The stable key of each finding, in order; repeated keys numbered by start line."""
    bases = [f"{finding.smell}|{finding.location.path}|{finding.location.qualname}|"
             f"{_detail(finding)}" for finding in findings]
    by_base: dict[str, list[int]] = defaultdict(list)
    for index, base in enumerate(bases):
        by_base[base].append(index)
    keys = list(bases)
    for indices in by_base.values():
        ordered = sorted(indices, key=lambda i: (findings[i].location.start_line,
                                                 findings[i].location.end_line))
        for rank, index in enumerate(ordered[1:], start=2):
            keys[index] = f"{bases[index]}#{rank}"
    return keys


def read_labels(path: Path) -> list[Label]:
    """The labels of one file; a bad row is an error naming the file, the line and the field."""
    labels: list[Label] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            labels.append(Label.model_validate_json(line))
        except ValidationError as error:
            raise ValueError(f"{path}:{number}: not a valid label: {error}") from error
    return labels


def read_sampling() -> Sampling:
    return Sampling.model_validate_json(SAMPLING_FILE.read_text(encoding="utf-8"))


def library_root(library: str, version: str) -> Path:
    """The unpacked sdist (downloaded once into the shared test-data cache)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.support.pypi import sdist

    return sdist(library, version)


def scan_library(library: str, version: str) -> list[Finding]:
    """Every finding of a default scan of the library's sdist (no cache: today's detectors)."""
    import smellkit

    return list(smellkit.scan(library_root(library, version), use_cache=False).findings)


def draw_sample(library: str, findings: Sequence[Finding]) -> tuple[list[tuple[str, Finding]],
                                                                     dict[str, Stratum]]:
    """The findings to judge, with their keys, and the strata they were drawn from."""
    by_stratum: dict[str, list[tuple[str, Finding]]] = defaultdict(list)
    for key, finding in zip(keys_of(findings), findings):
        by_stratum[stratum_name(library, finding.smell, finding.severity)].append((key, finding))
    chosen: list[tuple[str, Finding]] = []
    strata: dict[str, Stratum] = {}
    for name in sorted(by_stratum):
        members = sorted(by_stratum[name], key=lambda pair: pair[0])
        size = sample_size(len(members))
        chosen.extend(random.Random(f"{SEED}|{name}").sample(members, size))
        strata[name] = Stratum(population=len(members), sampled=size)
    return chosen, strata


def draft_rows(library: str, version: str,
               chosen: Iterable[tuple[str, Finding]]) -> list[dict[str, object]]:
    """Label rows for the drawn findings, the verdict and reason left for the reader to write."""
    return [{"library": library, "version": version, "smell": finding.smell,
             "path": finding.location.path, "qualname": finding.location.qualname,
             "start_line": finding.location.start_line, "key": key,
             "severity": finding.severity, "label": None, "reason": ""}
            for key, finding in chosen]


def write_jsonl(path: Path, rows: Iterable[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
