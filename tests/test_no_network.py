"""No network, ever (issue #9): validation, codegen and the release checks run with sockets blocked.

Every way out is refused and recorded (``socket.socket.connect``/``connect_ex``, ``socket.create_connection``,
``socket.getaddrinfo``); each test asserts the record is empty. A ``$schema`` or ``$ref`` naming a remote URL is
an error (UNKNOWN_SCHEMA for documents, exit 2 for codegen), never a fetch.
"""

from __future__ import annotations

import datetime as _dt
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import evalschema
from evalschema.schemas.registry import KINDS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "spec" / "examples"
RELEASES = ROOT / "spec" / "releases"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
REMOTE = [
    "https://example.com/x.json",
    "http://127.0.0.1:9/schema.json",
    "https://evalschema.org.example.com/schema/1.1.0/testcase.json",
    "//example.com/x.json",
    "ftp://example.com/x.json",
    "file:///etc/passwd",
]


@pytest.fixture
def blocked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Refuse and record every connection and name lookup."""
    attempts: list[str] = []

    def refuse(what: str) -> Any:
        def refused(*args: Any, **kwargs: Any) -> Any:
            attempts.append(f"{what}{args[1:] if what.startswith('socket.') else args}")
            raise OSError(f"network access attempted during an offline test ({what})")

        return refused

    monkeypatch.setattr(socket.socket, "connect", refuse("socket.connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("socket.connect_ex"))
    monkeypatch.setattr(socket, "create_connection", refuse("create_connection"))
    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    yield attempts
    assert attempts == [], f"tried to use the network: {attempts}"


def test_the_block_works(blocked: list[str]) -> None:
    with pytest.raises(OSError):
        socket.create_connection(("example.com", 80), timeout=1)
    with pytest.raises(OSError):
        socket.getaddrinfo("example.com", 443)
    assert len(blocked) == 2
    blocked.clear()


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_every_example_validates_offline(example: str, blocked: list[str]) -> None:
    document = json.loads((EXAMPLES / example).read_text(encoding="utf-8"))
    report = evalschema.validate(document)
    assert report.kind == example.split("-")[0]
    assert report.valid, report.errors


def _testcase(schema: str | None = None) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((EXAMPLES / "testcase-rag-answer.json").read_text(encoding="utf-8"))
    if schema is not None:
        document["$schema"] = schema
    return document


@pytest.mark.parametrize("uri", REMOTE)
def test_remote_schema_is_unknown_not_fetched(uri: str, blocked: list[str]) -> None:
    report = evalschema.validate(_testcase(uri))
    assert ("/$schema", "UNKNOWN_SCHEMA") in {(f.pointer, f.code) for f in report.errors}
    assert "not fetched" in next(f.message for f in report.errors if f.code == "UNKNOWN_SCHEMA")


@pytest.mark.parametrize("kind", KINDS)
def test_remote_schema_with_an_explicit_kind(kind: str, blocked: list[str]) -> None:
    report = evalschema.validate({"$schema": "https://example.com/x.json"}, kind)
    assert "UNKNOWN_SCHEMA" in {f.code for f in report.errors}


def test_newer_major_version_is_not_fetched(blocked: list[str]) -> None:
    report = evalschema.validate(_testcase("https://evalschema.org/schema/9.0.0/testcase.json"))
    assert [f.code for f in report.errors] == ["VERSION_UNSUPPORTED"]


@pytest.mark.parametrize("where", ["top", "metadata", "grader"])
def test_ref_inside_a_document_is_never_followed(where: str, blocked: list[str]) -> None:
    document = _testcase()
    ref = {"$ref": "https://example.com/x.json#/$defs/y"}
    if where == "top":
        document.update(ref)
    elif where == "metadata":
        document["metadata"] = ref
    else:
        document["graders"] = [ref]
    report = evalschema.validate(document)
    if where == "metadata":
        assert report.valid, report.errors  # an open object: a "$ref" key there is plain data
    else:
        assert not report.valid


# --- codegen ------------------------------------------------------------------------------------------


def _codegen(*args: str) -> int:
    from codegen.__main__ import main

    return main(list(args))


def test_codegen_generate_and_check_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocked: list[str]) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "generated"
    assert _codegen("generate", "--out", str(out)) == 0
    assert any(out.rglob("*.py"))
    assert _codegen("check", "--out", str(out)) == 0


def _schema_folder(tmp_path: Path, ref: str, extra: dict[str, Any] | None = None) -> Path:
    folder = tmp_path / "schemas"
    folder.mkdir()
    schema = {
        "$schema": DIALECT,
        "$id": "https://example.org/schemas/thing.json",
        "title": "Thing",
        "description": "A thing.",
        "type": "object",
        "properties": {"part": {"$ref": ref, "description": "A part."}},
        **(extra or {}),
    }
    (folder / "thing.json").write_text(json.dumps(schema, indent=2), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "ref", ["https://example.com/remote.json", "https://example.com/remote.json#/$defs/part", "http://127.0.0.1:9/x.json", "other.json"]
)
def test_codegen_remote_ref_is_an_error_not_a_fetch(
    ref: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], blocked: list[str]
) -> None:
    folder = _schema_folder(tmp_path, ref)
    out = tmp_path / "out"
    assert _codegen("generate", "--schemas", str(folder), "--out", str(out), "--config", str(tmp_path / "none.toml")) == 2
    err = capsys.readouterr().err
    assert "thing.json" in err and "$ref" in err
    assert "never fetch" in err or "dangling" in err, err
    assert "Traceback" not in err
    assert not out.exists(), "nothing written on an error"


def test_codegen_remote_dialect_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], blocked: list[str]) -> None:
    folder = _schema_folder(
        tmp_path, "#/$defs/part", {"$schema": "https://example.com/my-dialect.json", "$defs": {"part": {"type": "string"}}}
    )
    assert _codegen("check", "--schemas", str(folder), "--out", str(tmp_path / "out"), "--config", str(tmp_path / "none.toml")) == 2
    assert "dialect" in capsys.readouterr().err


# --- the release checks ------------------------------------------------------------------------------------


def test_codegen_diff_offline(monkeypatch: pytest.MonkeyPatch, blocked: list[str]) -> None:
    """``codegen diff`` of every release against the working schemas, offline; its exit status says "breaking"."""
    import codegen.__main__ as entry
    from codegen.diff import diff

    monkeypatch.chdir(ROOT)
    assert list(diff(ROOT / "schemas", ROOT / "schemas").findings) == []
    assert "diff" in entry.RELEASE_COMMANDS
    assert _codegen("diff", "schemas", "schemas") == 0
    releases = sorted(p for p in RELEASES.iterdir() if p.is_dir())
    assert releases, f"no release folders in {RELEASES}"
    for release in releases:
        assert _codegen("diff", str(release), "schemas") == (1 if diff(release, ROOT / "schemas").breaking else 0), release


def test_codegen_policy_offline(monkeypatch: pytest.MonkeyPatch, blocked: list[str]) -> None:
    """``codegen policy`` runs offline, and its exit status is the policy's verdict."""
    import codegen.__main__ as entry
    from codegen import policy

    assert "policy" in entry.RELEASE_COMMANDS and RELEASES.is_dir()
    monkeypatch.chdir(ROOT)
    expected = 1 if policy.check(RELEASES, ROOT / "schemas", _dt.date(2026, 11, 30)) else 0
    assert _codegen("policy", "--releases", str(RELEASES), "--schemas", "schemas", "--today", "2026-11-30") == expected


def test_evalschema_diff_offline(monkeypatch: pytest.MonkeyPatch, blocked: list[str]) -> None:
    from evalschema.cli import main

    monkeypatch.chdir(ROOT)
    assert main(["diff", "schemas", "schemas"]) == 0


def test_bundled_releases_validate_offline(capsys: pytest.CaptureFixture[str], blocked: list[str]) -> None:
    """Every bundled release's registry builds offline, and the examples validate against it (``--spec-version``):
    one entry per file, and the exit status the entries call for."""
    from evalschema.cli import main
    from evalschema.schemas import registry, releases

    examples = [str(p) for p in sorted(EXAMPLES.glob("*.json"))]
    versions = releases.available()
    assert len(versions) >= 2, versions
    for version in versions:
        registry.load(version)
        status = main(["validate", "--format", "json", "--spec-version", version, *examples])
        out = capsys.readouterr()
        # one entry per example, and per line of the test cases file a suite names (followed, offline too)
        files = json.loads(out.out)["files"]
        assert sorted({f["path"] for f in files}) == sorted([*examples, *(str(p) for p in EXAMPLES.glob("*.jsonl"))])
        assert status == (0 if all(f["valid"] for f in files) else 1), out.err


def test_no_socket_module_use_in_the_package_sources() -> None:
    """Belt and braces: nothing in the shipped code imports a network client."""
    offenders = []
    for folder in ("evalschema", "codegen"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for needle in (
                "import socket",
                "import urllib.request",
                "from urllib.request",
                "import http.client",
                "import requests",
                "import httpx",
            ):
                if needle in text:
                    offenders.append(f"{path.relative_to(ROOT)}: {needle}")
    assert offenders == []
