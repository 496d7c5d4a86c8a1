"""Deep inlining, injected: paste the bodies of a function's helpers (and of their helpers) into it.

A candidate is a function the detector does not report whose statement-level calls go to helpers
of the repository (five source lines or more) that can be inlined safely, forming chains of depth
1 to 3, with enough code between them to make a long, complex function (`_deep_inlining_sites`).
The injection replaces call statements by the helpers' bodies (`_deep_inlining_inline`); the
helpers stay where they are, so every other caller is untouched and the original is the
refactoring: call them again.

- easy: helpers called directly (no chains), each pasted body introduced by a comment naming the
  step (its docstring's first line, or its name).
- medium: two or more helpers, no comments, and indirection: a chain (a helper's own helper
  pasted inside it), a helper from another file, or parameters bound to renamed locals.
- hard: three or more helpers, chains up to depth 3, deeper chains and other files first; the
  helpers the function still calls are the red herrings (they must stay calls).

How many files the smell spans is what the candidate offers: real code mostly calls helpers of
its own module (jinja2: every candidate; click: 16 of 22), so the difficulties are set by
chains, renaming and the number of helpers rather than by file counts.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterable, Sequence
from typing import Any

import libcst as cst
from pydantic import Field

from smellkit.detectors._usage import is_test_path
from smellkit.detectors.deep_inlining import DeepInlining, DeepInliningOptions, is_generated
from smellkit.facts import extract
from smellkit.injectors._deep_inlining_exits import Refused
from smellkit.injectors._deep_inlining_inline import Inliner, Plan, meaning, names_of
from smellkit.injectors._deep_inlining_sites import Site, SiteFinder
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions, Skip
from smellkit.models import Candidate, Difficulty, StructuralCheck

_DEPTH: dict[Difficulty, int] = {"easy": 1, "medium": 2, "hard": 3}
_MIN_HELPERS: dict[Difficulty, int] = {"easy": 1, "medium": 2, "hard": 3}


class DeepInliningInjectorOptions(InjectorOptions):
    max_depth: int = Field(default=3, ge=1, le=3, description="Follow chains of helpers this "
                           "deep when looking for code to inline.")


class DeepInliningInjector(Injector[DeepInliningInjectorOptions]):
    """Inline a function's helpers into it until it reads as several functions in one."""

    name = "deep_inlining"
    description = ("A function whose helpers' bodies were pasted into it: a long, complex "
                   "function made of steps that each read like a function of their own.")
    Options = DeepInliningInjectorOptions

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        finder = SiteFinder(context)
        detector = DeepInlining(DeepInliningOptions())
        rule = detector.options
        flagged = {definition.qualname for facts in context.index.modules.values()
                   for definition, *_ in detector.judge(facts)}
        for qualname in sorted(context.index.definitions):
            definition = context.index.definitions[qualname]
            path = context.path_of(qualname)
            if definition.kind not in ("function", "method") or path is None or \
                    is_test_path(path) or qualname in flagged or (
                        rule.skip_generated and is_generated(context.source(path).splitlines())):
                continue
            plans = _chains(finder, qualname, self.options.max_depth, frozenset({qualname}))
            if not plans:
                continue
            helpers = [plan.site.callee for plan in _flatten(plans)]
            sloc = finder.sloc(qualname) + sum(finder.sloc(name) for name in helpers)
            cc = finder.cc(qualname) + sum(finder.cc(name) - 1 for name in helpers)
            if sloc < rule.min_sloc or cc < rule.min_cc:
                continue
            location = context.location(qualname)
            if location is None:
                continue
            files = sorted({path, *(context.path_of(name) or path for name in helpers)})
            depth = max(_depth(plan) for plan in plans)
            yield Candidate(
                smell=self.name, target=location, files=tuple(files),
                reason=(f"{definition.name} calls {len(plans)} helper(s) of the repository "
                        f"(>= 5 lines each, inlinable: single exit, no super(), no decorators) "
                        f"forming chains of depth {depth} over {len(files)} file(s); pasted in, "
                        f"they would make about {sloc} SLOC and CC {cc}"),
                data={"sites": [_dump(plan) for plan in plans]})

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit | Skip:
        qualname = candidate.target.qualname
        path = context.path_of(qualname)
        if path is None:
            return Skip(f"{qualname} is not defined")
        plans = [_trim(_load(item), _DEPTH[difficulty]) for item in candidate.data["sites"]]
        rng.shuffle(plans)
        if difficulty != "easy":  # deeper chains and other files first: more indirection
            plans.sort(key=lambda plan: (-_depth(plan), -len(_files(context, [plan], path))))
        inliner = Inliner(context, comments=difficulty == "easy")
        chosen: list[Plan] = []
        last: tuple[str, list[str], cst.FunctionDef, int] | None = None
        reasons: list[str] = []
        for plan in plans:
            trial = [*chosen, plan]
            try:
                rewritten = inliner.rewrite(qualname, sorted(trial, key=lambda p: p.site.line))
                imports = _imports(context, qualname, rewritten.needs)
            except Refused as error:
                reasons.append(error.message)
                continue
            chosen = trial
            if not _enough(context, difficulty, chosen, path, rewritten.renamed):
                continue
            try:
                text = _with_imports(path, rewritten.module, imports)
            except Refused as error:
                return Skip(error.message)
            last = (text, rewritten.inlined, rewritten.function, len(imports))
            if _flagged(context, path, qualname, text):
                break
        if not chosen:
            return Skip("no helper could be inlined: " + "; ".join(sorted(set(reasons))[:3]))
        if last is None:
            extra = " and some indirection (a chain, another file or renamed parameters)" \
                if difficulty == "medium" else ""
            return Skip(f"{difficulty} needs {_MIN_HELPERS[difficulty]} helper(s){extra}; only "
                        f"{len(chosen)} could be inlined")
        text, inlined, function, imported = last
        if not _flagged(context, path, qualname, text):
            return Skip("even with every inlinable helper pasted in, the function is not long, "
                        "complex and blocky enough to read as deep inlining")
        herrings = _red_herrings(context, qualname, inlined)
        if difficulty == "hard" and not herrings:
            return Skip("hard needs a red herring: a helper the function still calls")
        direct = sorted({plan.site.callee for plan in chosen})
        return Edit(
            changes={path: text}, targets=((qualname, "method"),),
            checks=_checks(context, qualname, text, function, direct, imported),
            involved=tuple(dict.fromkeys(inlined)), red_herrings=tuple(herrings),
            summary=f"pasted {len(inlined)} helper bodies into {qualname}: "
                    + ", ".join(dict.fromkeys(inlined)))


# -- plans --------------------------------------------------------------------------------------


def _chains(finder: SiteFinder, qualname: str, depth: int, seen: frozenset[str]) -> list[Plan]:
    plans: list[Plan] = []
    for site in finder.sites(qualname):
        if site.callee in seen:
            continue
        inner = _chains(finder, site.callee, depth - 1, seen | {site.callee}) if depth > 1 \
            else []
        plans.append(Plan(site, inner))
    return plans


def _flatten(plans: Sequence[Plan]) -> list[Plan]:
    return [item for plan in plans for item in (plan, *_flatten(plan.inner))]


def _depth(plan: Plan) -> int:
    return 1 + max((_depth(inner) for inner in plan.inner), default=0)


def _trim(plan: Plan, depth: int) -> Plan:
    return Plan(plan.site, [_trim(inner, depth - 1) for inner in plan.inner] if depth > 1 else [])


def _dump(plan: Plan) -> dict[str, Any]:
    site = plan.site
    return {"caller": site.caller, "callee": site.callee, "line": site.line, "form": site.form,
            "method": site.method, "inner": [_dump(inner) for inner in plan.inner]}


def _load(data: dict[str, Any]) -> Plan:
    return Plan(Site(data["caller"], data["callee"], int(data["line"]), data["form"],
                     bool(data["method"])), [_load(inner) for inner in data.get("inner", [])])


def _files(context: InjectionContext, plans: Sequence[Plan], path: str) -> set[str]:
    return {path, *(context.path_of(plan.site.callee) or path for plan in _flatten(plans))}


def _enough(context: InjectionContext, difficulty: Difficulty, chosen: Sequence[Plan],
            path: str, renamed: bool) -> bool:
    helpers = len(_flatten(chosen))
    if helpers < _MIN_HELPERS[difficulty]:
        return False
    if difficulty == "medium":  # indirection: a chain, another file, or renamed parameters
        return any(_depth(plan) >= 2 for plan in chosen) or \
            len(_files(context, chosen, path)) >= 2 or renamed
    return True


# -- the smelly file ------------------------------------------------------------------------------


def _imports(context: InjectionContext, qualname: str,
             needs: dict[str, tuple[str, str]]) -> list[str]:
    """Import statements for the globals pasted code reads that the host module does not bind
    yet (refused when the host binds the name to something else)."""
    host = context.index.module_of[qualname]
    type_only = {item.bound for item in context.index.modules[host].imports
                 if item.scope == host and item.type_only}
    lines: list[str] = []
    for name, (origin, meant) in sorted(needs.items()):
        here = meaning(context, host, name)
        if name in type_only:
            raise Refused(f"{host} imports {name} for type checking only; pasted code would "
                          "read it at run time")
        if here == meant:
            continue
        if here is not None:
            raise Refused(f"{name} means {meant} where it was written and {here} in {host}")
        lines.append(_import_line(context, origin, name, host))
    return list(dict.fromkeys(lines))


def _with_imports(path: str, module: cst.Module, imports: Sequence[str]) -> str:
    """The new text of the host file, the imports added after its last top-level import."""
    if imports:
        body = list(module.body)
        position = 0
        for number, statement in enumerate(body):
            if isinstance(statement, cst.SimpleStatementLine) and all(
                    isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body):
                position = number + 1
        if position == 0:
            raise Refused(f"{path} has no top-level import to add {', '.join(imports)} after")
        statements = [cst.parse_statement(line) for line in imports]
        module = module.with_changes(body=[*body[:position], *statements, *body[position:]])
    return module.code


def _unconditional(context: InjectionContext, module: str, name: str) -> bool:
    """The module binds `name` in a statement of its own top level (not under `if`/`try`,
    where the binding may not happen: a platform-specific import, an optional dependency)."""
    facts = context.index.modules[module]
    for statement in ast.parse(context.source(facts.path)).body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = {statement.name}
        elif isinstance(statement, ast.Import):
            bound = {alias.asname or alias.name.split(".")[0] for alias in statement.names}
        elif isinstance(statement, ast.ImportFrom):
            bound = {alias.asname or alias.name for alias in statement.names}
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else \
                [statement.target]
            bound = {node.id for target in targets for node in ast.walk(target)
                     if isinstance(node, ast.Name)}
        else:
            continue
        if name in bound:
            return True
    return False


def _import_line(context: InjectionContext, origin: str, name: str, host: str) -> str:
    facts = context.index.modules[origin]
    if not _unconditional(context, origin, name):
        raise Refused(f"{origin} binds {name} conditionally: importing it may fail")
    for item in facts.imports:
        if item.scope == origin and item.bound == name:
            if item.type_only:
                raise Refused(f"{name} is imported for type checking only in {origin}")
            if item.is_from:
                source, _, attribute = item.target.rpartition(".")
                return f"from {source} import {attribute}" + (
                    f" as {name}" if attribute != name else "")
            if item.target == name or item.target.startswith(name + "."):
                return f"import {item.target}"
            return f"import {item.target} as {name}"
    import networkx as nx

    graph = context.index.import_graph
    if origin in graph and host in graph and nx.has_path(graph, origin, host):
        raise Refused(f"importing {name} from {origin} into {host} could make an import cycle")
    assigned = [item for item in facts.assignments if item.scope == origin
                and getattr(item.target, "id", None) == name]
    if len(assigned) > 1 or any(declared == name for _, declared in facts.globals_declared):
        raise Refused(f"{origin}.{name} is module state that changes: importing it would copy it")
    return f"from {origin} import {name}"


def _flagged(context: InjectionContext, path: str, qualname: str, text: str) -> bool:
    """Whether the detector's rule reports the function in the new text of its file."""
    facts = context.index.modules[context.index.module_of[qualname]]
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    new = extract(tree, text, path, facts.module, facts.is_package)
    detector = DeepInlining(DeepInliningOptions())
    return any(definition.qualname == qualname for definition, *_ in detector.judge(new))


def _red_herrings(context: InjectionContext, qualname: str, inlined: Sequence[str]) -> list[str]:
    """Helpers of the repository the function still calls: they look like the pasted ones, but
    are calls already and must stay so."""
    graph = context.index.call_graph
    if qualname not in graph:
        return []
    found = []
    for callee in sorted(graph.successors(qualname)):
        definition = context.index.definitions.get(callee)
        if definition is None or callee in inlined or definition.kind not in (
                "function", "method") or definition.end_line - definition.start_line < 4:
            continue
        found.append(callee)
    return found[:3]


def _checks(context: InjectionContext, qualname: str, text: str, function: cst.FunctionDef,
            direct: Sequence[str], imported: int) -> tuple[StructuralCheck, ...]:
    definition = context.index.definitions[qualname]
    lines = definition.end_line - definition.start_line + 1
    name = definition.name
    checks = [
        StructuralCheck(kind="no_finding", description=f"{name} is no longer reported as deep "
                        "inlining", params={"smell": "deep_inlining", "qualnames": [qualname]}),
    ]
    new = text.count("\n") - context.source(context.path_of(qualname) or "").count("\n") \
        - imported
    if new > 4:
        checks.append(StructuralCheck(
            kind="max_lines", description=f"{name} is at most {lines + new // 2} lines long",
            params={"qualname": qualname, "lines": lines + new // 2}))
    mentioned = names_of([function])
    mentioned_attributes = {node.attr.value for node in _attributes(function)}
    for callee in direct:
        short = callee.rpartition(".")[2]
        if short in mentioned.used or short in mentioned_attributes:
            continue  # still called somewhere in the function: the check would not fail
        checks.append(StructuralCheck(
            kind="calls", description=f"{name} calls {short} again instead of doing its work "
            "inline", params={"caller": qualname, "callee": callee}))
    return tuple(checks)


def _attributes(node: cst.CSTNode) -> list[cst.Attribute]:
    found: list[cst.Attribute] = []

    class Collect(cst.CSTVisitor):
        def visit_Attribute(self, inner: cst.Attribute) -> None:
            found.append(inner)

    node.visit(Collect())
    return found
