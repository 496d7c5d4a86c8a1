"""Dead code injector: graft code nothing can reach onto a function that calls another module.

A candidate is a function or method `f` (module A) that returns and calls, in writing, a plain
top-level function `g` of another module B. Every injection adds a compatibility shim of `g` in B
(`_g_compat`, delegating to `g`) and reaches it only from code that never runs. Every wrapper of
the chain takes g's exact parameters, as written, and hands them on by name
(`_dead_code_signature`), so its shape does not give it away:

- easy (2 files): `f` gets an explicit second `return _g_compat(...)` after its last `return`
  (in whatever block that is); A imports the shim beside its import of `g`.
- medium (3 files): a delegation chain nothing calls: `_legacy_f` in A -> `_f_fallback` (a
  wrapper with a defaulted parameter) in a third module C -> the shim in B.
- hard (4 files): the chain goes through a fourth module D, whose adapter looks the shim up in a
  module-level table; `g` and `f` are the red herrings (live code the chain imitates).

Behaviour is preserved: the new functions are never called, their imports are local to them, and
the one new module-level import (easy) sits beside an import A already makes from B. Structural
checks ask that the grafted names be gone or reached from live code (`dead_code.absent_or_used`) and
that `f` has no unreachable statement (`dead_code.reachable_body`).
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


def _short(name: str) -> str:
    return name.strip("_") or "call"


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
                continue
            returns = {item.scope for item in facts.returns}
            unreachable = {span.scope for span in facts.liveness.unreachable}
            for definition in facts.definitions:
                qualname = definition.qualname
                if (definition.kind not in ("function", "method") or definition.is_stub
                        or index.definitions.get(qualname) is not definition
                        or qualname not in returns or qualname in unreachable
                        or qualname not in graph or definition.decorators):
                    continue
                parts = edit.relative_parts(qualname, facts.module)
                if parts is None or len(parts) > 2 or (
                        len(parts) == 2 and definition.kind != "method"):
                    continue
                if any(start <= definition.end_line + 1 and end >= definition.start_line
                       for start, end in touched.get(facts.path, ())):
                    continue  # the original already has dead code here
                written = {call.line for call in facts.calls
                           if call.scope == qualname and not call.implicit}
                callees = sorted(  # called in writing, not as a decorator
                    callee for callee in graph.successors(qualname)
                    if _module_function(context, callee, facts.module)
                    and written & set(graph.edges[qualname, callee].get("lines", ())))
                if not callees:
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
                    return self._easy(context, plan)
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

    def _shim(self, context: InjectionContext,
              plan: _Plan) -> tuple[str, cst.Module, sig.Signature, cst.FunctionDef]:
        """B with `_g_compat` inserted right after `g`: g's own parameters, handed on by name."""
        g_name = context.index.definitions[plan.g].name
        shim = f"_{_short(g_name)}_compat"
        source = context.source(plan.b)
        if not edit.name_free(source, shim):
            raise InjectionRefused(f"`{shim}` is already a name in {plan.b}")
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
        text = (f"{sig.header(module, function, shim)}\n"
                f"    return {g_name}({found.forward})\n")
        return shim, edit.insert_top(module, position + 1, [edit.statement(module, text)]), \
            found, function

    def _easy(self, context: InjectionContext, plan: _Plan) -> Edit:
        shimmed = self._shim(context, plan)
        shim, b_tree, _, _ = shimmed
        index = context.index
        a_module = index.module_of[plan.f]
        tree = context.module(plan.a)
        if not edit.name_free(context.source(plan.a), shim):
            raise InjectionRefused(f"`{shim}` is already a name in {plan.a}")
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
            raise InjectionRefused(f"no call of `{g_name}` written in `{plan.f}`")
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
        shimmed = self._shim(context, plan)
        shim, b_tree, found, g_def = shimmed
        b_source = context.module(plan.b)
        sig.require_carried(context, found, b_module, a_module)
        needed = 1 if difficulty == "medium" else 2
        others = [name for name in _other_modules(context, a_module, b_module)
                  if sig.carries(context, found, b_module, name)]
        if len(others) < needed:
            raise InjectionRefused(f"the package has fewer than {needed} other module(s) where "
                                   f"`{plan.g}`'s signature means the same")
        chosen = rng.sample(others, needed)
        f_name = _short(plan.f.rpartition(".")[2])
        g_short = _short(index.definitions[plan.g].name)
        head, fallback = f"_legacy_{f_name}", f"_{f_name}_fallback"
        c_module = chosen[0]
        changes: dict[str, str | None] = {plan.b: b_tree.code}
        chain = [f"{a_module}.{head}", f"{c_module}.{fallback}"]
        forward = found.forward
        if difficulty == "medium":
            next_module, next_name = b_module, shim
        else:
            d_module = chosen[1]
            adapter, table = f"_{g_short}_adapter", f"_{g_short}_adapters"
            next_module, next_name = d_module, adapter
            try:
                sig.require_unshadowed(found, [shim, table, "handler"])
            except InjectionRefused as refusal:
                raise InjectionRefused(f"`{plan.g}`: {refusal.message}") from refusal
            d_text = (f"{table} = {{}}\n\n\n"
                      f"{sig.header(b_source, g_def, adapter)}\n"
                      f"    {edit.import_text(b_module, [shim])}\n\n"
                      f"    handler = {table}.get(\"default\", {shim})\n"
                      f"    return handler({forward})\n")
            appended = _append(context, d_module, [table, adapter], d_text)
            changes[index.modules[d_module].path] = appended
            chain += [f"{d_module}.{adapter}"]
        try:
            sig.require_unshadowed(found, [next_name, fallback, "strict", "TypeError"])
        except InjectionRefused as refusal:
            raise InjectionRefused(f"`{plan.g}`: {refusal.message}") from refusal
        flagged = sig.with_flag(b_source, found, "strict")
        if flagged is None:
            raise InjectionRefused(f"`{plan.g}`: its parameters are laid out unusually")
        c_text = (f"{sig.header(b_source, g_def, fallback, flagged)}\n"
                  f"    {edit.import_text(next_module, [next_name])}\n\n"
                  f"    if strict:\n"
                  f"        raise TypeError(\"{f_name} has no fallback in strict mode\")\n"
                  f"    return {next_name}({forward})\n")
        appended = _append(context, c_module, [fallback], c_text)
        changes[index.modules[c_module].path] = appended
        a_tree = context.module(plan.a)
        if not edit.name_free(context.source(plan.a), head):
            raise InjectionRefused(f"`{head}` is already a name in {plan.a}")
        position = edit.top_index(a_tree, plan.f.removeprefix(a_module + ".").split(".")[0])
        if position is None:
            raise InjectionRefused(f"`{plan.f}` is not under a top-level statement of {plan.a}")
        a_text = (f"{sig.header(b_source, g_def, head)}\n"
                  f"    {edit.import_text(c_module, [fallback])}\n\n"
                  f"    return {fallback}({forward})\n")
        changes[plan.a] = edit.insert_top(a_tree, position + 1,
                                          [edit.statement(a_tree, a_text)]).code
        shim_qualname = f"{b_module}.{shim}"
        checks = [_used_check(name, "function") for name in [*chain, shim_qualname]]
        if difficulty == "hard":
            checks.append(_used_check(f"{chosen[1]}.{table}", "variable"))
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
    return (definition.kind == "function" and definition.parent == module
            and definition.col == 0 and not definition.is_async  # a plain top-level def
            and not definition.decorators and not is_test_path(path))


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


def _append(context: InjectionContext, module_name: str, names: list[str],
            text: str) -> str:
    """The module's new text with `text` appended as top-level statements."""
    facts = context.index.modules[module_name]
    source = context.source(facts.path)
    for name in names:
        if not edit.name_free(source, name):
            raise InjectionRefused(f"`{name}` is already a name in {facts.path}")
    tree = context.module(facts.path)
    added = cst.parse_module(text, config=tree.config_for_parsing).body
    statements: list[cst.BaseStatement] = []
    for position, item in enumerate(added):
        statements.append(item.with_changes(
            leading_lines=[cst.EmptyLine(), cst.EmptyLine()] if position == 0
            else item.leading_lines))
    return edit.insert_top(tree, len(tree.body), statements).code


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

