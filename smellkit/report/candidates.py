"""The readable form of `smellkit candidates --explain`: which rule removed how many."""

from __future__ import annotations

from smellkit.models import CandidateReport


def _counted(counts: dict[str, int]) -> list[str]:
    width = len(str(max(counts.values()))) if counts else 1
    return [f"  {count:>{width}}  {rule}" for rule, count in counts.items()]


def _some(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def explain_lines(report: CandidateReport, where: str) -> list[str]:
    """Discovery's own rules, then the engine's, then what remains (or why nothing does)."""
    lines = [f"{report.smell} candidates in {where}"]
    turned = sum(report.discarded.values())
    if turned:
        lines.append(f"discovery turned away {_some(turned, 'definition')}:")
        lines.extend(_counted(report.discarded))
    lines.append(f"discovery proposed {_some(report.proposed, 'candidate')}")
    removed = sum(report.removed.values())
    if removed:
        lines.append(f"the engine removed {removed}:")
        lines.extend(_counted(report.removed))
    lines.append(f"{report.eligible} remain" if report.eligible else
                 f"none remain: {report.reason}")
    return lines
