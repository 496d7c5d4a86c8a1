"""Fact extraction keeps its results when it is made faster: the facts of every file of two real
packages are compared against digests recorded from the extraction as it was.

A digest is the SHA-256 of the `repr` of a file's `FileFacts` (every field, every nested form, with
its type name), so any change of any fact changes it, while how equal values are shared in memory
does not. After an intended change of the facts, regenerate the digests with
`SMELLKIT_REGENERATE_DIGESTS=1 python3 -m pytest tests/test_extract_equal.py -m slow` and review
the diff of the JSON files.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from smellkit.project import SourceFile, parse_file

DATA = Path(__file__).parent / "data"
PACKAGES = [("click", "8.1.7"), ("jinja2", "3.1.4")]


def _digests(src: Path) -> dict[str, str]:
    """Digest of the facts of every Python file under `src`, by POSIX path relative to it."""
    found: dict[str, str] = {}
    for file in sorted(src.rglob("*.py")):
        relative = file.relative_to(src).as_posix()
        parts = relative[:-3].split("/")
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        source_file = SourceFile(str(file), relative, ".".join(parts), is_package)
        result = parse_file(source_file, file.read_bytes(), 10**8)
        found[relative] = hashlib.sha256(repr(result).encode()).hexdigest()
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("name", "version"), PACKAGES)
def test_facts_of_real_packages_match_the_recorded_digests(
        pypi_sdist: Callable[[str, str], Path], name: str, version: str) -> None:
    golden = DATA / f"extract-digests-{name}-{version}.json"
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    found = _digests(pypi_sdist(name, version) / "src")
    if os.environ.get("SMELLKIT_REGENERATE_DIGESTS"):
        golden.write_text(json.dumps({"python": python, "files": found}, indent=1,
                                     sort_keys=True) + "\n")
        pytest.skip(f"regenerated {golden.name}")
    recorded = json.loads(golden.read_text())
    if recorded["python"] != python:  # `ast` itself changes between versions
        pytest.skip(f"{golden.name} was recorded with Python {recorded['python']}, not {python}")
    assert sorted(found) == sorted(recorded["files"])
    changed = [path for path, digest in found.items() if recorded["files"][path] != digest]
    assert not changed, f"facts changed for {len(changed)} files, e.g. {changed[:5]}"
