"""A Markdown report, for pull-request comments and notebooks."""

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


def to_markdown(result: ScanResult) -> str:
    summary = result.summary
    lines = [f"# smellkit report: `{summary.root}`", "",
             f"{summary.files} files, {summary.lines:,} lines, {summary.classes} classes, "
             f"{summary.functions} functions; {summary.findings} findings; "
             f"{summary.import_cycles} import cycles.", ""]
    if result.findings:
        counts = Counter(finding.smell for finding in result.findings)
        lines += ["| smell | findings |", "| --- | ---: |"]
        lines += [f"| {smell} | {count} |" for smell, count in sorted(counts.items())]
        lines += ["", "| smell | where | severity | confidence | message |",
                  "| --- | --- | --- | ---: | --- |"]
        for finding in result.findings:
            location = finding.location
            lines.append(f"| {finding.smell} | `{location.path}:{location.start_line}` "
                         f"`{location.qualname}` | {finding.severity} | "
                         f"{finding.confidence:.2f} | {_cell(with_hedge(finding))} |")
        lines.append("")
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
