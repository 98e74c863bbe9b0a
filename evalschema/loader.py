"""Reading documents from files: strict JSON, with a finding (code, line, column) for every way it can fail."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalschema_models import rules as codes

from .findings import Finding


class DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(key)
        out[key] = value
    return out


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


@dataclass(frozen=True)
class Loaded:
    """A parsed document, or the finding that says why there is none."""

    document: Any = None
    problem: Finding | None = None


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def parse_json(text: str) -> Loaded:
    """Parse strict JSON: duplicate keys, NaN and Infinity are errors, not silently accepted."""
    try:
        return Loaded(json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants))
    except json.JSONDecodeError as exc:
        return Loaded(problem=Finding("", codes.INVALID_JSON, "error", f"not valid JSON: {exc.msg}", exc.lineno, exc.colno))
    except DuplicateKeyError as exc:
        return Loaded(problem=Finding("", codes.DUPLICATE_KEY, "error", f"{exc}: the document's meaning would depend on the parser"))
    except RecursionError:
        return Loaded(problem=Finding("", codes.INVALID_JSON, "error", "not valid JSON here: nested too deeply"))
    except ValueError as exc:
        return Loaded(problem=Finding("", codes.INVALID_JSON, "error", f"not valid JSON: {exc}"))


def read_text(path: Path) -> str | Finding:
    """The file's text, or a FILE_UNREADABLE finding."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        return Finding("", codes.FILE_UNREADABLE, "error", "is a directory")
    except FileNotFoundError:
        return Finding("", codes.FILE_UNREADABLE, "error", "no such file")
    except PermissionError:
        return Finding("", codes.FILE_UNREADABLE, "error", "permission denied")
    except OSError as exc:
        return Finding("", codes.FILE_UNREADABLE, "error", f"cannot read: {exc.strerror or exc}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data[: exc.start].decode("utf-8", "replace"), exc.start)
        return Finding("", codes.FILE_UNREADABLE, "error", f"not UTF-8 text (byte {exc.start})", line, column)


def load_path(path: Path) -> Loaded:
    text = read_text(path)
    if isinstance(text, Finding):
        return Loaded(problem=text)
    return parse_json(text)
