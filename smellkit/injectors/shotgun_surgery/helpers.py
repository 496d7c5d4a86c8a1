"""Shotgun-surgery injection of the second kind: a small helper inlined into its callers' modules.

The original gives one small responsibility its own function, `term_len(x)` returning
`len(strip_ansi(x))`, and other modules import and call it. The smelly version writes the
expression out at every call in those modules (the helper stays: it is public, or used at home),
so a change of the rule means editing every copy. The span counts the modules holding copies,
and the helper's own only while its module still calls it (`edit.copy_modules`): easy spans 2
files, medium 3+, hard 4+ with a red herring, a call of the helper that is left as it is.
The codemod and why it is sound: `inline`.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import libcst as cst

from smellkit._internal import pyast
from smellkit.analysis.keys import Scopes
from smellkit.config import is_test_path
from smellkit.detectors.shotgun_surgery import ShotgunSurgery
from smellkit.detectors.shotgun_surgery.helpers import Copies, Helper, helpers
from smellkit.errors import InjectionRefused
from smellkit.facts import Attr, FileFacts, Name
from smellkit.graphs.builtin_names import BUILTIN_NAMES
from smellkit.injectors.base import Edit, InjectionContext
from smellkit.injectors.shotgun_surgery.edit import (
    Inlined,
    choose_users,
    copies_edit,
    spread_candidate,
)
from smellkit.injectors.shotgun_surgery.inline import inline_helper, inline_method, safe_order
from smellkit.injectors.shotgun_surgery.users import (
    User,
    collect_users,
    home_reads,
    importing_user,
    needed_imports,
    refuse_unused,
)
from smellkit.models import Candidate, Difficulty, StructuralCheck

SMELL = ShotgunSurgery.smell.name


@dataclass(frozen=True)
class Plan:
    helper: Helper
    users: tuple[User, ...]
    keep: frozenset[str]
    """Paths of users whose import of the helper stays: other code may import it from there."""
    home_uses: tuple[str, ...]
    """Scopes of the helper's own module that call it: red herrings, left alone."""


def plans(context: InjectionContext, flagged: frozenset[str], *,
          explain: bool = False) -> list[Plan]:
    """The one-expression helpers other modules call (`explain`: count the others with
    `context.discard`, once per discovery)."""
    found: list[Plan] = []
    for helper in helpers(context.analysis):
        name = helper.qualname.rpartition(".")[2]
        rule = ("a one-expression helper already reported as shotgun surgery"
                if helper.qualname in flagged else
                "a one-expression method that another class may override"
                if helper.method and (_overridden(context, helper.qualname)
                                      or _exported(context, helper.qualname.rpartition(".")[0]))
                else None)  # another class's method may run at some calls
        users: tuple[User, ...] = ()
        keep: frozenset[str] = frozenset()
        if rule is None:
            users, keep = collect_users(
                context, partial(_method_user, context, helper=helper) if helper.method
                else partial(importing_user, context, module=helper.module, name=name))
            if not users:
                rule = ("a one-expression method no other module calls (through an unambiguous "
                        "receiver)" if helper.method else
                        "a one-expression helper no other module imports by name and calls")
        if rule is not None:
            if explain:
                context.discard(rule)
            continue
        facts = context.index.modules[helper.module]
        home = tuple(sorted({Scopes(facts).at(line) for line in
                             home_reads(context.source(helper.path), name,
                                        attribute=helper.method)}))
        found.append(Plan(helper, users, keep, home))
    return found


_PLATFORM_NAMES = frozenset({"WIN", "WINDOWS", "IS_WIN", "IS_WINDOWS", "CYGWIN", "MACOS",
                             "IS_MACOS", "DARWIN", "PY2", "PYPY", "JYTHON"})


def untested_lines(context: InjectionContext, user: User) -> frozenset[int]:
    """Lines of the user's calls that the tests cannot be expected to run, left as calls: those
    in definitions no test runs, and those under a test of the platform or interpreter
    (`elif WIN:`, `if sys.platform == "win32":`), whose branches do not all run on one
    machine. A copy there would be changed code that no selected test runs."""
    facts = context.index.modules[user.module]
    scopes = Scopes(facts)
    leave = {line for line in user.lines if (scope := scopes.at(line))
             in context.index.definitions and not context.is_covered(scope)}
    try:
        tree = pyast.parse(context.source(user.path))
    except SyntaxError:
        return frozenset(leave)
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp)) and _platform_test(node.test):
            end = node.end_lineno or node.lineno
            leave.update(line for line in user.lines if node.lineno <= line <= end)
    return frozenset(leave)


def _platform_test(test: ast.expr) -> bool:
    for node in ast.walk(test):
        if isinstance(node, ast.Name) and node.id in _PLATFORM_NAMES:
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
                (node.value.id, node.attr) in {("sys", "platform"), ("os", "name"),
                                               ("platform", "system")}):
            return True
    return False


def _overridden(context: InjectionContext, qualname: str) -> bool:
    index = context.index
    cls, _, name = qualname.rpartition(".")
    return any(name in index.children.get(other, {}) for other in
               [*index.mro(cls)[1:], *index.descendants(cls)] if other != cls)


def _exported(context: InjectionContext, cls: str) -> bool:
    """Re-exported by the top-level package: code outside may subclass it and override the
    method, and an inlined call would no longer reach the override."""
    index = context.index
    package = index.modules.get(cls.partition(".")[0])
    if package is None:
        return True
    name = cls.rpartition(".")[2]
    return name in (package.dunder_all or ()) or any(
        item.bound == name and (index.resolve_dotted(item.target) or item.target) == cls
        for item in package.imports)


def _method_user(context: InjectionContext, facts: FileFacts,
                 helper: Helper) -> tuple[User, bool] | None:
    """A module whose every `x.name(...)` call resolves to the method (and which mentions
    `.name` nowhere else)."""
    if facts.module == helper.module or is_test_path(facts.path):
        return None
    name = helper.qualname.rpartition(".")[2]
    graph = context.analysis.call_graph
    lines: list[int] = []
    for call in facts.calls:
        if not isinstance(call.func, Attr) or call.func.attr != name or call.implicit:
            continue
        data = graph.get_edge_data(call.scope, helper.qualname) if \
            graph.has_node(call.scope) else None
        others = [callee for callee in graph.succ[call.scope]
                  if callee != helper.qualname and callee.rpartition(".")[2] == name
                  and call.line in graph.succ[call.scope][callee].get("lines", ())] \
            if graph.has_node(call.scope) else []
        if data is None or call.line not in data.get("lines", ()) or others:
            return None  # may reach another method of that name
        lines.append(call.line)
    source = context.source(facts.path)
    if not lines or source.count(f".{name}") != len(lines):
        return None
    scopes = Scopes(facts)
    return User(facts.module, facts.path, name, tuple(sorted(lines)),
                tuple(sorted({scopes.at(number) for number in lines})), False), False


def candidates(context: InjectionContext, flagged: frozenset[str],
               min_copies: int) -> list[Candidate]:
    found: list[Candidate] = []
    for plan in plans(context, flagged, explain=True):
        if all(set(user.scopes) <= flagged for user in plan.users):
            context.discard("a helper called only where shotgun surgery is reported already")
            continue
        if sum(len(user.lines) for user in plan.users) < min_copies:
            context.discard("a helper with too few calls in other modules to copy")
            continue
        location = context.location(plan.helper.qualname)  # the responsibility itself
        if location is None:
            context.discard("a helper without a location")
            continue
        found.append(spread_candidate(
            location, plan.helper.path, plan.users, "a one-expression helper",
            "called from", "calls",
            {"helper": plan.helper.qualname, "users": [user.module for user in plan.users]}))
    return found


def _body(context: InjectionContext, helper: Helper) -> cst.BaseExpression | None:
    """The helper's return expression as written (libcst keeps its layout)."""
    name = helper.qualname.rpartition(".")[2]
    body: Sequence[cst.CSTNode] = context.module(helper.path).body
    if helper.method:
        cls = helper.qualname.rpartition(".")[0].rpartition(".")[2]
        body = next((statement.body.body for statement in body
                     if isinstance(statement, cst.ClassDef) and statement.name.value == cls
                     and isinstance(statement.body, cst.IndentedBlock)), ())
    for statement in body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name and \
                isinstance(statement.body, cst.IndentedBlock):
            last = statement.body.body[-1]
            if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and \
                    isinstance(last.body[0], cst.Return) and last.body[0].value is not None:
                return last.body[0].value
    return None


def _adds(context: InjectionContext, helper: Helper, user: User) -> list[str]:
    """Names the user module must import from the helper's module for the expression; refused
    when it cannot."""
    index = context.index
    adds: list[str] = []
    if helper.method:  # no imports: only builtins, not rebound where the calls are
        bound = {item.bound for item in index.modules[user.module].imports} | {
            item.target.id for item in index.modules[user.module].assignments
            if isinstance(item.target, Name)}
        if any(name not in BUILTIN_NAMES or name in bound for name in helper.free):
            raise InjectionRefused(f"{helper.qualname} reads names that {user.path} may not have")
        return adds
    return needed_imports(context, helper.qualname, helper.module, helper.free, user)


def inject(context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
           rng: random.Random, flagged: frozenset[str], min_copies: int) -> Edit:
    qualname = str(candidate.data.get("helper", ""))
    plan = next((item for item in plans(context, flagged)
                 if item.helper.qualname == qualname), None)
    if plan is None:
        raise InjectionRefused(f"{qualname} is no longer a one-expression helper called from "
                               "elsewhere")
    helper = plan.helper
    body = _body(context, helper)
    if body is None:
        raise InjectionRefused(f"{qualname}'s expression could not be found in {helper.path}")
    ordered = safe_order(helper.expr, helper.params)
    users = list(plan.users)
    rng.shuffle(users)
    users.sort(key=lambda user: set(user.scopes) <= flagged)  # pointable ones first

    name = qualname.rpartition(".")[2]
    home = None if helper.method else User(
        helper.module, helper.path, name,
        tuple(home_reads(context.source(helper.path), name)), plan.home_uses, False)

    def rewrite(user: User) -> Inlined:
        if user is home:
            return inline_helper(context.source(user.path), name, body, helper.params,
                                 helper.free, (), ordered, leave=untested_lines(context, user),
                                 home=True)
        refuse_unused(user, plan.keep, context.index.modules[user.module])
        adds = _adds(context, helper, user)
        if helper.method:
            return inline_method(context.source(user.path), user.bound, set(user.lines), body,
                                 helper.params, helper.free, ordered)
        return inline_helper(context.source(user.path), user.bound, body, helper.params,
                             helper.free, adds, ordered, keep=user.path in plan.keep,
                             leave=untested_lines(context, user))

    home_live = bool(plan.home_uses)
    edits, chosen = choose_users(users, difficulty, min_copies, rewrite, "calling",
                                 home_live=home_live, home=home)
    left = {Scopes(context.index.modules[user.module]).at(line) for user in chosen
            for line in user.lines if line not in edits[user.path].lines}
    if home in chosen:  # written out at home too: live there only where calls are left
        home_live = any(line not in edits[helper.path].lines for line in home.lines)
    herrings = sorted({scope for user in plan.users if user not in chosen
                       for scope in user.scopes} | (set(plan.home_uses) - {
                           scope for user in chosen if user is home for scope in user.scopes
                       }) | left)
    if difficulty == "hard" and not herrings:
        raise InjectionRefused("hard needs a red herring: a call of the helper left as it is")
    # the detector counts the copies in other modules than the helper's
    copies = sum(len(edit.lines) for path, edit in edits.items() if path != helper.path)
    if copies < min_copies:
        raise InjectionRefused(f"only {copies} copies; the detector needs {min_copies}")
    scopes = {Scopes(context.index.modules[user.module]).at(line)
              for user in chosen for line in edits[user.path].lines}
    targets = sorted(scope for scope in scopes - flagged if scope in context.index.definitions)
    if not targets:
        raise InjectionRefused("every copy would be at module level; no function to point at")
    before = len(Copies(context.analysis).of(helper))
    kept = StructuralCheck(
        kind="shotgun_surgery.helper_copies",
        description=(f"{qualname} is still a one-expression helper, and its expression is "
                     f"written out at most {before} times in other modules"),
        params={"helper": qualname, "max_copies": before})
    # the helper is a place a change of the rule must edit while its own module calls it
    return copies_edit({path: edit.text for path, edit in edits.items()}, targets, kept,
                       (qualname,) if home_live else (), herrings,
                       f"inlined {qualname} into {len(chosen)} modules "
                       f"({copies} copies, {difficulty})")
