"""A build backend with the real sandbox and hand-made injections into the calc fixture.

Each cell of the fake smells holds injections whose fate is known in advance: harmless ones that
validate, one that breaks a test, one that makes a test hang, one whose patch does not apply, one
adding code no test runs. The tests then check that the pipeline keeps, rejects and explains each
as it should.
"""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path
from typing import Any

from smellkit.bench.backend import Backend, default_backend
from smellkit.injectors.patches import make_patch
from smellkit.models import (
    Candidate,
    CandidateReport,
    Difficulty,
    Injection,
    InjectionSkip,
    Location,
    Target,
)

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
OPS = "calc/ops.py"
ORIGINAL = (FIXTURES / "calcrepo" / "src" / OPS).read_text()
SMELLS = ["feature_envy", "dead_code"]


def _location(name: str) -> Location:
    return Location(path=OPS, qualname=f"calc.ops.{name}", kind="function", start_line=1,
                    end_line=2)


def candidate(smell: str, name: str) -> Candidate:
    return Candidate(smell=smell, target=_location(name), reason=f"{name} is covered",
                     files=(OPS,))


def _injection(smell: str, difficulty: Difficulty, name: str, after: str,
               patch: str | None = None) -> Injection:
    smelly = make_patch({OPS: ORIGINAL}, {OPS: after})
    return Injection(
        id=f"{smell}-{difficulty}-{name}", smell=smell, difficulty=difficulty, seed=0,
        candidate=candidate(smell, name), smelly_patch=patch if patch is not None else smelly,
        ground_truth_patch=make_patch({OPS: after}, {OPS: ORIGINAL}),
        targets=(Target(location=_location(name), level="method"),),
        locations=(_location(name),), files=(OPS,), checks=(),
        instructions={"open": "Improve the code.", "guided": f"Remove the {smell} in {OPS}.",
                      "targeted": f"Remove the {smell} at calc.ops.{name}."})


def harmless(smell: str, difficulty: Difficulty, name: str) -> Injection:
    """Opens `name` with an assignment nothing reads: behaviour unchanged, and the tests of
    `name` run (and would notice breaking) the changed code, so it validates."""
    start = ORIGINAL.index(f"def {name}(")
    body = ORIGINAL.index("\n", start) + 1
    line = f"    {smell}_{difficulty} = {name!r}\n"
    return _injection(smell, difficulty, name, ORIGINAL[:body] + line + ORIGINAL[body:])


def unguarded(smell: str, difficulty: Difficulty, name: str) -> Injection:
    """Adds a helper after `name` that nothing calls: no test runs it, so the case's tests could
    not notice it breaking and it is rejected at the adequacy check."""
    marker = f"def {name}("
    head, _, tail = ORIGINAL.partition(marker)
    body, sep, rest = tail.partition("\n\n\n")
    helper = f"\n\n\ndef _{name}_{smell}_{difficulty}() -> str:\n    return {name!r}"
    return _injection(smell, difficulty, name, head + marker + body + helper + sep + rest)


def copied() -> Injection:
    """Copies `add`'s logic into a new module that `add` now calls, the case centred on `mul`:
    the original's test map points at `mul`'s test, which runs none of the copy, so only tests
    selected from the smelly version's own coverage can guard it."""
    arith = "calc/_arith.py"
    after = ORIGINAL.replace("    return a + b", "    from calc._arith import plus\n\n"
                             "    return plus(a, b)")
    copy = '"""Sums, kept apart."""\n\n\ndef plus(a: int, b: int) -> int:\n    return a + b\n'
    plus = Location(path=arith, qualname="calc._arith.plus", kind="function", start_line=4,
                    end_line=5)
    return Injection(
        id="duplicated_code-easy-mul", smell="duplicated_code", difficulty="easy", seed=0,
        candidate=candidate("duplicated_code", "mul"),
        smelly_patch=make_patch({OPS: ORIGINAL}, {OPS: after, arith: copy}),
        ground_truth_patch=make_patch({OPS: after, arith: copy}, {OPS: ORIGINAL}),
        targets=(Target(location=plus, level="method"),), locations=(plus,),
        files=(arith, OPS), checks=(),
        instructions={"open": "Improve the code.", "guided": "Remove the copy.",
                      "targeted": "Remove the copy calc._arith.plus."})


def breaking() -> Injection:
    return _injection("feature_envy", "medium", "add",
                      ORIGINAL.replace("return a + b", "return a - b"))


def hanging() -> Injection:
    return _injection("dead_code", "easy", "countdown",
                      ORIGINAL.replace("        n -= 1\n", "        pass\n"))


def not_applying() -> Injection:
    bad = make_patch({OPS: ORIGINAL.replace("a * b", "b * a")}, {OPS: ORIGINAL})
    return _injection("dead_code", "medium", "mul", ORIGINAL, patch=bad)


def plan() -> dict[tuple[str, str], list[Injection]]:
    """Per cell, the injections at its candidates, in candidate order."""
    return {
        ("feature_envy", "easy"): [harmless("feature_envy", "easy", name)
                                   for name in ("add", "mul", "countdown")],
        ("feature_envy", "medium"): [breaking(), harmless("feature_envy", "medium", "mul"),
                                     unguarded("feature_envy", "medium", "countdown")],
        ("dead_code", "easy"): [hanging(), harmless("dead_code", "easy", "add")],
        ("dead_code", "medium"): [not_applying()],
    }


def _find(project: Any, smell: str, covered: frozenset[str], line_coverage: Any, seed: int,
          options: Any, exclude: Any) -> tuple[list[Candidate], CandidateReport]:
    found: dict[str, Candidate] = {}
    for (cell_smell, _), items in plan().items():
        if cell_smell == smell:
            for item in items:
                found.setdefault(item.candidate.target.qualname, item.candidate)
    return [found[name] for name in sorted(found)], CandidateReport(
        smell=smell, proposed=len(found), eligible=len(found))


def _inject(project: Any, smell: str, difficulty: Difficulty, chosen: Candidate,
            covered: frozenset[str], line_coverage: Any, seed: int,
            options: Any) -> Injection | InjectionSkip:
    for item in plan().get((smell, difficulty), []):
        if item.candidate.target.qualname == chosen.target.qualname:
            return item
    return InjectionSkip(smell=smell, difficulty=difficulty, candidate=chosen,
                         reason="no fake injection here")


def backend(*, interrupt_after: int | None = None, slow: float = 0.0) -> Backend:
    """The real sandbox with the fake injections; `interrupt_after` test runs, raise
    KeyboardInterrupt (a user's Ctrl-C); `slow` seconds are added to every test run."""
    real = default_backend()
    calls = [0]

    def counted(run: Any) -> Any:
        def call(*args: Any) -> Any:
            calls[0] += 1
            if interrupt_after is not None and calls[0] > interrupt_after:
                raise KeyboardInterrupt
            time.sleep(slow)
            return run(*args)
        return call

    return dataclasses.replace(real, smells=lambda: list(SMELLS), find_candidates=_find,
                               inject=_inject, run_tests=counted(real.run_tests),
                               run_covered=counted(real.run_covered),
                               run_until_failure=counted(real.run_until_failure))


def main() -> None:
    """Run a build of the calc fixture (for the kill-and-resume test, run as a process)."""
    from smellkit.bench import build

    build(FIXTURES / "calc.toml", Path(os.environ["BENCH_OUT"]), per_cell=2, spare=0,
          cache_dir=Path(os.environ["BENCH_CACHE"]), jobs=1,
          backend=backend(slow=float(os.environ.get("BENCH_SLOW", "0"))))


if __name__ == "__main__":
    main()
