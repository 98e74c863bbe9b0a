"""``validate()``: the schema path, the hand-rolled rules, and the version and forward-compatibility policy."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from typing import Any

from evalschema_models import constants
from evalschema_models import rules as codes
from evalschema_models.rules import RULES

from .core import messages
from .core.findings import Finding, Report, pointer
from .engine import deprecations, schema_path
from .loader import parse_json_bytes, paused_gc
from .rules import crossdoc
from .rules.document import DOCUMENT_RULES
from .schemas.identify import Identity, identify, parse_version
from .schemas.registry import KINDS, load
from .summary.states import Summary, summarize

SUMMARY_TOLERANCE = constants.SUMMARY_TOLERANCE
_NO_RESULTS: dict[str, Any] = constants.NO_RESULTS


@cache
def rule_messages() -> dict[str, str]:
    return {rule_id: str(rule["statement"]) for rule_id, rule in RULES.items()}


def _supported(pinned: str | None) -> tuple[int, int, int]:
    version = parse_version(load(pinned).version)
    assert version is not None, "the bundled schemas carry a SemVer $id"
    return version


def _differs(claimed: Any, computed: Any) -> bool:
    """Whether a claimed summary value differs from the computed one, compared as JSON values (SPEC §4.5), the same
    in every language: a number (never a boolean) matches a number within SUMMARY_TOLERANCE, null only null, true and
    false only themselves; anything else differs."""
    numeric = (int, float)
    if isinstance(claimed, numeric) and isinstance(computed, numeric) and not isinstance(claimed, bool) and not isinstance(computed, bool):
        return not math.isclose(claimed, computed, rel_tol=0, abs_tol=SUMMARY_TOLERANCE)
    if isinstance(claimed, bool) or claimed is None or isinstance(computed, bool) or computed is None:
        return claimed is not computed
    return True


def summary_mismatches(claimed: Any, reference_summary: Summary) -> Iterator[Finding]:
    """Compare a producer's ``summary`` with the reference summary of its rows, field by field."""
    if not isinstance(claimed, dict):
        return
    reference = reference_summary.to_dict()
    for field, value in claimed.items():
        if field == "by_grader" and isinstance(value, dict):
            for grader_id, totals in value.items():
                # a grader with no results has zero counts and no average
                expected = reference["by_grader"].get(grader_id, _NO_RESULTS)
                if not isinstance(totals, dict):
                    continue
                for name, number in totals.items():
                    if name in expected and _differs(number, expected[name]):
                        want = expected[name]
                        yield Finding(
                            pointer("summary", "by_grader", grader_id, name),
                            codes.SUMMARY_MISMATCH,
                            "warning",
                            messages.render(codes.SUMMARY_MISMATCH, value=number, expected=want),
                        )
        elif field == "attempts" and isinstance(value, dict):
            expected_attempts = reference.get("attempts") or {}
            for name, number in value.items():
                if name in expected_attempts and _differs(number, expected_attempts[name]):
                    yield Finding(
                        pointer("summary", "attempts", name),
                        codes.SUMMARY_MISMATCH,
                        "warning",
                        messages.render(codes.SUMMARY_MISMATCH, value=number, expected=expected_attempts[name]),
                    )
        elif field in reference and field != "by_grader" and _differs(value, reference[field]):
            yield Finding(
                pointer("summary", field),
                codes.SUMMARY_MISMATCH,
                "warning",
                messages.render(codes.SUMMARY_MISMATCH, value=value, expected=reference[field]),
            )


def identified(document: Any, kind: str | None, spec_version: str | None, strict: bool) -> tuple[Identity, Report | None]:
    """The document's kind and claimed version; and the report, if that alone decides it (not an object, an unknown
    kind, a newer major version: then nothing else is checked)."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    if not isinstance(document, dict):
        if kind is None:
            finding = Finding("", codes.UNKNOWN_KIND, "error", messages.render(codes.UNKNOWN_KIND, "not_object", value=document))
        else:
            finding = Finding("", codes.TYPE_MISMATCH, "error", messages.render(codes.TYPE_MISMATCH, value=document, type="object"))
        return Identity(kind, None, "", ()), Report.build(kind, [finding], strict=strict)
    identity = identify(document, kind)
    if identity.kind is None:
        return identity, Report.build(None, list(identity.findings), strict=strict)
    supported = _supported(spec_version)
    if identity.version is not None and identity.version[0] > supported[0]:
        # a newer major may mean anything: say only that, and check nothing else
        finding = Finding(
            identity.version_pointer,
            codes.VERSION_UNSUPPORTED,
            "error",
            messages.render(codes.VERSION_UNSUPPORTED, value=identity.version[0], limit=supported[0], version=load(spec_version).version),
        )
        return identity, Report.build(identity.kind, [finding], strict=strict)
    return identity, None


def schema_findings(
    outcome: schema_path.SchemaOutcome, identity: Identity, allow_unknown: bool, spec_version: str | None
) -> Iterator[Finding]:
    """The schema path's findings (unknown fields allowed as warnings in a newer minor version), then deprecations."""
    assert identity.kind is not None
    newer_minor = identity.version is not None and identity.version[:2] > _supported(spec_version)[:2]
    for finding in outcome.findings:
        if allow_unknown and newer_minor and finding.code == codes.UNKNOWN_FIELD:
            finding = replace(finding, severity="warning", message=messages.render(codes.UNKNOWN_FIELD, "allowed", reason=finding.message))
        yield finding
    yield from deprecations.warnings_for(outcome.deprecated, identity.kind)


def as_document(value: Any) -> Any:
    """A generated model (any pydantic model) as the document it holds (``model_dump(mode="json")``: by alias, the
    fields it was given); anything else as it is."""
    dump = getattr(type(value), "model_dump", None)
    if dump is not None and hasattr(type(value), "model_fields"):
        return dump(value, mode="json")
    return value


def validate(
    document: Any,
    kind: str | None = None,
    *,
    strict: bool = False,
    allow_unknown: bool = False,
    suite: dict[str, Any] | None = None,
    engine: schema_path.Engine = "fast",
    spec_version: str | None = None,
) -> Report:
    """Validate one document: schema rules, hand-rolled rules, deprecations, and (with ``suite``) cross-document rules.

    ``document`` is a parsed JSON value or a generated model instance (``evalschema_models``). ``kind`` is detected
    from ``$schema`` or shape when not given. ``strict`` reports warnings as errors.
    ``allow_unknown`` reports unknown properties as warnings in a document of a newer minor version.
    ``engine`` picks the JSON Schema implementation: ``fast`` (jsonschema-rs) or ``reference`` (python-jsonschema);
    both give the same findings. ``spec_version`` pins a published release (e.g. ``"1.0.0"``) instead of the
    working schemas.
    """
    document, suite = as_document(document), as_document(suite)
    identity, decided = identified(document, kind, spec_version, strict)
    if decided is not None:
        return decided
    assert identity.kind is not None
    findings = list(identity.findings)
    outcome = schema_path.check(document, identity.kind, rule_messages(), engine, spec_version)
    findings.extend(schema_findings(outcome, identity, allow_unknown, spec_version))
    findings.extend(DOCUMENT_RULES[identity.kind](document))
    if identity.kind == "resultset":
        claimed = document.get("summary")
        if isinstance(claimed, dict):  # the reference summary costs a pass over the rows: only when compared
            findings.extend(summary_mismatches(claimed, summarize(document)))
        if suite is not None and isinstance(suite, dict):
            findings.extend(crossdoc.resultset_against_suite(document, suite))
    return Report.build(identity.kind, findings, strict=strict)


def validate_json(
    data: bytes | str,
    kind: str | None = None,
    *,
    strict: bool = False,
    allow_unknown: bool = False,
    suite: dict[str, Any] | None = None,
    engine: schema_path.Engine = "fast",
    spec_version: str | None = None,
) -> Report:
    """Parse strict JSON (duplicate keys, NaN and Infinity are errors) and validate it, in one call.

    The fastest way to check a whole file: ``validate_json(path.read_bytes())``.
    """
    with paused_gc():
        loaded = parse_json_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        if loaded.problem is not None:
            return Report.build(kind, [loaded.problem], strict=False)
        report = validate(
            loaded.document, kind, strict=strict, allow_unknown=allow_unknown, suite=suite, engine=engine, spec_version=spec_version
        )
        del loaded  # freed while the collector is still paused, so it never walks the document
    return report
