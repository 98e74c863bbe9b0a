"""The GitHub report: one workflow command per finding (``--format github``), escaped for GitHub's parser."""

from __future__ import annotations

from ..core.display import visible
from .entry import ReportEntry
from .text import pointer_label


def escape_data(text: str) -> str:
    return visible(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_entry(entry: ReportEntry) -> str:
    lines = []
    for f in entry.errors + entry.warnings:
        props = [f"file={escape_property(entry.path)}"]
        if f.line is not None:
            props += [f"line={f.line}", f"col={f.column or 1}"]
        props.append(f"title={escape_property(f.code)}")
        level = "error" if f.severity == "error" else "warning"
        lines.append(f"::{level} {','.join(props)}::{escape_data(pointer_label(f.pointer) + ': ' + f.message)}")
    if entry.omitted:
        lines.append(f"::notice file={escape_property(entry.path)}::{entry.omitted} more finding(s) not shown")
    return "".join(line + "\n" for line in lines)
