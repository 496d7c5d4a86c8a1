"""Which tests exercise which functions: the suite run once under coverage, once more plainly.

Each test gets its own coverage context (its pytest node id, set by `_plugin.py`); covered lines
are mapped to the innermost enclosing function, method or class using smellkit's own facts, so
test selection speaks the same qualified names as detectors and injectors. The map also counts,
per definition, how many of its own statements the healthy tests run: discovery skips code the
suite runs only partly, since a case made from it cannot meet the adequacy rule. Only healthy
tests are kept: a test that fails, errors, is skipped, hangs, or fails in just one of the two
runs (flaky) is dropped with the reason, because a case validated by it would prove nothing.
"""

from __future__ import annotations

import fnmatch
import json
import os
import random
import tempfile
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from smellkit.config import RepoSpec
from smellkit.sandbox.checkout import copy_tree, tree_hash
from smellkit.sandbox.environment import Environment, imported_from
from smellkit.sandbox.errors import SandboxError
from smellkit.sandbox.runner import LocalRunner, Runner
from smellkit.sandbox.testrun import (
    PLUGIN_ARGS,
    NodeOutcome,
    RunDir,
    coverage_argv,
    line_contexts,
    read_outcomes,
    suite_argv,
)

if TYPE_CHECKING:
    from smellkit.facts import Definition, FileFacts

MAX_HANG_RETRIES = 5
"""Runs restarted after a test killed the whole run, each time without the tests that did."""

FORMAT = 2
"""Bumped whenever the map gains or changes a field, so cached maps are rebuilt."""


class TestMap(BaseModel):
    """Healthy tests, the dropped ones with reasons, and the tests covering each qualname."""

    model_config = ConfigDict(frozen=True)
    __test__ = False  # a model, not a pytest test class

    format: int = FORMAT
    repo: str = ""
    revision: str = ""
    key: str = Field(default="", description="The checkout and spec hash it was built for.")
    tests: tuple[str, ...] = Field(default=(), description="Healthy pytest node ids, sorted.")
    dropped: dict[str, str] = Field(default_factory=dict, description="Node id -> why.")
    by_qualname: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    aliases: dict[str, str] = Field(
        default_factory=dict, description="An inherited method's name in a subclass "
        "(`pkg.Command.main`) -> the covered definition it resolves to (`pkg.Base.main`).")
    statements: dict[str, tuple[int, int]] = Field(
        default_factory=dict, description="Qualname -> (statements the healthy tests run, "
        "statements), as coverage counts them: a function's or method's own (its `def` line runs "
        "with the enclosing scope, nested definitions count for themselves); a class's, the "
        "statements of the functions inside it together.")
    durations: dict[str, float] = Field(default_factory=dict, description="Seconds, plain run.")
    seconds: float = Field(default=0.0, description="Time taken to build the map.")

    def tests_for(self, qualname: str) -> tuple[str, ...]:
        """Healthy tests covering `qualname` (or the definition it inherits), sorted."""
        found = self.by_qualname.get(qualname)
        if found is None and qualname in self.aliases:
            found = self.by_qualname.get(self.aliases[qualname])
        return found or ()

    def select(self, qualnames: Iterable[str], limit: int = 10, seed: int = 0) -> tuple[str, ...]:
        """At most `limit` tests per qualname, sampled with `seed`; the union, sorted."""
        chosen: set[str] = set()
        for qualname in sorted(set(qualnames)):
            tests = self.tests_for(qualname)
            if len(tests) > limit:
                tests = tuple(random.Random(f"{seed}:{qualname}").sample(tests, limit))
            chosen.update(tests)
        return tuple(sorted(chosen))

    def covered(self) -> frozenset[str]:
        """Qualnames run by at least one healthy test."""
        return frozenset(self.by_qualname)

    def line_coverage(self) -> dict[str, float]:
        """The share of each definition's statements the healthy tests run (`statements`),
        inherited names (`aliases`) included; definitions without statements are left out."""
        found = {name: run / total for name, (run, total) in self.statements.items() if total}
        found.update({alias: found[target] for alias, target in self.aliases.items()
                      if target in found and alias not in found})
        return found

    def save(self, path: Path) -> None:
        """Written atomically, so a reader never sees half a map."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False,
                                         suffix=".tmp", encoding="utf-8") as handle:
            handle.write(self.model_dump_json(indent=1))
        os.replace(handle.name, path)

    @classmethod
    def load(cls, path: Path) -> TestMap:
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))


def map_key(spec: RepoSpec, env: Environment, checkout: Path) -> str:
    """The checkout's content plus everything in the spec that changes what tests run."""
    fields = json.dumps({"env": env.root.name, "test": spec.test_command,
                         "tests_path": spec.tests_path, "exclude": list(spec.exclude_tests),
                         "source_path": spec.source_path, "per_test": spec.timeouts.per_test,
                         "format": FORMAT}, sort_keys=True)
    return tree_hash(checkout, extra=fields)


def build_test_map(spec: RepoSpec, env: Environment, checkout: Path, runner: Runner | None = None,
                   *, seed: int = 0, cache_dir: Path | None = None,
                   use_cache: bool = True) -> TestMap:
    """Run the suite twice on a scratch copy of `checkout` and map tests to qualnames.

    Cached as JSON under `cache_dir` (default: the environment's `testmaps/`) by `map_key`.
    `seed` is the PYTHONHASHSEED of both runs, so set-order-dependent suites behave the same.
    """
    runner = runner or LocalRunner()
    key = map_key(spec, env, checkout)
    cache_file = Path(cache_dir or env.root / "testmaps") / f"{spec.name}-{key}.json"
    if use_cache and cache_file.is_file():
        try:
            cached = TestMap.load(cache_file)
            if cached.format == FORMAT and cached.key == key:
                return cached
        except ValueError:
            pass  # unreadable: rebuild
    started = time.perf_counter()
    (env.root / "scratch").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=env.root / "scratch", prefix="map-") as scratch:
        tree = copy_tree(Path(checkout), Path(scratch) / "tree")
        _check_imports(spec, env, tree, runner)
        variables = {**env.env_for(tree), "PYTHONHASHSEED": str(seed)}
        first, lines = _coverage_run(spec, env, tree, variables, runner)
        broken = {nodeid for nodeid, outcome in first.items() if outcome.status != "passed"}
        if first and len(broken) == len(first):
            failing = sorted(nodeid for nodeid, outcome in first.items()
                             if outcome.status in ("failed", "error"))[:3]
            raise SandboxError("no test passes on the clean version"
                               + (f" (e.g. {', '.join(failing)})" if failing else ""),
                               path=spec.spec_path, hint="fix the install commands or the test "
                               "environment, or exclude the failing tests (exclude-tests)")
        second = _plain_run(spec, env, tree, variables, runner,
                            [*spec.exclude_tests, *sorted(broken)])
        result = _assemble(spec, Path(checkout), first, second, lines)
    result = result.model_copy(update={"repo": spec.name, "revision": spec.revision, "key": key,
                                       "seconds": round(time.perf_counter() - started, 2)})
    result.save(cache_file)
    return result


def _check_imports(spec: RepoSpec, env: Environment, tree: Path, runner: Runner) -> None:
    """Fail early, and clearly, if tests would import the package from anywhere but the copy."""
    source = (tree / spec.source_path).resolve()
    packages = sorted(item.name for item in source.iterdir()
                      if (item / "__init__.py").is_file() and item.name.isidentifier()
                      and item.name not in ("tests", "test", "docs"))[:3]
    for package in packages:
        where = imported_from(env, tree, package, runner)
        if not where.resolve().is_relative_to(source):
            raise SandboxError(f"`import {package}` loads {where}, not the case copy",
                               path=spec.spec_path, hint="set source-path to the folder holding "
                               "the package (e.g. 'src')")


def _until_done(spec: RepoSpec, env: Environment, tree: Path, variables: Mapping[str, str],
                runner: Runner, deselect: list[str], *,
                coverage: bool) -> tuple[dict[str, NodeOutcome], RunDir]:
    """Run the suite; if a hang killed the whole run, drop the culprit and run again without it.

    The caller removes the returned RunDir (it holds the coverage data).
    """
    argv = suite_argv(spec, tree)
    hung: dict[str, NodeOutcome] = {}
    for _attempt in range(MAX_HANG_RETRIES + 1):
        run_dir = RunDir(tree)
        command = coverage_argv(argv, run_dir, tree / spec.source_path) if coverage else argv
        # a test module that fails to import drops its own tests, not the whole map
        result = runner.run([*command, *PLUGIN_ARGS, "-q", "--continue-on-collection-errors"],
                            cwd=tree,
                            env=run_dir.env(variables, per_test=spec.timeouts.per_test,
                                            contexts=coverage, deselect=[*deselect, *hung]),
                            timeout=spec.timeouts.map, mounts=env.mounts())
        outcomes, unfinished = read_outcomes(run_dir.results)
        if not any(o.status != "deselected" for o in outcomes.values()) and not hung:
            run_dir.remove()
            raise SandboxError(f"the test command ran no tests: {result.describe(15)}",
                               path=spec.spec_path, hint="check test-command, tests-path and "
                               "that install puts pytest in the environment")
        if not (result.timed_out or unfinished):
            return {**outcomes, **hung}, run_dir
        culprits = unfinished or [max(outcomes, key=lambda nodeid: outcomes[nodeid].seconds)]
        why = (f"hung: the whole run was killed after {result.seconds:.0f}s during this test"
               if result.timed_out else "hung: the interpreter was stopped during this test")
        for nodeid in culprits:
            hung[nodeid] = NodeOutcome(status="hung", message=why)
        run_dir.remove()
    raise SandboxError(f"the suite hung {MAX_HANG_RETRIES + 1} times", path=spec.spec_path,
                       hint="add the hanging tests to exclude-tests")


def _coverage_run(spec: RepoSpec, env: Environment, tree: Path, variables: Mapping[str, str],
                  runner: Runner) -> tuple[dict[str, NodeOutcome], dict[str, dict[int, list[str]]]]:
    """Outcomes of the coverage run, and per measured file (relative to the source root) the
    node ids that ran each line."""
    outcomes, run_dir = _until_done(spec, env, tree, variables, runner,
                                    list(spec.exclude_tests), coverage=True)
    try:
        data_file = run_dir.path / "coverage.db"
        if not data_file.is_file():
            raise SandboxError("coverage wrote no data", path=spec.spec_path,
                               hint="is source-path the package the tests import?")
        measured = line_contexts(data_file, tree / spec.source_path)
    finally:
        run_dir.remove()
    lines = {path: {line: [c for c in contexts if c] for line, contexts in by_line.items()
                    if any(contexts)} for path, by_line in measured.items()}
    return outcomes, lines


def _plain_run(spec: RepoSpec, env: Environment, tree: Path, variables: Mapping[str, str],
               runner: Runner, deselect: list[str]) -> dict[str, NodeOutcome]:
    outcomes, run_dir = _until_done(spec, env, tree, variables, runner, deselect, coverage=False)
    run_dir.remove()
    return outcomes


def _excluded(nodeid: str, patterns: Iterable[str]) -> str | None:
    for pattern in patterns:
        if nodeid == pattern or fnmatch.fnmatchcase(nodeid, pattern):
            return pattern
    return None


def _assemble(spec: RepoSpec, checkout: Path, first: Mapping[str, NodeOutcome],
              second: Mapping[str, NodeOutcome],
              lines: Mapping[str, Mapping[int, list[str]]]) -> TestMap:
    dropped: dict[str, str] = {}
    healthy: list[str] = []
    for nodeid in sorted(first):
        one, two = first[nodeid], second.get(nodeid)
        pattern = _excluded(nodeid, spec.exclude_tests)
        if pattern is not None:
            dropped[nodeid] = f"excluded by exclude-tests ({pattern})"
        elif one.status != "passed":
            dropped[nodeid] = _reason(one, "")
        elif two is None:
            dropped[nodeid] = "not run in the second run"
        elif two.status != "passed":
            dropped[nodeid] = "flaky: passed in the first run, " + _reason(two, "in the second")
        else:
            healthy.append(nodeid)
    by_qualname, aliases, statements = _qualnames(spec, checkout, lines, set(healthy))
    return TestMap(tests=tuple(healthy), dropped=dropped, by_qualname=by_qualname,
                   aliases=aliases, statements=statements,
                   durations={nodeid: round(second[nodeid].seconds, 4) for nodeid in healthy})


def _reason(outcome: NodeOutcome, where: str) -> str:
    first_line = next((line.strip() for line in outcome.message.splitlines() if line.strip()),
                      "")
    verb = {"failed": "failed", "error": "errored", "skipped": "skipped", "xfailed": "xfailed",
            "timeout": "timed out (per-test limit)"}.get(outcome.status, outcome.status)
    text = " ".join(part for part in (verb, where) if part)
    return f"{text}: {first_line[:300]}" if first_line else text


def _owners(facts: FileFacts) -> dict[int, Definition]:
    """Each line of the file's definitions -> the innermost function, method or class
    holding it (lambdas belong to the function they are written in)."""
    spans = sorted((d for d in facts.definitions if d.kind != "lambda"),
                   key=lambda d: d.end_line - d.start_line, reverse=True)
    owner: dict[int, Definition] = {}
    for definition in spans:  # smaller spans paint over larger ones: innermost wins
        for line in range(definition.start_line, definition.end_line + 1):
            owner[line] = definition
    return owner


def _qualnames(spec: RepoSpec, checkout: Path, lines: Mapping[str, Mapping[int, list[str]]],
               healthy: set[str],
               ) -> tuple[dict[str, tuple[str, ...]], dict[str, str], dict[str, tuple[int, int]]]:
    """Covered lines -> the innermost function, method or class defining them; and the
    statements each definition has and the healthy tests run (`_statement_counts`)."""
    from smellkit.project import Project

    project = Project.load(checkout / spec.source_path, use_cache=True)
    found: dict[str, set[str]] = {}
    statements: dict[str, tuple[int, int]] = {}
    for facts in project.files:
        measured = lines.get(facts.path) or {}
        owner = _owners(facts)
        for line, contexts in measured.items():
            definition = owner.get(line)
            if definition is None:
                continue
            tests = [nodeid for nodeid in contexts if nodeid in healthy]
            if tests:
                found.setdefault(definition.qualname, set()).update(tests)
        run = {line for line, contexts in measured.items()
               if any(nodeid in healthy for nodeid in contexts)}
        statements.update(_statement_counts(project.root / facts.path, facts, owner, run))
    by_qualname = {name: tuple(sorted(tests)) for name, tests in sorted(found.items())}
    index = project.index
    aliases: dict[str, str] = {}
    for cls in sorted(index.classes):
        names = {name for base in index.mro(cls) for name, child
                 in index.children.get(base, {}).items() if child in by_qualname}
        for name in sorted(names):
            target = index.lookup_method(cls, name)
            if target is not None and target in by_qualname and target != f"{cls}.{name}":
                aliases[f"{cls}.{name}"] = target
    return by_qualname, aliases, dict(sorted(statements.items()))


def _statement_counts(path: Path, facts: FileFacts, owner: Mapping[int, Definition],
                      run: set[int]) -> dict[str, tuple[int, int]]:
    """(statements run, statements) of each definition of one file, as coverage counts
    statements (a multi-line statement is its first line). A `def` or `class` line runs when
    the enclosing scope does (at import), so it counts for that scope, as decorators do; a class
    gets the statements of the functions inside it, since its own body runs at import."""
    from coverage.exceptions import NotPython
    from coverage.parser import PythonParser

    if not facts.definitions:
        return {}  # an empty `__init__.py`, a module of constants: nothing to count
    try:
        parser = PythonParser(text=path.read_text(encoding="utf-8"))
        parser.parse_source()
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, NotPython):
        return {}  # the facts were read from it, so this is a file changed since: no figures
    executed = {parser.first_line(line) for line in run}
    by_name = {item.qualname: item for item in facts.definitions}
    counts: dict[str, list[int]] = {}
    for statement in parser.statements:
        definition = owner.get(statement)
        if definition is not None and statement == definition.start_line and \
                definition.start_line != definition.end_line:  # a one-line def is its body
            definition = by_name.get(definition.parent)
        if definition is None:
            continue  # module level
        tally = counts.setdefault(definition.qualname, [0, 0])
        tally[0] += statement in executed
        tally[1] += 1
    functions = {name: tally for name, tally in counts.items()
                 if by_name[name].kind != "class"}
    for item in facts.definitions:
        if item.kind == "class":
            inside = [tally for name, tally in functions.items()
                      if name.startswith(f"{item.qualname}.")]
            counts[item.qualname] = [sum(t[0] for t in inside), sum(t[1] for t in inside)]
    return {name: (run_count, total) for name, (run_count, total) in counts.items() if total}
