"""Do a case's selected tests run its smelly code, and would they notice it breaking?

A test pass proves something about a refactoring only if the tests run the code it changes. So a
validated case's tests are run on the smelly version under coverage (a context per test, as the
test map measures the suite), and this module reads that run against the smelly patch: which
targets ran, how many of the executable lines the patch adds or changes ran, and, per changed
function, which selected tests run it. Each such function is then broken on purpose (its body
replaced by `raise RuntimeError(...)`) and only the tests that run it are run again, stopping at
the first failure: a function whose breaking no test notices is unguarded.

Code the case itself declares dead (a dead_code case's targets and locations) and stubs (bodies
that only pass, return None or raise, such as the `raise NotImplementedError` an interface
declares) are not expected to run: they are recorded as exempt and left out of the rule, and so
is a target made of stubs alone (a pure interface, whose implementers' code runs, never its own).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from smellkit._internal import pyast
from smellkit.facts import extract
from smellkit.models import FunctionSensitivity, Injection, TestAdequacy
from smellkit.project import naming_root
from smellkit.sandbox.testrun import LineContexts

DECLARES_DEAD = frozenset({"dead_code"})
"""Smells whose targets and locations are code meant never to run."""
MUTATION = 'raise RuntimeError("smellkit: this function was broken on purpose")'
"""The body a changed function gets to check that its tests notice."""

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_FILE = re.compile(r"^\+\+\+ (?:b/(\S+)|/dev/null)$")


def added_lines(patch: str) -> dict[str, set[int]]:
    """Per file the patch leaves in place, the line numbers (in the new version) of the lines it
    adds or changes."""
    found: dict[str, set[int]] = {}
    current: set[int] | None = None
    line = 0
    for text in patch.splitlines():
        header = _FILE.match(text)
        if header is not None:
            current = found.setdefault(header.group(1), set()) if header.group(1) else None
            continue
        hunk = _HUNK.match(text)
        if hunk is not None:
            line = int(hunk.group(1))
            continue
        if current is None or text.startswith(("---", "diff --git", "\\")):
            continue
        if text.startswith("+"):
            current.add(line)
            line += 1
        elif text.startswith(" ") or text == "":
            line += 1
    return {path: lines for path, lines in found.items() if lines}


def module_of(path: str, source: Path) -> str:
    """The module a source file defines (`pkg/mod.py` -> `pkg.mod`, `pkg/__init__.py` ->
    `pkg`), `path` being relative to the case's source path `source`, named as the project
    names it (a source path that is itself the package `pkg` gives `mod.py` -> `pkg.mod`)."""
    parts = path[:-3].split("/") if path.endswith(".py") else path.split("/")
    if parts[-1] == "__init__":
        parts.pop()
    package = source.resolve().relative_to(naming_root(source)).parts
    return ".".join((*package, *parts))


@dataclass(frozen=True)
class Function:
    """A function or method of the smelly version, with what measuring and breaking it needs."""

    qualname: str
    path: str
    start: int
    """First line of its definition, decorators included."""
    end: int
    body_start: tuple[int, int]
    """(line, byte column) of its first statement after the docstring."""
    body_end: tuple[int, int]
    stub: bool
    generator: bool
    overload: bool

    @property
    def body(self) -> range:
        return range(self.body_start[0], self.end + 1)


NEVER_RUN = r"^\s*if\s+(?:\w+\.)?TYPE_CHECKING\s*:"
"""Blocks no test can run, left out of the changed lines as coverage's users exclude them: the
imports type checkers read (a moved function's annotations need them in its new module)."""


@dataclass
class SourceFile:
    """One file of the smelly version: its executable lines and its functions."""

    path: str
    text: str
    statements: frozenset[int]
    first_line: Mapping[int, int]
    functions: list[Function]
    _owner: dict[int, Function] = field(default_factory=dict)

    @classmethod
    def read(cls, root: Path, path: str) -> SourceFile | None:
        """None when the file is missing or not Python the interpreter can parse."""
        from coverage.parser import PythonParser

        try:
            text = (root / path).read_bytes().decode("utf-8")  # line endings kept as they are
            tree = pyast.parse(text)
            parser = PythonParser(text=text, exclude=NEVER_RUN)
            parser.parse_source()
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            return None
        except Exception as error:  # coverage's NotPython for code it cannot tokenize
            if type(error).__name__ != "NotPython":
                raise
            return None
        module = module_of(path, root)
        stubs = {(item.start_line, item.col) for item in extract(
            tree, text, path, module, path.endswith("__init__.py"), detailed=False).definitions
            if item.is_stub}
        functions = list(_functions(tree, module, path, stubs))
        first = {line: parser.first_line(line) for line in range(1, text.count("\n") + 2)}
        source = cls(path, text, frozenset(parser.statements), first, functions)
        for function in sorted(functions, key=lambda item: len(item.body), reverse=True):
            for line in function.body:  # smaller bodies paint over larger ones: innermost wins
                source._owner[line] = function
        return source

    def owner(self, line: int) -> Function | None:
        """The innermost function whose body holds the line (a `def` line belongs to the
        enclosing scope: it runs when the module or class body does)."""
        return self._owner.get(line)

    def statement(self, line: int) -> int | None:
        """The executable statement a line belongs to, by its first line; None for blank
        lines, comments and docstrings."""
        first = self.first_line.get(line, line)
        return first if first in self.statements else None

    def enclosing(self, line: int) -> Function | None:
        """The innermost function whose definition (decorators and signature included) holds
        the line."""
        found = [item for item in self.functions if item.start <= line <= item.end]
        return min(found, key=lambda item: item.end - item.start) if found else None


def _functions(tree: ast.Module, module: str, path: str,
               stubs: set[tuple[int, int]]) -> Iterable[Function]:
    pending: list[tuple[ast.AST, str]] = [(tree, module)]
    while pending:
        node, prefix = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                pending.append((child, f"{prefix}.{child.name}"))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = f"{prefix}.{child.name}"
                pending.append((child, qualname))
                body = child.body
                if (len(body) > 1 and isinstance(body[0], ast.Expr)
                        and isinstance(body[0].value, ast.Constant)
                        and isinstance(body[0].value.value, str)):
                    body = body[1:]  # the docstring stays: help text may be read from it
                decorators = {ast.unparse(item).rsplit(".", 1)[-1]
                              for item in child.decorator_list}
                yield Function(
                    qualname=qualname, path=path,
                    start=min([child.lineno, *(item.lineno for item in child.decorator_list)]),
                    end=child.end_lineno or child.lineno,
                    body_start=(body[0].lineno, body[0].col_offset),
                    body_end=(body[-1].end_lineno or body[-1].lineno,
                              body[-1].end_col_offset or 0),
                    stub=(child.lineno, child.col_offset) in stubs or (
                        len(body) == 1 and isinstance(body[0], ast.Raise)),
                    generator=_yields(child), overload="overload" in decorators)
            elif not isinstance(child, ast.Lambda):
                pending.append((child, prefix))


def _yields(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function itself (not a function nested in it) is a generator."""
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))
    return False


def break_function(text: str, function: Function) -> str:
    """The file with the function's body (after its docstring) replaced by one `raise`; a
    generator stays a generator, so it fails when iterated, as its callers expect."""
    lines: list[str] = re.findall(r"[^\n]*\n|[^\n]+$", text)
    (first, start_col), (last, end_col) = function.body_start, function.body_end
    head = lines[first - 1].encode()[:start_col].decode()
    tail = lines[last - 1].encode()[end_col:].decode()
    body = MUTATION + ("; yield" if function.generator else "")
    broken = "".join(lines[:first - 1]) + head + body + tail + "".join(lines[last:])
    pyast.parse(broken)  # a SyntaxError here is a bug in this function, never in the case
    return broken


@dataclass
class SmellyCode:
    """The files of the smelly version a case touches or targets, read once per case."""

    root: Path
    changed: dict[str, set[int]]
    """Per file, the executable lines (statement first lines) the smelly patch adds or changes."""
    files: dict[str, SourceFile]

    @classmethod
    def read(cls, root: Path, injection: Injection) -> SmellyCode:
        """`root` is the smelly copy's source folder (the patch's paths are relative to it)."""
        added = {path: lines for path, lines in added_lines(injection.smelly_patch).items()
                 if path.endswith(".py")}
        paths = {*added, *(item.location.path for item in injection.targets),
                 *(item.path for item in injection.locations)}
        files = {path: source for path in sorted(paths)
                 if (source := SourceFile.read(root, path)) is not None}
        changed: dict[str, set[int]] = {}
        for path, lines in added.items():
            source = files.get(path)
            if source is not None:
                changed[path] = {first for line in lines
                                 if (first := source.statement(line)) is not None}
        return cls(root, changed, files)

    def functions(self) -> list[Function]:
        return [item for source in self.files.values() for item in source.functions]


def declared_dead(injection: Injection) -> set[str]:
    if injection.smell not in DECLARES_DEAD:
        return set()
    return {*(item.location.qualname for item in injection.targets),
            *(item.qualname for item in injection.locations)}


def _inside(name: str, qualname: str) -> bool:
    return qualname == name or qualname.startswith(f"{name}.")


@dataclass
class Measurement:
    """What one coverage run of the selected tests says about the smelly code."""

    adequacy: TestAdequacy
    to_break: list[tuple[Function, tuple[str, ...]]]
    """Changed live functions that some selected test runs, with those tests."""
    runners: dict[str, set[str]]
    """Every function of the files read (by qualname) -> the selected tests that run it."""
    counted: tuple[str, ...] = ()
    """The live changed lines ("path:statement") the rule counts."""


def statement_runs(code: SmellyCode, lines: LineContexts, tests: Iterable[str] | None = None
                   ) -> dict[tuple[str, int], set[str]]:
    """(path, statement) -> the tests (of `tests`, or all) that run it; "" stands for code run
    outside any test, while the tests were being loaded."""
    selected = None if tests is None else set(tests)
    runs: dict[tuple[str, int], set[str]] = {}
    for path, source in code.files.items():
        for line, contexts in lines.get(path, {}).items():
            statement = source.statement(line)
            if statement is not None:
                keep = {item for item in contexts
                        if item == "" or selected is None or item in selected}
                if keep:
                    runs.setdefault((path, statement), set()).update(keep)
    return runs


def measure(code: SmellyCode, injection: Injection, lines: LineContexts,
            tests: Iterable[str]) -> Measurement:
    """Targets run, changed lines run and the tests running each changed function, from the
    coverage of a run of `tests` (contexts of other tests are ignored; code run outside any
    test, while the tests were being loaded, counts as run for all of them)."""
    selected = set(tests)
    dead = declared_dead(injection)
    exempt_functions = [item for item in code.functions()
                        if item.stub or any(_inside(name, item.qualname) for name in dead)]
    # recorded: what is declared dead, the stubs the patch adds or changes, and the targets
    # made of stubs alone (a pure interface: its implementers' code runs, never its own)
    exempt = sorted({*dead, *(item.qualname for item in exempt_functions if item.stub and any(
        item.start <= line <= item.end for line in code.changed.get(item.path, ()))),
        *_only_stubs(code, (item.location.qualname for item in injection.targets))})
    runs = statement_runs(code, lines, selected)
    by_function: dict[Function, set[str]] = {}
    for (path, line), ran in runs.items():
        owner = code.files[path].owner(line)
        if owner is not None:
            # run while test modules were loaded (a decorator, a registry filled at import):
            # it serves every selected test, and breaking it breaks their collection
            by_function.setdefault(owner, set()).update(selected if "" in ran else
                                                        (item for item in ran if item))
    targets = tuple(dict.fromkeys(item.location.qualname for item in injection.targets))
    executed = tuple(name for name in targets if any(
        tests_of and _inside(name, function.qualname)
        for function, tests_of in by_function.items()))
    counted: list[tuple[str, int]] = []
    changed_functions: dict[Function, None] = {}
    for path, statements in sorted(code.changed.items()):
        source = code.files[path]
        for line in sorted(statements):
            if any(item.path == path and item.start <= line <= item.end
                   for item in exempt_functions) or _in_dead_location(injection, dead, path,
                                                                        line):
                continue
            counted.append((path, line))
            function = source.enclosing(line)
            if function is not None and not function.overload:
                changed_functions[function] = None
    not_run = tuple(f"{path}:{line}" for path, line in counted if (path, line) not in runs)
    to_break = [(function, tuple(sorted(by_function.get(function, ()))))
                for function in changed_functions]
    adequacy = TestAdequacy(
        targets=targets, targets_executed=executed, exempt=tuple(exempt),
        changed_lines=len(counted), changed_lines_executed=len(counted) - len(not_run),
        lines_not_executed=not_run,
        functions=tuple(FunctionSensitivity(qualname=function.qualname, path=function.path,
                                            line=function.start, tests=tests_of)
                        for function, tests_of in to_break),
        sensitive=not to_break)  # known only once each function is broken and caught
    runners: dict[str, set[str]] = {}
    for function, tests_of in by_function.items():
        runners.setdefault(function.qualname, set()).update(tests_of)
    return Measurement(adequacy, [(function, tests_of) for function, tests_of in to_break
                                  if tests_of], runners,
                       tuple(f"{path}:{line}" for path, line in counted))


def _only_stubs(code: SmellyCode, targets: Iterable[str]) -> set[str]:
    """The targets (classes) whose every function is a stub: no test can run them."""
    found = set()
    for name in targets:
        inside = [item for item in code.functions() if _inside(name, item.qualname)
                  and item.qualname != name]
        if inside and all(item.stub for item in inside):
            found.add(name)
    return found


def _in_dead_location(injection: Injection, dead: set[str], path: str, line: int) -> bool:
    """Declared-dead code not found as a function (a dead class, a dead statement's range)."""
    return any(item.path == path and item.start_line <= line <= item.end_line
               and item.qualname in dead
               for item in (*injection.locations, *(t.location for t in injection.targets)))
