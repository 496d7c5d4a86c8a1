"""Shotgun-surgery injection: a shared string constant spelled out again in every module using it
(or a one-expression helper written out at its calls: `helpers`; a marking decorator written
out after the definitions it marks: `decorators`; a type alias written out in the annotations
naming it: `aliases`; what they share: `users`).

The original defines one small responsibility once, a module-level string constant (a key, an
option name, a marker), and other modules import it. The smelly version replaces the imports by
copies of the literal, so changing the key means editing every copy. The ground truth is the
original: the constant, imported. Difficulties follow SmellBench, counted over the files a change
of the key must edit: those holding copies, and the constant's own only while its module still
reads it (`edit.copy_modules`). Easy spans 2 files (copies in two modules, the constant unread at
home); medium 3+, aliased imports and defaults inlined alike; hard 4+ with a red herring, a use
of the constant that is left as it is. Copies in one module are never a case: a magic value.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst
from pydantic import Field

from smellkit.analysis.keys import Scopes
from smellkit.checks.shotgun_surgery import count_copies
from smellkit.config import is_test_path
from smellkit.detectors.shotgun_surgery import (
    ShotgunSurgery,
    ShotgunSurgeryOptions,
    names_a_choice,
)
from smellkit.detectors.shotgun_surgery.constants import string_constants
from smellkit.errors import InjectionRefused
from smellkit.facts import FileFacts, Name
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.data_clumps.plan import outside_words
from smellkit.injectors.shotgun_surgery import aliases as alias_kind
from smellkit.injectors.shotgun_surgery import decorators as decorator_kind
from smellkit.injectors.shotgun_surgery import helpers as helper_kind
from smellkit.injectors.shotgun_surgery.edit import (
    Inlined,
    choose_users,
    copies_edit,
    inline_at_home,
    inline_constant,
)
from smellkit.injectors.shotgun_surgery.users import (
    User,
    home_reads,
    spelled,
    uses_outside_import,
)
from smellkit.models import Candidate, Difficulty, StructuralCheck

SMELL = ShotgunSurgery.smell.name


class ShotgunSurgeryInjectorOptions(InjectorOptions):
    min_copies: int = Field(
        default=ShotgunSurgeryOptions.default("min_constant_copies"), ge=1, description="Fewest "
        "literal copies the smelly version must have (the detector's `min-constant-copies`).")


@dataclass(frozen=True)
class Constant:
    qualname: str
    module: str
    path: str
    line: int
    value: str
    users: tuple[User, ...]
    in_module_uses: tuple[str, ...]


_FLAGGED: weakref.WeakKeyDictionary[InjectionContext, frozenset[str]] = \
    weakref.WeakKeyDictionary()


def _flagged(context: InjectionContext) -> frozenset[str]:
    """Qualnames and keys a shotgun-surgery finding of the original touches."""
    if context not in _FLAGGED:
        from smellkit.detectors.runner import run_detectors

        found = run_detectors(context.analysis, [SMELL], respect_suppressions=False)
        names = {location.qualname for finding in found
                 for location in (finding.location, *finding.related)}
        names.update(f"key:{finding.evidence['key']}" for finding in found
                     if "key" in finding.evidence)
        _FLAGGED[context] = frozenset(names)
    return _FLAGGED[context]


def literal_text(context: InjectionContext, path: str, name: str) -> str | None:
    """The constant's literal exactly as written at its definition (quotes and prefix)."""
    for line in context.module(path).body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target: cst.BaseExpression = small.targets[0].target
            elif isinstance(small, cst.AnnAssign):
                target = small.target  # NAME: Final = "value"
            else:
                continue
            if (isinstance(target, cst.Name) and target.value == name
                    and isinstance(small.value, cst.SimpleString)):
                return small.value.value
    return None


class ShotgunSurgeryInjector(Injector[ShotgunSurgeryInjectorOptions]):
    """Spell out a shared string constant in the modules that import it."""

    smell = ShotgunSurgery.smell
    description = ("A module-level string constant replaced by copies of its literal in the "
                   "modules that import it, so renaming the key means editing each copy.")
    Options = ShotgunSurgeryInjectorOptions

    def constants(self, context: InjectionContext, *, explain: bool = False) -> list[Constant]:
        """Every module-level string constant that may be spelled out (`explain`: count the
        others with `context.discard`, once per discovery)."""
        index = context.index
        detector = ShotgunSurgery(ShotgunSurgeryOptions())
        flagged = _flagged(context)
        found: list[Constant] = []
        for value, owners in sorted(string_constants(context.analysis).items()):
            rule = ("a string bound to several constants" if len(owners) != 1 else
                    "a string constant that is no key (short, common, a format or a dunder)"
                    if detector.ignored_value(value) else
                    "a string constant already reported as shotgun surgery"
                    if f"key:{value}" in flagged else None)
            if rule is not None:
                if explain:
                    context.discard(rule, len(owners))
                continue
            qualname, module, line = owners[0]
            name = qualname.rpartition(".")[2]
            facts = index.modules[module]
            users = tuple(user for other in sorted(index.modules.values(),
                                                   key=lambda item: item.path)
                          if (user := self._user(context, other, module, name)) is not None)
            own = tuple(sorted({Scopes(facts).at(number) for number in
                                home_reads(context.source(facts.path), name)}))
            found.append(Constant(qualname, module, facts.path, line, value, users, own))
        return found

    def _user(self, context: InjectionContext, facts: FileFacts, module: str,
              name: str) -> User | None:
        if facts.module == module or is_test_path(facts.path):
            return None
        imports = [item for item in facts.imports if item.scope == facts.module
                   and item.is_from and not item.type_only and item.target == f"{module}.{name}"]
        if len(imports) != 1:
            return None
        bound = imports[0].bound
        if bound in spelled(context) or bound in (facts.dunder_all or ()) or any(
                item.target == f"{facts.module}.{bound}" for other in
                context.index.modules.values() for item in other.imports):
            return None  # re-exported, or spelled in a string: code may import it from here
        if facts.dunder_all is None and any(
                facts.module in targets for targets in context.index.star_imports.values()):
            return None  # `from this_module import *` elsewhere would lose the name
        outside = outside_words(context)
        if outside[bound] and outside[facts.module.rpartition(".")[2]]:
            return None  # tests or examples may import the name from this module
        if any(assignment.scope == facts.module and assignment.target == Name(bound)
               for assignment in facts.assignments):
            return None
        lines = uses_outside_import(context.source(facts.path), bound, imports[0].line)
        if not lines:
            return None
        scopes = Scopes(facts)
        tied = any(item.target == module or (item.target.startswith(module + ".")
                                             and item.target != f"{module}.{name}")
                   for item in facts.imports)
        return User(facts.module, facts.path, bound, tuple(lines),
                    tuple(sorted({scopes.at(number) for number in lines})), tied)

    @staticmethod
    def _usable(constant: Constant, user: User, flagged: frozenset[str]) -> bool:
        plain = constant.value.isalpha() and constant.value.islower()
        return (user.tied or not plain) and not set(user.scopes) & flagged

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        flagged = _flagged(context)
        for constant in self.constants(context, explain=True):
            usable = [user for user in constant.users if self._usable(constant, user, flagged)]
            if not constant.users:
                context.discard("a string constant no other module imports by name and uses")
                continue
            if names_a_choice(constant.qualname):
                # the detector leaves a default's value alone: written out, it is no smell
                context.discard("a constant that names a default (`DEFAULT_*`): its value "
                                "written out is a choice repeated, which the detector allows")
                continue
            if sum(len(user.lines) for user in usable) < self.options.min_copies:
                context.discard(  # too few to make the detector's copies at any difficulty
                    "a string constant with too few uses to copy (a plain word needs an "
                    "importer tied to its module; reported definitions are left alone)")
                continue
            first = max(usable, key=lambda user: (len(user.lines), user.path))
            location = context.location(first.scopes[0])
            if location is None:
                context.discard("a string constant whose main user has no location")
                continue
            where = ", ".join(user.path for user in usable[:4])
            yield Candidate(
                smell=self.name, target=location,
                files=tuple(sorted({constant.path, *(user.path for user in usable)})),
                reason=(f"{constant.qualname} = {constant.value!r} is one small "
                        f"responsibility imported by {len(usable)} modules ({where}), "
                        f"{sum(len(user.lines) for user in usable)} uses in all"),
                data={"constant": constant.qualname, "value": constant.value,
                      "users": [user.module for user in usable]})
        yield from helper_kind.candidates(context, flagged, self.options.min_copies)
        yield from decorator_kind.candidates(context, flagged, self.options.min_copies)
        yield from alias_kind.candidates(context, flagged, self.options.min_copies)

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        if "helper" in candidate.data:
            return helper_kind.inject(context, candidate, difficulty, rng, _flagged(context),
                                      self.options.min_copies)
        if "alias" in candidate.data:
            return alias_kind.inject(context, candidate, difficulty, rng, _flagged(context),
                                     self.options.min_copies)
        if "decorator" in candidate.data:
            return decorator_kind.inject(context, candidate, difficulty, rng, _flagged(context),
                                         self.options.min_copies)
        qualname = str(candidate.data.get("constant", ""))
        constant = next((item for item in self.constants(context)
                         if item.qualname == qualname), None)
        if constant is None:
            raise InjectionRefused(f"{qualname} is no longer a shared string constant")
        literal = literal_text(context, constant.path, qualname.rpartition(".")[2])
        if literal is None:
            raise InjectionRefused(f"{qualname} is not bound to a plain string literal")
        flagged = _flagged(context)
        usable = [user for user in constant.users if self._usable(constant, user, flagged)]
        rng.shuffle(usable)
        name = qualname.rpartition(".")[2]
        source = context.source(constant.path)
        home = User(constant.module, constant.path, name, tuple(home_reads(source, name)),
                    constant.in_module_uses, False)

        def rewrite(user: User) -> Inlined:
            if user is home:
                return inline_at_home(source, name, literal)
            return inline_constant(context.source(user.path), user.bound, literal)

        home_live = bool(constant.in_module_uses)
        edits, chosen = choose_users(usable, difficulty, self.options.min_copies, rewrite,
                                     "importing",
                                     home_live=home_live, home=home)
        home_live = home_live and home not in chosen
        herrings = [scope for user in constant.users if user not in chosen
                    for scope in user.scopes] + list(constant.in_module_uses if home_live else ())
        if difficulty == "hard" and not herrings:
            raise InjectionRefused("hard needs a red herring: a use of the constant left as it is")
        # the detector counts the copies in other modules than the constant's
        copies = sum(len(edit.lines) for path, edit in edits.items() if path != constant.path)
        if copies < self.options.min_copies:
            raise InjectionRefused(f"only {copies} copies; the detector needs "
                                   f"{self.options.min_copies}")
        scopes = {Scopes(context.index.modules[user.module]).at(line)
                  for user in chosen for line in edits[user.path].lines}
        targets = sorted(scope for scope in scopes if scope in context.index.definitions)
        state = sorted(scopes - set(targets))  # module-level copies: registries, defaults
        if not targets:
            raise InjectionRefused("every copy would be at module level; no function to point at")
        before = count_copies(context.analysis, constant.value)
        kept = StructuralCheck(
            kind="shotgun_surgery.literal_copies",
            description=(f"{constant.value!r} is written out at most {before} times outside "
                         "the definition of a constant"),
            params={"value": constant.value, "max_copies": before})
        # the constant's definition is one of the places a change of the key must edit while
        # its own module still reads it (its module stands for it: a module-level name has no
        # location of its own); otherwise only the copies are
        definition = [constant.module] if home_live else []
        return copies_edit({path: edit.text for path, edit in edits.items()}, targets, kept,
                           sorted({*definition, *state}), sorted(set(herrings)),
                           f"inlined {constant.qualname} = {literal} in {len(chosen)} modules "
                           f"({copies} copies, {difficulty})")
