"""Which kind of document this is, and which version of the specification it claims."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from evalschema_models import constants
from evalschema_models import rules as codes

from ..core import messages
from ..core.findings import Finding, pointer
from .registry import KINDS

# Every URI pattern is matched against the whole string (fullmatch), as in every SDK.
_OURS = re.compile(constants.SCHEMA_URI)
# The formats evalschema stays wire-compatible with: their documents carry their own $schema URIs. Compiled on
# first use (the re module keeps them): a document of this specification never needs them (start-up: ``evalschema.__main__``).
_EVALPORT, _PROMPTPACK = constants.EVALPORT_SCHEMA_URI, constants.PROMPTPACK_SCHEMA_URI
_SEMVER = re.compile(constants.SEMVER_PREFIX)  # matched whole (fullmatch), as in every SDK
_URI_VERSION = re.compile(constants.URI_VERSION)


class Identity(NamedTuple):
    kind: str | None
    version: tuple[int, int, int] | None
    version_pointer: str
    findings: tuple[Finding, ...]


_HUGE = 10**18  # a version component longer than 18 digits is "newer than anything"; int() of 5,000 digits fails


def parse_version(text: str) -> tuple[int, int, int] | None:
    match = _SEMVER.fullmatch(text)
    if not match:
        return None
    major, minor, patch = (int(part) if len(part) <= 18 else _HUGE for part in match.groups()[:3])
    return major, minor, patch


def schema_uri_kind(uri: str) -> str | None:
    """The kind a ``$schema`` URI names, when it is a schema of this specification or of a compatible format."""
    ours = _OURS.fullmatch(uri)
    if ours and ours["kind"] in KINDS:
        return ours["kind"]
    if evalport := re.fullmatch(_EVALPORT, uri):
        return evalport["kind"]
    return "pack" if re.fullmatch(_PROMPTPACK, uri) else None


def kind_from_shape(document: dict[str, Any]) -> str | None:
    """Detect the kind from one telltale property, checked in this order (SPEC.md, "Identification")."""
    for kind, telltales in constants.KIND_TELLTALES.items():
        if any(name in document for name in telltales):
            return kind
    return None


def identify(document: Any, kind: str | None) -> Identity:
    """Kind (given, from ``$schema``, or from shape) and claimed spec version, with any findings."""
    findings: list[Finding] = []
    if not isinstance(document, dict):
        return Identity(kind, None, "", ())
    schema_kind: str | None = None
    schema_version: tuple[int, int, int] | None = None
    declared = document.get("$schema")
    if isinstance(declared, str):
        ours = _OURS.fullmatch(declared)
        if ours and ours["kind"] in KINDS and _URI_VERSION.fullmatch(ours["version"]):
            schema_kind, schema_version = ours["kind"], parse_version(ours["version"])
        elif evalport := re.fullmatch(_EVALPORT, declared):
            schema_kind = evalport["kind"]
        elif re.fullmatch(_PROMPTPACK, declared):
            schema_kind = "pack"
        else:
            findings.append(
                Finding(
                    pointer("$schema"),
                    codes.UNKNOWN_SCHEMA,
                    "error",
                    messages.render(codes.UNKNOWN_SCHEMA, value=declared),
                )
            )
    resolved = kind or schema_kind or kind_from_shape(document)
    if resolved is None:
        findings.append(Finding("", codes.UNKNOWN_KIND, "error", messages.render(codes.UNKNOWN_KIND)))
    version, where = schema_version, pointer("$schema")
    if resolved in ("suite", "resultset") and isinstance(document.get("version"), str):
        parsed = parse_version(document["version"])
        if parsed is not None:
            version, where = parsed, pointer("version")
    return Identity(resolved, version, where, tuple(findings))
