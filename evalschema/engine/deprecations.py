"""Warnings for deprecated fields present in a document. The text is the one message codegen formats for each
deprecated location of the schemas (``evalschema_models._deprecations``, the models' warnings say the same)."""

from __future__ import annotations

from collections.abc import Iterator

from evalschema_models import rules as codes
from evalschema_models._deprecations import DEPRECATIONS

from ..core.findings import Finding
from ..core.messages import show
from .schema_path import DeprecatedUse


def describe(use: DeprecatedUse) -> str:
    """``'<name>' is deprecated: <the location's generated message>`` (a location the working schemas do not
    deprecate — a field of an older release since removed — has no message of its own)."""
    message = DEPRECATIONS.get(use.location)
    return f"{show(use.name)} is deprecated: {message}" if message else f"{show(use.name)} is deprecated."


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
