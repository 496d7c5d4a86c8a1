"""Deep inlining, injected: paste the bodies of a function's callees (and of theirs) into it.

A candidate is a function the detector does not report whose statement-level calls go to
functions of the repository (five source lines or more) that can be inlined safely, forming
chains of depth 1 to 3, with enough code between them to make a long, complex function
(`sites.py`, `plans.py`). The injection replaces call statements by the callees' bodies
(`inline.py`), written as one function is written (literals folded, constant locals
propagated, results assigned straight to the caller's name), until the detector's rule reports
the function (`judge.py`): helpers whose call passes few of the function's names first, since
a body reading many of them is no block the rule counts, and one whose paste only dilutes the
blocks is left out. A pasted helper that nothing else names any more is removed
(`remove.py`), wherever it lived; the others stay defined, so every other caller is untouched and
the original is the refactoring: call them again (`checks.py`).

Difficulty follows SmellBench's rule on the files the smell spans, every one a real place: the
function's file, the files of the helpers pasted into it (changed when a helper goes, named as
its home when it stays), and the files of other callers of the same helpers, with the same
chain pasted over their calls (`partners.py`): a helper of module A inlined into the functions
of modules B, C and D that call it spans four files because its callers really live there.
Nothing is moved to a new module to reach a span.

- easy: 2 files; callees called directly, or (when their bodies alone do not make the
  function read as deep inlining) their chains too, all from the function's file and one
  other; each pasted body introduced by a comment naming the step when the callee has a
  docstring (its first line).
- medium: 3 or more files; two or more callees, no comments, and indirection: a chain (a
  callee's own callee pasted inside it) or parameters bound to renamed locals or defaults.
- hard: 4 or more files; three or more callees, chains up to depth 3; module state of another
  module read by the pasted code (imported into the caller's module), a callee inherited from
  a class of another file, a method of another class called on a local
  (`formatter.write_text`), or a helper of another module pasted into its callers; and a red
  herring: a long callee the function still calls.

Renamed locals are named from the repository's words (`item_index`), never numbered. Easy
pastes the helpers of its own file and of one other file only (or of its own file alone, with
one caller of them in another file given the same paste), so the smell spans exactly two
files.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

import libcst as cst
from pydantic import Field

from smellkit.config import is_test_path
from smellkit.detectors.deep_inlining import DeepInlining, DeepInliningOptions, is_generated
from smellkit.errors import InjectionRefused
from smellkit.facts import Name as NameExpr
from smellkit.injectors.base import Edit, InjectionContext, Injector, InjectorOptions
from smellkit.injectors.cst.imports import without_unused
from smellkit.injectors.deep_inlining.checks import attributes, checks, red_herrings
from smellkit.injectors.deep_inlining.imports import imports_for, with_imports
from smellkit.injectors.deep_inlining.inline import Inliner, Rewritten
from smellkit.injectors.deep_inlining.judge import Judged, alone, flagged, judge, within_limit
from smellkit.injectors.deep_inlining.names import names_of
from smellkit.injectors.deep_inlining.partners import Partner, partners
from smellkit.injectors.deep_inlining.plans import (
    MIN_HELPERS,
    Plan,
    branches_of,
    chains_of,
    depth_of,
    distinct_first,
    dumped,
    enough,
    files_of,
    flattened,
    loaded,
    run_only,
    trimmed,
)
from smellkit.injectors.deep_inlining.remove import removals
from smellkit.injectors.deep_inlining.sites import OVERRIDABLE, SiteFinder
from smellkit.models import Candidate, Difficulty

_DEPTH: dict[Difficulty, int] = {"easy": 1, "medium": 2, "hard": 3}
_MIN_FILES: dict[Difficulty, int] = {"easy": 2, "medium": 3, "hard": 4}
_MAX_INPUTS = DeepInliningOptions().max_block_inputs


class DeepInliningInjectorOptions(InjectorOptions):
    max_depth: int = Field(default=3, ge=1, le=3, description="Follow chains of helpers this "
                           "deep when looking for code to inline.")


class DeepInliningInjector(Injector[DeepInliningInjectorOptions]):
    """Inline a function's helpers into it until it reads as several functions in one."""

    smell = DeepInlining.smell
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
            if definition.kind not in ("function", "method") or path is None:
                continue
            why = _turned_away(context, path, qualname in flagged, rule.skip_generated)
            if why is not None:
                context.discard(why)
                continue
            plans = chains_of(finder, qualname, self.options.max_depth, frozenset({qualname}))
            if not plans:
                context.discard(_no_helper(finder, qualname))
                continue
            helpers = [plan.site.callee for plan in flattened(plans)]
            sloc = finder.sloc(qualname) + sum(finder.sloc(name) for name in helpers)
            cc = finder.cc(qualname) + sum(finder.cc(name) - 1 for name in helpers)
            location = context.location(qualname)
            if sloc < rule.min_sloc or cc < rule.min_cc or location is None:
                context.discard(f"with its helpers pasted in, under {rule.min_sloc} lines or "
                                f"complexity {rule.min_cc}")
                continue
            by_file: dict[str, list[str]] = {}
            for name in dict.fromkeys(helpers):
                by_file.setdefault(context.path_of(name) or path, []).append(
                    name.rpartition(".")[2])
            files = sorted({path, *by_file})
            where = "; ".join(f"{'its own file' if file == path else file}: "
                              f"{', '.join(names)}" for file, names in sorted(by_file.items()))
            depth = max(depth_of(plan) for plan in plans)
            yield Candidate(
                smell=self.name, target=location, files=tuple(files),
                reason=(f"{definition.name} calls {len(plans)} helper(s) of the repository "
                        f"(>= 5 lines each, inlinable: single exit, no super(), no decorators) "
                        f"forming chains of depth {depth} over {len(files)} file(s) ({where}); "
                        f"pasted in, they would make about {sloc} SLOC and CC {cc}"),
                data={"sites": [dumped(plan) for plan in plans]})

    def inject(self, context: InjectionContext, candidate: Candidate, difficulty: Difficulty,
               rng: random.Random) -> Edit:
        qualname = candidate.target.qualname
        path = context.path_of(qualname)
        if path is None:
            raise InjectionRefused(f"{qualname} is not defined")
        tries: list[_Try] = []
        finder = SiteFinder(context)
        seen: list[list[Plan]] = []
        for depth, run in _variants(difficulty):  # the least pasted first
            plans = [trimmed(loaded(item), depth) for item in candidate.data["sites"]]
            if run:
                plans = [run_only(finder, plan) for plan in plans]
            if plans in seen:
                continue
            seen.append(plans)
            tries += self._tries(context, qualname, path, difficulty, list(plans), rng)
            if any(attempt.last is not None for attempt in tries):
                break
        made = next((attempt for attempt in tries if attempt.last is not None), None)
        reasons = sorted({reason for attempt in tries for reason in attempt.reasons})
        if not any(attempt.chosen for attempt in tries):
            raise InjectionRefused("no helper could be inlined: " + "; ".join(reasons[:3]))
        if made is None and any(attempt.enough for attempt in tries) and \
                not any(attempt.flagged for attempt in tries):
            raise InjectionRefused("even with every inlinable helper pasted in, the function is "
                                   "not long, complex and blocky enough to read as deep "
                                   "inlining" + (" (an easy case pastes helpers of one other "
                                                 "file only)" if difficulty == "easy" else ""))
        if made is None or made.last is None:
            extra = " and some indirection (a chain or renamed parameters)" \
                if difficulty != "easy" else ""
            why = f" ({'; '.join(reasons[:2])})" if reasons else ""
            most = max(len(attempt.chosen) for attempt in tries)
            raise InjectionRefused(f"{difficulty} needs {MIN_HELPERS[difficulty]} "
                                   f"helper(s){extra} over {_MIN_FILES[difficulty]} files; "
                                   f"{most} could be inlined{why}")
        if not flagged(context, path, qualname, made.last.texts[path]):
            raise InjectionRefused("the function is no longer reported in its file as rewritten")
        return _edit(context, difficulty, qualname, path, made.chosen, made.last)

    def _tries(self, context: InjectionContext, qualname: str, path: str,
               difficulty: Difficulty, plans: list[Plan], rng: random.Random) -> list[_Try]:
        """The batches of helpers tried, in order, until one reads as deep inlining."""
        rng.shuffle(plans)
        # the helpers with the fewest branches first: a selected test that runs the call runs
        # all of their pasted lines; at medium and hard a chain first (indirection), and
        # helpers of other files (more of the span without moving code). Before all, helpers
        # whose call passes few of the function's names: a body reading more of them is no
        # block the rule counts, and only dilutes the others.
        inliner = Inliner(context, comments=difficulty == "easy")
        inputs = {id(plan): inliner.inputs(qualname, plan) > _MAX_INPUTS for plan in plans}
        if difficulty == "easy":
            plans.sort(key=lambda plan: (inputs[id(plan)], branches_of(context, plan)))
        else:
            plans.sort(key=lambda plan: (inputs[id(plan)], -min(depth_of(plan), 2),
                                         branches_of(context, plan),
                                         -len(files_of(context, [plan], path))))
        if difficulty != "easy":  # two or three helpers: different ones, not one twice
            plans = distinct_first(plans)
        finder = SiteFinder(context)
        tries = [_Try(context, inliner, finder, qualname, path, difficulty, rng, batch)
                 for batch in _batches(context, plans, path, difficulty)]
        for attempt in tries:
            if attempt.run() is not None:
                break
        return tries


def _variants(difficulty: Difficulty) -> list[tuple[int, bool]]:
    """The chain depths tried, each first without the inner helpers called only under a
    branch (`plans.run_only`: lines the tests may never run where they are pasted): at easy,
    the helpers called directly, then (when their bodies alone are too little) their own
    helpers too, as long as the code pasted comes from one other file; medium and hard at
    their depth."""
    depths = [1, _DEPTH["hard"]] if difficulty == "easy" else [_DEPTH[difficulty]]
    return [(depth, run) for depth in depths for run in (True, False)]


def _batches(context: InjectionContext, plans: list[Plan], path: str,
             difficulty: Difficulty) -> list[list[Plan]]:
    """The plans to try together. At easy, the helpers of one other file with those of the
    caller's own file (both files change: the span is two), the richest first, then the
    caller's own helpers alone (a caller of them in another file makes the second file).
    Otherwise all of them."""
    if difficulty != "easy":
        return [plans]
    by_file: dict[frozenset[str], list[Plan]] = {}
    for plan in plans:
        by_file.setdefault(frozenset(files_of(context, [plan], path) - {path}), []).append(plan)
    own = by_file.get(frozenset(), [])
    others = sorted((batch for key, batch in by_file.items() if len(key) == 1),
                    key=lambda batch: -len(batch))
    # in the function's order within a batch's own order: own helpers first would dilute
    # the other file's before they are tried
    return [*([plan for plan in plans if plan in own or plan in batch] for batch in others),
            *([own] if own else [])]


@dataclass
class _Try:
    """Helpers pasted in one by one until the function reads as deep inlining at the
    difficulty, over the files it asks for."""

    context: InjectionContext
    inliner: Inliner
    finder: SiteFinder
    qualname: str
    path: str
    difficulty: Difficulty
    rng: random.Random
    plans: list[Plan]
    chosen: list[Plan] = field(default_factory=list)
    last: _Made | None = None
    reasons: list[str] = field(default_factory=list)
    enough: bool = False
    flagged: bool = False
    judged: Judged | None = None
    """How close the best trial so far came to the rule."""

    def run(self) -> _Made | None:
        context, qualname, path, difficulty = self.context, self.qualname, self.path, \
            self.difficulty
        for plan in self.plans:
            trial = [*self.chosen, plan]
            before = self.chosen
            try:
                rewritten = self.inliner.rewrite(qualname, sorted(trial,
                                                                  key=lambda p: p.site.line))
                imports = imports_for(context, qualname, rewritten.needs)
            except InjectionRefused as error:
                self.reasons.append(error.message)
                continue
            if difficulty == "easy" and len(_elsewhere(context, path, rewritten)) > 1:
                self.reasons.append("an easy case pastes code of one other file only")
                continue
            self.chosen = trial
            if not enough(difficulty, self.chosen, rewritten.renamed):
                continue
            self.enough = True
            try:  # the function reads as deep inlining (moving callees out cannot change it)
                judged = judge(context, path, qualname, alone(context, qualname,
                                                              rewritten.function))
                if not judged.flagged:
                    if judged.worse_than(self.judged):
                        self.chosen = before  # a body with too many inputs: no block of its own
                    else:
                        self.judged = judged
                    continue
                self.flagged = True
                within_limit(context, qualname, self.inliner.function(
                    context.module(path), qualname), rewritten.function)
                made = _widened(context, self.finder, self.inliner, difficulty, qualname,
                                path, rewritten, imports, self.chosen, self.rng)
            except _LeftBehind as error:
                self.reasons.append(error.message)
                self.chosen = before  # the function without that helper pasted
                continue
            except InjectionRefused as error:
                self.reasons.append(error.message)
                continue
            self.last = made
            return self.last
        return None


def _no_helper(finder: SiteFinder, qualname: str) -> str:
    """Why a function has no call site to paste a helper over, as a rule phrase: no helper at
    all, helpers none of which can be pasted in (by their most common reason), or calls that
    are no statement of their own or may dispatch."""
    index = finder.index
    callees = [name for name in (index.call_graph.successors(qualname)
                                 if qualname in index.call_graph else ())
               if getattr(index.definitions.get(name), "kind", None) in ("function", "method")]
    if not callees:
        return "calls no function or method of the repository"
    refusals = Counter(OVERRIDABLE if finder.overridable(name) else finder.refusal(name)
                       for name in callees)
    if None not in refusals:
        reason, _ = refusals.most_common(1)[0]
        return f"calls no helper that can be pasted in (mostly: {reason})"
    return ("calls its pastable helpers only inside expressions, with early returns the call "
            "uses, or on objects whose class may override them")


def _turned_away(context: InjectionContext, path: str, flagged: bool,
                 skip_generated: bool) -> str | None:
    """Why a function is no candidate before its calls are looked at, None when it may be."""
    if is_test_path(path):
        return "in a test file"
    if flagged:
        return "already reported as deep inlining"
    if skip_generated and is_generated(context.source(path).splitlines()):
        return "in a generated file"
    return None


class _LeftBehind(InjectionRefused):
    """A pasted helper that would stay defined with nothing calling it: dead code, a tell."""


@dataclass
class _Made:
    texts: dict[str, str]
    """Every changed file's new text: the callers' and those losing pasted helpers."""
    inlined: list[str]
    function: cst.FunctionDef
    needs: dict[str, tuple[str, str]]
    partners: list[Partner]
    removed: list[str]
    """Pasted helpers gone from the smelly version: nothing else used them."""
    homes: set[str]
    """The files the pasted helpers come from (their real homes, changed or not)."""


def _widened(context: InjectionContext, finder: SiteFinder, inliner: Inliner,
             difficulty: Difficulty, qualname: str, path: str, rewritten: Rewritten,
             imports: list[str], chosen: Sequence[Plan], rng: random.Random) -> _Made:
    """The case over the files the difficulty asks for, every one a real place: the function's
    file, the modules its pasted helpers come from, and, when those are too few, other
    callers of the same helpers in other files with the same chain pasted over their calls
    (`partners.py`). Helpers nothing calls any more are removed (left behind, they would
    read as dead code)."""
    inlined = list(dict.fromkeys(rewritten.inlined))
    homes = {context.path_of(name) or path for name in inlined}
    files = {path, *homes}
    missing = _MIN_FILES[difficulty] - len(files)
    found: list[Partner] = []
    if missing > 0:
        reported = _REPORTED.get(context)
        if reported is None:
            reported = _REPORTED[context] = _reported(context)
        found = partners(context, finder, inliner, qualname, chosen, files, missing, reported,
                         rng)
        if len(found) < missing:
            raise InjectionRefused(
                f"the pasted helpers come from {len(files)} file(s) with the function's; "
                f"{difficulty} needs {_MIN_FILES[difficulty]}, and {len(found)} other "
                "caller(s) of them in other files could take the same chain")
    trees = {path: rewritten.module, **{item.path: item.rewritten.module for item in found}}
    callers = [qualname, *(item.qualname for item in found)]
    every = list(dict.fromkeys([*inlined, *(name for item in found
                                            for name in item.rewritten.inlined)]))
    functions = [rewritten.function, *(item.rewritten.function for item in found)]
    still = names_of(functions).used | {node.attr.value for node in attributes(functions)}
    trees.update(removals(context, callers, every, trees, still))
    texts: dict[str, str] = {}
    wrote = {path: (qualname, imports), **{item.path: (item.qualname, item.imports)
                                          for item in found}}
    for file, tree in trees.items():
        if file in wrote:
            owner, lines = wrote[file]
            texts[file] = with_imports(context, owner, file, tree, lines)
        else:
            module = context.index.module_of[next(name for name in every
                                                  if context.path_of(name) == file)]
            texts[file] = without_unused(context, module, context.module(file), tree).code
    present = {name for file, tree in trees.items() for name in every
               if context.path_of(name) == file and _defined(context, tree, name)}
    removed = [name for name in every if context.path_of(name) in trees and name not in present]
    graph = context.index.call_graph
    for name in every:  # kept (looked up by text, a class's last member) with no caller left
        short = name.rpartition(".")[2]
        if name not in removed and short not in still and name in graph and all(
                caller in (*callers, *removed) for caller in graph.predecessors(name)):
            raise _LeftBehind(f"{short} would be left behind with no caller: it cannot go "
                              "(its name may be looked up by text, or it is its class's last "
                              "member)")
    return _Made(texts, rewritten.inlined, rewritten.function, rewritten.needs, found, removed,
                 {context.path_of(name) or path for name in every})


def _defined(context: InjectionContext, tree: cst.Module, qualname: str) -> bool:
    """Whether the module tree still defines the function or method `qualname`."""
    parts = qualname[len(context.index.module_of[qualname]) + 1:].split(".")
    body: Sequence[cst.BaseStatement] = tree.body
    for name in parts:
        node = next((item for item in body if isinstance(item, (cst.FunctionDef, cst.ClassDef))
                     and item.name.value == name), None)
        if node is None:
            return False
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
    return True


def _reported(context: InjectionContext) -> set[str]:
    """The functions the detector already reports in the original."""
    detector = DeepInlining(DeepInliningOptions())
    return {definition.qualname for facts in context.index.modules.values()
            for definition, *_ in detector.judge(facts)}


_REPORTED: WeakKeyDictionary[InjectionContext, set[str]] = WeakKeyDictionary()


def _elsewhere(context: InjectionContext, path: str, rewritten: Rewritten) -> set[str]:
    """The files other than the caller's that the pasted code comes from."""
    return {context.path_of(name) or path for name in rewritten.inlined} - {path}


def _native_features(context: InjectionContext, qualname: str, path: str,
                     inlined: Sequence[str], needs: dict[str, tuple[str, str]]) -> list[str]:
    """What makes an injection hard without moving anything: module state of another module
    read by the pasted code, a method inherited from a class of another file (a mixin), or a
    method of another class whose body now works on the object it was called on."""
    found = [f"module state {meant}" for origin, meant in needs.values()
             if _state(context, meant) and context.index.module_of.get(meant, meant.rpartition(
                 ".")[0]) != context.index.module_of[qualname]]
    index = context.index
    ancestors = set(index.mro(index.class_of.get(qualname, ""))) if qualname in \
        index.class_of else set()
    for name in inlined:
        if index.definitions[name].kind != "method" or context.path_of(name) == path:
            continue
        owner = index.class_of.get(name, "")
        found.append(f"inherited {name}" if owner in ancestors else
                     f"{name}, a method of another class, pasted over its call")
    return found


def _state(context: InjectionContext, meant: str) -> bool:
    """A module-level variable (not a definition, module or import)."""
    module, _, name = meant.rpartition(".")
    facts = context.index.modules.get(module)
    return meant not in context.index.definitions and meant not in context.index.modules and \
        facts is not None and any(item.scope == module and item.target == NameExpr(name)
                                  for item in facts.assignments)


def _edit(context: InjectionContext, difficulty: Difficulty, qualname: str, path: str,
          chosen: Sequence[Plan], made: _Made) -> Edit:
    inlined = list(dict.fromkeys(made.inlined))
    others = sorted({context.path_of(name) or path for name in inlined} - {path})
    features = [*_native_features(context, qualname, path, inlined, made.needs),
                *(f"{item.helper} of {context.path_of(item.helper)} pasted into "
                  f"{item.qualname} of {item.path}" for item in made.partners
                  if context.path_of(item.helper) != item.path),
                *([f"helpers of {len(others)} other modules ({', '.join(others)})"]
                  if len(others) > 1 else [])]
    herrings = red_herrings(context, qualname, inlined)
    if difficulty == "hard" and not features:
        raise InjectionRefused("hard needs module state, an inherited helper, a method of "
                               "another class, helpers of two other modules, or a helper "
                               "pasted into its callers in other modules")
    if difficulty == "hard" and not herrings:
        raise InjectionRefused("hard needs a red herring: a helper the function still calls")
    removed = set(made.removed)
    direct = sorted({plan.site.callee for plan in chosen})
    original = Inliner(context, comments=False).function(context.module(path), qualname)
    grown = _lines(made.function) - _lines(original)
    found = checks(context, qualname, made.function,
                   [name for name in direct if name not in removed], grown, reported=True)
    for item in made.partners:
        before = Inliner(context, comments=False).function(context.module(item.path),
                                                           item.qualname)
        found += checks(context, item.qualname, item.rewritten.function,
                        [item.helper], _lines(item.rewritten.function) - _lines(before),
                        reported=item.flagged)
    # what the smell spans: the functions pasted into, and the pasted helpers' real homes
    # (the ones left in place are named; removed ones' files change)
    every = list(dict.fromkeys([*inlined, *(name for item in made.partners
                                            for name in item.rewritten.inlined)]))
    spans = sorted({path, *made.texts, *made.homes})
    return Edit(
        changes=dict(made.texts),
        targets=((qualname, "method"), *((item.qualname, "method") for item in made.partners)),
        checks=found,
        involved=tuple(name for name in every if name not in removed),
        red_herrings=tuple(herrings),
        summary=f"pasted {len(inlined)} helper bodies into {qualname} ({', '.join(inlined)})"
                + "".join(f"; {item.helper} (and its chain) into {item.qualname} too"
                          for item in made.partners)
                + f"; the smell spans {len(spans)} files ({', '.join(spans)})"
                + (f"; removed {', '.join(sorted(removed))}, used nowhere else"
                   if removed else "")
                + (f"; hard by {', '.join(features)}" if difficulty == "hard" else ""))


def _lines(function: cst.FunctionDef) -> int:
    return len(cst.Module([]).code_for_node(function.with_changes(leading_lines=[]))
               .splitlines())


