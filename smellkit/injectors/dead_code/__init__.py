"""Dead code injector: graft code nothing can reach onto a function that calls another module.

A candidate is a function or method `f` (module A) that returns and calls, in writing, a plain
top-level function `g` of another module B of the same package. Every injection adds a private
twin of `g` in B (a superseded helper delegating to `g`) and reaches it only from code that never
runs. Every wrapper takes g's exact parameters, as written, and hands them on by name
(`_dead_code_signature`), so its shape does not give it away; its name is made of the words of
the code it imitates and of its module, and where it goes is chosen by the seed
(`_dead_code_places`):

- easy (2 files): `f` gets an explicit second `return` of the twin after its last `return` (in
  whatever block that is); A imports the twin beside its import of `g`.
- medium (3 files): a delegation chain nothing calls: a function in A -> a wrapper in a third
  module C -> the twin in B.
- hard (4 files): the chain goes through a fourth module D too, in either order, and one of its
  wrappers may look the next one up in a module-level table; `g` and `f` are the red herrings
  (live code the chain imitates).

Nothing is injected outside the analysed package: the modules are those of one package (a
folder with `__init__.py`), never a `__main__` module nor the `if __name__ == "__main__":` block
of a script. Behaviour is preserved: the new functions are never called, their imports are
local to them, and the one new module-level import (easy) sits beside an import A already makes
from B. Structural checks ask that the grafted names be gone or reached from live code
(`dead_code.absent_or_used`) and that `f` has no unreachable statement
(`dead_code.reachable_body`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import NamedTuple

import libcst as cst

from smellkit.checks.dead_code import dead_findings
from smellkit.config import is_test_path
from smellkit.detectors.dead_code import DeadCode
from smellkit.errors import InjectionRefused
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.cst import edit
from smellkit.injectors.cst.imports import add_imports
from smellkit.injectors.dead_code import graft
from smellkit.injectors.dead_code import signature as sig
from smellkit.injectors.dead_code.places import insert, main_guard_lines, new_name, spots
from smellkit.models import Candidate, Difficulty, StructuralCheck


class _Reference(NamedTuple):
    """How module A names `g`: `g(...)` after `from B import g`, or `m.g(...)` after importing
    module B as `m`."""

    style: str  # name | attribute
    bound: str
    line: int


class _Plan(NamedTuple):
    f: str
    g: str
    a: str  # paths
    b: str
    reference: _Reference | None  # needed by the easy graft only


class DeadCodeInjector(Injector[InjectorOptions]):
    """Unreachable calls into a compatibility shim, alone or at the end of a dead chain."""

    smell = DeadCode.smell
    description = ("Grafts code that can never run: a call after the last `return` of a "
                   "function, or a chain of unused private wrappers across modules that ends "
                   "in a compatibility shim.")
    Options = InjectorOptions

    # -- candidates ------------------------------------------------------------------------

    def candidates(self, context: InjectionContext) -> Iterable[Candidate]:
        index = context.index
        graph = index.call_graph
        touched = _flagged_spans(context)
        for facts in sorted(index.modules.values(), key=lambda item: item.path):
            if is_test_path(facts.path) or facts.module.rpartition(".")[2] == "__main__":
                context.discard("a test or __main__ module", len(facts.definitions))
                continue
            if not _in_package(context, facts.module):
                context.discard("not in a package (a script or example)",
                                len(facts.definitions))
                continue
            guarded = main_guard_lines(context.source(facts.path))
            returns = {item.scope for item in facts.returns}
            unreachable = {span.scope for span in facts.liveness.unreachable}
            for definition in facts.definitions:
                qualname = definition.qualname
                if (definition.kind not in ("function", "method") or definition.is_stub
                        or index.definitions.get(qualname) is not definition
                        or qualname not in returns or qualname in unreachable
                        or qualname not in graph or definition.decorators):
                    continue
                if any(start <= definition.start_line <= end for start, end in guarded):
                    context.discard("under `if __name__ == \"__main__\":`")
                    continue
                parts = edit.relative_parts(qualname, facts.module)
                if parts is None or len(parts) > 2 or (
                        len(parts) == 2 and definition.kind != "method"):
                    continue
                if any(start <= definition.end_line + 1 and end >= definition.start_line
                       for start, end in touched.get(facts.path, ())):
                    context.discard("already dead code there")
                    continue
                written = {call.line for call in facts.calls
                           if call.scope == qualname and not call.implicit}
                callees = sorted(  # called in writing, not as a decorator
                    callee for callee in graph.successors(qualname)
                    if _module_function(context, callee, facts.module)
                    and written & set(graph.edges[qualname, callee].get("lines", ())))
                if not callees:
                    context.discard("calls no plain function of another module of its package")
                    continue
                location = context.location(qualname)
                if location is None:
                    continue
                files = sorted({facts.path, *(context.path_of(name) or "" for name in callees)})
                yield Candidate(
                    smell=self.name, target=location,
                    reason=f"`{qualname}` ends with a return and calls "
                           f"{', '.join(f'`{name}`' for name in callees[:3])} of another module: "
                           "a shim of the callee can be reached from code that never runs",
                    files=tuple(name for name in files if name),
                    data={"callees": callees})

    # -- injection -------------------------------------------------------------------------

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        callees = list(candidate.data.get("callees", ()))
        rng.shuffle(callees)
        refusal = InjectionRefused("no callee of another module to shim")
        for g in callees:
            try:
                plan = self._plan(context, candidate.target.qualname, g)
                if difficulty == "easy":
                    return self._easy(context, plan, rng)
                return self._chain(context, plan, difficulty, rng)
            except InjectionRefused as error:  # the last callee's reason is reported
                refusal = error
        raise refusal

    def _plan(self, context: InjectionContext, f: str, g: str) -> _Plan:
        index = context.index
        a_module, b_module = index.module_of.get(f), index.module_of.get(g)
        if a_module is None or b_module is None:
            raise InjectionRefused(f"{f} or {g} is not in the index")
        facts = index.modules[a_module]
        return _Plan(f, g, facts.path, index.modules[b_module].path,
                     _reference(context, a_module, g))

    def _shim(self, context: InjectionContext, plan: _Plan, rng: random.Random,
              taken: set[str], also: tuple[str, ...] = ()
              ) -> tuple[str, cst.Module, sig.Signature, cst.FunctionDef]:
        """B with a private twin of `g` (g's own parameters, handed on by name) right after `g`
        or after another definition of B, as the seed says."""
        index = context.index
        g_name = index.definitions[plan.g].name
        b_module = index.module_of[plan.g]
        module = context.module(plan.b)
        position = edit.top_index(module, g_name)
        if position is None:
            raise InjectionRefused(f"`{plan.g}` is not a top-level statement of {plan.b}")
        function = module.body[position]
        if not isinstance(function, cst.FunctionDef):
            raise InjectionRefused(f"`{plan.g}` is bound last by a class statement in {plan.b}")
        try:
            found = sig.signature(module, function)
            sig.require_unshadowed(found, [g_name])
        except InjectionRefused as refusal:
            raise InjectionRefused(f"`{plan.g}`: {refusal.message}") from refusal
        shim = new_name(context, b_module, [plan.g], rng, taken, also=also)
        text = (f"{sig.header(module, function, shim)}\n"
                f"    return {g_name}({found.forward})\n")
        places = spots(module)
        where = position + 1 if rng.random() < 0.5 or position + 1 not in places else \
            rng.choice(places)
        return shim, cst.parse_module(insert(module, [text], where)), found, function

    def _easy(self, context: InjectionContext, plan: _Plan, rng: random.Random) -> Edit:
        shim, b_tree, _, _ = self._shim(context, plan, rng, set(), also=(plan.a,))
        index = context.index
        a_module = index.module_of[plan.f]
        tree = context.module(plan.a)
        function = edit.find_definition(tree, edit.relative_parts(plan.f, a_module) or [])
        if not isinstance(function, cst.FunctionDef) or \
                not isinstance(function.body, cst.IndentedBlock):
            raise InjectionRefused(f"`{plan.f}` is not a plain def in {plan.a}")
        block = graft.last_return_block(function)
        if block is None:
            raise InjectionRefused(f"`{plan.f}` has no plain `return` statement of its own")
        g_name = index.definitions[plan.g].name
        reference = plan.reference
        if reference is None:
            raise InjectionRefused(f"{a_module} does not import `{plan.g}` or its module at top "
                                   "level")
        call = _first_call(function, reference, g_name)
        if call is None:
            raise InjectionRefused(f"no call of `{g_name}` written in `{plan.f}` outside a "
                                   "comprehension, lambda or nested definition")
        func: cst.BaseExpression = cst.Name(shim) if reference.style == "name" else \
            cst.Attribute(value=cst.Name(reference.bound), attr=cst.Name(shim))
        tail = cst.SimpleStatementLine([cst.Return(value=cst.Call(func=func, args=call.args))])
        replacements: dict[cst.CSTNode, cst.CSTNode] = {
            block: block.with_changes(body=[*block.body, tail])}
        a_tree = edit.replace(tree, replacements)
        if reference.style == "name":
            b_module = index.module_of[plan.g]
            package = index.modules[a_module].is_package
            found = graft.import_statement(tree, g_name, b_module, a_module, package)
            if found is not None:
                position = list(tree.body).index(found[0]) + 1
                a_tree = add_imports(a_tree, tree, position, [(b_module, f"from {b_module} "
                                                              f"import {shim}")],
                                     a_module, package)
            else:  # imported under a module-level `if` or `try`: import the shim beside it
                nested = graft.nested_import(tree, g_name, b_module, a_module, package)
                if nested is None:
                    raise InjectionRefused(f"the import of `{g_name}` in {plan.a} is not a "
                                           "module-level statement")
                line, small = nested
                spec = "." * len(small.relative) + (
                    tree.code_for_node(small.module) if small.module is not None else "")
                added = cst.parse_statement(f"from {spec} import {shim}",
                                            config=tree.config_for_parsing)
                a_tree = a_tree.visit(graft.After(line, added))
        b_qualname = f"{index.module_of[plan.g]}.{shim}"
        return Edit(
            changes={plan.a: a_tree.code, plan.b: b_tree.code},
            targets=((plan.f, "method"),),
            checks=(_reachable_check(plan.f), _used_check(b_qualname, "function")),
            involved=(b_qualname, plan.g),
            summary=f"`{plan.f}` returns a call of the new `{b_qualname}` after its last "
                    "return")

    def _chain(self, context: InjectionContext, plan: _Plan, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        index = context.index
        a_module, b_module = index.module_of[plan.f], index.module_of[plan.g]
        taken: set[str] = set()
        shim, b_tree, found, g_def = self._shim(context, plan, rng, taken)
        b_source = context.module(plan.b)
        sig.require_carried(context, found, b_module, a_module)
        needed = 1 if difficulty == "medium" else 2
        others = [name for name in _other_modules(context, a_module, b_module)
                  if sig.carries(context, found, b_module, name)]
        if len(others) < needed:
            raise InjectionRefused(f"the package has fewer than {needed} other module(s) where "
                                   f"`{plan.g}`'s signature means the same")
        middle = rng.sample(others, needed)  # the order of C and D varies too
        # from the end of the chain back to its head: each wrapper hands on to the next one
        changes: dict[str, str | None] = {plan.b: b_tree.code}
        chain: list[str] = []
        checks: list[StructuralCheck] = []
        next_module, next_name = b_module, shim
        table_at = rng.choice([*range(len(middle)), None]) if difficulty == "hard" else None
        for number, module in reversed(list(enumerate(middle))):
            near = [plan.g, plan.f] if rng.random() < 0.5 else [plan.f, plan.g]
            name = new_name(context, module, near, rng, taken)
            body = [edit.import_text(next_module, [next_name]), ""]
            texts: list[str] = []
            if number == table_at:
                table = new_name(context, module, [plan.g, next_name], rng, taken,
                                 what="table")
                local = new_name(context, module, [plan.g], rng, taken, what="local",
                                 private=False)
                sig.require_unshadowed(found, [table, local])
                texts.append(f"{table} = {{}}\n")
                key = index.definitions[plan.g].name
                quote = "'" if context.source(index.modules[module].path).count("'") > \
                    context.source(index.modules[module].path).count('"') else '"'
                body += [f"{local} = {table}.get({quote}{key}{quote}, {next_name})",
                         f"return {local}({found.forward})"]
                checks.append(_used_check(f"{module}.{table}", "variable"))
            else:
                body.append(f"return {next_name}({found.forward})")
            try:
                sig.require_unshadowed(found, [next_name, name])
            except InjectionRefused as refusal:
                raise InjectionRefused(f"`{plan.g}`: {refusal.message}") from refusal
            texts.append(f"{sig.header(b_source, g_def, name)}\n"
                         + "".join(f"    {line}\n" if line else "\n" for line in body))
            path = index.modules[module].path
            tree = context.module(path)
            changes[path] = insert(tree, texts, rng.choice(spots(tree)))
            chain.insert(0, f"{module}.{name}")
            next_module, next_name = module, name
        head = new_name(context, a_module, [plan.f, plan.g], rng, taken)
        sig.require_unshadowed(found, [next_name, head])
        a_tree = context.module(plan.a)
        position = edit.top_index(a_tree, plan.f.removeprefix(a_module + ".").split(".")[0])
        if position is None:
            raise InjectionRefused(f"`{plan.f}` is not under a top-level statement of {plan.a}")
        places = spots(a_tree)
        where = position + 1 if position + 1 in places and rng.random() < 0.5 else \
            rng.choice(places)
        a_text = (f"{sig.header(b_source, g_def, head)}\n"
                  f"    {edit.import_text(next_module, [next_name])}\n\n"
                  f"    return {next_name}({found.forward})\n")
        changes[plan.a] = insert(a_tree, [a_text], where)
        chain.insert(0, f"{a_module}.{head}")
        shim_qualname = f"{b_module}.{shim}"
        checks = [_used_check(name, "function") for name in [*chain, shim_qualname]] + checks
        return Edit(
            changes=changes, targets=((chain[0], "method"),), checks=tuple(checks),
            involved=(*chain[1:], shim_qualname),
            red_herrings=(plan.g,) if difficulty == "medium" else (plan.g, plan.f),
            summary=f"unused chain {' -> '.join(chain)} -> {shim_qualname} -> {plan.g}")


# -- helpers ----------------------------------------------------------------------------------


def _flagged_spans(context: InjectionContext) -> dict[str, list[tuple[int, int]]]:
    """Lines of the original that the dead-code detector already reports, by path."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for finding in dead_findings(context.analysis):
        for location in (finding.location, *finding.related):
            spans.setdefault(location.path, []).append(
                (location.start_line, location.end_line))
    return spans


def _module_function(context: InjectionContext, qualname: str, caller_module: str) -> bool:
    index = context.index
    definition = index.definitions.get(qualname)
    module = index.module_of.get(qualname)
    if definition is None or module is None or module == caller_module:
        return False
    path = index.modules[module].path
    if module.split(".")[0] != caller_module.split(".")[0] or not _in_package(context, module):
        return False  # the library's own code only: not a script calling into it
    return (definition.kind == "function" and definition.parent == module
            and definition.col == 0 and not definition.is_async  # a plain top-level def
            and not definition.decorators and not is_test_path(path))


def _in_package(context: InjectionContext, module: str) -> bool:
    """A package's `__init__` or a module of a package (its folder holds an `__init__.py`),
    not `__main__`: scripts, examples and loose modules beside the package are not the library
    (a library may keep most of its code in its `__init__.py`, as cachetools does)."""
    index = context.index
    if module.rpartition(".")[2] == "__main__":
        return False
    if module in index.modules and index.modules[module].is_package:
        return True
    parent = module.rpartition(".")[0]
    return bool(parent) and parent in index.modules and index.modules[parent].is_package


def _reference(context: InjectionContext, a_module: str, g: str) -> _Reference | None:
    index = context.index
    g_module, g_name = index.module_of[g], index.definitions[g].name
    for item in index.modules[a_module].imports:
        if item.scope != a_module or item.type_only or "." in item.bound:
            continue
        if item.is_from and item.target == g and item.bound == g_name:
            return _Reference("name", item.bound, item.line)
        if item.target == g_module:
            return _Reference("attribute", item.bound, item.line)
    return None


class _Calls(cst.CSTVisitor):
    def __init__(self, reference: _Reference, name: str):
        super().__init__()
        self.reference, self.name = reference, name
        self.found: list[cst.Call] = []

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False  # a call in here may read names the function's own scope lacks

    def visit_ListComp(self, node: cst.ListComp) -> bool:
        return False

    def visit_SetComp(self, node: cst.SetComp) -> bool:
        return False

    def visit_DictComp(self, node: cst.DictComp) -> bool:
        return False

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self.reference.style == "name":
            hit = isinstance(func, cst.Name) and func.value == self.name
        else:
            hit = (isinstance(func, cst.Attribute) and func.attr.value == self.name
                   and isinstance(func.value, cst.Name)
                   and func.value.value == self.reference.bound)
        if hit:
            self.found.append(node)


def _first_call(function: cst.FunctionDef, reference: _Reference, name: str) -> cst.Call | None:
    visitor = _Calls(reference, name)
    function.body.visit(visitor)
    return visitor.found[0] if visitor.found else None


def _other_modules(context: InjectionContext, *exclude: str) -> list[str]:
    """Modules of the same top-level package as the first excluded one, outside tests."""
    package = exclude[0].split(".")[0]
    return sorted(name for name, facts in context.index.modules.items()
                  if name not in exclude and name.split(".")[0] == package
                  and not is_test_path(facts.path) and not facts.is_package
                  and name.rpartition(".")[2] != "__main__")


def _used_check(qualname: str, what: str) -> StructuralCheck:
    return StructuralCheck(
        kind="dead_code.absent_or_used",
        description=f"`{qualname}` is not defined, or code that can run uses it",
        params={"qualname": qualname, "what": what})


def _reachable_check(qualname: str) -> StructuralCheck:
    return StructuralCheck(
        kind="dead_code.reachable_body",
        description=f"every statement of `{qualname}` can run (or it is not defined)",
        params={"qualname": qualname})

