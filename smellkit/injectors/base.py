"""What an injector is: its detector's smell, typed options, candidate discovery, and one codemod
per difficulty.

An injector reads the original repository through an `InjectionContext` (facts, graphs, libcst
trees of the files it edits) and returns an `Edit` (the new text of every file it changes, the
targets and the structural checks), or refuses by raising `InjectionRefused` with the reason (its
parts do the same). The engine (`engine.py`) turns an `Edit` into an `Injection` record: patches
both ways, located targets, instructions; a refusal into an `InjectionSkip`; any other exception
into an `InjectionFailure`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from smellkit.analysis.smells import Smell, adopt_smell
from smellkit.errors import InjectionRefused
from smellkit.injectors.naming import Vocabulary, is_numbered
from smellkit.models import (
    DIFFICULTIES,
    MIN_CHANGED_LINES_EXECUTED,
    Candidate,
    Difficulty,
    Location,
    StructuralCheck,
    TargetLevel,
)

if TYPE_CHECKING:
    import libcst as cst
    from libcst.metadata import MetadataWrapper

    from smellkit.analysis.context import Context
    from smellkit.graphs.index import Index
    from smellkit.injectors.cst.house import HouseStyle
    from smellkit.project import Project


class InjectorOptions(BaseModel):
    """Base of every injector's options: frozen, unknown keys rejected, kebab-case in TOML."""

    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=lambda name:
                              name.replace("_", "-"), populate_by_name=True)

    min_file_lines: int = Field(
        default=500, ge=0, description="Only target code in files of at least this many lines "
        "(SmellBench's coarse filter); 0 keeps every file.")


@dataclass(frozen=True)
class Edit:
    """What an injector produced. Qualnames are those of the smelly version."""

    changes: dict[str, str | None]
    """Relative POSIX path -> the file's new full text; None deletes the file; new paths create."""
    targets: tuple[tuple[str, TargetLevel], ...]
    """Where the smell is: (qualname, level); class level for god_class and
    interface_segregation, method level otherwise."""
    checks: tuple[StructuralCheck, ...]
    """Pass on the original, fail on the smelly version (the engine verifies on request)."""
    involved: tuple[str, ...] = ()
    """Every other definition the smell involves (helpers, clients, moved members)."""
    red_herrings: tuple[str, ...] = ()
    """Look-alike definitions that are not smelly (medium and hard cases)."""
    summary: str = ""
    """What was done, for logs and reviewers; never shown to a solver."""


class InjectionContext:
    """The original repository as an injector sees it: facts, graphs, source text, libcst trees."""

    def __init__(self, project: Project, *, covered: frozenset[str] | None = None,
                 line_coverage: Mapping[str, float] | None = None):
        self.project = project
        self.covered = covered
        """Qualnames covered by tests when a test map exists; None when there is none."""
        self.line_coverage = line_coverage
        """The share of each definition's statements the tests run (a class: its methods
        together), from the test map; None when there is none."""
        self._sources: dict[str, str] = {}
        self._modules: dict[str, cst.Module] = {}
        self._wrappers: dict[str, MetadataWrapper] = {}
        self.discarded: Counter[str] = Counter()
        """Definitions each discovery rule turned away (`smellkit candidates --explain`)."""

    def discard(self, rule: str, count: int = 1) -> None:
        """Count a definition that discovery turned away, by the rule that did (a short phrase:
        "too few methods", "not covered by the tests"), so users can see why a smell found no
        candidate."""
        self.discarded[rule] += count

    @cached_property
    def vocabulary(self) -> Vocabulary:
        """The repository's words, for new names that read as its own (`naming.py`)."""
        return Vocabulary.of(self.index)

    @cached_property
    def house_style(self) -> HouseStyle:
        """How the repository lays out its code and imports, for new code to follow
        (`cst/house.py`)."""
        from smellkit.injectors.cst.house import of_project

        return of_project(self.project)

    def module_path(self, folder: str, stems: Iterable[str]) -> str:
        """The first of `stems` (file names without `.py`) that no file in `folder` uses yet,
        un-numbered; refuses when all are taken."""
        for stem in stems:
            candidate = f"{folder}/{stem}.py" if folder else f"{stem}.py"
            if stem.isidentifier() and not is_numbered(stem) and \
                    not (self.root / candidate).exists() and \
                    not (self.root / candidate[:-3]).exists():
                return candidate
        raise InjectionRefused(f"no natural free module name in {folder or 'the root'}")

    @property
    def root(self) -> Path:
        return self.project.root

    @property
    def index(self) -> Index:
        return self.project.index

    @cached_property
    def analysis(self) -> Context:
        """The detectors' shared analyses (metrics, attribute access, locations)."""
        from smellkit.analysis.context import Context

        return Context(self.project)

    def source(self, path: str) -> str:
        """The exact text of a file (line endings kept), so untouched bytes stay identical."""
        if path not in self._sources:
            with open(self.root / path, encoding="utf-8", newline="") as handle:
                self._sources[path] = handle.read()
        return self._sources[path]

    def module(self, path: str) -> cst.Module:
        """The file's libcst tree, parsed on first use (only files being edited are parsed)."""
        if path not in self._modules:
            import libcst as cst

            self._modules[path] = cst.parse_module(self.source(path))
        return self._modules[path]

    def wrapper(self, path: str) -> MetadataWrapper:
        """A metadata wrapper over `module(path)` (same nodes), kept so that positions and scopes
        of a big file are computed once for every injection made through this context."""
        if path not in self._wrappers:
            from libcst.metadata import MetadataWrapper

            self._wrappers[path] = MetadataWrapper(self.module(path), unsafe_skip_copy=True)
        return self._wrappers[path]

    def line_count(self, path: str) -> int:
        return self.source(path).count("\n") + 1

    def location(self, qualname: str) -> Location | None:
        return self.analysis.location(qualname)

    def path_of(self, qualname: str) -> str | None:
        facts = self.analysis.file_of(qualname)
        return facts.path if facts is not None else None

    def is_covered(self, qualname: str) -> bool:
        return self.covered is None or qualname in self.covered

    def well_covered(self, qualname: str) -> bool:
        """Whether the tests run enough of the definition's lines for a case made from them to
        meet the adequacy rule: code copied, moved or inlined from a function whose branches no
        test takes leaves changed lines no selected test runs. True when no test map measured
        lines, or the definition has no statements of its own."""
        if self.line_coverage is None:
            return True
        share = self.line_coverage.get(qualname)
        return share is None or share >= MIN_CHANGED_LINES_EXECUTED

    def free_path(self, folder: str, stem: str) -> str:
        """Deprecated: numbers its names (a tell); use `module_path` with vocabulary stems."""
        number = 1
        while True:
            name = f"{stem}.py" if number == 1 else f"{stem}_{number}.py"
            candidate = f"{folder}/{name}" if folder else name
            if not (self.root / candidate).exists():
                return candidate
            number += 1


OptionsT = TypeVar("OptionsT", bound=InjectorOptions)


class Injector(ABC, Generic[OptionsT]):
    """Subclass, set the class attributes, implement `candidates` and `inject`."""

    smell: ClassVar[Smell]
    """Its detector's declaration (`smell = FeatureEnvy.smell`): the name, the instructions'
    wording, the SmellBench string."""
    name: ClassVar[str]
    """The smell's stable name, taken from `smell`."""
    description: ClassVar[str]
    """How this injector makes the smell, for logs and reviewers; never shown to a solver."""
    Options: ClassVar[type[InjectorOptions]] = InjectorOptions
    difficulties: ClassVar[tuple[Difficulty, ...]] = DIFFICULTIES

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        adopt_smell(cls)

    edits_only_stubs: ClassVar[bool] = False
    """Its edits add nothing but stubs (declarations that only raise or pass), which no test is
    expected to run: discovery then does not ask the tests to run most of the target's lines
    (that rule guards code copied, moved or inlined from poorly tested functions)."""

    def __init__(self, options: OptionsT):
        self.options = options

    def coverage_targets(self, candidate: Candidate) -> tuple[str, ...]:
        """The definitions whose code the edit copies, moves or inlines, which discovery asks the
        tests to run well (`InjectionContext.well_covered`): the target by default, none when
        the edit adds only stubs. An injector that moves other code than its target's (a god
        class taking in functions it already checked) names that code instead."""
        return () if self.edits_only_stubs else (candidate.target.qualname,)

    def sized_paths(self, candidate: Candidate) -> tuple[str, ...]:
        """The files SmellBench's short-file rule (`min-file-lines`) reads for this candidate:
        where its edit is written. The target's file by default; an injector whose edit lands
        in other files too names them (a candidate is kept when one of them is long enough)."""
        return (candidate.target.path,)

    @abstractmethod
    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        """Every eligible place in the repository, in any order (the engine filters, orders and
        samples them)."""

    @abstractmethod
    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        """The edit that injects the smell at this candidate; raises `InjectionRefused` with
        the reason when it cannot be made safely at this difficulty."""

