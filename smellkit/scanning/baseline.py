"""Baselines: the findings a team has accepted, so CI fails only on new ones.

A baseline file is JSON: `{"version": 1, "fingerprints": {"<fingerprint>": "<smell> <qualname>"}}`.
Fingerprints leave line numbers out, so unrelated edits do not make known findings new.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from smellkit.errors import ConfigError
from smellkit.models import Finding

BASELINE_VERSION = 1


def write_baseline(path: Path, findings: Iterable[Finding]) -> int:
    entries = {finding.fingerprint(): f"{finding.smell} {finding.location.qualname}"
               for finding in findings}
    path.write_text(json.dumps({"version": BASELINE_VERSION, "fingerprints": dict(
        sorted(entries.items()))}, indent=2) + "\n", encoding="utf-8")
    return len(entries)


def read_baseline(path: Path) -> frozenset[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise ConfigError("baseline file not found", path=path,
                          hint="create it with --write-baseline") from error
    except (OSError, ValueError) as error:
        raise ConfigError(f"not a readable baseline: {error}", path=path,
                          hint="regenerate it with --write-baseline") from error
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION or not isinstance(
            data.get("fingerprints"), dict):
        raise ConfigError(f"expected {{'version': {BASELINE_VERSION}, 'fingerprints': {{...}}}}",
                          path=path, field="fingerprints",
                          hint="regenerate it with --write-baseline")
    return frozenset(data["fingerprints"])


def new_findings(findings: Iterable[Finding], baseline: frozenset[str]) -> list[Finding]:
    return [finding for finding in findings if finding.fingerprint() not in baseline]
