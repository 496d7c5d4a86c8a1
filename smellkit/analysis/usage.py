"""Which names a repository uses, and from where: shared by the dead-code and shotgun-surgery rules.

Use is by name, as Python's dynamic lookup is: a definition `f` is used when any code reads a bare
name `f`, an attribute `.f`, names it in an annotation, a string (`getattr(obj, "f")`, `"f"` in
`__all__` or a registry) or an entry point. Every call the call graph resolves names its callee in
one of those ways, so names subsume it (and cost nothing to build). Test code is kept apart so
"used only by tests" can be told from "used".
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from smellkit.analysis.context import Context
from smellkit.config import DEFAULT_EXCLUDE_DIRS, is_test_path
from smellkit.facts import DefRef, FileFacts, Name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPACE = re.compile(r"\s")
_CALLED_IN_TEXT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_PREFIX = re.compile(r"(_*[A-Za-z][A-Za-z0-9_]*_)(?:%|\{|$)")
_ENTRY_POINT = re.compile(r"""^\s*([\w.-]+)\s*=\s*([\w.]+)\s*:\s*([\w.]+)""", re.M)
_SETUP_PY_ENTRY = re.compile(r"""["']\s*[\w.-]+\s*=\s*([\w.]+)\s*:\s*([\w.]+)""")
_MAX_TEST_BYTES = 2_000_000
_STRING_NAMES: dict[str, tuple[str, ...]] = {}




def string_names(value: str) -> Iterator[str]:
    """Identifiers a string constant may name: itself, the parts of a dotted or annotation-like
    string ("pkg.mod:func", "t.Optional[Foo]"), or names called in a code template ("f(x)")."""
    if value.isidentifier():
        yield value
    elif _SPACE.search(value) is None:
        yield from IDENTIFIER.findall(value)
    elif "(" in value:
        yield from _CALLED_IN_TEXT.findall(value)


def dispatch_prefix(value: str) -> str | None:
    """`"visit_"`, `"parse_%s"`, `"_process_{cls}"`, `f"do_{x}"`'s literal part: names built at
    run time from it (`getattr(self, "_handle_" + name)`)."""
    match = _PREFIX.fullmatch(value) or _PREFIX.match(value)
    if match is None or len(match.group(1).lstrip("_")) < 3 or match.group(1).endswith("__"):
        return None  # too short to tell, or a dunder (`"__init__"`), which names nothing built
    return match.group(1)


def module_level_names(facts: FileFacts) -> set[str]:
    """Names bound at module level by assignment (the index keeps definitions and imports)."""
    return {item.target.id for item in facts.assignments
            if item.scope == facts.module and isinstance(item.target, Name)
            and not isinstance(item.value, DefRef)}


def file_references(facts: FileFacts) -> tuple[set[str], list[tuple[str, int]]]:
    """Every bare name one file reads (in annotations and string annotations too, `__all__`,
    names inside dotted or code-like strings), and apart the strings that are exactly one
    identifier, with their lines. Attribute names read are in `facts.liveness.attributes`."""
    found = set(facts.liveness.names)
    exact: list[tuple[str, int]] = []
    cache = _STRING_NAMES
    for value, line in facts.string_constants:
        if value.isidentifier():
            exact.append((value, line))
        else:
            names = cache.get(value)
            if names is None:
                if len(cache) > 200_000:
                    cache.clear()
                names = cache[value] = tuple(string_names(value))
            found.update(names)
    if facts.dunder_all:
        found.update(facts.dunder_all)
    return found, exact


@dataclass
class Usage:
    """The repository's uses of names, built once per `Context`."""

    prod: set[str] = field(default_factory=set)
    """Identifiers read by code that is not a test (strings that are one identifier apart)."""
    strings: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    """Identifier -> (path, line) of each string constant outside tests spelling exactly it."""
    test: set[str] = field(default_factory=set)
    """Identifiers read by tests (test modules of the project, or test folders' text)."""
    by_module: dict[str, set[str]] = field(default_factory=dict)
    """Module -> the bare names (and identifier strings) that file reads, attributes apart."""
    test_files: dict[str, set[str]] = field(default_factory=dict)
    """Test file (relative path) -> identifiers it mentions."""
    prefixes: tuple[str, ...] = ()
    """Name prefixes that code completes at run time (`getattr(self, "visit_" + kind)`)."""
    exported: set[str] = field(default_factory=set)
    """Qualnames a package `__init__` re-exports or an `__all__` lists."""
    imported: set[str] = field(default_factory=set)
    """Import targets (as written and resolved) whose bound name is used or re-exported."""
    import_targets: set[str] = field(default_factory=set)
    """Every absolute name some module outside tests imports."""
    entry_points: set[str] = field(default_factory=set)
    """Qualnames (or bare names, when unresolved) that packaging metadata names."""
    documented: set[str] = field(default_factory=set)
    """Names the project's documentation presents as API (autodoc, roles, inline code)."""
    documented_classes: set[str] = field(default_factory=set)
    """Classes the documentation shows with all their members (`:members:` without a list)."""
    _test_only: dict[str, list[str]] | None = None

    def named_by_string(self, name: str, path: str, lines: Iterable[int]) -> bool:
        """A string spells `name`, other than one naming itself where `name` is bound
        (`T = TypeVar("T")`, `f = lib.lookup("f")`: within two lines after the binding)."""
        starts = list(lines)
        return any(where != path or not any(0 <= line - start <= 2 for start in starts)
                   for where, line in self.strings.get(name, ()))

    def used_by_tests(self, name: str) -> list[str]:
        """Test files that mention `name`, for a name no other code reads."""
        if self._test_only is None:
            inverted: dict[str, list[str]] = {}
            for path, names in sorted(self.test_files.items()):
                for item in names - self.prod:
                    inverted.setdefault(item, []).append(path)
            self._test_only = inverted
        found = self._test_only.get(name)
        if found is None and name in self.test:  # a name other code reads too
            found = sorted(path for path, names in self.test_files.items() if name in names)
        return found or []


def _exports(context: Context, facts: FileFacts) -> Iterator[str]:
    index = context.index
    listed = set(facts.dunder_all or ())
    for item in facts.imports:
        if item.scope != facts.module or item.bound == "*":
            continue
        if facts.is_package or item.bound in listed:
            found = index.resolve_dotted(item.target)
            if found is not None:
                yield found
    for name in listed:
        child = index.children.get(facts.module, {}).get(name)
        if child is not None:
            yield child


def import_used(usage: Usage, facts: FileFacts, bound: str) -> bool:
    """The name an import binds is read in its module, re-exported, or imported from there."""
    return (bound in usage.by_module.get(facts.module, ()) or facts.is_package
            or bound in (facts.dunder_all or ()) or f"{facts.module}.{bound}" in
            usage.import_targets)


def _used_imports(usage: Usage, context: Context, facts: FileFacts) -> None:
    for item in facts.imports:
        if item.bound != "*" and import_used(usage, facts, item.bound):
            usage.imported.add(item.target)
            resolved = context.index.resolve_dotted(item.target)
            if resolved is not None:
                usage.imported.add(resolved)


def metadata_folder(root: Path) -> Path | None:
    """The folder with the packaging metadata: the project root or one of two parents."""
    folder = root if root.is_dir() else root.parent
    for candidate in (folder, folder.parent, folder.parent.parent):
        if any((candidate / name).is_file() for name in ("pyproject.toml", "setup.cfg",
                                                         "setup.py")):
            return candidate
    return None


def entry_point_targets(folder: Path) -> list[tuple[str, str]]:
    """(module, attribute path) of every console script and entry point declared in
    pyproject.toml (PEP 621 or Poetry), setup.cfg or setup.py."""
    found: list[tuple[str, str]] = []
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {}
        project = data.get("project", {})
        poetry = data.get("tool", {}).get("poetry", {})
        tables: list[object] = [project.get("scripts"), project.get("gui-scripts"),
                                poetry.get("scripts")]
        for group in (project.get("entry-points", {}), poetry.get("plugins", {})):
            if isinstance(group, dict):
                tables.extend(group.values())
        for table in tables:
            if isinstance(table, dict):
                for value in table.values():
                    spec = value.get("reference", "") if isinstance(value, dict) else value
                    if isinstance(spec, str) and ":" in spec:
                        module, _, attr = spec.partition(":")
                        found.append((module.strip(), attr.split("[")[0].strip()))
    for name, pattern in (("setup.cfg", _ENTRY_POINT), ("setup.py", _SETUP_PY_ENTRY)):
        path = folder / name
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for match in pattern.finditer(text):
                groups = match.groups()
                found.append((groups[-2], groups[-1]))
    return found


_DOC_SUFFIXES = (".rst", ".md", ".txt")
_AUTODOC = re.compile(r"\s*\.\.\s+(?:py:)?auto\w*::\s*([\w.]+)")
_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|attr|data|exc|obj|const|mod):`[~!]?([\w.]+)")
_CODE = re.compile(r"`{1,2}([A-Za-z_][\w.]*)(?:\(\))?`{1,2}")
_MAX_DOC_BYTES = 20_000_000


def scan_docs(folder: Path) -> tuple[set[str], set[str]]:
    """Names the documentation presents as API: autodoc directives (with their member lists),
    cross-reference roles and inline code; and classes documented with all their members."""
    names: set[str] = set()
    whole: set[str] = set()
    budget = _MAX_DOC_BYTES
    for top in (folder / "docs", folder / "doc"):
        if not top.is_dir():
            continue
        for path in sorted(top.rglob("*")):
            if path.suffix not in _DOC_SUFFIXES or budget <= 0 or not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace")[:budget]
            except OSError:
                continue
            budget -= len(text)
            current: str | None = None
            for line in text.splitlines():
                match = _AUTODOC.match(line)
                if match is not None:
                    current = match.group(1)
                    names.add(current.rpartition(".")[2])
                    continue
                if current is not None and line[:1].isspace() and line.strip():
                    if line.strip() == ":members:":
                        whole.add(current.rpartition(".")[2])
                    names.update(IDENTIFIER.findall(line))  # a member list, continued
                    continue
                current = None
                for dotted in (*_ROLE.findall(line), *_CODE.findall(line)):
                    names.add(dotted.rpartition(".")[2])
    return names, whole


def _scan_test_text(folder: Path) -> dict[str, set[str]]:
    """Identifiers in the test files under `folder`, read as text (tests are not in the project)."""
    found: dict[str, set[str]] = {}
    skip = set(DEFAULT_EXCLUDE_DIRS)
    for current, dirs, files in os.walk(folder):
        dirs[:] = sorted(name for name in dirs if name not in skip and not name.startswith("."))
        relative = Path(current).relative_to(folder).as_posix()
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = name if relative == "." else f"{relative}/{name}"
            if not is_test_path(path):
                continue
            try:
                data = (Path(current) / name).read_bytes()[:_MAX_TEST_BYTES]
            except OSError:
                continue
            found[path] = set(IDENTIFIER.findall(data.decode("utf-8", errors="replace")))
    return found


def _build(context: Context, scan_tests: bool, read_docs: bool) -> Usage:
    usage = Usage()
    index = context.index
    prefixes: set[str] = set()
    for facts in index.modules.values():
        names, exact = file_references(facts)
        attributes = facts.liveness.attributes
        if is_test_path(facts.path):
            names.update(value for value, _ in exact)
            for definition in facts.definitions:  # pytest injects fixtures by parameter name
                names.update(param.name for param in definition.params)
            usage.test.update(names)
            usage.test.update(attributes)
            usage.test_files[facts.path] = names.union(attributes)
        else:
            usage.prod.update(names)
            usage.prod.update(attributes)
            for value, line in exact:
                usage.strings.setdefault(value, []).append((facts.path, line))
            names.update(value for value, _ in exact)
            usage.exported.update(_exports(context, facts))
            for value, _ in facts.string_constants:
                prefix = dispatch_prefix(value)
                if prefix is not None:
                    prefixes.add(prefix)
            prefixes.update(facts.liveness.prefixes)
            usage.import_targets.update(item.target for item in facts.imports)
        usage.by_module[facts.module] = names
    for facts in index.modules.values():
        if not is_test_path(facts.path):
            _used_imports(usage, context, facts)
    usage.prefixes = tuple(sorted(prefixes))
    folder = metadata_folder(context.project.root)
    if folder is not None:
        for module, attr in entry_point_targets(folder):
            resolved = index.resolve_dotted(f"{module}.{attr}")
            usage.entry_points.add(resolved or attr.split(".")[0])
    if read_docs and folder is not None:
        usage.documented, usage.documented_classes = scan_docs(folder)
    if scan_tests and not context.project.config.include_tests:
        top = folder or (context.project.root if context.project.root.is_dir() else None)
        if top is not None:
            for path, names in _scan_test_text(top).items():
                usage.test_files[path] = names
                usage.test.update(names)
    return usage


def usage_of(context: Context, *, scan_tests: bool = True, read_docs: bool = True) -> Usage:
    """The `Usage` of this context, built on first use."""
    return context.derived(_build, scan_tests, read_docs)

