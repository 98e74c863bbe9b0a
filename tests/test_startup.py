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
from evalschema.api import validate
from evalschema.core.findings import Finding
from evalschema.engine import quick_import, schema_path
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


# What a small document's check never needs, so never imports (``evalschema.__main__``): email.utils and socket (lent
# away), the stream reader, shutil (argparse sizing its help), the summarize command, a suite's test cases file,
# where values are and the strict reader (a valid document needs neither), regress (no pattern to check), threading
# (only a file large enough for the helper asks), another format's or option's code, importlib.util (extras).
NOT_IMPORTED = (
    "email.utils",
    "socket",
    "shutil",
    "threading",
    "regress",
    "evalschema.io.stream",
    "evalschema.io.positions",
    "evalschema.io.strict_json",
    "evalschema.cli.summarizecmd",
    "evalschema.casesfile",
    "evalschema.report.github",
    "evalschema.schemas.selection",
    "evalschema.schemas.releases",
    "importlib.util",
)

_PROBE = """
import atexit, sys
NOT_IMPORTED = %r
sys.argv = ["evalschema", "validate", sys.argv[1]]
def after():
    import jsonschema_rs
    stamp = jsonschema_rs.jsonschema_rs.__build__["info-time"]
    loaded = sorted(m for m in NOT_IMPORTED if m in sys.modules)
    print(repr(stamp), loaded, sep=chr(10), file=sys.stderr)
atexit.register(after)
from evalschema.__main__ import run
run()
"""


def test_the_command_imports_none_of_what_a_small_document_does_not_need() -> None:
    """The command validating a small document: jsonschema-rs was imported, with the build stamp the real
    ``email.utils`` gives; nothing of ``NOT_IMPORTED`` was."""
    run = subprocess.run([sys.executable, "-c", _PROBE % (NOT_IMPORTED,), str(SMALL)], capture_output=True, text=True, check=False)
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

    def deprecates(node: Any) -> bool:
        if isinstance(node, list):
            return any(deprecates(item) for item in node)
        return isinstance(node, dict) and (node.get("deprecated") is True or any(deprecates(v) for v in node.values()))

    return any(deprecates(schemas.documents[uri]) for uri in _reachable_by_every_reference(kind))


def _reachable_by_every_reference(kind: str) -> set[str]:
    schemas = load(None)

    def refs(uri: str, node: Any) -> set[str]:
        if isinstance(node, list):
            return set().union(*(refs(uri, item) for item in node))
        if not isinstance(node, dict):
            return set()
        found = {urldefrag(urljoin(uri, node[k])).url for k in ("$ref", "$dynamicRef") if isinstance(node.get(k), str)}
        return found.union(*(refs(uri, value) for value in node.values()))

    seen, todo = set(), [schemas.uri(kind)]
    while todo:
        uri = todo.pop()
        if uri not in seen:
            seen.add(uri)
            todo.extend(refs(uri, schemas.documents[uri]))
    return seen


@pytest.mark.parametrize("kind", KINDS)
def test_may_deprecate_answers_as_the_long_way(kind: str) -> None:
    assert schema_path.may_deprecate(kind, None) == _may_deprecate_by_every_reference(kind)


@pytest.mark.parametrize("kind", KINDS)
def test_reach_finds_the_files_the_long_way_does(kind: str) -> None:
    """The files whose schemas the fast engine's registry holds for ``kind``: every file its references reach."""
    schemas = load(None)
    files, _ = schema_path.reach(kind, None)
    assert files is not None
    assert set(files) == _reachable_by_every_reference(kind) and schemas.uri(kind) in files


def test_reach_gives_up_on_an_embedded_id_or_an_unknown_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a resolver an embedded ``$id`` or a file outside the set leaves the files unknown (every file goes
    in the registry); on deprecation the answer is yes when a file is unknown (the walk decides), else the walk's."""
    schemas = load(None)
    uri = schemas.uri("grader")
    expected = {  # an embedded $id naming one of the schema files: the walk goes on there, the files stay unknown
        "elsewhere.json": (None, True),
        "missing.json": (None, True),
        "common.json": (None, _may_deprecate_by_every_reference("grader")),
    }
    for target, answer in expected.items():
        odd = {"$ref": target} if target == "missing.json" else {"$id": target, "type": "object"}
        documents = {**schemas.documents, uri: {**schemas.documents[uri], "$defs": {"Odd": odd}}}
        monkeypatch.setattr(schema_path, "load", lambda version, documents=documents: _with_documents(schemas, documents))
        schema_path.reach.cache_clear()
        try:
            assert schema_path.reach("grader", None) == answer, target
        finally:
            schema_path.reach.cache_clear()


def _with_documents(schemas: Any, documents: dict[str, Any]) -> Any:
    from evalschema.schemas.registry import SchemaSet

    return SchemaSet(schemas.version, schemas.base_uri, documents, schemas.roots)


_DATACLASSES = """
import dataclasses, sys
made = []
process = dataclasses._process_class
def counted(cls, *args, **kwargs):
    made.append(cls.__module__ + "." + cls.__qualname__)
    return process(cls, *args, **kwargs)
dataclasses._process_class = counted
import atexit
atexit.register(lambda: print(*sorted(made), sep=chr(10), file=sys.stderr))
sys.argv = ["evalschema", "validate", "--format", "json", sys.argv[1]]
from evalschema.__main__ import run
run()
"""


def test_a_small_documents_check_creates_only_the_public_dataclasses() -> None:
    """Creating a dataclass costs ~1 ms (its methods are compiled from source): the records a small document's check
    imports are named tuples or plain classes, but for the public types, which stay dataclasses (``evalschema.__main__``)."""
    run = subprocess.run([sys.executable, "-c", _DATACLASSES, str(SMALL)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stderr.split() == [
        "evalschema.core.findings.Finding",
        "evalschema.core.findings.Report",
        "evalschema.summary.states.AttemptRollup",
        "evalschema.summary.states.Summary",
    ]


_HELP_WIDTHS = ("50", "120")


@pytest.mark.parametrize("columns", _HELP_WIDTHS)
def test_help_is_argparses_own(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's formatter sizes itself only when it formats (no ``shutil`` at start-up): every command's help
    and usage are what argparse's formatter writes."""
    import argparse

    from evalschema import cli

    monkeypatch.setenv("COLUMNS", columns)

    def texts() -> list[str]:
        parser = cli._parser()
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return [parser.format_help(), parser.format_usage()] + [p.format_help() for p in commands.choices.values()]

    ours = texts()
    monkeypatch.setattr(cli, "_HelpFormatter", argparse.HelpFormatter)
    assert ours == texts()
    assert all(any(text.startswith(f"usage: evalschema {name} ") for text in ours) for name in ("validate", "summarize", "compare"))
