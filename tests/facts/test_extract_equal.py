"""Fact extraction keeps its results when it is made faster: the facts of every file of two real
packages are compared against digests recorded from the extraction as it was.

A digest is the SHA-256 of the `repr` of a file's `FileFacts` (every field, every nested form, with
its type name), so any change of any fact changes it, while how equal values are shared in memory
does not. After an intended change of the facts, regenerate the digests with
`SMELLKIT_REGENERATE_DIGESTS=1 python3 -m pytest tests/facts/test_extract_equal.py -m slow` and
review the diff of the JSON files.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from smellkit.facts import FileFacts, compiled_names, extract, type_comment_names
from smellkit.facts.reachability import Liveness, liveness
from smellkit.project.parsing import SourceFile, parse_file

DATA = Path(__file__).parent / "data"
PACKAGES = [("click", "8.1.7"), ("jinja2", "3.1.4")]


READS = """
import typing as t
from pkg import Base, deco

@deco(level=LEVEL)
class Thing(Base, metaclass=Meta):
    field: "Optional[Node]" = DEFAULT
    other: t.Literal["a_b c"]

    def run(self, item: "Item", *rest: Rest, key: Key = KEY, **more) -> "Result | None":
        value = [x.attr for x in item.values if x.ok]
        self.cache[key] = lambda y=Y: y.inner(z)
        obj.attr.deep = value
        del gone
        if (found := lookup(name=key)) is not None:
            print(f"visit_{kind}", f"{a!r:>{width}}")
        match command:
            case Point(x=0, y=yy) if yy > LIMIT:
                return Point
            case {"k": kk, **others}:
                raise Error(kk)
        return found
    dead = 1
"""


def test_names_read_in_the_facts_walk_match_the_standalone_walk() -> None:
    """`extract` collects the names a module reads in its own walk; `liveness` alone walks the
    expressions itself: both must find the same names, attributes and prefixes."""
    tree = ast.parse(READS)
    facts = extract(tree, READS, "m.py", "m", False)
    alone = liveness(ast.parse(READS), "m")
    assert facts.liveness == alone
    assert {"Optional", "Node", "Item", "Result", "LEVEL", "Y", "z", "LIMIT", "a_b", "c",
            "width", "kind", "obj"} <= set(alone.names)
    assert "gone" not in alone.names and "deep" not in alone.attributes
    assert {"attr", "inner", "cache", "values", "ok"} <= set(alone.attributes)
    assert alone.prefixes == ("visit_",)


def _reference_liveness(data: bytes, module: str) -> Liveness:
    """`liveness` of the parse alone, plus what extraction reads beyond the tree: the names of
    `# type:` comments, and those of code strings in a module that runs code from strings."""
    tree = ast.parse(data)
    found = liveness(tree, module)
    extra = type_comment_names(data.decode("utf-8", errors="replace"))
    if {"exec", "eval", "compile"} & set(found.names):
        extra |= compiled_names(tree)
    return found._replace(names=tuple(sorted({*found.names, *extra})))


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
        data = file.read_bytes()
        result = parse_file(source_file, data, 10**8)
        found[relative] = hashlib.sha256(repr(result).encode()).hexdigest()
        if isinstance(result, FileFacts):  # the two ways of collecting names read agree
            assert result.liveness == _reference_liveness(data, result.module), relative
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
