"""Findings and reports: the one shape every validation path returns."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

Severity = Literal["error", "warning"]


def escape_token(token: str | int) -> str:
    """Escape one reference token for an RFC 6901 JSON Pointer."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(*tokens: str | int) -> str:
    """Build an RFC 6901 JSON Pointer from unescaped tokens (no tokens: the root, "")."""
    return "".join("/" + escape_token(t) for t in tokens)


@dataclass(frozen=True, order=True)
class Finding:
    """One problem in a document: a ledger code, where it is, and what to do about it."""

    pointer: str
    code: str
    severity: Severity
    message: str = field(compare=False)
    line: int | None = field(default=None, compare=False)
    column: int | None = field(default=None, compare=False)

    def as_error(self) -> Finding:
        return replace(self, severity="error")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity,
            "pointer": self.pointer,
            "message": self.message,
        }
        if self.line is not None:
            out["line"] = self.line
        if self.column is not None:
            out["column"] = self.column
        return out


def reading_order(finding: Finding) -> tuple[int, int, int, str, str]:
    """Where a reader meets a finding: placed ones by line and column, the rest after them; then pointer and code."""
    placed = finding.line is not None
    return (0 if placed else 1, finding.line or 0, finding.column or 0, finding.pointer, finding.code)


@dataclass(frozen=True)
class Report:
    """The outcome of validating one document."""

    kind: str | None
    errors: tuple[Finding, ...]
    warnings: tuple[Finding, ...]

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.errors + self.warnings

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "valid": self.valid,
            "errors": [f.to_dict() for f in self.errors],
            "warnings": [f.to_dict() for f in self.warnings],
        }

    def ordered(self) -> Report:
        """The same findings in reading order: by line and column where placed, then by pointer and code."""
        return Report(self.kind, tuple(sorted(self.errors, key=reading_order)), tuple(sorted(self.warnings, key=reading_order)))

    @classmethod
    def build(cls, kind: str | None, findings: list[Finding], *, strict: bool, ordered: bool = True) -> Report:
        """Deduplicate by (code, pointer, severity), apply strict mode, and order by position (line, column), then
        pointer, then code; findings without a position (a document given as data) come by pointer. Of findings
        that repeat a (code, pointer, severity), the one whose message comes first by code point is kept: engines
        report failures in different orders, and the choice must not depend on it. ``ordered`` false: left in the
        order found, for a caller that places the findings and orders them then (findings are sorted once)."""
        unique: dict[tuple[str, str, str], Finding] = {}
        for finding in findings:
            if strict and finding.severity == "warning":
                finding = finding.as_error()
            key = (finding.pointer, finding.code, finding.severity)
            kept = unique.get(key)
            if kept is None or finding.message < kept.message:
                unique[key] = finding
        found = sorted(unique.values(), key=reading_order) if ordered else list(unique.values())
        return cls(
            kind=kind,
            errors=tuple(f for f in found if f.severity == "error"),
            warnings=tuple(f for f in found if f.severity == "warning"),
        )
