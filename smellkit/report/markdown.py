"""A Markdown report, for pull-request comments and notebooks: a section per smell, long lists
folded."""

from __future__ import annotations

from collections import Counter

from smellkit.models import Finding, ScanResult


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def with_hedge(finding: Finding) -> str:
    """The finding's message, followed by why its confidence is low when the detector said so
    (`evidence.confidence_reasons`), so a reader of a table sees what JSON readers see."""
    reasons = finding.evidence.get("confidence_reasons") or ()
    if not isinstance(reasons, (list, tuple)) or not reasons:
        return finding.message
    return f"{finding.message} (hedged, confidence {finding.confidence:.1f}: " \
           f"{'; '.join(str(reason) for reason in reasons)})"


SHOWN = 10
"""Findings of a smell shown before the rest is folded into a `<details>` block."""
_HEADER = ["| where | severity | confidence | message |", "| --- | --- | ---: | --- |"]
_RANK = {"error": 0, "warning": 1, "info": 2}


def _row(finding: Finding) -> str:
    location = finding.location
    return (f"| `{location.path}:{location.start_line}` `{location.qualname}` | "
            f"{finding.severity} | {finding.confidence:.2f} | {_cell(with_hedge(finding))} |")


def _smell_section(smell: str, findings: list[Finding]) -> list[str]:
    """One smell's findings, the most severe first; beyond `SHOWN`, folded (GitHub and most
    Markdown viewers render `<details>` as a collapsed block)."""
    ranked = sorted(findings, key=lambda finding: (_RANK[finding.severity], -finding.confidence,
                                                   finding.location.path,
                                                   finding.location.start_line))
    lines = [f"## {smell}", "", *_HEADER, *(_row(finding) for finding in ranked[:SHOWN]), ""]
    rest = ranked[SHOWN:]
    if rest:
        lines += ["<details>", f"<summary>{len(rest)} more {smell} findings</summary>", "",
                  *_HEADER, *(_row(finding) for finding in rest), "", "</details>", ""]
    return lines


def to_markdown(result: ScanResult) -> str:
    summary = result.summary
    lines = [f"# smellkit report: `{summary.root}`", "",
             f"{summary.files} files, {summary.lines:,} lines, {summary.classes} classes, "
             f"{summary.functions} functions; {summary.findings} findings; "
             f"{summary.import_cycles} import cycles.", ""]
    if result.findings:
        counts = Counter(finding.smell for finding in result.findings)
        lines += ["| smell | findings |", "| --- | ---: |"]
        lines += [f"| [{smell}](#{smell.replace('_', '-')}) | {count} |"
                  for smell, count in sorted(counts.items())]
        lines.append("")
        for smell in sorted(counts):
            lines += _smell_section(smell, [finding for finding in result.findings
                                            if finding.smell == smell])
    if result.import_cycles:
        lines += ["## Import cycles", ""]
        lines += [f"- {' → '.join((*cycle, cycle[0]))}" for cycle in result.import_cycles]
        lines.append("")
    if result.diagnostics:
        lines += ["## Files not analysed", ""]
        for diagnostic in result.diagnostics:
            where = f"{diagnostic.path}:{diagnostic.line}" if diagnostic.line else diagnostic.path
            lines.append(f"- `{where}` ({diagnostic.code}): {_cell(diagnostic.message)}")
        lines.append("")
    return "\n".join(lines)
