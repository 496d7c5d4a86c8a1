"""The libcst codemod of shotgun-surgery injection: an imported constant replaced by its value.

In one module, every reference to a name bound by `from m import NAME` (or `NAME as ALIAS`)
becomes the constant's literal, spelled exactly as at its definition, and the import of the name
is dropped. Name resolution uses libcst's scope analysis, so a local that shadows the name is
never touched; references inside f-strings or annotations make the file refuse.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple, Protocol, TypeVar

import libcst as cst
from libcst.metadata import (
    BaseAssignment,
    CodeRange,
    ImportAssignment,
    MetadataWrapper,
    PositionProvider,
    Scope,
    ScopeProvider,
)

from smellkit.errors import InjectionRefused
from smellkit.injectors.base import Edit
from smellkit.models import (
    SPANS,
    Candidate,
    Difficulty,
    Location,
    StructuralCheck,
    TargetLevel,
)


def copy_modules(difficulty: Difficulty, home_live: bool) -> int:
    """How many modules must receive copies so that a change of the knowledge edits as many
    files as the difficulty spans (easy 2, medium 3, hard 4).

    The span is honest: the files holding copies, plus the definition's file only when the
    definition still serves uses there (`home_live`); a definition nothing in its own module
    reads is no place a change must go. Copies always sit in two modules at least: copies in
    one module are a magic value there, whatever the definition's file holds."""
    return max(2, SPANS[difficulty][0] - int(home_live))


def spread_candidate(location: Location, home: str, users: Sequence[_User], what: str,
                     used: str, uses: str, data: dict[str, Any],
                     name: str | None = None) -> Candidate:
    """A candidate for one small responsibility (`what`, named `name`, by default the one at
    `location`, in file `home`) `used` ("called from") `users`' modules; `uses` counts its uses
    ("calls")."""
    count = sum(len(user.lines) for user in users)
    return Candidate(
        smell="shotgun_surgery", target=location,
        files=tuple(sorted({home, *(user.path for user in users)})),
        reason=(f"{name or location.qualname} is one small responsibility ({what}) {used} "
                f"{len(users)} other modules ({', '.join(user.path for user in users[:4])}), "
                f"{count} {uses} in all"),
        data=data)


def copies_edit(changes: Mapping[str, str], targets: Sequence[str], kept: StructuralCheck,
                involved: Sequence[str], herrings: Sequence[str], summary: str) -> Edit:
    """The record of a responsibility written out at `targets` (the definitions now holding a
    copy): `kept` checks the one place still exists with at most today's copies, and no
    shotgun surgery may be reported at the targets."""
    quiet = StructuralCheck(
        kind="no_finding",
        description=f"no shotgun surgery is reported at {', '.join(targets[:8])}",
        params={"smell": "shotgun_surgery", "qualnames": list(targets)})
    levels: tuple[tuple[str, TargetLevel], ...] = tuple((name, "method") for name in targets)
    return Edit(changes=dict(changes), targets=levels, checks=(kept, quiet),
                involved=tuple(involved), red_herrings=tuple(herrings[:5]), summary=summary)


@dataclass(frozen=True)
class Inlined:
    """A module's new text and the lines (of the original text) of the references replaced."""

    text: str
    lines: tuple[int, ...]


class _User(Protocol):
    @property
    def path(self) -> str: ...

    @property
    def lines(self) -> tuple[int, ...]: ...

    @property
    def scopes(self) -> tuple[str, ...]: ...


UserT = TypeVar("UserT", bound=_User)


def choose_users(users: Sequence[UserT], difficulty: Difficulty, min_copies: int,
                 rewrite: Callable[[UserT], Inlined], kind: str, *, home_live: bool,
                 home: UserT | None = None,
                 ) -> tuple[dict[str, Inlined], list[UserT]]:
    """The modules whose uses are rewritten, in the given order, and their new texts: exactly
    `copy_modules` of them (`home_live`: the definition still serves uses in its own module,
    whose file a change must then edit too).

    Easy spans two files, so it needs a definition its own module no longer reads: with one,
    copies in two modules make three files, and copies in one module are no shotgun surgery.
    So easy writes the knowledge out in its own module too (`home`, the definition's module
    as a user, when it can be rewritten), and in one other module: the definition stays, and
    its own module spells the value out like the other; the detector counts copies in other
    modules only, so that one must hold `min_copies` on its own. `rewrite` refuses a module
    it cannot rewrite; the refusal says why too few accept."""
    edits: dict[str, Inlined] = {}
    chosen: list[UserT] = []
    refused: list[str] = []
    if difficulty == "easy" and home_live and home is not None:
        try:
            edits[home.path] = rewrite(home)
        except InjectionRefused as refusal:
            raise InjectionRefused(f"easy needs the definition's own module written out, and "
                                   f"{home.path} cannot be: {refusal.message}") from None
        chosen.append(home)
        home_live = False
        users = [user for user in users if len(user.lines) >= min_copies]
    wanted = copy_modules(difficulty, home_live)
    most = SPANS[difficulty][1]
    if most is not None and wanted + int(home_live) > most:
        raise InjectionRefused(f"{difficulty} spans two files, and the definition is still used "
                               "in its own module: copies in two more modules would make three")
    for user in users:
        if len(chosen) >= wanted:
            break  # hard spreads further than medium, never the same modules as medium's all
        try:
            result = rewrite(user)
        except InjectionRefused as refusal:
            refused.append(f"{user.path}: {refusal.message}")
            continue
        edits[user.path] = result
        chosen.append(user)
    if len(chosen) < wanted:
        detail = f" ({'; '.join(refused[:3])})" if refused else ""
        raise InjectionRefused(f"{difficulty} needs {wanted} {kind} modules to inline, "
                               f"{len(chosen)} accept{detail}")
    return edits, chosen


class Replace(cst.CSTTransformer):
    """References to an imported name replaced by a literal, and the name's import dropped
    (`alias` of `statement`; None: the import stays)."""

    def __init__(self, targets: set[cst.Name], literal: str, alias: cst.ImportAlias | None,
                 statement: cst.ImportFrom | None):
        super().__init__()
        self.targets = targets
        self.literal = literal
        self.alias = alias
        self.statement = statement
        self.in_fstring = 0
        self.replaced = 0
        self.problem: str | None = None

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        self.in_fstring += 1
        return True

    def leave_FormattedString(self, original_node: cst.FormattedString,
                              updated_node: cst.FormattedString) -> cst.BaseExpression:
        self.in_fstring -= 1
        return updated_node

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if original_node not in self.targets:
            return updated_node
        if self.in_fstring:
            self.problem = "the constant is used inside an f-string"
            return updated_node
        self.replaced += 1
        return cst.SimpleString(self.literal, lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        """A removed import line gives its blank lines to the next statement, so the blank line
        after a docstring (or between import groups) stays where it was."""
        if len(updated_node.body) != len(original_node.body) - 1:
            return updated_node
        for number, line in enumerate(original_node.body):
            if (isinstance(line, cst.SimpleStatementLine) and self.statement in line.body
                    and number < len(updated_node.body)):
                body = list(updated_node.body)
                following = body[number]
                body[number] = following.with_changes(
                    leading_lines=merged_lines(line.leading_lines, following.leading_lines))
                return updated_node.with_changes(body=body)
        return updated_node

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> \
            cst.ImportFrom | cst.RemovalSentinel:
        old_names, new_names = original_node.names, updated_node.names
        if original_node is not self.statement or isinstance(old_names, cst.ImportStar) or \
                isinstance(new_names, cst.ImportStar):
            return updated_node
        names = [alias for old, alias in zip(old_names, new_names) if old is not self.alias]
        if not names:
            return cst.RemoveFromParent()
        if old_names[-1] is self.alias and self.alias is not None:
            names[-1] = last_alias(names[-1], self.alias, updated_node)
        return updated_node.with_changes(names=names)


def merged_lines(removed: Sequence[cst.EmptyLine],
                 following: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """The lines above a statement whose predecessor (an import) was removed: the removed
    one's blank lines and comments, unless the statement has blank lines of its own and the
    removed one only blank lines (a docstring, a blank, the import, two blanks, a class must
    not become a docstring and three blanks)."""
    if following and not any(line.comment for line in removed):
        return list(following)
    return [*removed, *following]


def last_alias(alias: cst.ImportAlias, removed: cst.ImportAlias,
               statement: cst.ImportFrom) -> cst.ImportAlias:
    """The alias that becomes the last of an import when `removed` (the last) goes: no comma
    without parentheses; in parentheses the removed one's comma, whose whitespace puts the
    closing parenthesis back on its own line."""
    if statement.lpar is None:
        return alias.with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return alias.with_changes(comma=removed.comma)


@lru_cache(maxsize=24)
def analysed(source: str) -> tuple[cst.Module, Mapping[cst.CSTNode, Scope | None],
                                    Mapping[cst.CSTNode, CodeRange]]:
    """A module's tree with scopes and positions; resolving them is the slow part on big
    modules, and one module is often asked about several constants, helpers and decorators
    (jinja2's filters, runtime and environment modules about four decorators each)."""
    wrapper = MetadataWrapper(cst.parse_module(source))
    return wrapper.module, wrapper.resolve(ScopeProvider), wrapper.resolve(PositionProvider)


class Imported(NamedTuple):
    """The one top-level `from ... import` that binds a name in a module."""

    scope: Scope
    assignment: ImportAssignment
    statement: cst.ImportFrom
    alias: cst.ImportAlias


def imported(module: cst.Module, scopes: Mapping[cst.CSTNode, Scope | None],
             bound: str) -> Imported:
    """How `bound` is imported into the module; refused when that is not plain enough to
    rewrite."""
    scope = scopes.get(module)
    if scope is None:
        raise InjectionRefused("no module scope")
    assignments = list(scope.assignments[bound])
    if len(assignments) != 1 or not isinstance(assignments[0], ImportAssignment):
        raise InjectionRefused(f"{bound} is bound more than once at module level")
    statement = assignments[0].node
    if not isinstance(statement, cst.ImportFrom) or isinstance(statement.names, cst.ImportStar):
        raise InjectionRefused(f"{bound} is not bound by a plain `from ... import`")
    if statement not in {small for line in module.body
                         if isinstance(line, cst.SimpleStatementLine) for small in line.body}:
        raise InjectionRefused(f"the import of {bound} is not a top-level statement")
    aliases = [alias for alias in statement.names if alias.evaluated_alias == bound
               or (alias.asname is None and alias.evaluated_name == bound)]
    if len(aliases) != 1:
        raise InjectionRefused(f"{bound} is imported in an unusual way")
    return Imported(scope, assignments[0], statement, aliases[0])


def defined(module: cst.Module, scopes: Mapping[cst.CSTNode, Scope | None],
            name: str) -> tuple[Scope, BaseAssignment]:
    """The module scope and the one top-level definition of `name` in the module that
    defines it (a constant's assignment, a helper's `def`); refused when it is bound twice."""
    scope = scopes.get(module)
    if scope is None:
        raise InjectionRefused("no module scope")
    assignments = list(scope.assignments[name])
    if len(assignments) != 1 or isinstance(assignments[0], ImportAssignment):
        raise InjectionRefused(f"{name} is bound more than once in its own module")
    return scope, assignments[0]


def inline_at_home(source: str, name: str, literal: str) -> Inlined:
    """Replace every reference to the constant `name` in the module that defines it by
    `literal`; the definition stays (other modules may import it)."""
    module, scopes, positions = analysed(source)
    _, assignment = defined(module, scopes, name)
    return _written_out(module, positions, assignment, name, literal, None, None,
                        f"{name} is never read in its own module")


def inline_constant(source: str, bound: str, literal: str) -> Inlined:
    """Replace the module-level import of `bound` and every reference to it by `literal`;
    refused with the reason when the module cannot be rewritten."""
    module, scopes, positions = analysed(source)
    found = imported(module, scopes, bound)
    return _written_out(module, positions, found.assignment, bound, literal, found.alias,
                        found.statement, f"{bound} is imported but never used")


def _written_out(module: cst.Module, positions: Mapping[cst.CSTNode, CodeRange],
                 assignment: BaseAssignment, name: str, literal: str,
                 alias: cst.ImportAlias | None, statement: cst.ImportFrom | None,
                 unread: str) -> Inlined:
    """Every reference of `assignment` replaced by `literal` (and the import `alias` dropped
    from `statement`, when given); refused when one is an annotation or cannot be replaced."""
    targets: set[cst.Name] = set()
    lines: list[int] = []
    for access in assignment.references:
        node = access.node
        if access.is_annotation or access.is_type_hint or not isinstance(node, cst.Name):
            raise InjectionRefused(f"{name} is used in an annotation or as a string")
        targets.add(node)
        lines.append(positions[node].start.line)
    if not targets:
        raise InjectionRefused(unread)
    transformer = Replace(targets, literal, alias, statement)
    result = module.visit(transformer)
    if transformer.problem is not None:
        raise InjectionRefused(transformer.problem)
    if transformer.replaced != len(targets):
        raise InjectionRefused("not every reference could be replaced")
    return Inlined(result.code, tuple(sorted(lines)))
