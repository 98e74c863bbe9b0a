"""The text report: each file's findings in reading order, then a one-line summary (``--format text``)."""

from __future__ import annotations

import os
from typing import Any, TextIO

from evalschema_models import constants

from ..core.display import visible
from ..core.findings import reading_order
from ..core.limits import shorten
from .entry import ReportEntry


def colour(stream: TextIO) -> bool:
    return stream is not None and stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def painter(colour: bool) -> Any:
    return (lambda text, code: f"\033[{code}m{text}\033[0m") if colour else (lambda text, code: text)


ROOT_LABEL = constants.ROOT_LABEL


def pointer_label(pointer: str) -> str:
    return visible(shorten(pointer)) if pointer else ROOT_LABEL


def text_entry(entry: ReportEntry, paint: Any, verbosity: int = 0) -> str:
    """A file's findings in reading order (``verbosity`` ``-1``: errors only; ``1``: a line for a valid file too)."""
    findings = entry.errors + (() if verbosity < 0 else entry.warnings)
    where = visible(entry.path) + (f" (line {entry.line})" if entry.line is not None else "")
    kind = f"  [{entry.kind}]" if entry.kind else ""
    if not findings:
        if verbosity > 0:
            verdict: str = paint("valid" if entry.valid else "invalid", "32" if entry.valid else "31")
            return where + kind + "  " + verdict + "\n"
        return ""
    lines = [paint(where, "1") + kind]
    for f in sorted(findings, key=reading_order):
        position = f"{f.line}:{f.column or 1}" if f.line is not None else "-"
        severity = paint("error", "31") if f.severity == "error" else paint("warning", "33")
        lines.append(f"  {position:>9}  {severity}  {paint(f.code, '36')}  {pointer_label(f.pointer)}  {visible(f.message)}")
    if entry.omitted:
        lines.append(f"  … {entry.omitted:,} more finding(s) not shown")
    return "\n".join(lines) + "\n"


def text_summary(totals: dict[str, int], errors: int, warnings: int, paint: Any, omitted: int = 0) -> str:
    summary = (
        f"{totals['files']} document(s): {totals['valid']} valid, {totals['invalid']} invalid, "
        f"{totals['unreadable']} unreadable; {errors} error(s), {warnings} warning(s)"
        + (f", {omitted:,} more not shown" if omitted else "")
    )
    painted: str = paint(summary, "32" if totals["invalid"] + totals["unreadable"] == 0 else "31")
    return painted + "\n"


def render_text(entries: list[ReportEntry], totals: dict[str, int], stream: TextIO, *, verbosity: int = 0) -> str:
    """Entries and their findings, then (unless ``verbosity`` is ``-1``, errors only) a one-line summary."""
    paint = painter(colour(stream))
    text = "".join(text_entry(e, paint, verbosity) for e in entries)
    if verbosity < 0:
        return text
    errors = sum(len(e.errors) for e in entries)
    warnings = sum(len(e.warnings) for e in entries)
    return text + text_summary(totals, errors, warnings, paint)
