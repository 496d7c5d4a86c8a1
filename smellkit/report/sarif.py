"""SARIF 2.1.0 output, the format code-scanning services read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from smellkit.models import Diagnostic, Finding, Location, ScanResult, Severity

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL: dict[Severity, str] = {"error": "error", "warning": "warning", "info": "note"}
_LOGICAL_KIND = {"module": "module", "class": "type", "function": "function",
                 "method": "function", "nested_function": "function", "lambda": "function",
                 "attribute": "member", "statement": "function"}


def _physical(location: Location) -> dict[str, Any]:
    return {"artifactLocation": {"uri": location.path, "uriBaseId": "SRCROOT"},
            "region": {"startLine": location.start_line,
                       "endLine": max(location.start_line, location.end_line)}}


def _location(location: Location, identifier: int | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "physicalLocation": _physical(location),
        "logicalLocations": [{"fullyQualifiedName": location.qualname,
                              "kind": _LOGICAL_KIND[location.kind]}],
    }
    if identifier is not None:
        entry["id"] = identifier
    return entry


def _result(finding: Finding, rule_index: int) -> dict[str, Any]:
    return {
        "ruleId": finding.smell,
        "ruleIndex": rule_index,
        "level": _LEVEL[finding.severity],
        "message": {"text": finding.message or finding.smell.replace("_", " ")},
        "locations": [_location(finding.location)],
        "relatedLocations": [_location(item, number)
                             for number, item in enumerate(finding.related, start=1)],
        "partialFingerprints": {"smellkit/v1": finding.fingerprint()},
        "properties": {"confidence": finding.confidence, "evidence": finding.evidence},
    }


def _notification(diagnostic: Diagnostic) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "level": _LEVEL[diagnostic.severity],
        "message": {"text": diagnostic.message},
        "descriptor": {"id": diagnostic.code},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": diagnostic.path, "uriBaseId": "SRCROOT"}}}],
    }
    if diagnostic.line:
        entry["locations"][0]["physicalLocation"]["region"] = {"startLine": diagnostic.line}
    return entry


def _rule(name: str, description: str) -> dict[str, Any]:
    """A smell as a SARIF rule, with the help a code-scanning page shows beside a result."""
    silence = f"# smellkit: ignore[{name}]"
    options = f"smellkit smells {name}"
    return {
        "id": name,
        "name": "".join(part.title() for part in name.split("_")),
        "shortDescription": {"text": description},
        "fullDescription": {"text": description},
        "help": {
            "text": f"{description} Each result's properties hold the evidence (metric values "
                    f"and the rule that fired). Silence one result with `{silence}` on its "
                    f"first line; thresholds are options (`{options}`).",
            "markdown": f"{description}\n\nEach result's `properties.evidence` holds the "
                        f"metric values and the rule that fired. Silence one result with "
                        f"`{silence}` on its first line (or the line above); thresholds are "
                        f"options of `[tool.smellkit.detectors.{name}]` (`{options}`).",
        },
        "defaultConfiguration": {"level": "warning"},
    }


def to_sarif(result: ScanResult, rules: dict[str, str]) -> dict[str, Any]:
    """One SARIF log with one run; `rules` maps each smell name to its description."""
    names = sorted(set(rules) | {finding.smell for finding in result.findings})
    index = {name: position for position, name in enumerate(names)}
    root = Path(result.summary.root).resolve()
    base = root if root.is_dir() else root.parent
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "smellkit",
                "version": result.version,
                "rules": [_rule(name, rules.get(name, name.replace("_", " ")))
                          for name in names],
            }},
            "originalUriBaseIds": {"SRCROOT": {"uri": base.as_uri() + "/"}},
            "invocations": [{
                # files that could not be analysed: the run is incomplete, whatever it found
                "executionSuccessful": result.summary.files_with_errors == 0,
                "toolExecutionNotifications": [_notification(item)
                                               for item in result.diagnostics],
            }],
            "results": [_result(finding, index[finding.smell]) for finding in result.findings],
        }],
    }
