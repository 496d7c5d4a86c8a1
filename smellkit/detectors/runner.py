"""Running detectors: options from configuration, suppressions, severity filter, stable order."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError

from smellkit.analysis.context import Context
from smellkit.detectors.registry import DetectorClass, select
from smellkit.errors import ConfigError
from smellkit.models import Finding, Location, Severity
from smellkit.project import Project

SEVERITY_RANK: dict[Severity, int] = {"info": 0, "warning": 1, "error": 2}

_NOQA = re.compile(r"#\s*noqa(?::\s*([\w, ]+))?", re.IGNORECASE)
_SUPPRESSION = re.compile(r"#\s*smellkit:\s*ignore(-file)?(?:\[([\w\s,]+)\])?")


def options_for(detector: DetectorClass, table: dict[str, Any] | None) -> Any:
    """The detector's options from `[tool.smellkit.detectors.<name>]`, errors naming the field."""
    try:
        return detector.Options.model_validate(table or {})
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise ConfigError(first["msg"], field=f"tool.smellkit.detectors.{detector.name}.{field}",
                          hint=f"see `smellkit smells {detector.name}` for its options") from error


def sort_key(finding: Finding) -> tuple[str, int, str, str, str]:
    location = finding.location
    return (location.path, location.start_line, finding.smell, location.qualname, finding.message)


class Suppressions:
    """`# smellkit: ignore[smell, ...]` on a finding's first line (or a comment line right above
    it), and `# smellkit: ignore-file[...]` anywhere in a file; without brackets, every smell.

    An unused import marked `# noqa` (bare, or with F401 among its codes) is a re-export or an
    import kept for its side effect, as linters are told: dead code does not report it either."""

    ALL = "*"

    def __init__(self, context: Context):
        self.context = context
        self._by_file: dict[str, tuple[frozenset[str], dict[int, frozenset[str]]]] = {}

    def _table(self, path: str) -> tuple[frozenset[str], dict[int, frozenset[str]]]:
        """Smells ignored in the whole file, and by line, read once per file."""
        if path not in self._by_file:
            whole: set[str] = set()
            by_line: dict[int, frozenset[str]] = {}
            for number, line in enumerate(self.context.lines(path), start=1):
                if "smellkit:" not in line:
                    continue
                for match in _SUPPRESSION.finditer(line):
                    names = match.group(2)
                    smells = frozenset({self.ALL} if names is None else
                                       {name.strip() for name in names.split(",")})
                    if match.group(1):
                        whole.update(smells)
                    else:
                        by_line[number] = by_line.get(number, frozenset()) | smells
            self._by_file[path] = (frozenset(whole), by_line)
        return self._by_file[path]

    def suppressed(self, finding: Finding) -> bool:
        whole, by_line = self._table(finding.location.path)
        smell = finding.smell
        if smell == "dead_code" and finding.evidence.get("kind") == "import" and \
                self._noqa(finding.location):
            return True
        if self.ALL in whole or smell in whole:
            return True
        start = finding.location.start_line
        for number in (start, start - 1):
            ignored = by_line.get(number)
            if ignored is None:
                continue
            if number == start - 1:
                text = self.context.lines(finding.location.path)[number - 1].lstrip()
                if not text.startswith(("#", "@")):
                    continue
            if self.ALL in ignored or smell in ignored:
                return True
        return False


    def _noqa(self, location: Location) -> bool:
        lines = self.context.lines(location.path)
        for text in lines[location.start_line - 1:location.end_line]:
            match = _NOQA.search(text)
            if match and (match.group(1) is None or "F401" in match.group(1).upper()):
                return True
        return False


def run_detectors(
    project: Project | Context,
    smells: Sequence[str] | None = None,
    *,
    min_severity: Severity = "info",
    options: dict[str, dict[str, Any]] | None = None,
    respect_suppressions: bool = True,
    hedged: bool = False,
) -> list[Finding]:
    """Findings of the chosen smells (all when None), suppressions applied, in a stable order;
    `hedged` adds the findings a detector holds back unless asked (`report-hedged`)."""
    context = project if isinstance(project, Context) else Context(project)
    configured = dict(context.project.config.detectors)
    unknown = sorted(set(configured) - {cls.name for cls in select(None)})
    if unknown:
        raise ConfigError(f"no detector named {', '.join(unknown)}",
                          field="tool.smellkit.detectors")
    configured.update(options or {})
    suppressions = Suppressions(context)
    threshold = SEVERITY_RANK[min_severity]
    findings: list[Finding] = []
    for cls in select(list(smells) if smells else None):
        table = configured.get(cls.name)
        if hedged and "report_hedged" in cls.Options.model_fields:
            table = {**(table or {}), "report-hedged": True}
        detector = cls(options_for(cls, table))
        for finding in detector.detect(context):
            if SEVERITY_RANK[finding.severity] < threshold:
                continue
            if respect_suppressions and suppressions.suppressed(finding):
                continue
            findings.append(finding)
    findings.sort(key=sort_key)
    return findings


def _touches(location: Location, target: Location) -> bool:
    if location.path != target.path:
        return False
    if location.qualname == target.qualname or location.qualname.startswith(
            target.qualname + "."):
        return True
    return target.start_line <= location.start_line <= target.end_line


def residue(project: Project | Context, smell: str, targets: Iterable[Location]) -> list[Finding]:
    """Findings of one smell at, inside, or related to any of the target locations.

    Scoring uses this to ask whether a smell is still there after a refactoring, and the build
    whether an injection made it: any trace counts, hedged findings included.
    """
    wanted = list(targets)
    found = run_detectors(project, [smell], respect_suppressions=False, hedged=True)
    return [finding for finding in found
            if any(_touches(finding.location, target) or any(
                _touches(related, target) for related in finding.related) for target in wanted)]


