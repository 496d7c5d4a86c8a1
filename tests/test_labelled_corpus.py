"""The labelled corpus (`benchmarks/labels/`): well-formed labels with reasons, a sampling record
that matches them, stable keys, sampling-weighted precision, and labels that still find their
findings in a real scan (so they do not rot while the detectors change)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks.bench_precision import LibraryJoin, join_library, tally
from benchmarks.labelled_corpus import (
    JUDGED_SMELLS,
    LABELS,
    LIBRARIES,
    Label,
    Verdict,
    draw_sample,
    judged,
    keys_of,
    label_file,
    read_labels,
    read_sampling,
    sample_size,
    stratum_name,
)
from smellkit.detectors.registry import detectors
from smellkit.models import Finding, Location, Severity

MAX_STALE_SHARE = 0.2
"""The share of a library's labels that may have lost their finding before the slow test fails:
above it, the detectors changed enough that the labels need a new look (relabel or re-sample)."""


def all_labels() -> list[Label]:
    return [label for library, version in LIBRARIES
            for label in read_labels(label_file(library, version))]


# -- schema and reasons ---------------------------------------------------------------------------


def test_every_label_file_belongs_to_a_listed_library() -> None:
    files = {path.name for path in LABELS.glob("*.jsonl")}
    assert files == {label_file(library, version).name for library, version in LIBRARIES}


@pytest.mark.parametrize(("library", "version"), LIBRARIES)
def test_label_rows_are_well_formed(library: str, version: str) -> None:
    labels = read_labels(label_file(library, version))
    assert labels, f"{label_file(library, version)} has no labels"
    smells = set(detectors())
    keys = [label.key for label in labels]
    assert len(keys) == len(set(keys)), "a finding is labelled twice"
    for label in labels:
        where = f"{label_file(library, version).name}: {label.key}"
        assert (label.library, label.version) == (library, version), where
        assert label.smell in smells, where
        assert label.key.startswith(f"{label.smell}|{label.path}|{label.qualname}|"), where
        assert label.reason.strip() and not label.reason.lower().startswith("todo"), where


def test_a_library_judged_for_some_smells_has_labels_of_those_only() -> None:
    assert judged("attrs", "dead_code") and judged("sphinx", "god_class")
    assert not judged("sphinx", "dead_code")
    known = dict(LIBRARIES)
    for library, smells in JUDGED_SMELLS.items():
        labels = read_labels(label_file(library, known[library]))
        assert {label.smell for label in labels} <= smells, library


def test_a_bad_row_names_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "lib-1.0.jsonl"
    row = {"library": "lib", "version": "1.0", "smell": "dead_code", "path": "a.py",
           "qualname": "a.f", "start_line": 3, "key": "dead_code|a.py|a.f|function",
           "severity": "info", "label": "true", "reason": ""}
    bad.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"(?s)lib-1\.0\.jsonl:1: .*reason"):
        read_labels(bad)


def test_the_corpus_is_as_wide_as_promised() -> None:
    labels = all_labels()
    assert len(labels) >= 150
    assert len({label.library for label in labels}) >= 6
    assert {label.smell for label in labels} == set(detectors())
    assert {label.severity for label in labels} == {"info", "warning", "error"}
    assert not {label.library for label in labels} & {"requests", "rich", "werkzeug"}


def test_the_sampling_record_matches_the_labels() -> None:
    sampling = read_sampling()
    judged = Counter(stratum_name(label.library, label.smell, label.severity)
                     for label in all_labels())
    assert set(judged) <= set(sampling.strata)
    for name, stratum in sampling.strata.items():
        assert stratum.sampled == sample_size(stratum.population), name
        assert judged[name] == stratum.sampled + stratum.added, name
        assert stratum.census is not None or not stratum.added, name


# -- keys, sampling and weights -------------------------------------------------------------------


def _finding(smell: str, qualname: str, line: int, **evidence: object) -> Finding:
    return Finding(smell=smell, severity="info", evidence=dict(evidence),
                   location=Location(path="pkg/m.py", qualname=qualname, kind="function",
                                     start_line=line, end_line=line + 2))


def test_keys_ignore_lines_and_tell_findings_at_one_place_apart() -> None:
    before = [_finding("dead_code", "pkg.m.f", 10, kind="unreachable"),
              _finding("dead_code", "pkg.m.f", 20, kind="unreachable"),
              _finding("dead_code", "pkg.m.g", 30, kind="function")]
    moved = [_finding("dead_code", "pkg.m.g", 55, kind="function"),
             _finding("dead_code", "pkg.m.f", 41, kind="unreachable"),
             _finding("dead_code", "pkg.m.f", 31, kind="unreachable")]
    assert keys_of(before) == ["dead_code|pkg/m.py|pkg.m.f|unreachable",
                               "dead_code|pkg/m.py|pkg.m.f|unreachable#2",
                               "dead_code|pkg/m.py|pkg.m.g|function"]
    assert sorted(keys_of(moved)) == sorted(keys_of(before))
    clumps = [_finding("data_clumps", "pkg.m.f", 1, parameters="['a', 'b', 'c']"),
              _finding("data_clumps", "pkg.m.f", 1, parameters="['a', 'b']")]
    assert len(set(keys_of(clumps))) == 2


def test_the_sample_is_seeded_and_stratified() -> None:
    findings = [_finding("dead_code", f"pkg.m.f{index}", index + 1, kind="function")
                for index in range(12)]
    chosen, strata = draw_sample("lib", findings)
    again, _ = draw_sample("lib", list(reversed(findings)))
    assert [key for key, _ in chosen] == [key for key, _ in again]
    assert strata["lib|dead_code|info"].model_dump(exclude_defaults=True) == {
        "population": 12, "sampled": 3}


def test_precision_is_weighted_by_the_stratum_each_label_stands_for() -> None:
    def label(key: str, verdict: Verdict, severity: Severity) -> Label:
        return Label(library="lib", version="1", smell="dead_code", path="pkg/m.py",
                     qualname="pkg.m.f", start_line=1, key=key, severity=severity,
                     label=verdict, reason="judged by reading the code")

    info = _finding("dead_code", "pkg.m.f", 1, kind="function")
    warning = info.model_copy(update={"severity": "warning"})
    join = LibraryJoin(
        library="lib", findings=12, stale=[], new=[], resized={},
        matched=[(label("a", "true", "info"), info), (label("b", "false", "info"), info),
                 (label("c", "false", "warning"), warning)],
        population={"lib|dead_code|info": 10, "lib|dead_code|warning": 2})
    tallies = tally([join])
    # info: 2 judged stand for 10 (weight 5 each); warning: 1 judged stands for 2
    assert tallies["dead_code", "info"].precision() == 0.5
    assert tallies["dead_code", "all"].weighted == {"true": 5, "false": 7}
    assert tallies["dead_code", "all"].precision() == pytest.approx(5 / 12)
    assert tallies["dead_code", "all"].precision(weighted=False) == pytest.approx(1 / 3)
    assert tallies["dead_code", "warning+"].findings == 2
    assert tallies["dead_code", "warning+"].interval() == (0.0, 0.0)
    low, high = tallies["dead_code", "all"].interval() or (-1, -1)
    assert 0 <= low < 5 / 12 < high <= 1


# -- the labels still match a real scan -----------------------------------------------------------


@pytest.mark.slow
def test_labels_still_find_their_findings(pypi_sdist: Callable[[str, str], Path]) -> None:
    library, version = "marshmallow", dict(LIBRARIES)["marshmallow"]
    pypi_sdist(library, version)
    join = join_library(library, version, read_sampling())
    # A finding labelled false that is gone is a false positive fixed; a true (or debatable)
    # one that is gone is a finding lost, or a label whose key no longer fits: those must not rot.
    kept = [label for label in join.stale if label.label != "false"]
    labels = len(join.matched) + len(kept)
    assert len(kept) <= MAX_STALE_SHARE * labels, (
        f"{len(kept)} of {labels} {library} labels not judged false match no finding any more "
        f"({[label.key for label in kept]}): review them with "
        f"`python benchmarks/bench_precision.py --library {library}`")
