"""The public validating functions (``evalschema.validate``, ``validate_json``, ``validate_file``): the pipeline's, with
the ``suite`` keyword taken as a user gives it — a suite document, a model, or the path of a suite file — and its
``test_cases_file`` followed (relative to the suite's folder, or to ``base`` for a suite given as a mapping;
:class:`evalschema.casesfile.SuiteError` says why when it cannot be). Without that, every row of a result set checked
against such a suite would be "unknown test case".

The top of the package (the ``api`` layer): it may use the features (``casesfile``), which the pipeline may not.
"""

from __future__ import annotations

import os
from typing import Any

from .core.findings import Report
from .engine import schema_path
from .pipeline import as_document
from .pipeline import validate as _validate
from .pipeline import validate_file as _validate_file
from .pipeline import validate_json as _validate_json
from .rules.registry import Registry
from .rules.units import REGISTRY

Suite = dict[str, Any] | str | os.PathLike[str] | Any  # a document, a path, or a generated model


def suite_in_hand(suite: Suite | None, base: str | os.PathLike[str] | None = None) -> dict[str, Any] | None:
    """The suite as the cross-document rules need it: a model as its document, a path read, its test cases file
    followed (``evalschema.casesfile.suite_in_hand``); a suite already holding its test cases as it is."""
    suite = as_document(suite)
    if isinstance(suite, (str, os.PathLike)) or (isinstance(suite, dict) and "test_cases_file" in suite and "test_cases" not in suite):
        # read only for such a suite: a plain check does not pay for importing the test cases reader
        from .casesfile import suite_in_hand as follow_suite

        followed: dict[str, Any] | None = follow_suite(suite, base)
        return followed
    return suite if isinstance(suite, dict) else None


def validate(
    document: Any,
    kind: str | None = None,
    *,
    strict: bool = False,
    allow_unknown: bool = False,
    suite: Suite | None = None,
    engine: schema_path.Engine = "fast",
    spec_version: str | None = None,
    registry: Registry = REGISTRY,
    base: str | os.PathLike[str] | None = None,
) -> Report:
    """Validate one document: schema rules, hand-rolled rules, deprecations, and (with ``suite``) cross-document rules.

    ``document`` is a parsed JSON value or a generated model instance (``evalschema_models``). ``kind`` is detected
    from ``$schema`` or shape when not given. ``strict`` reports warnings as errors.
    ``allow_unknown`` reports unknown properties as warnings in a document of a newer minor version.
    ``engine`` picks the JSON Schema implementation: ``fast`` (jsonschema-rs) or ``reference`` (python-jsonschema);
    both give the same findings. ``spec_version`` pins a published release (e.g. ``"1.0.0"``) instead of the
    working schemas. ``registry`` binds the code rules to the units that check them (the ledger's, by default).
    ``suite`` is a suite document or the path of one; its ``test_cases_file`` is followed (relative to the suite's
    folder, or to ``base`` for a suite given as a mapping) and :class:`evalschema.casesfile.SuiteError` says why
    when it cannot be.
    """
    in_hand = suite_in_hand(suite, base)
    return _validate(
        document,
        kind,
        strict=strict,
        allow_unknown=allow_unknown,
        suite=in_hand,
        engine=engine,
        spec_version=spec_version,
        registry=registry,
    )


def validate_json(
    data: bytes | str,
    kind: str | None = None,
    *,
    strict: bool = False,
    allow_unknown: bool = False,
    suite: Suite | None = None,
    engine: schema_path.Engine = "fast",
    spec_version: str | None = None,
    base: str | os.PathLike[str] | None = None,
) -> Report:
    """Parse strict JSON (duplicate keys, NaN and Infinity are errors) and validate it, in one call (``validate``'s
    keywords). The fastest way to check a whole file: ``validate_json(path.read_bytes())``."""
    in_hand = suite_in_hand(suite, base)
    return _validate_json(data, kind, strict=strict, allow_unknown=allow_unknown, suite=in_hand, engine=engine, spec_version=spec_version)


def validate_file(
    path: str | os.PathLike[str],
    kind: str | None = None,
    *,
    strict: bool = False,
    allow_unknown: bool = False,
    suite: Suite | None = None,
    engine: schema_path.Engine = "fast",
    spec_version: str | None = None,
    stream_rows: bool | None = None,
    place_limit: int | None = None,
    base: str | os.PathLike[str] | None = None,
) -> Report:
    """Read one JSON file and validate it, every finding with its line and column (``validate``'s keywords; large
    result sets are read in pieces: ``evalschema.pipeline.validate_file``)."""
    in_hand = suite_in_hand(suite, base)
    return _validate_file(
        path,
        kind,
        strict=strict,
        allow_unknown=allow_unknown,
        suite=in_hand,
        engine=engine,
        spec_version=spec_version,
        stream_rows=stream_rows,
        place_limit=place_limit,
    )
