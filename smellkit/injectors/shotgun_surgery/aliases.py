"""Shotgun-surgery injection of the fourth kind: a type alias written out in its users'
annotations.

The original names a type once, `StrSequenceOrSet = typing.Union[typing.Sequence[str],
typing.AbstractSet[str]]` in `marshmallow.types`, and other modules annotate with the alias. The
smelly version writes the expansion out in those annotations, spelled with the names each module
has (`t.Union[...]` where `typing` is imported as `t`), imports what it lacks (`import typing`
as the alias's module does), and drops an import of the alias (or of its module) left unused, so
widening the type means editing every annotation. The span counts the modules holding copies,
and the alias's own only while it annotates with the alias (`edit.copy_modules`): easy spans 2
files, medium 3+, hard 4+ with red herrings: uses of the alias left as they are, or of another
alias of its module in the modules rewritten.

The alias itself stays, public or private: it is the one place the ground truth (the original)
names the type, the detector needs it to tell a bypass from a type that merely looks alike, and
a public alias is API. Behaviour is kept: only annotations change, and an annotation evaluates
to an equal type whether it names the alias or writes it out; a use outside annotations (a
`cast`, an `isinstance`) leaves the module out. An alias defined under `if TYPE_CHECKING:`
is reported by the detector but not injected: it exists for the type checker only, so its users
import it under TYPE_CHECKING too, where dropping the import may leave an empty block, and the
names its expansion reads may be the checker's only (a run-time import of them could make the
import cycle the block avoids).
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from smellkit._internal import pyast
from smellkit.analysis.keys import Scopes
from smellkit.config import is_test_path
from smellkit.detectors.shotgun_surgery.aliases import (
    Alias,
    Names,
    aliases,
    annotated,
    canonical,
    copies,
    parse,
)
from smellkit.errors import InjectionRefused
from smellkit.facts import FileFacts
from smellkit.injectors.base import Edit, InjectionContext
from smellkit.injectors.shotgun_surgery.edit import (
    Inlined,
    Replace,
    analysed,
    choose_users,
    copies_edit,
    imported,
    spread_candidate,
)
from smellkit.injectors.shotgun_surgery.users import User, must_keep
from smellkit.models import Candidate, Difficulty, StructuralCheck


@dataclass(frozen=True)
class Plan:
    alias: Alias
    users: tuple[User, ...]
    """`bound` is how the user spells the alias: `StrSequenceOrSet` or `types.StrSequenceOrSet`."""
    removable: frozenset[str]
    """Paths of users whose import of the spelling's first name goes once the alias is written
    out (nothing else there uses it, and no other code may import it from there; a module
    whose import must stay but would be left unused is no user)."""
    home_uses: tuple[str, ...]
    """Scopes of the alias's own module that name it: red herrings, left alone."""


def _references(names: Names, tree: ast.Module,
                qualname: str) -> tuple[list[tuple[int, str]], int]:
    """(line, spelling) of each reference to the alias in an annotation (string annotations
    parsed), and how many references stand elsewhere."""
    inside: set[int] = set()
    found: list[tuple[int, str]] = []
    for annotation, _ in annotated(tree):
        for node in ast.walk(annotation):
            inside.add(id(node))
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:
                    parsed = pyast.parse(node.value.strip(), mode="eval")
                except SyntaxError:
                    continue
                found.extend((node.lineno, ast.unparse(item)) for item in ast.walk(parsed)
                             if isinstance(item, ast.Name | ast.Attribute)
                             and names.dotted(item) == qualname)
    outside = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute) and names.dotted(node) == qualname:
            if id(node) in inside:
                found.append((node.lineno, ast.unparse(node)))
            else:
                outside += 1
    return sorted(found), outside


def plans(context: InjectionContext, flagged: frozenset[str], *,
          explain: bool = False) -> list[Plan]:
    """The type aliases other modules annotate with (`explain`: count the others with
    `context.discard`, once per discovery)."""
    analysis = context.analysis
    found: list[Plan] = []
    for alias in aliases(analysis):
        rule = ("a type alias already reported as shotgun surgery" if alias.qualname in flagged
                else "a type alias defined under TYPE_CHECKING (its users import it there)"
                if alias.type_checking else None)
        if rule is not None:
            if explain:
                context.discard(rule)
            continue
        users: list[User] = []
        removable: set[str] = set()
        for facts in sorted(context.index.modules.values(), key=lambda item: item.path):
            if facts.module == alias.module or is_test_path(facts.path) or \
                    alias.name not in context.source(facts.path):
                continue
            tree = parse(analysis, facts.path)
            if tree is None:
                continue
            uses, outside = _references(Names(analysis, facts), tree, alias.qualname)
            if not uses or outside or len({spelling for _, spelling in uses}) > 1:
                continue  # a use at run time, or two spellings: left alone
            spelling = uses[0][1]
            scopes = Scopes(facts)
            lines = tuple(line for line, _ in uses)
            users.append(User(facts.module, facts.path, spelling, lines,
                              tuple(sorted({scopes.at(line) for line in lines})), False))
            unused = _unused_after(facts, tree, spelling, len(uses))
            if unused and must_keep(context, facts, spelling.partition(".")[0]):
                continue  # its import must stay, and would be left unused
            if unused:
                removable.add(facts.path)
        if not users:
            if explain:
                context.discard("a type alias no other module names in annotations only")
            continue
        home = context.index.modules[alias.module]
        own = [line for line, _ in _references(Names(analysis, home),
                                               parse(analysis, alias.path) or ast.Module([], []),
                                               alias.qualname)[0]]
        found.append(Plan(alias, tuple(users), frozenset(removable),
                          tuple(sorted({Scopes(home).at(line) for line in own}))))
    return found


def _unused_after(facts: FileFacts, tree: ast.Module, spelling: str, uses: int) -> bool:
    """Whether the imported name the spelling starts with is read only by the alias's
    references, so its import is unused once they are written out."""
    head = spelling.partition(".")[0]
    if not any(item.scope == facts.module and item.bound == head for item in facts.imports):
        return False
    reads = sum(1 for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == head)
    quoted = sum(len(re.findall(rf"(?<![.\w]){re.escape(head)}\b", node.value))
                 for annotation, _ in annotated(tree) for node in ast.walk(annotation)
                 if isinstance(node, ast.Constant) and isinstance(node.value, str))
    return reads + quoted <= uses


def _lookalikes(context: InjectionContext, alias: Alias, users: Sequence[User]) -> set[str]:
    """Scopes of the users whose annotations name another name of the alias's module (another
    alias, a protocol): the module used as it should be, next to the copies."""
    analysis = context.analysis
    found: set[str] = set()
    for user in users:
        facts = context.index.modules[user.module]
        tree = parse(analysis, user.path)
        if tree is None:
            continue
        names, scopes = Names(analysis, facts), Scopes(facts)
        for annotation, line in annotated(tree):
            for node in ast.walk(annotation):
                dotted = names.dotted(node) if isinstance(node, ast.Name | ast.Attribute) else None
                if dotted is not None and dotted != alias.qualname and \
                        dotted.rpartition(".")[0] == alias.module:
                    found.add(scopes.at(line))
    return found


def candidates(context: InjectionContext, flagged: frozenset[str],
               min_copies: int) -> list[Candidate]:
    found: list[Candidate] = []
    for plan in plans(context, flagged, explain=True):
        if sum(len(user.lines) for user in plan.users) < min_copies:
            context.discard("a type alias with too few annotations in other modules to write out")
            continue
        # centred, as a constant's candidate is, on a definition of the module annotating
        # most: a module-level name has no location of its own
        main = max(plan.users, key=lambda user: (len(user.lines), user.path))
        location = next((where for scope in main.scopes
                         if (where := context.location(scope)) is not None), None)
        if location is None:
            context.discard("a type alias whose main user has no definition to point at")
            continue
        found.append(spread_candidate(
            location, plan.alias.path, plan.users, "a type alias", "annotating in",
            "annotations", {"alias": plan.alias.qualname,
                            "users": [user.module for user in plan.users]},
            plan.alias.qualname))
    return found


class _Spelling:
    """The alias's expansion as one user module writes it, and the imports it needs there."""

    def __init__(self, context: InjectionContext, alias: Alias, user: User):
        analysis = context.analysis
        self.context = context
        self.alias = alias
        self.home = Names(analysis, context.index.modules[alias.module])
        self.facts = context.index.modules[user.module]
        self.names = Names(analysis, self.facts)
        self.source = context.source(user.path)
        self.postponed = "from __future__ import annotations" in self.source
        self.adds: dict[str, str] = {}
        """Import statements to add, by the name each binds."""

    def _taken(self, name: str) -> bool:
        return name in self.names.bound or name in self.names.own or \
            re.search(rf"(?<![.\w]){re.escape(name)}\b", self.source) is not None

    def spell(self, node: ast.expr, dotted: str) -> str:
        """How the user module writes the dotted name `node` (of the alias's module) means."""
        if "." not in dotted:  # a builtin
            if dotted in self.names.bound or dotted in self.names.own:
                raise InjectionRefused(f"{dotted} means something else in {self.facts.path}")
            return dotted
        best: tuple[int, str] | None = None
        for bound, item in self.names.imports.items():
            if item.type_only and not self.postponed:
                continue
            target = canonical(self.context.index, item.target)
            if target == dotted:
                return bound
            if dotted.startswith(target + ".") and (best is None or len(target) > best[0]):
                best = (len(target), bound + dotted[len(target):])
        if best is not None:
            return best[1]
        module, _, name = dotted.rpartition(".")
        if module == self.facts.module:
            return name
        return self._add(node, dotted)

    def _add(self, node: ast.expr, dotted: str) -> str:
        """Import what the alias's module imports for the name, the way it does."""
        chain = node
        while isinstance(chain, ast.Attribute):
            chain = chain.value
        head = chain.id if isinstance(chain, ast.Name) else ""
        item = self.home.imports.get(head)
        if item is None:
            raise InjectionRefused(f"{dotted} is no import of {self.alias.module}")
        top = item.target.partition(".")[0]
        if top in self.context.index.modules or any(
                name.startswith(top + ".") for name in self.context.index.modules):
            raise InjectionRefused(f"{self.facts.path} would import {item.target} at run time "
                                   "(an import cycle risk)")
        if head in self.adds or not self._taken(head):
            if item.is_from:
                module, _, name = item.target.rpartition(".")
                alias = f" as {head}" if name != head else ""
                self.adds[head] = f"from {module} import {name}{alias}"
            else:
                alias = f" as {head}" if item.target != head else ""
                self.adds[head] = f"import {item.target}{alias}"
            return ast.unparse(node)
        raise InjectionRefused(f"{head} means something else in {self.facts.path}")

    def text(self) -> tuple[str, str | None]:
        """The expansion written in the user module's names, and for a `Union[...]` its members
        joined by `|` (how it is written among the parts of a `|` union, `bool | A | B | None`
        rather than `bool | Union[A, B] | None`, and anywhere in a module that postpones
        annotations), else None."""
        spelling = self

        class Respell(ast.NodeTransformer):
            def _chain(self, node: ast.Name | ast.Attribute) -> ast.AST:
                dotted = spelling.home.dotted(node)
                if dotted is None:
                    raise InjectionRefused(f"{ast.unparse(node)} does not resolve in "
                                           f"{spelling.alias.module}")
                return pyast.parse(spelling.spell(node, dotted), mode="eval").body

            def visit_Name(self, node: ast.Name) -> ast.AST:
                return self._chain(node)

            def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
                return self._chain(node)

        value = self.alias.value
        copy = Respell().visit(pyast.parse(ast.unparse(value), mode="eval")).body
        members = None
        if isinstance(value, ast.Subscript) and isinstance(copy, ast.Subscript) and \
                isinstance(copy.slice, ast.Tuple) and \
                self.home.dotted(value.value) == "typing.Union":
            members = " | ".join(ast.unparse(item) for item in copy.slice.elts)
        return ast.unparse(copy), members


class _WriteOut(Replace):
    """References spelled `spelling` inside annotations replaced by `expansion` (string
    annotations: the words replaced in the string); `adds` imported after the last top-level
    import; the import of the spelling's first name dropped (`alias`, `statement`)."""

    def __init__(self, spelling: str, expansion: str, members: str | None, adds: Sequence[str],
                 alias: cst.ImportAlias | None, statement: cst.ImportFrom | None):
        super().__init__(set(), "", alias, statement)
        self.spelling = spelling
        self.expansion = expansion
        self.members = members
        self.postponed = False
        """The module postpones annotations: `A | B` reads as its own idiom anywhere."""
        self.operands: set[cst.CSTNode] = set()
        self.adds = adds
        self.depth = 0
        self.attributes: set[cst.Name] = set()
        self.word = re.compile(rf"(?<![.\w]){re.escape(spelling)}(?![\w.])")

    def visit_Annotation(self, node: cst.Annotation) -> bool:
        self.depth += 1
        return True

    def leave_Annotation(self, original_node: cst.Annotation,
                         updated_node: cst.Annotation) -> cst.Annotation:
        self.depth -= 1
        return updated_node

    def _matches(self, node: cst.BaseExpression) -> bool:
        parts: list[str] = []
        while isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        return isinstance(node, cst.Name) and \
            ".".join([node.value, *reversed(parts)]) == self.spelling

    def _expanded(self, original: cst.BaseExpression,
                  node: cst.BaseExpression) -> cst.BaseExpression:
        self.replaced += 1
        text = self.members if self.members and (self.postponed or original in self.operands) \
            else self.expansion
        return cst.parse_expression(text).with_changes(lpar=node.lpar, rpar=node.rpar)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> bool:
        if self.depth and isinstance(node.operator, cst.BitOr):
            self.operands.update((node.left, node.right))
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.attributes.add(node.attr)  # `x.Name` is never the alias imported as `Name`
        return not (self.depth and self._matches(node))

    def leave_Attribute(self, original_node: cst.Attribute,
                        updated_node: cst.Attribute) -> cst.BaseExpression:
        if self.depth and self._matches(original_node):
            return self._expanded(original_node, updated_node)
        return updated_node

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        if self.depth and "." not in self.spelling and original_node.value == self.spelling \
                and original_node not in self.attributes:
            return self._expanded(original_node, updated_node)
        return updated_node

    def leave_SimpleString(self, original_node: cst.SimpleString,
                           updated_node: cst.SimpleString) -> cst.BaseExpression:
        if not self.depth or not self.word.search(updated_node.value):
            return updated_node
        if updated_node.quote[0] in self.expansion:
            raise InjectionRefused("the expansion holds a quote of the string annotation")
        count = len(self.word.findall(updated_node.value))
        self.replaced += count
        return updated_node.with_changes(value=self.word.sub(self.expansion, updated_node.value))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        module = super().leave_Module(original_node, updated_node)
        if not self.adds:
            return module
        body = list(module.body)
        last = max((number for number, line in enumerate(body)
                    if isinstance(line, cst.SimpleStatementLine) and all(
                        isinstance(small, cst.Import | cst.ImportFrom) for small in line.body)),
                   default=-1)
        if last < 0:  # after the docstring, if any
            first = body[0] if body else None
            last = 0 if isinstance(first, cst.SimpleStatementLine) and isinstance(
                first.body[0], cst.Expr) else -1
        added = [cst.parse_statement(text) for text in sorted(self.adds)]
        return module.with_changes(body=[*body[:last + 1], *added, *body[last + 1:]])


def write_out(source: str, spelling: str, expansion: tuple[str, str | None],
              adds: Sequence[str], uses: int, remove: bool) -> Inlined:
    """Replace the `uses` annotation references spelled `spelling` by `expansion` (its members
    joined by `|` among the parts of a `|` union, see `_Spelling.text`), add the
    import statements `adds`, and (`remove`) drop the import of the spelling's first name."""
    module, scopes, _ = analysed(source)
    head = spelling.partition(".")[0]
    alias: cst.ImportAlias | None = None
    statement: cst.ImportFrom | None = None
    if remove:
        found = imported(module, scopes, head)
        alias, statement = found.alias, found.statement
    transformer = _WriteOut(spelling, *expansion, adds, alias, statement)
    transformer.postponed = "from __future__ import annotations" in source
    result = module.visit(transformer)
    if transformer.replaced != uses:
        raise InjectionRefused(f"{transformer.replaced} of {uses} annotations naming {spelling} "
                               "could be rewritten")
    return Inlined(result.code, ())


def inject(context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
           rng: random.Random, flagged: frozenset[str], min_copies: int) -> Edit:
    qualname = str(candidate.data.get("alias", ""))
    plan = next((item for item in plans(context, flagged) if item.alias.qualname == qualname), None)
    if plan is None:
        raise InjectionRefused(f"{qualname} is no longer a type alias other modules annotate with")
    alias = plan.alias
    users = list(plan.users)
    rng.shuffle(users)

    def rewrite(user: User) -> Inlined:
        spelled = _Spelling(context, alias, user)
        expansion = spelled.text()
        result = write_out(context.source(user.path), user.bound, expansion,
                           list(spelled.adds.values()), len(user.lines),
                           user.path in plan.removable)
        return Inlined(result.text, user.lines)

    home_live = bool(plan.home_uses)
    edits, chosen = choose_users(users, difficulty, min_copies, rewrite, "annotating",
                                 home_live=home_live)
    herrings = sorted({scope for user in plan.users if user not in chosen
                       for scope in user.scopes} | set(plan.home_uses))
    herrings += sorted(_lookalikes(context, alias, chosen) - set(herrings))
    if difficulty == "hard" and not herrings:
        raise InjectionRefused("hard needs a red herring: a use of the alias, or of another alias "
                               "of its module, left as it is")
    scopes = {Scopes(context.index.modules[user.module]).at(line)
              for user in chosen for line in user.lines}
    targets = sorted(scope for scope in scopes - flagged if scope in context.index.definitions)
    state = sorted(scopes - set(targets) - flagged)
    if not targets:
        raise InjectionRefused("every annotation is at module level; no definition to point at")
    copied = sum(len(user.lines) for user in chosen)
    if copied < min_copies:
        raise InjectionRefused(f"only {copied} annotations; the detector needs {min_copies}")
    before = len(copies(context.analysis, alias))
    kept = StructuralCheck(
        kind="shotgun_surgery.alias_copies",
        description=(f"{qualname} is still a type alias, and its expansion is written out in at "
                     f"most {before} annotations of other modules"),
        params={"alias": qualname, "max_copies": before})
    # the alias is a place a change of the type must edit while its own module annotates
    # with it (its module stands for it: a module-level name has no location of its own)
    home = [alias.module] if home_live else []
    return copies_edit({path: edit.text for path, edit in edits.items()}, targets, kept,
                       sorted({*home, *state}), herrings,
                       f"wrote {qualname} out in {copied} annotations of {len(chosen)} modules "
                       f"({difficulty})")
