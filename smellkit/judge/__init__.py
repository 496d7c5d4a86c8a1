"""The LLM judge, every verdict cross-checked against the scorer's deterministic evidence.

`judge(DATASET, PREDICTIONS, OUT, judge_models=[...])` judges predictions through any
OpenAI-compatible server (the `judge` extra) and writes `OUT/verdicts.jsonl`;
`crosscheck_verdicts(DATASET, SCORES_DIR, VERDICTS, OUT)` holds verdicts of any other judge to
the same evidence without calling a model; `smellkit.judge.crosscheck.crosscheck(scores,
Evidence.from_score(row))` does it for one verdict; `between_judges` and `against_evidence`
are the agreement statistics; `read_verdicts(OUT)` reads a verdicts folder back.

Modules, one concern each: `client` (the server), `cache` (replies on disk), `rubric` and
`data/` (the versioned rubric and prompts), `analysis` (the smell analysis), `prompt`, `reply`
(validating replies, combining samples), `guard` (text aimed at the judge), `evidence` and
`crosscheck`, `foreign` and `external` (other judges' verdicts), `agreement`, `summary`,
`verdict` (the row), `run` (`smellkit judge`).

Public names are imported on first use: `import smellkit.judge` needs none of the extra.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "judge": "smellkit.judge.run",
    "read_verdicts": "smellkit.judge.run",
    "JudgeReport": "smellkit.judge.run",
    "crosscheck_verdicts": "smellkit.judge.external",
    "CrosscheckReport": "smellkit.judge.external",
    "CrossCheck": "smellkit.judge.crosscheck",
    "Contradiction": "smellkit.judge.crosscheck",
    "Evidence": "smellkit.judge.evidence",
    "Verdict": "smellkit.judge.verdict",
    "ClientOptions": "smellkit.judge.client",
    "JudgeClient": "smellkit.judge.client",
    "Price": "smellkit.judge.client",
    "between_judges": "smellkit.judge.agreement",
    "against_evidence": "smellkit.judge.agreement",
    "read_foreign": "smellkit.judge.foreign",
}

__all__ = [
    "ClientOptions", "Contradiction", "CrossCheck", "CrosscheckReport", "Evidence",
    "JudgeClient", "JudgeReport", "Price", "Verdict", "against_evidence", "between_judges",
    "crosscheck_verdicts", "judge", "read_foreign", "read_verdicts",
]

if TYPE_CHECKING:
    from smellkit.judge.agreement import against_evidence, between_judges
    from smellkit.judge.client import ClientOptions, JudgeClient, Price
    from smellkit.judge.crosscheck import Contradiction, CrossCheck
    from smellkit.judge.evidence import Evidence
    from smellkit.judge.external import CrosscheckReport, crosscheck_verdicts
    from smellkit.judge.foreign import read_foreign
    from smellkit.judge.run import JudgeReport, judge, read_verdicts
    from smellkit.judge.verdict import Verdict


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'smellkit.judge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
