"""Duplicated code injector: callers in other modules get private copies of a shared helper.

A candidate is a module-level helper `h` of module B, at least six lines of code, with at least
two callers, some of them in other modules (one keeps calling `h`, so it never becomes dead).
The injection copies `h` into caller modules and points their calls at the copy, so the code
that lived once now lives several times:

- easy (2 files): one verbatim copy (`_h`, or the helper's words with one of the module's)
  in one caller module.
- medium (3 files): two copies in two caller modules, the second with its local variables (and
  the parameters its callers never name) renamed: a type-2 clone that exact-match search misses
  (verbatim when renaming would hide it from the detector's type-2 hash).
- hard (4 files): three real copies in three caller modules: the verbatim copy, the renamed
  copy, and a third renamed copy which its module's callers reach through a module-level table
  (`_H_HANDLERS = {"h": _h}`, named from the repository's words, looked up at each call: module
  state a reader must follow). A hard case without such a table is refused, and so is one that
  would reach its files with anything but a copy (a wrapper that only passes the call on is
  no duplicate).

Methods are candidates too. A method other modules call on the class's instances (`detached.py`),
private or of a private class (a public one is an extension point a user's subclass may
override, which a copy called instead would bypass), is copied as a function into each caller
module, `self` named after the class (or dropped when
the body never reads it), and their calls become calls of the copy: the copies sit where no
class inherits the method (easy one caller module, medium two, hard three, renamed locals after
the first). This is the real duplication, and it is preferred; only a method no other module
calls falls back to the shapes below, where the copy goes to a class that inherits it
(`methods.py`): subclasses in other modules get their own copy of a method they inherit
unchanged, pasted into the subclass (hard: in three subclasses of three modules). A method whose
subclasses all live in its own module is no candidate: its copy could reach a second file only
through a new module made to hold it (a one-class mixin that one heir lists first), a file made
up for the count. At most three methods of a class are candidates (the others' copies would land
in the same subclasses), and copies go first to the places the tests run: callers they cover,
heirs with the most subclasses; the heirs are involved in the case, so the tests selected for it
are those that run their code.

A case whose heirs live in too few other modules is refused (medium needs two, hard three, or
as many unrelated heirs beside the method): no case reaches its files with a method that only
passes the call on.

New names (copies, renamed locals, tables) come from the words of the
repository (`names.py`); an import the redirected calls leave unused is dropped.

A caller module whose calls never pass a parameter the helper branches on alone (`if shorten:`)
gets no copy when the side of that branch they never take holds more than a tenth of its
statements: code no test runs there, a case the adequacy rule turns away after validation.

Behaviour is preserved: a copy reads the same objects as `h` (every global it reads is bound to
the same import target or builtin in the caller module, before the copy), writes no globals, and
is defined (with its table) before the first top-level statement that calls it; looking a copy
up in a table nobody else writes raises nothing and runs before the arguments, as reading its
name did. Anything else is refused. The structural check (`duplicated_code.not_cloned`) asks
that neither `h` nor a copy be part of a clone group, whatever names a refactoring chooses.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import libcst as cst
from libcst.metadata import (
    Assignment,
    GlobalScope,
    MetadataWrapper,
    PositionProvider,
    ScopeProvider,
)

from smellkit.checks.duplicated_code import clone_spans
from smellkit.config import is_test_path
from smellkit.detectors.duplicated_code import DuplicatedCode
from smellkit.errors import InjectionRefused
from smellkit.facts import Definition
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.cst import edit
from smellkit.injectors.cst.imports import add_imports, merged, reexported, without_unused
from smellkit.injectors.duplicated_code import copying
from smellkit.injectors.duplicated_code import helper as helping
from smellkit.injectors.duplicated_code import methods as _methods
from smellkit.injectors.duplicated_code import names as naming
from smellkit.injectors.duplicated_code.detached import place_detached
from smellkit.injectors.tells import added_tells
from smellkit.models import Candidate, Difficulty, StructuralCheck

MIN_CODE_LINES = helping.MIN_CODE_LINES
MIN_CALLERS = 2
"""One caller gets the copy, one keeps calling the original (which must not become dead)."""

_PLAN: dict[Difficulty, tuple[str, ...]] = {
    "easy": ("copy",), "medium": ("copy", "renamed"), "hard": ("copy", "renamed", "table"),
}
"""Roles of the caller modules (or heirs): `table` is a third, renamed copy reached through a
module-level table (for methods: a third renamed copy in a third subclass's module)."""
_COPIES = ("copy", "renamed", "table")


class DuplicatedCodeInjector(Injector[InjectorOptions]):
    """Private copies of a shared helper in the modules that call it."""

    smell = DuplicatedCode.smell
    description = ("Copies a helper with several callers into the callers' modules (verbatim, "
                   "then with renamed locals) and points their calls at the copies.")
    Options = InjectorOptions

    # -- candidates ------------------------------------------------------------------------

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        index = context.index
        graph = index.call_graph
        cloned = clone_spans(context.analysis)
        sources = helping.Sources(context)
        for facts in sorted(index.modules.values(), key=lambda item: item.path):
            if is_test_path(facts.path) or facts.module.rpartition(".")[2] == "__main__":
                continue
            for definition in facts.definitions:
                qualname = definition.qualname
                if definition.kind != "function" or definition.parent != facts.module or \
                        index.definitions.get(qualname) is not definition:
                    continue  # not a module-level function (methods are looked at below)
                rule = _function_rule(context, definition, cloned.get(facts.path, ()))
                if rule is not None:
                    context.discard(rule)
                    continue
                callers = [name for name in graph.predecessors(qualname) if name != qualname]
                others = sorted({module for name in callers
                                 if (module := index.scope_module(name)) != facts.module
                                 and module in index.modules
                                 and not is_test_path(index.modules[module].path)})
                if len(callers) < MIN_CALLERS:
                    context.discard(f"fewer than {MIN_CALLERS} callers")
                    continue
                if not others:
                    context.discard("no caller in another module")
                    continue
                location = context.location(qualname)
                if location is None or not helping.copyable(context, qualname, sources):
                    context.discard("its code cannot be copied as is (reads a rebound or "
                                    "unknown name, super(), frames or globals)")
                    continue  # what its text says rules it out at every difficulty
                yield Candidate(
                    smell=self.name, target=location,
                    reason=f"`{qualname}` spans {definition.end_line - definition.start_line + 1}"
                           f" lines and has {len(callers)} callers, in {len(others)} other "
                           "module(s): their modules can each get a copy of it",
                    files=(facts.path, *(index.modules[name].path for name in others)),
                    data={"modules": others})
        yield from _methods.method_candidates(context, self.name, cloned, sources)

    # -- injection -------------------------------------------------------------------------

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        edit = self._copies(context, candidate, difficulty, rng)
        before = {path: context.source(path) if (context.root / path).is_file() else None
                  for path in edit.changes}
        tells = added_tells(before, edit.changes, context=[context.source(candidate.target.path)])
        if tells:  # a copy naming what its new module does not bind (a type-checking import)
            raise InjectionRefused("a copy would give itself away: " + "; ".join(tells[:2]))
        return edit

    def _copies(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
                rng: random.Random) -> Edit:
        helper = helping.helper(context, candidate.target.qualname)
        roles = _PLAN[difficulty]
        index = context.index
        if "classes" in candidate.data:
            places = list(candidate.data["classes"])
            module_of = index.module_of.__getitem__
        else:
            places = list(candidate.data.get("modules", ()))
            module_of = str
        rng.shuffle(places)
        # places whose code the tests run first: the tests that run it then run the copy
        places.sort(key=lambda place: _exercise_rank(context, helper.qualname, place,
                                                     "classes" in candidate.data))
        if len({module_of(place) for place in places}) < len(roles):
            reached = len({module_of(place) for place in places})
            raise InjectionRefused(f"`{helper.qualname}` reaches {reached} other module(s); "
                                   f"{difficulty} needs {len(roles)}")
        changes: dict[str, str | None] = {}
        made: dict[str, str] = {}  # role -> qualname
        refusals: list[str] = []
        for place in places:
            role = next((item for item in roles if item not in made), None)
            path = index.modules[module_of(place)].path
            if role is None or path in changes:
                continue
            try:
                if "classes" in candidate.data:
                    placed = _methods.place_method(context, helper, place, role, rng)
                elif candidate.data.get("detached"):
                    placed = place_detached(context, helper, place, role, rng)
                else:
                    placed = _place(context, helper, place, role, rng)
            except InjectionRefused as refusal:
                refusals.append(refusal.message)
                continue
            changes[path], made[role] = placed
        if "table" in roles and "table" not in made:
            how = "take a third copy" if "classes" in candidate.data or \
                candidate.data.get("detached") else "reach a copy through a module-level table"
            raise InjectionRefused(f"hard needs a construct and no module of `{helper.qualname}`'s "
                                   f"callers can {how}: "
                                   + ("; ".join(refusals[:3]) or "no module is left"))
        if len(made) < len(roles):
            raise InjectionRefused("; ".join(refusals[:3]) or "too few modules accept a copy")
        copies = [made[role] for role in _COPIES if role in made]
        public = candidate.data.get("detached") and not helper.name.startswith("_")
        if "classes" not in candidate.data and not public:  # a public method is still API
            touched = {name.rpartition(".")[0] for name in copies}
            if not [name for name in index.call_graph.predecessors(helper.qualname)
                    if index.scope_module(name) not in touched and name != helper.qualname]:
                raise InjectionRefused(f"no caller of `{helper.qualname}` would be left to call it")
        _ensure_reported(helper, changes, copies)
        note = ""
        if "table" in made and "classes" not in candidate.data and \
                not candidate.data.get("detached"):
            note = f"; {made['table']} reached through a module-level table"
        heirs = [name.rpartition(".")[0] for name in copies
                 if "classes" in candidate.data and name.rpartition(".")[0] in index.classes]
        return _edit(helper, changes, copies, note, heirs)


def _ensure_reported(helper: helping.Helper, changes: dict[str, str | None],
                     copies: list[str]) -> None:
    """Refuses copies the duplicated-code detector would not report with the original (a
    renamed pair under its `min-lines-renamed`): the case's check would pass on the smelly
    version, so validation would only throw the case away later."""
    nodes = [_definition(changes, name) for name in copies]
    found = [node for node in nodes if node is not None]
    if len(found) == len(nodes) and not copying.reported_together(helper.node, found):
        raise InjectionRefused(
            f"the detector would not report the {len(found)} cop{'y' if len(found) == 1 else 'ies'}"
            f" of `{helper.qualname}` as duplicated code (too few lines or statements for "
            "its thresholds)")


def _definition(changes: dict[str, str | None], qualname: str) -> cst.FunctionDef | None:
    """The def of `qualname` (`pkg.mod.f` or `pkg.mod.C.m`) in the edit's texts (paths may sit
    below a source folder such as `src/`)."""
    for path, text in changes.items():
        if text is None:
            continue
        stem = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        names = qualname.split(".")
        for cut in range(len(names) - 1, 0, -1):  # the longest module the path ends with
            module = ".".join(names[:cut])
            if stem == module or stem.endswith("." + module):
                node = edit.find_definition(cst.parse_module(text), names[cut:])
                if isinstance(node, cst.FunctionDef):
                    return node
                break
    return None


def _function_rule(context: InjectionContext, definition: Definition,
                   cloned: Iterable[tuple[int, int]]) -> str | None:
    """The discovery rule that turns a module-level function away, None when none does."""
    if definition.decorators:
        return "decorated"
    if definition.is_stub:
        return "a stub"
    if definition.end_line - definition.start_line + 1 < MIN_CODE_LINES:
        return f"shorter than {MIN_CODE_LINES} lines"
    if definition.qualname not in context.index.call_graph:
        return "never called"
    if any(start <= definition.end_line and end >= definition.start_line
           for start, end in cloned):
        return "already part of a group of duplicated code"
    return None


def _exercise_rank(context: InjectionContext, helper: str, place: str,
                   heir: bool) -> tuple[bool, int, float]:
    """Sorts the places the tests run most first: run at all, then (an heir) the most
    subclasses (instances of each run the copy it gets), then the share of its own code run."""
    if not heir:
        return not _exercised(context, helper, place, heir), 0, 0.0
    share = context.line_coverage.get(place, 0.0) if context.line_coverage else 0.0
    return (not _exercised(context, helper, place, heir),
            -len(context.index.descendants(place)), -share)


def _exercised(context: InjectionContext, helper: str, place: str, heir: bool) -> bool:
    """Whether the tests run code of this place (always, without a test map): a caller of
    the helper in that module, or a member of that heir class."""
    index = context.index
    if heir:
        return context.is_covered(place) or any(
            context.is_covered(name) for name in index.children.get(place, {}).values())
    return any(context.is_covered(name) for name in index.call_graph.predecessors(helper)
               if index.scope_module(name) == place)


def _edit(helper: helping.Helper, changes: dict[str, str | None], copies: list[str],
          note: str = "", heirs: Iterable[str] = ()) -> Edit:
    """The edit; `heirs`, the classes that inherit a copy, are involved (the tests that run
    their code are the ones likely to run the copy)."""
    checks = tuple(
        StructuralCheck(kind="duplicated_code.not_cloned",
                        description=f"`{name}` is not part of a group of duplicated code "
                                    "(or is not defined)",
                        params={"qualname": name})
        for name in (helper.qualname, *copies))
    return Edit(
        changes=changes, targets=tuple((name, "method") for name in copies),
        checks=checks, involved=(helper.qualname, *heirs),
        summary=f"copies of `{helper.qualname}`: {', '.join(copies)}" + note)


# -- the helper and its copies ------------------------------------------------------------------


class _Calls(cst.CSTVisitor):
    """Calls of the helper as module D writes them: `h(...)` or `m.h(...)` where the name is the
    module-level import of `h` (or of its module) wherever the call is, not a local rebinding."""

    def __init__(self, scopes: Any, names: set[str], modules: set[str], helper: str):
        super().__init__()
        self.scopes = scopes
        self.names, self.modules, self.helper = names, modules, helper
        self.found: list[cst.Call] = []
        self.shadowed = False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value in self.names:
            name = func
        elif (isinstance(func, cst.Attribute) and func.attr.value == self.helper
              and isinstance(func.value, cst.Name) and func.value.value in self.modules):
            name = func.value
        else:
            return
        if _module_import(self.scopes, name):
            self.found.append(node)
        else:
            self.shadowed = True


def _module_import(scopes: Any, name: cst.Name) -> bool:
    """Whether every binding the name can see is a module-level import."""
    scope = scopes.get(name)
    if scope is None:
        return False
    assignments = scope[name.value]
    return bool(assignments) and all(
        isinstance(item, Assignment) and isinstance(item.scope, GlobalScope)
        and isinstance(item.node, (cst.Import, cst.ImportFrom)) for item in assignments)


def _renamable_params(node: cst.FunctionDef, calls: list[cst.Call]) -> list[str]:
    """Parameters of the copy that its (only) callers never name: safe to rename."""
    if any(arg.star == "**" for call in calls for arg in call.args):
        return []
    named = {arg.keyword.value for call in calls for arg in call.args if arg.keyword}
    params = node.params
    found = [param.name.value for param in (*params.posonly_params, *params.params)]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            found.append(star.name.value)
    return [name for name in found if name not in named and name not in ("self", "cls")]


def _place(context: InjectionContext, helper: helping.Helper, module: str,
           role: str, rng: random.Random) -> tuple[str, str]:
    """Module D's new text with a copy and its calls redirected, and the
    qualname of what was added. Role `table`: the renamed copy, then a module-level table
    holding it, and the calls look the copy up there."""
    index = context.index
    facts = index.modules[module]
    name = naming.copy_name(context, helper.name, helper.qualname, module, rng)
    names, modules = set(), set()
    for item in facts.imports:
        if item.scope != module or item.type_only or "." in item.bound:
            continue
        if item.is_from and index.resolve_dotted(item.target) == helper.qualname:
            names.add(item.bound)
        elif item.target == helper.module:
            modules.add(item.bound)
    if not names and not modules:
        raise InjectionRefused(f"{facts.path} does not import `{helper.name}` or its module at top "
                               "level")
    tree = context.module(facts.path)
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    lines = wrapper.resolve(PositionProvider)
    scopes = wrapper.resolve(ScopeProvider)
    calls: list[cst.Call] = []
    position = None
    for number, statement in enumerate(tree.body):
        visitor = _Calls(scopes, names, modules, helper.name)
        statement.visit(visitor)
        if visitor.shadowed:
            raise InjectionRefused(f"a name bound to `{helper.name}` is rebound in {facts.path}")
        if visitor.found and position is None:
            position = number
        calls.extend(visitor.found)
    if position is None:
        raise InjectionRefused(f"no call of `{helper.name}` written in {facts.path}")
    _refuse_dead_branches(helper, calls, facts.path, receiver=False)
    insert_line = lines[tree.body[position]].start.line
    needs = helping.bindings(context, helper, facts.module, insert_line)
    mapping = {} if role == "copy" else needs.free(naming.local_names(
        [*helper.locals_, *_renamable_params(helper.node, calls)],
        context.module(helper.path).code_for_node(helper.node),
        context.vocabulary.near(module), rng))
    if tree.default_indent != context.module(helper.path).default_indent:
        raise InjectionRefused(f"{facts.path} and {helper.path} indent differently")
    added: cst.BaseStatement = copying.renamed_copy(needs.applied(helper.node), name, mapping)
    statements = [added]
    callee: str = name
    if role == "table":
        table = naming.table_name(context, helper.name, module, rng)
        key = _quoted(helper.name.strip("_") or helper.name, _fstring_quotes(tree, calls))
        statements.append(edit.statement(tree, f"{table} = {{{key}: {name}}}"))
        callee = f"{table}[{key}]"
    replacements: dict[cst.CSTNode, cst.CSTNode] = {}
    imports = _reuse_import(tree, position, names - reexported(context, module, tree), calls,
                            helper.module, needs.imports, replacements)
    redirected = tree.visit(_Redirect(calls, cst.parse_expression(callee), replacements))
    assert isinstance(redirected, cst.Module)
    result = edit.insert_top(redirected, position, statements)
    result = add_imports(result, tree, position, imports, module,
                                  facts.is_package)
    return without_unused(context, module, tree, result).code, f"{module}.{name}"


def _refuse_dead_branches(helper: helping.Helper, calls: list[cst.Call], path: str, *,
                          receiver: bool) -> None:
    """Refuses a module whose calls never pass a parameter a branch of the helper tests: its
    copy would hold a side of that branch no test runs, more of it than the adequacy rule lets
    go unrun (`copying.dead_switches`)."""
    unpassed = copying.dead_switches(helper.node, calls, receiver)
    if unpassed:
        raise InjectionRefused(
            f"no call of `{helper.name}` in {path} passes `{unpassed[0]}`: a copy there would "
            "hold a branch on it that no test can run")


def _fstring_quotes(tree: cst.Module, calls: list[cst.Call]) -> set[str]:
    """The quote characters of the f-strings the calls sit in: a key written inside one must
    use the other quote (before Python 3.12)."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.open: list[str] = []

        def visit_FormattedString(self, node: cst.FormattedString) -> None:
            self.open.append(node.start[-1])

        def leave_FormattedString(self, original_node: cst.FormattedString) -> None:
            self.open.pop()

        def visit_Call(self, node: cst.Call) -> None:
            if node in targets:
                found.update(self.open)

    targets = set(calls)
    tree.visit(Visitor())
    return found


def _quoted(key: str, taken: set[str]) -> str:
    """The key as a string literal with a quote no enclosing f-string uses."""
    quote = next((item for item in ('"', "'") if item not in taken), None)
    if quote is None:
        raise InjectionRefused("a call sits in f-strings quoted both ways: no table key fits")
    return f"{quote}{key}{quote}"


class _Redirect(cst.CSTTransformer):
    """The calls made to call `callee` (children first, so a call in another's arguments is
    redirected too), and other nodes replaced as `replacements` says."""

    def __init__(self, calls: list[cst.Call], callee: cst.BaseExpression,
                 replacements: dict[cst.CSTNode, cst.CSTNode]):
        super().__init__()
        self.calls = set(calls)
        self.callee, self.replacements = callee, replacements

    def on_leave(self, original_node: cst.CSTNode,  # type: ignore[override]
                 updated_node: cst.CSTNode) -> cst.CSTNode:
        if original_node in self.replacements:
            return self.replacements[original_node]
        if isinstance(updated_node, cst.Call) and original_node in self.calls:
            return updated_node.with_changes(func=self.callee)
        return updated_node


class _Reads(cst.CSTVisitor):
    """Bare-name reads of one name, outside imports."""

    def __init__(self, name: str):
        super().__init__()
        self.name, self.count = name, 0

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.count += node.value == self.name


def _reuse_import(tree: cst.Module, position: int, names: set[str], calls: list[cst.Call],
                  helper_module: str, imports: list[tuple[str, str]],
                  replacements: dict[cst.CSTNode, cst.CSTNode]) -> list[tuple[str, str]]:
    """When every read of the imported helper is now a call of the copy, its import would be
    left unused: give its place to the names the copy needs from the same module (or drop it
    from a longer import list). Returns the imports still to add."""
    for bound in sorted(names):
        reads = _Reads(bound)
        tree.visit(reads)
        redirected = sum(isinstance(call.func, cst.Name) and call.func.value == bound
                         for call in calls)
        if reads.count != redirected:
            continue
        for line in tree.body[:position]:
            if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
                continue
            small = line.body[0]
            if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
                continue
            aliases = [tree.code_for_node(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
                       for alias in small.names
                       if (alias.evaluated_alias or alias.evaluated_name) != bound]
            if len(aliases) == len(small.names):
                continue
            same = [text.partition(" import ")[2] for source, text in imports
                    if source == helper_module]
            if not aliases and not same:
                return imports
            spec = "." * len(small.relative) + (
                tree.code_for_node(small.module) if small.module is not None else "")
            (text,) = merged([f"from {spec} import {item}" for item in [*aliases, *same]])
            replacements[line] = edit.statement(tree, text, 0).with_changes(
                leading_lines=line.leading_lines, trailing_whitespace=line.trailing_whitespace)
            return [item for item in imports if item[0] != helper_module]
    return imports
