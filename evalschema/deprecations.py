"""Warnings for deprecated fields present in a document, driven by the schema's ``x-deprecation``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from evalschema_models import rules as codes

from .findings import Finding
from .messages import show
from .schema_path import DeprecatedUse


def _removal_floor(published: str) -> str:
    """The earliest removal date: twelve months after the deprecation was published."""
    try:
        day = date.fromisoformat(published)
    except ValueError:
        return "unknown"
    try:
        return day.replace(year=day.year + 1).isoformat()
    except ValueError:  # 29 February
        return day.replace(year=day.year + 1, day=28).isoformat()


def describe(use: DeprecatedUse) -> str:
    note = use.annotation
    if not note:
        return f"{show(use.name)} is deprecated. {use.description}".strip()
    return (
        f"{show(use.name)} is deprecated since {note.get('since')} and will be removed in {note.get('removal')} "
        f"(not before {_removal_floor(str(note.get('date')))}); use {note.get('replacement')} instead."
    )


def warnings_for(uses: list[DeprecatedUse], kind: str) -> Iterator[Finding]:
    for use in uses:
        if kind == "pack" and use.name == "fail_on_violation" and use.value is False:
            yield Finding(
                use.pointer,
                codes.VALIDATOR_FAIL_OPEN,
                "warning",
                "this validator has fail_on_violation: false, so it was meant to observe, but validators always "
                "enforce now: move it to an eval on the same prompt (same type and params, a trigger, a metric "
                "and a threshold) and delete the validator. " + describe(use),
            )
        else:
            yield Finding(use.pointer, codes.DEPRECATED_FIELD, "warning", describe(use))
