"""The Inspect importer decides why a log cannot be imported from its own checks of the file (zip archive, header
entry, JSON, ``version``) and the exception's type, never from the text of Inspect's exception: whatever Inspect's
reader says, the same input gets the same ConversionError code and pointer."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import inspect_ai  # noqa: F401  (a dev dependency: the importer under test needs it, a missing one must fail)
import pytest

from evalschema.interop import ConversionError, import_results

FIXTURES = Path(__file__).resolve().parent / "interop" / "fixtures" / "inspect_ai"
MISLEADING = "Unable to read version 99 of log format: EOCD not found, expected ident at line 1 column 2 (JSON zip)"


def _archive(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, body in entries.items():
            archive.writestr(name, body)
    return buffer.getvalue()


def _inputs(folder: Path) -> dict[str, tuple[bytes, str, str]]:
    """name → (bytes, code, pointer)."""
    valid = json.loads((FIXTURES / "valid.json").read_text(encoding="utf-8"))
    return {
        "version-99.json": (json.dumps({**valid, "version": 99}).encode(), "IMPORT_VERSION_UNSUPPORTED", "/version"),
        "not-json.json": (b"this is not JSON\n", "IMPORT_UNREADABLE", ""),
        "bad-utf8.json": (b'{"version": 2, "x": "\xff"}', "IMPORT_UNREADABLE", ""),
        "garbage.eval": (b"PK\x03\x04 not really a zip", "IMPORT_UNREADABLE", ""),
        "no-header.eval": (_archive({"other.json": b"{}"}), "IMPORT_NOT_FORMAT", ""),
        "header-not-json.eval": (_archive({"header.json": b"{"}), "IMPORT_UNREADABLE", ""),
        "version-99.eval": (_archive({"header.json": json.dumps({"version": 99}).encode()}), "IMPORT_VERSION_UNSUPPORTED", "/version"),
        "journal-99.eval": (
            _archive({"_journal/start.json": json.dumps({"version": 99}).encode()}),
            "IMPORT_VERSION_UNSUPPORTED",
            "/version",
        ),
    }


def _outcome(path: Path, out: Path) -> tuple[str, str]:
    with pytest.raises(ConversionError) as caught:
        import_results("inspect_ai", [path], out)
    return caught.value.code, caught.value.pointer


@pytest.mark.parametrize("name", sorted(_inputs(Path())))
def test_the_code_comes_from_the_file_not_from_inspects_text(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, code, where = _inputs(tmp_path)[name]
    path = tmp_path / name
    path.write_bytes(data)
    assert _outcome(path, tmp_path / "a.resultset.json") == (code, where)  # Inspect's own reader
    import inspect_ai.log

    def misleading(*args: Any, **kwargs: Any) -> Any:
        raise ValueError(MISLEADING)

    monkeypatch.setattr(inspect_ai.log, "read_eval_log", misleading)
    assert _outcome(path, tmp_path / "b.resultset.json") == (code, where)


def test_a_readable_log_that_inspect_refuses_is_not_what_its_text_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A valid log whose reading fails with a message that names versions, archives and JSON: none of those codes,
    since the file is none of those things."""
    import inspect_ai.log

    def misleading(*args: Any, **kwargs: Any) -> Any:
        raise ValueError(MISLEADING)

    monkeypatch.setattr(inspect_ai.log, "read_eval_log", misleading)
    for name in ("valid.json", "valid.eval"):
        code, where = _outcome(FIXTURES / name, tmp_path / f"{name}.resultset.json")
        assert (code, where) == ("IMPORT_NOT_FORMAT", ""), name
