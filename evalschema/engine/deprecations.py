"""Warnings for deprecated fields present in a document, rendered from the ledger's templates: DEPRECATED_FIELD
with the variant and parameters codegen records for each deprecated location of the schemas
(``evalschema_models._deprecations``), and VALIDATOR_FAIL_OPEN around it."""

from __future__ import annotations

from collections.abc import Iterator

from evalschema_models import rules as codes
from evalschema_models._deprecations import DEPRECATIONS

from ..core.findings import Finding
from ..core.messages import render
from .schema_path import DeprecatedUse

# A location the working schemas do not deprecate (a field of an older release, since removed) has no entry.
_PLAIN = {"variant": "plain"}


def describe(use: DeprecatedUse) -> str:
    """The DEPRECATED_FIELD message of ``use``: the ledger's template for its location's variant."""
    params = dict(DEPRECATIONS.get(use.location, _PLAIN))
    variant = params.pop("variant")
    return render(codes.DEPRECATED_FIELD, variant, name=use.name, **params)


def warnings_for(uses: list[DeprecatedUse], kind: str) -> Iterator[Finding]:
    for use in uses:
        if kind == "pack" and use.name == "fail_on_violation" and use.value is False:
            yield Finding(use.pointer, codes.VALIDATOR_FAIL_OPEN, "warning", render(codes.VALIDATOR_FAIL_OPEN, detail=describe(use)))
        else:
            yield Finding(use.pointer, codes.DEPRECATED_FIELD, "warning", describe(use))
