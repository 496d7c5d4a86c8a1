"""Shotgun-surgery injection of the third kind: a marking decorator written out by hand.

The original says once how a definition is marked, `@pass_context` setting
`f.jinja_pass_arg = _PassArg.context` (or `@internalcode` recording `f.__code__` in a
module-level registry), and other modules apply the decorator. The smelly version drops the
decorator in those modules and writes its marking statements after each definition instead,
so a change of how the mark is made means editing every copy. The span counts the modules holding
copies, and the decorator's own only while it applies the decorator (`edit.copy_modules`): easy
spans 2 files, medium 3+, hard 4+ with red herrings:
definitions still decorated, by this decorator or by a look-alike (another marking decorator of
its module, or one that sets the same mark).

Behaviour is kept: a marking decorator hands back the very object it was given, so marking it
right after the `def` gives the same object the same mark. Refused: a use of the decorator that
is not a bare `@name`, a decorator below another that is not itself a marking decorator (the
other would see the object unmarked), a comment attached to the decorator line, a name the
statements read that is shadowed where they go, or that cannot be imported.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import libcst as cst
from libcst.metadata import GlobalScope

from smellkit.analysis.keys import Scopes
from smellkit.detectors.shotgun_surgery import ShotgunSurgery
from smellkit.detectors.shotgun_surgery.markers import Marker, copies, markers
from smellkit.errors import InjectionRefused
from smellkit.injectors.base import Edit, InjectionContext
from smellkit.injectors.cst.rename import Rename
from smellkit.injectors.shotgun_surgery.edit import (
    Inlined,
    analysed,
    choose_users,
    copies_edit,
    defined,
    imported,
    merged_lines,
    spread_candidate,
)
from smellkit.injectors.shotgun_surgery.inline import InlineCalls
from smellkit.injectors.shotgun_surgery.users import (
    User,
    collect_users,
    importing_user,
    needed_imports,
    refuse_unused,
)
from smellkit.models import Candidate, Difficulty, StructuralCheck

SMELL = ShotgunSurgery.smell.name


@dataclass(frozen=True)
class Plan:
    marker: Marker
    users: tuple[User, ...]
    keep: frozenset[str]
    """Paths of users whose import of the decorator stays: other code may import it there."""
    home_uses: tuple[str, ...]
    """Definitions the decorator's own module decorates with it: red herrings, left alone."""


def plans(context: InjectionContext, flagged: frozenset[str], *,
          explain: bool = False) -> list[Plan]:
    """The marking decorators other modules apply (`explain`: count the others with
    `context.discard`, once per discovery)."""
    found: list[Plan] = []
    for marker in markers(context.analysis):
        if marker.qualname in flagged:
            if explain:
                context.discard("a marking decorator already reported as shotgun surgery")
            continue
        name = marker.qualname.rpartition(".")[2]
        users, keep = collect_users(context, partial(importing_user, context,
                                                     module=marker.module, name=name))
        if not users:
            if explain:
                context.discard("a marking decorator no other module imports by name and "
                                "applies")
            continue
        home = tuple(definition.qualname for definition in
                     context.index.modules[marker.module].definitions
                     if name in definition.decorators)
        found.append(Plan(marker, users, keep, home))
    return found


def candidates(context: InjectionContext, flagged: frozenset[str],
               min_copies: int) -> list[Candidate]:
    found: list[Candidate] = []
    for plan in plans(context, flagged, explain=True):
        location = context.location(plan.marker.qualname)
        if location is None or sum(len(user.lines) for user in plan.users) < min_copies:
            context.discard("a marking decorator applied too few times in other modules")
            continue
        found.append(spread_candidate(
            location, plan.marker.path, plan.users, "a decorator that marks what it decorates",
            "applied in", "times", {"decorator": plan.marker.qualname,
                             "users": [user.module for user in plan.users]}))
    return found


def _statements(context: InjectionContext, marker: Marker) -> list[cst.SimpleStatementLine] | None:
    """The decorator's marking statements as written (comments kept), without the return."""
    name = marker.qualname.rpartition(".")[2]
    for statement in context.module(marker.path).body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name and \
                isinstance(statement.body, cst.IndentedBlock):
            body = list(statement.body.body)
            first = body[0] if body else None
            if isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and \
                    isinstance(first.body[0], cst.Expr) and \
                    isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
                body = body[1:]  # the docstring
            lines = [line for line in body[:-1] if isinstance(line, cst.SimpleStatementLine)]
            return lines if len(lines) == len(marker.statements) else None
    return None


def _renamed(statements: Sequence[cst.SimpleStatementLine], param: str,
             name: str) -> list[cst.BaseStatement]:
    found: list[cst.BaseStatement] = []
    for line in statements:
        renamed = line.visit(Rename({param: name}))
        assert isinstance(renamed, cst.SimpleStatementLine)
        found.append(renamed)
    return found


class _Owners(cst.CSTVisitor):
    """Each decorator expression with its decorator and the definition it decorates, and each
    callee of a `name = mark(name)` statement with the statement and the name."""

    def __init__(self) -> None:
        super().__init__()
        self.owner: dict[cst.CSTNode, tuple[cst.Decorator, cst.FunctionDef | cst.ClassDef]] = {}
        self.rebinds: dict[cst.CSTNode, tuple[cst.SimpleStatementLine, str]] = {}
        self.in_module_body: set[cst.CSTNode] = set()

    def visit_Module(self, node: cst.Module) -> None:
        self.in_module_body.update(node.body)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        """`name = mark(name)`: the decorator applied by hand to a definition."""
        small = node.body[0] if len(node.body) == 1 else None
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                isinstance(target := small.targets[0].target, cst.Name) and \
                isinstance(call := small.value, cst.Call) and len(call.args) == 1 and \
                isinstance(arg := call.args[0], cst.Arg) and arg.keyword is None and \
                not arg.star and isinstance(arg.value, cst.Name) and \
                arg.value.value == target.value:
            self.rebinds[call.func] = (node, target.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.owner.update({item.decorator: (item, node) for item in node.decorators})

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.owner.update({item.decorator: (item, node) for item in node.decorators})


class _Unwrap(InlineCalls):
    """Drop the decorator from the definitions it marks and write its statements after each."""

    def __init__(self, marks: dict[cst.CSTNode, tuple[cst.CSTNode, list[cst.BaseStatement]]],
                 alias: cst.ImportAlias | None, statement: cst.ImportFrom | None,
                 adds: Sequence[str], keep: bool):
        super().__init__(set(), (), cst.Name("_"), alias, statement, adds, keep)
        self.marks = marks
        self.after: dict[int, list[cst.BaseStatement]] = {}

    def _unwrap(self, original: cst.FunctionDef | cst.ClassDef,
                updated: cst.FunctionDef | cst.ClassDef) -> cst.FunctionDef | cst.ClassDef:
        if original not in self.marks:
            return updated
        decorator, statements = self.marks[original]
        kept = [new for old, new in zip(original.decorators, updated.decorators)
                if old is not decorator]
        result = updated.with_changes(decorators=kept)
        self.after[id(result)] = statements
        return result

    def leave_SimpleStatementLine(
            self, original_node: cst.SimpleStatementLine,
            updated_node: cst.SimpleStatementLine) -> cst.BaseStatement | \
            cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        if original_node not in self.marks:
            return super().leave_SimpleStatementLine(original_node, updated_node)
        return cst.FlattenSentinel(self.marks[original_node][1])

    def leave_FunctionDef(self, original_node: cst.FunctionDef,
                          updated_node: cst.FunctionDef) -> cst.FunctionDef:
        result = self._unwrap(original_node, updated_node)
        assert isinstance(result, cst.FunctionDef)
        return result

    def leave_ClassDef(self, original_node: cst.ClassDef,
                       updated_node: cst.ClassDef) -> cst.ClassDef:
        result = self._unwrap(original_node, updated_node)
        assert isinstance(result, cst.ClassDef)
        return result

    def _spread(self, body: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
        spread: list[cst.BaseStatement] = []
        for item in body:
            spread.append(item)
            spread.extend(self.after.get(id(item), ()))
        return spread

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock,
                            updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        return updated_node.with_changes(body=self._spread(updated_node.body))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = list(updated_node.body)
        if len(body) == len(original_node.body) - 1:  # the import line went: its blank lines stay
            for number, line in enumerate(original_node.body):
                if isinstance(line, cst.SimpleStatementLine) and self.statement in line.body \
                        and number < len(body):
                    body[number] = body[number].with_changes(
                        leading_lines=merged_lines(line.leading_lines,
                                                   body[number].leading_lines))
        return updated_node.with_changes(body=self._spread(body))


def unwrap(source: str, bound: str, statements: Sequence[cst.SimpleStatementLine], param: str,
           free: Sequence[str], others: set[str], adds: Sequence[str],
           keep: bool, home: bool = False) -> Inlined:
    """Replace each `@bound` (imported by `from ... import`; `home`: defined in the module) by
    the marking `statements` after the definition; `others` are the names of marking
    decorators bound in the module, which may stand above it. Refused with the reason when the
    module cannot be rewritten."""
    module, scopes, positions = analysed(source)
    alias: cst.ImportAlias | None = None
    statement: cst.ImportFrom | None = None
    if home:
        scope, assignment = defined(module, scopes, bound)
    else:
        scope, assignment, statement, alias = imported(module, scopes, bound)
    if any(name in scope.assignments for name in adds):
        raise InjectionRefused(f"one of {', '.join(adds)} is already a name of the module")
    visitor = _Owners()
    module.visit(visitor)
    marks: dict[cst.CSTNode, tuple[cst.CSTNode, list[cst.BaseStatement]]] = {}
    lines: list[int] = []
    for access in assignment.references:
        rebind = visitor.rebinds.get(access.node)
        if rebind is not None:  # `name = mark(name)` becomes the marks of `name`, in place
            line, name = rebind
            where = scopes.get(line.body[0])
            if where is None or (not isinstance(where, GlobalScope) and any(
                    item in where.assignments for item in free)):
                raise InjectionRefused(f"a name the marks read is shadowed around {name}")
            written = [renamed.with_changes(leading_lines=line.leading_lines if number == 0
                                            else ()) for number, renamed in
                       enumerate(_renamed(statements, param, name))]
            marks[line] = (line, written)
            lines.append(positions[line].start.line)
            continue
        found = visitor.owner.get(access.node)
        if found is None:
            raise InjectionRefused(f"{bound} is used other than as `@{bound}` or `name = "
                                   f"{bound}(name)`")
        decorator, owner = found
        above = owner.decorators[:owner.decorators.index(decorator)]
        if not all(isinstance(item.decorator, cst.Name) and item.decorator.value in others
                   for item in above):
            raise InjectionRefused(f"@{bound} on {owner.name.value} sits below a decorator that is "
                                   "not a mark")
        if decorator.leading_lines and owner.decorators.index(decorator) > 0:
            raise InjectionRefused(f"a comment is attached to @{bound} on {owner.name.value}")
        where = scopes.get(owner)
        if where is None or (not isinstance(where, GlobalScope) and any(
                name in where.assignments for name in free)):
            raise InjectionRefused(f"a name the marks read is shadowed around {owner.name.value}")
        blank = 2 if owner in visitor.in_module_body else 1
        written = [renamed.with_changes(
            leading_lines=[cst.EmptyLine(indent=False)] * (blank if number == 0 else 0))
            for number, renamed in enumerate(_renamed(statements, param, owner.name.value))]
        marks[owner] = (decorator, written)
        lines.append(positions[owner.name].start.line)
    if not marks:
        raise InjectionRefused(f"{bound} is imported but never applied")
    result = module.visit(_Unwrap(marks, alias, statement, adds, keep))
    return Inlined(result.code, tuple(sorted(lines)))


def inject(context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
           rng: random.Random, flagged: frozenset[str], min_copies: int) -> Edit:
    qualname = str(candidate.data.get("decorator", ""))
    every = plans(context, flagged)
    plan = next((item for item in every if item.marker.qualname == qualname), None)
    if plan is None:
        raise InjectionRefused(f"{qualname} is no longer a marking decorator applied elsewhere")
    marker = plan.marker
    statements = _statements(context, marker)
    if statements is None:
        raise InjectionRefused(f"{qualname}'s statements could not be found in {marker.path}")
    names = {item.marker.qualname: item.marker.qualname.rpartition(".")[2] for item in every}
    users = list(plan.users)
    rng.shuffle(users)

    home_facts = context.index.modules[marker.module]
    name = qualname.rpartition(".")[2]
    home = User(marker.module, marker.path, name, tuple(
        definition.start_line for definition in home_facts.definitions
        if definition.qualname in plan.home_uses), plan.home_uses, False)

    def rewrite(user: User) -> Inlined:
        if user is home:  # the other marks defined beside it may stand above it
            return unwrap(context.source(user.path), name, statements, marker.param,
                          marker.free, {names[item] for item in names if item != qualname
                                        and item.rpartition(".")[0] == marker.module},
                          (), keep=False, home=True)
        refuse_unused(user, plan.keep, context.index.modules[user.module])
        adds = needed_imports(context, marker.qualname, marker.module, marker.free, user)
        imports = context.index.modules[user.module].imports
        others = {item.bound for item in imports if item.is_from
                  and item.target in names and item.bound == names[item.target]}
        return unwrap(context.source(user.path), user.bound, statements, marker.param,
                      marker.free, others - {user.bound}, adds, keep=user.path in plan.keep)

    # each application of the decorator marks a definition of its own
    home_live = bool(plan.home_uses)
    edits, chosen = choose_users(users, difficulty, min_copies, rewrite, "decorated",
                                 home_live=home_live, home=home)
    home_live = home_live and home not in chosen
    modules = {user.module for user in chosen}
    herrings = sorted({*_decorated(context, [user for user in plan.users if user not in chosen]),
                       *(plan.home_uses if home_live else ())})  # still decorated, look-alikes
    herrings += sorted(set(_decorated(context, [
        user for item in every if item is not plan and (
            item.marker.module == marker.module or item.marker.attrs & marker.attrs
            or item.marker.calls & marker.calls)
        for user in item.users if user.module in modules])) - set(herrings))
    if difficulty == "hard" and not herrings:
        raise InjectionRefused("hard needs a red herring: a definition still decorated, by this "
                               "decorator or a look-alike")
    targets = sorted({Scopes(context.index.modules[user.module]).at(line)
                      for user in chosen for line in edits[user.path].lines})
    outside = sum(len(edit.lines) for path, edit in edits.items() if path != marker.path)
    if outside < min_copies:  # the detector counts the copies in other modules only
        raise InjectionRefused(f"only {outside} copies; the detector needs {min_copies}")
    before = len(copies(context.analysis, marker))
    kept = StructuralCheck(
        kind="shotgun_surgery.marker_copies",
        description=(f"{qualname} still marks what it decorates, and its marks are written "
                     f"out by hand at most {before} times in other modules"),
        params={"decorator": qualname, "max_copies": before})
    # the decorator is a place a change of the mark must edit while its own module applies it
    return copies_edit({path: edit.text for path, edit in edits.items()}, targets, kept,
                       (qualname,) if home_live else (), herrings,
                       f"wrote {qualname} out by hand in {len(chosen)} modules "
                       f"({len(targets)} definitions, {difficulty})")


def _decorated(context: InjectionContext, users: Sequence[User]) -> list[str]:
    """The definitions each user module decorates with the name it imports."""
    return [definition.qualname for user in users
            for definition in context.index.modules[user.module].definitions
            if user.bound in definition.decorators]
