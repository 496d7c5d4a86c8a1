"""Plausible Score rows made from a seeded generator, for the aggregation and report tests."""

from __future__ import annotations

import random

from smellkit.evaluate.score import MetricDelta, Score, categorise

SMELLS = ("data_clumps", "dead_code", "deep_inlining", "duplicated_code", "feature_envy",
          "god_class", "interface_segregation", "shotgun_surgery")
DIFFICULTIES = ("easy", "medium", "hard")
MODELS = ("alpha", "beta", "gamma")


def synthetic_scores(*, seed: int = 7, models: tuple[str, ...] = MODELS, cases: int = 3,
                     settings: tuple[str, ...] = ("guided", "targeted")) -> list[Score]:
    """models x 8 smells x 3 difficulties x settings x `cases` rows; later models do better."""
    rng = random.Random(seed)
    rows: list[Score] = []
    for skill, model in enumerate(models):
        for smell in SMELLS:
            for level, difficulty in enumerate(DIFFICULTIES):
                for setting in settings:
                    for case in range(cases):
                        rows.append(_one(rng, model, smell, difficulty, setting, case,
                                         0.45 + 0.15 * skill - 0.1 * level))
    return rows


def _one(rng: random.Random, model: str, smell: str, difficulty: str, setting: str, case: int,
         skill: float) -> Score:
    instance = f"{smell}-{difficulty}-{case}"
    involved = 2 + DIFFICULTIES.index(difficulty) + rng.randint(0, 1)
    if rng.random() < 0.06:
        return categorise(Score(instance_id=instance, model=model, smell=smell,
                                difficulty=difficulty, setting=setting, apply_status="empty",
                                files_involved=involved))
    if rng.random() < 0.05:
        return categorise(Score(instance_id=instance, model=model, smell=smell,
                                difficulty=difficulty, setting=setting,
                                apply_status="apply_failed", files_involved=involved))
    total = rng.randint(3, 10)
    passed = total if rng.random() < 0.5 + skill / 2 else rng.randint(0, total - 1)
    checks = rng.randint(1, 4)
    good = rng.random() < skill
    return categorise(Score(
        instance_id=instance, model=model, smell=smell, difficulty=difficulty, setting=setting,
        applied=True, apply_status="applied", tests_passed=passed, tests_total=total,
        tpr=passed / total, la=1.0 if rng.random() < 0.3 + skill else 0.0,
        loc_precision=round(rng.uniform(0.3, 1.0), 3), loc_recall=round(rng.uniform(0.2, 1.0), 3),
        residue=0 if good else rng.randint(0, 3), checks_passed=checks if good else
        rng.randint(0, checks), checks_total=checks, gt_f1=round(rng.uniform(0, 1), 3),
        gap_closed=round(rng.uniform(-0.3, 1.0), 3),
        metrics={"cc": MetricDelta(original=3.0, smelly=5.0, result=rng.choice([3.0, 4.0, 5.0])),
                 "sloc": MetricDelta(original=40.0, smelly=55.0, result=48.0)},
        files_changed=max(1, involved + rng.randint(-2, 2)), files_involved=involved,
        files_outside=rng.choice([0, 0, 0, 1]), lines_outside=rng.choice([0, 0, 3, 12]),
        seconds=round(rng.uniform(1, 9), 2)))
