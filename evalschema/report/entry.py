"""The report of one input, as every renderer reads it (issue 38 item 8): its findings are :class:`Finding` objects
to the end; only the JSON renderer turns them into the JSON report's dictionaries (``ReportEntry.to_dict``)."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..core.display import display_path
from ..core.findings import Finding, Report
from ..core.limits import MAX_FINDINGS


class ReportEntry(NamedTuple):
    """One document's report: where it is (``line``: of a JSON Lines entry), its kind, whether it is valid, its
    findings (at most ``MAX_FINDINGS``, errors first) and how many more there were (``omitted``). A named tuple, not
    a dataclass: every check makes one, and a dataclass costs start-up time to create (``evalschema.__main__``)."""

    path: str
    line: int | None
    kind: str | None
    valid: bool
    errors: tuple[Finding, ...]
    warnings: tuple[Finding, ...]
    omitted: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The entry as the JSON report writes it (its members in the order the report's schema shows)."""
        out: dict[str, Any] = {"path": self.path}
        if self.line is not None:
            out["line"] = self.line
        out.update(
            kind=self.kind,
            valid=self.valid,
            errors=[f.to_dict() for f in self.errors],
            warnings=[f.to_dict() for f in self.warnings],
        )
        if self.omitted:
            out["omitted"] = self.omitted
        return out

    def with_path(self, path: str) -> ReportEntry:
        return self._replace(path=path)


def entry(path: str, line: int | None, report: Report) -> ReportEntry:
    """The report of one document (``line``: of a JSON Lines entry) as the renderers read it. At most
    ``MAX_FINDINGS`` findings are listed (errors first); ``omitted`` counts the rest."""
    errors = report.errors[:MAX_FINDINGS]
    warnings = report.warnings[: MAX_FINDINGS - len(errors)]
    omitted = len(report.errors) + len(report.warnings) - len(errors) - len(warnings)
    return ReportEntry(display_path(path), line, report.kind, report.valid, errors, warnings, omitted)
