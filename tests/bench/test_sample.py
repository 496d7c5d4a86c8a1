"""Sampling: capped per cell, spread over files, the same for the same set whatever its order."""

from __future__ import annotations

import random

from smellkit.bench.sample import footprint, new_names, sample, twins
from smellkit.injectors.patches import make_patch
from smellkit.models import Case
from tests.bench import fakes


def _case(smell: str, difficulty: str, number: int, path: str, repo: str = "calc",
          target: str = "add") -> Case:
    base = fakes.harmless(smell, "easy", target)  # type: ignore[arg-type]
    return Case(**{**dict(base), "id": f"{smell}-{difficulty}-{number}",
                   "difficulty": difficulty, "files": (path,)},
                repo=repo, revision="local", tests=("tests/test_ops.py::test_add",))


def _retargeted(case: Case, qualname: str) -> Case:
    location = case.candidate.target.model_copy(update={"qualname": qualname})
    return case.model_copy(update={
        "candidate": case.candidate.model_copy(update={"target": location})})


def _pool() -> list[Case]:
    """Six cases per cell, each at a target of its own."""
    pool = []
    for smell in ("feature_envy", "dead_code"):
        for difficulty in ("easy", "medium", "hard"):
            for number in range(6):
                pool.append(_retargeted(_case(smell, difficulty, number, f"pkg/m{number % 3}.py"),
                                        f"pkg.m{number % 3}.{difficulty}_{number}"))
    return pool


def test_at_most_per_cell_per_smell_and_difficulty() -> None:
    chosen = sample(_pool(), 2, seed=0, smells=["feature_envy", "dead_code"])
    cells = [(case.smell, case.difficulty) for case in chosen]
    assert len(chosen) == 12
    assert all(cells.count(cell) == 2 for cell in set(cells))
    assert cells[0] == ("feature_envy", "easy") and cells[-1] == ("dead_code", "hard")


def test_files_are_spread_before_any_is_reused() -> None:
    chosen = sample(_pool(), 3, seed=0, smells=["feature_envy"])
    easy = [case.files[0] for case in chosen
            if (case.smell, case.difficulty) == ("feature_envy", "easy")]
    assert sorted(easy) == ["pkg/m0.py", "pkg/m1.py", "pkg/m2.py"]


def test_order_of_the_pool_does_not_matter_but_the_seed_does() -> None:
    pool = _pool()
    shuffled = pool[:]
    random.Random(7).shuffle(shuffled)
    first = [case.id for case in sample(pool, 2, seed=1)]
    assert first == [case.id for case in sample(shuffled, 2, seed=1)]
    others = {tuple(case.id for case in sample(pool, 2, seed=seed)) for seed in range(5)}
    assert len(others) > 1


def test_small_cells_give_what_they_have() -> None:
    pool = [_case("dead_code", "hard", 0, "a.py")]
    assert [case.id for case in sample(pool, 3, seed=0)] == ["dead_code-hard-0"]


def test_a_target_is_used_once_per_smell_while_others_remain() -> None:
    """Every cell could take its case at `add`; each difficulty takes a different target, and
    a target is reused only when the cell has nothing else."""
    pool = [_case("dead_code", difficulty, number, f"pkg/{target}.py", target=target)
            for difficulty in ("easy", "medium", "hard")
            for number, target in enumerate(("add", "mul", "countdown"))]
    chosen = sample(pool, 1, seed=0)
    assert sorted(case.candidate.target.qualname for case in chosen) == [
        "calc.ops.add", "calc.ops.countdown", "calc.ops.mul"]
    only_add = [case for case in pool if case.candidate.target.qualname == "calc.ops.add"]
    assert len(sample(only_add, 1, seed=0)) == 3  # too few targets: reused rather than empty


def _edit(case: Case, functions: list[str], holder: str) -> Case:
    """The case with a smelly patch that moves `functions` of pkg/util.py into `holder`."""
    before = "".join(f"def {name}(x):\n    return x + {len(name)}\n\n\n" for name in functions)
    after = "".join(f"def {name}(x):\n    return {holder}.{name}(x)\n\n\n" for name in functions)
    return case.model_copy(update={"smelly_patch": make_patch({"pkg/util.py": before},
                                                              {"pkg/util.py": after})})


def test_a_twin_edit_at_another_target_comes_after_every_other_case() -> None:
    """Two holders absorbing the same functions are one edit twice: the cell takes the twin
    only when nothing else is left."""
    same = ["parse", "render", "escape", "quote"]
    first = _edit(_case("god_class", "medium", 0, "pkg/a.py", target="add"), same, "A")
    twin = _edit(_case("god_class", "medium", 1, "pkg/b.py", target="mul"), same, "B")
    other = _edit(_case("god_class", "medium", 2, "pkg/c.py", target="countdown"),
                  ["split", "join", "strip", "fold"], "C")
    assert twins(footprint(first), footprint(twin))
    assert not twins(footprint(first), footprint(other))
    for seed in range(6):
        chosen = {case.id for case in sample([first, twin, other], 2, seed=seed)}
        assert other.id in chosen and len(chosen & {first.id, twin.id}) == 1
    assert len(sample([first, twin], 2, seed=0)) == 2  # nothing else: the twin too


def _at(difficulty: str, target: str, repo: str = "marshmallow") -> Case:
    case = _case("god_class", difficulty, 0, f"pkg/{target}.py", repo=repo)
    return _retargeted(case, f"pkg.{target}").model_copy(
        update={"id": f"god_class-{difficulty}-{target}"})


def _targets_by_difficulty(chosen: list[Case]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for case in chosen:
        found.setdefault(case.difficulty, []).append(case.candidate.target.qualname)
    return found


def test_no_target_serves_two_difficulties_when_the_candidates_suffice() -> None:
    """The four builds' marshmallow god_class: Field and Nested validated at easy, all three
    at medium, Field and Tuple at hard. Filling each cell greedily in difficulty order put
    Field at all three and Tuple at medium and hard; every seed must instead give each
    difficulty targets of its own, all three difficulties covered."""
    pool = [_at(difficulty, target) for difficulty, targets in (
        ("easy", ("Field", "Nested")), ("medium", ("Field", "Nested", "Tuple")),
        ("hard", ("Field", "Tuple"))) for target in targets]
    for seed in range(8):
        found = _targets_by_difficulty(sample(pool, 2, seed, candidates={
            ("marshmallow", "god_class"): 3}))
        assert sorted(found) == ["easy", "hard", "medium"]
        everything = [target for targets in found.values() for target in targets]
        assert len(everything) == len(set(everything)) == 3


def test_hard_does_not_fall_back_to_the_target_of_medium() -> None:
    """Only `Schema.__init__` validated at medium and hard; the repository has other
    candidates, so one difficulty stays empty rather than repeat the other's target."""
    pool = [_at("easy", "is_aware"), _at("easy", "store_error"),
            _at("medium", "Schema"), _at("hard", "Schema")]
    found = _targets_by_difficulty(sample(pool, 2, 0, candidates={
        ("marshmallow", "god_class"): 6}))
    assert sorted(found["easy"]) == ["pkg.is_aware", "pkg.store_error"]
    assert sum(targets == ["pkg.Schema"] for targets in found.values()) == 1
    # fewer candidates than difficulties: the target may serve both, the rule's exception
    shared = _targets_by_difficulty(sample(pool, 2, 0, candidates={
        ("marshmallow", "god_class"): 2}))
    assert shared["medium"] == shared["hard"] == ["pkg.Schema"]


def test_with_too_few_candidates_a_target_is_shared_only_to_cover_a_difficulty() -> None:
    """marshmallow's two god_class hosts, Field at every difficulty and Nested at easy and
    medium: each difficulty gets one case, a target repeated only where a difficulty has no
    other, and no cell is filled up with a target another difficulty holds."""
    pool = [_at(difficulty, target) for difficulty, targets in (
        ("easy", ("Field", "Nested")), ("medium", ("Field", "Nested")), ("hard", ("Field",)))
        for target in targets]
    for seed in range(8):
        found = _targets_by_difficulty(sample(pool, 2, seed, candidates={
            ("marshmallow", "god_class"): 2}))
        assert {key: len(value) for key, value in found.items()} == {
            "easy": 1, "medium": 1, "hard": 1}
        assert found["hard"] == ["pkg.Field"] and found["easy"] != found["medium"]


def test_two_candidates_share_a_target_even_when_a_difficulty_validated_nothing() -> None:
    """The four builds' jinja2 god_class: two candidates, `Environment` validated at easy and
    medium, the other never injects and hard validated nothing. Fewer candidates than the
    smell's three difficulties, so medium may repeat easy's target rather than stay empty."""
    pool = [_at("easy", "Environment", repo="jinja2"), _at("medium", "Environment", repo="jinja2")]
    found = _targets_by_difficulty(sample(pool, 2, 0, candidates={("jinja2", "god_class"): 2}))
    assert found == {"easy": ["pkg.Environment"], "medium": ["pkg.Environment"]}
    # with as many candidates as difficulties, the rule holds: one difficulty stays empty
    strict = _targets_by_difficulty(sample(pool, 2, 0, candidates={("jinja2", "god_class"): 3}))
    assert sum(len(targets) for targets in strict.values()) == 1


def _adding(case: Case, path: str, helper: str) -> Case:
    """The case with a smelly patch that adds a function `helper` to `path`."""
    before = "def keep(x):\n    return x\n"
    after = before + f"\n\ndef {helper}(x):\n    return keep(x)\n"
    return case.model_copy(update={"smelly_patch": make_patch({path: before}, {path: after})})


def test_a_case_making_up_a_name_another_target_made_up_comes_last() -> None:
    """Two dead_code cases of different smells' targets retiring the same function under the
    same former name read as one word list: while another case remains, the dataset holds one."""
    first = _adding(_case("dead_code", "easy", 0, "pkg/a.py", target="add"), "pkg/a.py",
                    "_ngettext_dummy")
    again = _adding(_case("dead_code", "medium", 1, "pkg/b.py", target="mul"), "pkg/b.py",
                    "_ngettext_dummy")
    other = _adding(_case("dead_code", "medium", 2, "pkg/c.py", target="countdown"), "pkg/c.py",
                    "_lookup_plural")
    assert new_names(first) == {"_ngettext_dummy"} and new_names(other) == {"_lookup_plural"}
    for seed in range(6):
        chosen = {case.id for case in sample([first, again, other], 1, seed=seed)}
        assert chosen == {first.id, other.id}
    assert len(sample([first, again], 1, seed=0)) == 2  # nothing else: the repeat too


def test_a_name_made_up_at_the_same_target_comes_last_too() -> None:
    """One target serving two difficulties (marshmallow's data_clumps on one class): a medium
    case making up the helper the easy case made up comes after one making up another."""
    easy = _adding(_case("data_clumps", "easy", 0, "pkg/a.py"), "pkg/a.py",
                   "format_length_error")
    again = _adding(_case("data_clumps", "medium", 1, "pkg/a.py"), "pkg/a.py",
                    "format_length_error")
    other = _adding(_case("data_clumps", "medium", 2, "pkg/a.py"), "pkg/a.py",
                    "length_error_message")
    for seed in range(8):
        chosen = {case.id for case in sample([easy, again, other], 1, seed=seed,
                                             candidates={("calc", "data_clumps"): 1})}
        assert chosen == {easy.id, other.id}, seed


def test_names_a_patch_only_moves_are_not_made_up() -> None:
    case = _case("god_class", "easy", 0, "pkg/a.py")
    before = {"pkg/a.py": "def parse(x):\n    return x\n", "pkg/b.py": "X = 1\n"}
    after = {"pkg/a.py": "X = 1\n", "pkg/b.py": "def parse(x):\n    return x\n\n\nLIMIT = 2\n"}
    moved = case.model_copy(update={"smelly_patch": make_patch(before, after)})
    assert new_names(moved) == {"LIMIT"}
