"""The injection engine: filter and sample candidates, run an injector, turn its edit into a record.

The injector only writes new file texts; the engine checks that they compile, locates the targets in
the smelly version, makes both patches and phrases the instructions. `verify.py` checks a finished
record end to end (apply, import, detector, checks, restore).

Injectors refuse one way: `InjectionRefused`, which `inject` turns into an `InjectionSkip` with
the reason (and, sampling, tries the next candidate). Any other exception is a bug: `inject`
returns it as an `InjectionFailure` (type, message, traceback), never as a skip.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from smellkit.config import NOT_LIBRARY, is_test_path, matches_any
from smellkit.errors import ConfigError, InjectionRefused, UsageError
from smellkit.facts import FileFacts
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.cst.restyle import restyle
from smellkit.injectors.instructions import instructions
from smellkit.injectors.patches import check_path, make_patch
from smellkit.injectors.registry import injector_class, injectors
from smellkit.injectors.sampling import stratified
from smellkit.injectors.tells import added_tells
from smellkit.injectors.verify import RoundTrip, verify
from smellkit.models import (
    OUTSIDE_SOURCE,
    POORLY_COVERED,
    SHORT_FILE,
    SPANS,
    UNCOVERED,
    Candidate,
    CandidateReport,
    Difficulty,
    Injection,
    InjectionFailure,
    InjectionSkip,
    Location,
    Target,
)
from smellkit.project import Project
from smellkit.project.parsing import FileProblem, SourceFile, parse_file

__all__ = ["RoundTrip", "check_options", "discover", "find_candidates", "inject",
           "library_exclusions", "make_injector", "record", "verify"]

OptionsInput = InjectorOptions | Mapping[str, Any] | None


def make_injector(smell: str, options: OptionsInput = None) -> Injector[Any]:
    """The injector for a smell, its options validated (errors name the field and the keys)."""
    cls = injector_class(smell)
    if isinstance(options, InjectorOptions):
        return cls(options)
    try:
        return cls(cls.Options.model_validate(dict(options or {})))
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        known = ", ".join(sorted(info.alias or name for name, info in
                                 cls.Options.model_fields.items()))
        hint = f"known keys of {smell}: {known}" if first["type"] == "extra_forbidden" else None
        raise ConfigError(first["msg"], field=f"injectors.{smell}.{field}",
                          hint=hint) from error


def check_options(options: Mapping[str, Mapping[str, Any]], *,
                  path: Path | str | None = None) -> None:
    """Validate injector options by smell before any work; errors name `path` (the spec file),
    the field (`injectors.god_class.min-methods`) and the fix, and reject unknown smells."""
    known = injectors()
    for smell, values in options.items():
        if smell not in known:
            raise ConfigError(f"no injector for smell {smell!r}", path=path,
                              field=f"injectors.{smell}", hint=f"known: {', '.join(known)}")
        if not isinstance(values, Mapping):
            raise ConfigError("must be a table of options", path=path,
                              field=f"injectors.{smell}",
                              hint=f"write `[injectors.{smell}]` then `key = value` lines")
        try:
            make_injector(smell, values)
        except ConfigError as error:
            raise ConfigError(error.message, path=path, hint=error.hint) from error


def library_exclusions(project: Project, exclude: Sequence[str] | None = None) -> tuple[str, ...]:
    """The globs of code never injected into: `exclude` when given, else the defaults of the
    layout (a src layout: every top-level entry but `src`; a flat one: examples, docs, ...)."""
    if exclude is not None:
        return tuple(exclude)
    tops = {item.path.partition("/")[0] for item in project.files if "/" in item.path}
    if "src" in tops:
        return tuple(sorted({item.path.partition("/")[0] for item in project.files} - {"src"}))
    return NOT_LIBRARY


def _outside(candidate: Candidate, patterns: Sequence[str]) -> bool:
    """Any file of the candidate in examples, docs, scripts, tests and the like."""
    paths = {candidate.target.path, *candidate.files}
    return any(is_test_path(path) or matches_any(path, patterns) for path in paths)


def _context(project: Project, covered: frozenset[str] | None,
             line_coverage: Mapping[str, float] | None,
             context: InjectionContext | None) -> InjectionContext:
    """The caller's context (shared across calls, so parsed files and analyses are reused)."""
    if context is None:
        return InjectionContext(project, covered=covered, line_coverage=line_coverage)
    if context.project is not project or context.covered != covered or (
            context.line_coverage is not line_coverage
            and context.line_coverage != line_coverage):
        raise UsageError("the context was made for another project or coverage",
                         hint="pass InjectionContext(project, covered=covered, "
                              "line_coverage=line_coverage)")
    return context


def find_candidates(project: Project, smell: str, *, options: OptionsInput = None,
                    covered: frozenset[str] | None = None,
                    line_coverage: Mapping[str, float] | None = None, seed: int = 0,
                    limit: int | None = None, context: InjectionContext | None = None,
                    exclude: Sequence[str] | None = None) -> list[Candidate]:
    """Eligible candidates for one smell, in a seeded order stratified over packages and files.
    `covered` and `line_coverage` come from a test map (None: no coverage rule);
    `exclude`: globs of code never injected into (None: the layout's defaults)."""
    return discover(project, smell, options=options, covered=covered,
                    line_coverage=line_coverage, seed=seed, limit=limit, context=context,
                    exclude=exclude)[0]


def discover(project: Project, smell: str, *, options: OptionsInput = None,
             covered: frozenset[str] | None = None,
             line_coverage: Mapping[str, float] | None = None, seed: int = 0,
             limit: int | None = None, context: InjectionContext | None = None,
             exclude: Sequence[str] | None = None,
             ) -> tuple[list[Candidate], CandidateReport]:
    """`find_candidates`, with the report of which rule removed how many definitions."""
    injector = make_injector(smell, options)
    context = _context(project, covered, line_coverage, context)
    return _candidates(context, injector, seed, limit, library_exclusions(project, exclude))


def _candidates(context: InjectionContext, injector: Injector[Any], seed: int,
                limit: int | None, exclude: Sequence[str],
                ) -> tuple[list[Candidate], CandidateReport]:
    """The injector's candidates through the engine's rules, in order: outside the library
    source, in a short file (SmellBench's coarse filter), not covered by the tests, its lines
    run too little by them (a case made from it would fail the adequacy rule)."""
    before = Counter(context.discarded)  # the context may be shared by several smells
    proposed = {item.model_dump_json(): item for item in injector.candidates(context)}
    discarded = Counter(context.discarded)
    discarded.subtract(before)
    short = f"{SHORT_FILE} {injector.options.min_file_lines} lines"
    rules: list[tuple[str, Callable[[Candidate], bool]]] = [
        (OUTSIDE_SOURCE, lambda item: _outside(item, exclude)),
        (short, lambda item: all(context.line_count(path) < injector.options.min_file_lines
                                 for path in injector.sized_paths(item))),
        (UNCOVERED, lambda item: not context.is_covered(item.target.qualname)),
        (POORLY_COVERED, lambda item: not all(
            context.well_covered(name) for name in injector.coverage_targets(item))),
    ]
    removed: Counter[str] = Counter()
    kept: list[Candidate] = []
    for item in proposed.values():
        rule = next((name for name, applies in rules if applies(item)), None)
        if rule is None:
            kept.append(item)
        else:
            removed[rule] += 1
    report = CandidateReport(
        smell=injector.name, discarded={rule: count for rule, count in discarded.most_common()
                                        if count > 0},
        proposed=len(proposed), removed={name: removed[name] for name, _ in rules
                                         if removed[name]}, eligible=len(kept))
    return stratified(kept, seed, limit), report


def inject(project: Project, smell: str, difficulty: Difficulty, *,
           candidate: Candidate | None = None, seed: int = 0, options: OptionsInput = None,
           covered: frozenset[str] | None = None,
           line_coverage: Mapping[str, float] | None = None, attempts: int = 50,
           context: InjectionContext | None = None, exclude: Sequence[str] | None = None,
           ) -> Injection | InjectionSkip | InjectionFailure:
    """Inject one smell: at `candidate`, or at the first sampled candidate that accepts.

    A refusal is an `InjectionSkip` with the reason; an unexpected exception while finding
    candidates or injecting is an `InjectionFailure` (the first one ends the call: it is a bug).
    Pass one `InjectionContext` to many calls on the same project to reuse its parsed files.
    """
    injector = make_injector(smell, options)
    if difficulty not in injector.difficulties:
        return InjectionSkip(smell=smell, difficulty=difficulty, candidate=candidate,
                             reason=f"{smell} has no {difficulty} injection")
    context = _context(project, covered, line_coverage, context)
    try:
        pool, report = ([candidate], None) if candidate else _candidates(
            context, injector, seed, attempts, library_exclusions(project, exclude))
    except Exception as error:  # a crash in candidate discovery: a bug, reported as a value
        return InjectionFailure.of(error, smell=smell, difficulty=difficulty, candidate=None)
    if not pool:
        return InjectionSkip(smell=smell, difficulty=difficulty, candidate=None,
                             reason=report.reason if report else "no candidate")
    reasons: list[str] = []
    for item in pool:
        rng = random.Random(f"{seed}|{smell}|{difficulty}|{item.target.qualname}")
        try:
            edit = injector.inject(context, item, difficulty, rng)
            return record(context, injector, item, difficulty, seed, edit)
        except InjectionRefused as refusal:
            if candidate is not None:
                return InjectionSkip(smell=smell, difficulty=difficulty, candidate=item,
                                     reason=refusal.message)
            reasons.append(f"{item.target.qualname}: {refusal.message}")
        except Exception as error:  # a bug in the injector or here: never a refusal
            return InjectionFailure.of(error, smell=smell, difficulty=difficulty, candidate=item)
    return InjectionSkip(smell=smell, difficulty=difficulty, candidate=None,
                         reason=f"every candidate was refused: {'; '.join(reasons[:5])}"
                                + (f" (and {len(reasons) - 5} more)" if len(reasons) > 5 else ""))


# -- from an edit to a record -------------------------------------------------------------------


def _module_for(project: Project, path: str) -> SourceFile:
    """The module name of a file, new files named after a sibling module of the same folder."""
    for facts in project.files:
        if facts.path == path:
            return SourceFile(str(project.root / path), path, facts.module, facts.is_package)
    folder, _, name = path.rpartition("/")
    stem = name[:-3] if name.endswith(".py") else name
    for facts in project.files:
        if facts.path.rpartition("/")[0] == folder:
            package = facts.module if facts.is_package else facts.module.rpartition(".")[0]
            module = f"{package}.{stem}" if package else stem
            is_package = stem == "__init__"
            return SourceFile(str(project.root / path), path,
                              package if is_package else module, is_package)
    raise InjectionRefused(f"cannot name the module of new file {path}",
                           hint="new files must go in a folder that already holds a module")


def smelly_project(project: Project, changes: Mapping[str, str | None]) -> Project:
    """The original project with the changed files' facts replaced (nothing written to disk);
    refused when a changed file does not compile or cannot be analysed."""
    replaced: dict[str, FileFacts] = {}
    for path, text in changes.items():
        if text is None:
            continue
        try:
            compile(text, path, "exec", dont_inherit=True)
        except SyntaxError as error:
            raise InjectionRefused(f"the smelly {path} does not compile: {error.msg} "
                                   f"(line {error.lineno})") from None
        result = parse_file(_module_for(project, path), text.encode(), 1 << 30)
        if isinstance(result, FileProblem):
            raise InjectionRefused(f"the smelly {path} cannot be analysed: {result.message}")
        replaced[path] = result
    files = [replaced.pop(item.path, item) for item in project.files
             if changes.get(item.path, "") is not None]
    files.extend(replaced.values())
    return Project(root=project.root, config=project.config, files=files, diagnostics=[])


def _check_span(difficulty: Difficulty, smell_files: Sequence[str],
                changed: Sequence[str]) -> None:
    """Refuse an edit whose smell does not span the files its difficulty promises: an easy case
    that touches four files, or a hard one confined to two, measures something else."""
    least, most = SPANS[difficulty]
    spanned = len(smell_files)
    if spanned < least or (most is not None and max(spanned, len(changed)) > most):
        wanted = f"{least}" if least == most else f"{least} or more"
        article = "an" if difficulty == "easy" else "a"
        raise InjectionRefused(f"{article} {difficulty} case spans {wanted} files; this edit "
                               f"spans {spanned} ({', '.join(smell_files)})")


def restyled(context: InjectionContext, before: Mapping[str, str | None],
             changes: Mapping[str, str | None]) -> dict[str, str | None]:
    """The changed Python files in the repository's house style: the imports an edit added
    sorted and written as the module writes its own, and the lines it added wrapped at the
    repository's line length (every smell's edit goes through here)."""
    style = context.house_style
    result: dict[str, str | None] = {}
    for path, text in changes.items():
        if text is None or not path.endswith(".py") or before.get(path) == text:
            result[path] = text
            continue
        source = _module_for(context.project, path)
        result[path] = restyle(style, before.get(path), text, source.module, source.is_package)
    return result


def record(context: InjectionContext, injector: Injector[Any], candidate: Candidate,
           difficulty: Difficulty, seed: int, edit: Edit) -> Injection:
    """The injection record of an edit; raises `InjectionRefused` when the edit is unusable."""
    root = context.root
    before: dict[str, str | None] = {}
    for path in edit.changes:
        check_path(path)
        before[path] = context.source(path) if os.path.isfile(root / path) else None
    if all(before[path] == text for path, text in edit.changes.items()):
        raise InjectionRefused("the edit changes nothing")
    edit = replace(edit, changes=restyled(context, before, edit.changes))
    smelly = smelly_project(context.project, edit.changes)
    from smellkit.analysis.context import Context

    analysis = Context(smelly)

    def locate(qualname: str) -> Location | None:
        return analysis.location(qualname)

    targets: list[Target] = []
    for qualname, level in edit.targets:
        location = locate(qualname)
        if location is None:
            raise InjectionRefused(f"target {qualname} is not defined in the smelly version")
        targets.append(Target(location=location, level=level))
    involved = [item for name in edit.involved if (item := locate(name)) is not None]
    herrings = list(dict.fromkeys(item for name in edit.red_herrings
                                  if (item := locate(name)) is not None))
    files = tuple(sorted(path for path in edit.changes if before[path] != edit.changes[path]))
    # the files the smell spans (a helper left in place counts), not only the ones edited
    smell_files = sorted({*files, *(item.location.path for item in targets),
                          *(item.path for item in involved)})
    _check_span(difficulty, smell_files, files)
    tells = added_tells(before, edit.changes, context=[
        context.source(path) for path in smell_files if path not in before])
    if tells:
        raise InjectionRefused("the smelly code gives itself away: " + "; ".join(tells[:3]))
    smelly_patch = make_patch(before, edit.changes)
    digest = hashlib.blake2b(f"{injector.name}|{difficulty}|{seed}|{smelly_patch}".encode(),
                             digest_size=6).hexdigest()
    rng = random.Random(f"{seed}|{digest}")
    return Injection(
        id=f"{injector.name}-{difficulty}-{digest}", smell=injector.name, difficulty=difficulty,
        seed=seed, candidate=candidate, smelly_patch=smelly_patch,
        ground_truth_patch=make_patch(edit.changes, before), targets=tuple(targets),
        locations=tuple(dict.fromkeys([*(item.location for item in targets), *involved])),
        red_herrings=tuple(herrings), files=files, checks=edit.checks,
        instructions=instructions(injector.smell, smell_files, targets, rng))

