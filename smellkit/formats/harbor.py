"""Harbor's verifier output, as smellkit's exported tasks write it: the shared contract between
the exporter (`smellkit.bench.harbor`, which writes test.sh) and the in-container scorer
(`smellkit.evaluate.verifier`).

Harbor 0.26 reads `/logs/verifier/reward.json` and rejects it unless every value is an int or a
float and finite (`harbor/verifier/verifier.py`): no null, no string, no nested object. Booleans
are written as 0/1 (Python's `json` would write `true`), and a value that was not measured is left
out rather than written as a sentinel: Harbor's job summary counts a missing key as 0.

`error_category` is a number; the mapping is `ERROR_CODES` (smellkit's categories, then the three
outcomes only a Harbor verifier has: the scorer or the environment changed, or the scorer failed).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path

VERIFIER_LOGS = "/logs/verifier"
REWARD_JSON = "reward.json"
REWARD_TXT = "reward.txt"
PREDICTION_PATCH = "prediction.patch"
"""The agent's change, relative to the repository root (read by `smellkit evaluate
--harbor-jobs`)."""
SCORE_JSON = "score.json"
"""The full `Score` row, as `scores.jsonl` holds it."""
VERDICT_TXT = "verdict.txt"
"""One paragraph for a person: resolved or not, and why."""
INTEGRITY_LOG = "integrity.log"

ERROR_CODES: dict[str, int] = {
    "resolved": 0,
    "no_patch": 1,
    "apply_failed": 2,
    "tampered": 3,
    "broke_tests": 4,
    "wrong_location": 5,
    "incomplete_fix": 6,
    "not_equivalent": 7,
    "tampered_scorer": 8,
    "tampered_environment": 9,
    "verifier_error": 10,
}
"""`error_category` in reward.json: the first eight are `smellkit.evaluate.score`'s categories;
`tampered_scorer` (the scorer, the interpreter or a tool it runs differs from the manifest in
/tests), `tampered_environment` (the project's environment differs from its record made at image
build) and `verifier_error` (the scorer crashed or wrote nothing) happen before or instead of
scoring."""


class RewardError(ValueError):
    """A reward.json value Harbor would reject."""


def check_reward(values: Mapping[str, object]) -> dict[str, float | int]:
    """`values` if Harbor accepts it: string keys, every value a finite int or float (never a
    bool, which JSON would write as true/false); else RewardError naming the key."""
    checked: dict[str, float | int] = {}
    if "reward" not in values:
        raise RewardError("reward.json needs a `reward` key")
    for key, value in values.items():
        if not isinstance(key, str) or not key:
            raise RewardError(f"bad key {key!r}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RewardError(f"{key}: {value!r} is not a number")
        if not math.isfinite(value):
            raise RewardError(f"{key}: {value!r} is not finite")
        checked[key] = value
    return checked


def write_reward(path: Path | str, values: Mapping[str, object]) -> None:
    """Write reward.json after `check_reward`, `reward` first and the other keys sorted: Harbor
    shows the first key of the first metric in its progress bar (alphabetical order put
    `applied` there). Written beside and renamed, so a reader never sees half a file."""
    checked = check_reward(values)
    ordered = {"reward": checked.pop("reward"), **dict(sorted(checked.items()))}
    text = json.dumps(ordered, indent=2, allow_nan=False) + "\n"
    target = Path(path)
    scratch = target.with_name(f".{target.name}.tmp")
    scratch.write_text(text, encoding="utf-8")
    scratch.replace(target)
