"""Start-up (issue 22): ``import evalschema`` imports none of the runtime until a public name is used, so the
command can pause the cyclic collector before the heavy imports (``evalschema.__main__``); every public name still
resolves, to the object of the module that defines it. The command imports jsonschema-rs without ``email.utils``
(``evalschema.engine.quick_import``) and a small document without the stream reader; a small document's first
schema pass is the full validator, not the screen (``schema_path._first_pass``), with the same findings."""

from __future__ import annotations

import copy
import email.utils
import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evalschema
from evalschema.core.findings import Finding
from evalschema.engine import quick_import, schema_path
from evalschema.pipeline import validate
from evalschema.schemas.registry import KINDS, load

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "spec" / "examples" / "resultset-multi-attempt.json"


def test_import_evalschema_imports_no_runtime() -> None:
    probe = "import sys, evalschema; print(sorted(m for m in ('jsonschema_rs', 'orjson', 'evalschema.pipeline') if m in sys.modules))"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


def test_every_public_name_resolves() -> None:
    for name in evalschema.__all__:
        assert getattr(evalschema, name) is not None, name
    assert set(evalschema.__all__) <= set(dir(evalschema))
    assert evalschema.validate is validate and evalschema.Finding is Finding
    assert evalschema.__version__ == evalschema.spec_version()


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        evalschema.no_such_name  # noqa: B018


_PROBE = """
import atexit, sys
sys.argv = ["evalschema", "validate", sys.argv[1]]
def after():
    import jsonschema_rs
    stamp = jsonschema_rs.jsonschema_rs.__build__["info-time"]
    loaded = sorted(m for m in ("email.utils", "socket", "evalschema.io.stream") if m in sys.modules)
    print(repr(stamp), loaded, sep=chr(10), file=sys.stderr)
atexit.register(after)
from evalschema.__main__ import run
run()
"""


def test_the_command_imports_neither_email_utils_nor_the_stream_reader() -> None:
    """The command validating a small document: jsonschema-rs was imported, with the build stamp the real
    ``email.utils`` gives; ``email.utils`` (and ``socket``) were not; nor was the stream reader."""
    run = subprocess.run([sys.executable, "-c", _PROBE, str(SMALL)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    stamp, loaded = run.stderr.strip().splitlines()
    plain = "import jsonschema_rs; print(repr(jsonschema_rs.jsonschema_rs.__build__['info-time']))"
    assert stamp == subprocess.run([sys.executable, "-c", plain], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


_OFFSETS = st.integers(-(23 * 60 + 59), 23 * 60 + 59).map(lambda minutes: timezone(timedelta(minutes=minutes)))


@settings(max_examples=500, deadline=None)
@given(st.datetimes(min_value=datetime(1000, 1, 1), timezones=_OFFSETS).map(lambda d: d.replace(microsecond=0)))
def test_the_loaned_parsedate_is_the_real_one(moment: datetime) -> None:
    stamp = email.utils.format_datetime(moment)
    ours, real = quick_import.parsedate_to_datetime(stamp), email.utils.parsedate_to_datetime(stamp)
    assert (ours, ours.utcoffset(), repr(ours)) == (real, real.utcoffset(), repr(real))


@pytest.mark.parametrize(
    "stamp",
    ["Tue, 27 Oct 2026 10:17:51 -0000", "Tue, 27 Oct 26 10:17:51 +0000", "27 Oct 2026 10:17:51 GMT", "Tue, 27 Oct 2026 10:17:51 EST"],
)
def test_other_forms_go_to_the_real_parsedate(stamp: str) -> None:
    ours, real = quick_import.parsedate_to_datetime(stamp), email.utils.parsedate_to_datetime(stamp)
    assert (ours, repr(ours)) == (real, repr(real))


def _with_rows(count: int) -> dict[str, Any]:
    """The small example with ``count`` rows (copies of its first): in the last a date-time that is no day, in the
    first (if another) a leap second."""
    document: dict[str, Any] = json.loads(SMALL.read_text(encoding="utf-8"))
    row = document["results"][0]
    document["results"] = [{**copy.deepcopy(row), "test_case_id": f"case-{i}"} for i in range(count)]
    document["results"][0]["completed_at"] = "2016-12-31T23:59:60Z"  # a leap second: the pattern refuses, the check accepts
    document["results"][-1]["completed_at"] = "2026-02-29T10:00:00Z"  # not a day of 2026: the pattern passes it on
    document.pop("summary", None)
    return document


@pytest.mark.parametrize("count", [1, schema_path.SCREEN_FROM_ROWS - 1, schema_path.SCREEN_FROM_ROWS, 200])
def test_both_first_passes_give_the_reference_findings(count: int) -> None:
    document = _with_rows(count)
    first = schema_path._first_pass(document, "resultset", None, ())
    screened = count >= schema_path.SCREEN_FROM_ROWS
    assert first is (schema_path._fast_screen if screened else schema_path._fast_validator)("resultset", None, ())
    fast = validate(document, "resultset")
    assert fast == validate(document, "resultset", engine="reference")
    assert [f.pointer for f in fast.errors] == [f"/results/{count - 1}/completed_at"]


def _may_deprecate_by_every_reference(kind: str) -> bool:
    """The question ``may_deprecate`` answers, asked the long way: every ``$ref`` resolved, every file walked."""
    schemas = load(None)

    def refs(uri: str, node: Any) -> set[str]:
        if isinstance(node, list):
            return set().union(*(refs(uri, item) for item in node))
        if not isinstance(node, dict):
            return set()
        found = {urldefrag(urljoin(uri, node[k])).url for k in ("$ref", "$dynamicRef") if isinstance(node.get(k), str)}
        return found.union(*(refs(uri, value) for value in node.values()))

    def deprecates(node: Any) -> bool:
        if isinstance(node, list):
            return any(deprecates(item) for item in node)
        return isinstance(node, dict) and (node.get("deprecated") is True or any(deprecates(v) for v in node.values()))

    seen, todo = set(), [schemas.uri(kind)]
    while todo:
        uri = todo.pop()
        if uri not in seen:
            seen.add(uri)
            todo.extend(refs(uri, schemas.documents[uri]))
    return any(deprecates(schemas.documents[uri]) for uri in seen)


@pytest.mark.parametrize("kind", KINDS)
def test_may_deprecate_answers_as_the_long_way(kind: str) -> None:
    assert schema_path.may_deprecate(kind, None) == _may_deprecate_by_every_reference(kind)
