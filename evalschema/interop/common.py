"""What every converter shares: the error with a code, the loss report, and the streaming writers.

A conversion never holds a whole run in memory: importers hand rows one at a time to :class:`ResultSetWriter`
(which keeps the reference summary as counts) and test cases to :class:`SuiteWriter` (which spools them to a
temporary file), and both files appear atomically when the conversion finishes — or not at all.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, Any, Literal

import orjson

from ..core.display import display_path, terminal_line
from ..core.findings import Finding
from ..io.loader import limited_lines, open_regular, read_bytes
from ..summary.states import SummaryBuilder

# Conversion error codes (SPEC.md, Appendix A). Not document rules: they say why an input could not be converted.
ERROR_CODES: dict[str, str] = {
    "IMPORT_UNREADABLE": "the input cannot be read or parsed: missing file, bad JSON, truncated or corrupt archive",
    "IMPORT_NOT_FORMAT": "the input parses but is not this format: a required field is missing or has the wrong type",
    "IMPORT_VERSION_UNSUPPORTED": "the input declares a format version this importer does not read",
    "IMPORT_EMPTY": "the input holds nothing to import (no samples, no results)",
    "IMPORT_INVALID_OUTPUT": "the input converts to a suite or result set that is not valid; nothing is written",
    "EXPORT_INPUT_INVALID": "the result set to export is unreadable or not a valid evalschema result set",
}

Category = Literal["dropped", "approximated", "defaulted"]
CATEGORIES: tuple[Category, ...] = ("dropped", "approximated", "defaulted")
EXAMPLES = 3  # concrete pointers kept per loss entry: the report stays small however many rows share a loss
# Test cases beyond this many bytes go to a test_cases_file beside the suite: a suite is read whole (its parsed
# test cases take many times their text), a test cases file line by line
CASES_FILE_BYTES = 8 << 20


class ConversionError(Exception):
    """An input that cannot be converted: a stable ``code``, a message, and where (file and pointer or line)."""

    def __init__(
        self,
        code: str,
        message: str,
        source: str = "",
        pointer: str = "",
        line: int | None = None,
        findings: list[dict[str, Any]] | None = None,
    ) -> None:
        assert code in ERROR_CODES, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.source = source
        self.pointer = pointer
        self.line = line
        self.findings = findings  # IMPORT_INVALID_OUTPUT: the validator's findings on the document it would write

    def location(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
        if self.pointer:
            where += f" {self.pointer}"
        return where.strip()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message, "source": self.source, "pointer": self.pointer}
        if self.line is not None:
            out["line"] = self.line
        if self.findings is not None:
            out["findings"] = self.findings
        return out

    def __str__(self) -> str:
        """One line for a terminal: the file name, pointer and message come from input and are escaped."""
        where = display_path(self.location())
        return terminal_line(f"{where}: {self.code}: {self.message}" if where else f"{self.code}: {self.message}")


def escape(token: str | int) -> str:
    """One RFC 6901 reference token."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(*tokens: str | int) -> str:
    return "".join("/" + escape(t) for t in tokens)


_INDEX = re.compile(r"(?<=[/:])[0-9]+(?=/|$)")


@dataclass
class LossEntry:
    category: Category
    source: str
    pattern: str  # the pointer with array indices replaced by ``*``: one entry for a loss every row shares
    reason: str
    count: int = 0
    examples: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "source": self.source,
            "pointer": self.pattern,
            "reason": self.reason,
            "count": self.count,
            "examples": list(self.examples),
        }


class LossReport:
    """What a conversion did not carry over exactly, as source pointers with a reason.

    ``dropped``: the value is in no output field and not under ``metadata`` either. ``approximated``: carried over,
    but changed (a string score mapped to a number, a chat transcript flattened to strings). ``defaulted``: the
    source had no value and the output needed one. Entries are grouped by (category, source, pointer pattern,
    reason) with a count and a few concrete pointers, so the report stays small for a million rows.
    """

    def __init__(self, direction: Literal["import", "export"], format: str) -> None:
        self.direction = direction
        self.format = format
        self.entries: dict[tuple[str, str, str, str], LossEntry] = {}

    def add(self, category: Category, source: str, where: str, reason: str, count: int = 1, example: str | None = None) -> None:
        """Count a loss at ``where`` (array indices and line numbers grouped as ``*``); ``example``: the concrete
        place when ``where`` is a pattern already (a test case id, which no index rule can group)."""
        pattern = _INDEX.sub("*", where)
        where = example or where
        key = (category, source, pattern, reason)
        entry = self.entries.get(key)
        if entry is None:
            entry = self.entries[key] = LossEntry(category, source, pattern, reason)
        entry.count += count
        if len(entry.examples) < EXAMPLES and where not in entry.examples:
            entry.examples.append(where)

    def dropped(self, source: str, where: str, reason: str, count: int = 1, example: str | None = None) -> None:
        self.add("dropped", source, where, reason, count, example)

    def approximated(self, source: str, where: str, reason: str, count: int = 1, example: str | None = None) -> None:
        self.add("approximated", source, where, reason, count, example)

    def defaulted(self, source: str, where: str, reason: str, count: int = 1, example: str | None = None) -> None:
        self.add("defaulted", source, where, reason, count, example)

    def of(self, category: Category) -> list[LossEntry]:
        return [e for e in self.entries.values() if e.category == category]

    @property
    def has_dropped(self) -> bool:
        return any(e.category == "dropped" for e in self.entries.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "direction": self.direction,
            "format": self.format,
            "counts": {c: sum(e.count for e in self.of(c)) for c in CATEGORIES},
            **{c: [e.to_dict() for e in self.of(c)] for c in CATEGORIES},
        }

    def text(self) -> str:
        """The report for a terminal: sources, pointers and reasons quote the input (metric and score names, file
        names), so each line is escaped (:func:`evalschema.core.display.terminal_line`)."""
        lines = [f"loss report ({self.direction} {self.format}):"]
        if not self.entries:
            return lines[0] + " nothing dropped, approximated or defaulted\n"
        for category in CATEGORIES:
            entries = self.of(category)
            if not entries:
                continue
            lines.append(f"  {category} ({sum(e.count for e in entries)}):")
            for e in entries:
                times = f" ×{e.count}" if e.count > 1 else ""
                lines.append(terminal_line(f"    {display_path(e.source)}{e.pattern}{times}: {e.reason}"))
        return "\n".join(lines) + "\n"


def json_bytes(value: Any) -> bytes:
    return orjson.dumps(value)


def read_input(path: Path, code: str = "IMPORT_UNREADABLE") -> bytes:
    """The whole file, through the input gate (:func:`evalschema.io.loader.read_bytes`: a regular file only, never
    blocking, at most the input size limit, counted while reading); else a :class:`ConversionError` of ``code``."""
    data = read_bytes(Path(path))
    if isinstance(data, Finding):
        raise ConversionError(code, f"{data.code}: {data.message}", str(path))
    return data


def input_lines(path: Path, code: str = "IMPORT_UNREADABLE") -> Iterator[tuple[int, bytes]]:
    """(line number, line) of a JSON Lines file, through the input gate (:func:`evalschema.io.loader.open_regular`
    and :func:`evalschema.io.loader.limited_lines`: no line longer than the input size limit is held); a problem
    is a :class:`ConversionError` of ``code`` with the line."""
    handle = open_regular(Path(path))
    if isinstance(handle, Finding):
        raise ConversionError(code, f"{handle.code}: {handle.message}", str(path))
    number = 0
    with handle:
        try:
            for item in limited_lines(handle):
                if isinstance(item, Finding):
                    raise ConversionError(code, f"{item.code}: {item.message}", str(path), line=item.line)
                number = item[0]
                yield item
        except OSError as exc:
            raise ConversionError(code, f"cannot read: {exc.strerror or exc}", str(path), line=number or None) from None


def schema_uri(kind: str) -> str:
    from ..schemas.registry import current

    return current().uri(kind)


def spec_version() -> str:
    from ..schemas.registry import spec_version as version

    return version()


@cache
def members(definition: str) -> tuple[str, ...]:
    """The properties of a result set (``""``) or of one of its definitions (``Result``, ``GraderResult``), in the
    schema's order."""
    from ..schemas.registry import current

    root = current().roots["resultset"]
    return tuple((root["$defs"][definition] if definition else root)["properties"])


def in_order(value: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    """``value`` with its members in ``order`` (members ``order`` does not name follow, as they were)."""
    ordered = {k: value[k] for k in order if k in value}
    if len(ordered) < len(value):
        ordered.update((k, v) for k, v in value.items() if k not in ordered)
    return ordered


class ResultSetWriter:
    """Writes a result set row by row into an open stream; the summary is computed as rows pass and written last."""

    def __init__(self, stream: IO[bytes], header: dict[str, Any]) -> None:
        self.stream = stream
        self.builder = SummaryBuilder(compact=True)
        self.builder.provenance = header.get("graders")  # the reducers of the per-test-case view (SPEC 4.7)
        self.rows = 0
        head = in_order({"$schema": schema_uri("resultset"), "version": spec_version(), **header}, members(""))
        # the members the schema puts after the rows (metadata, after the summary) are written after them
        after = members("")[members("").index("summary") + 1 :]
        # written now (a value the writer cannot hold is found before any row), placed after the summary at the end
        self.tail = json_bytes({k: head.pop(k) for k in list(head) if k in after})
        body = json_bytes(head)
        stream.write(body[:-1] + (b',"results":[' if len(head) else b'"results":['))

    def add(self, result: dict[str, Any]) -> None:
        """Write a row, its members (and its grader results') in the schema's order: rows that read back to the same
        JSON as their columns need no JSON copy in a Parquet export (``evalschema.columnar``)."""
        result = in_order(result, members("Result"))
        if isinstance(result.get("grader_results"), list):
            order = members("GraderResult")
            result["grader_results"] = [in_order(g, order) if isinstance(g, dict) else g for g in result["grader_results"]]
        if self.rows:
            self.stream.write(b",")
        self.stream.write(json_bytes(result))
        self.rows += 1
        self.builder.add(result)

    def finish(self) -> dict[str, Any]:
        summary = self.builder.build().to_dict()
        self.stream.write(b'],"summary":' + json_bytes(summary) + (b"," + self.tail[1:] if len(self.tail) > 2 else b"}"))
        return summary


class SuiteWriter:
    """Collects graders and spools test cases (first occurrence of each id wins) to a temporary file.

    A test case without ``graders`` gets the graders its rows reported when the suite is written (importers learn
    the graders as they read the rows), or every grader when its rows reported none (errored rows only).
    """

    def __init__(self) -> None:
        self.graders: dict[str, dict[str, Any]] = {}
        self.seen: set[str] = set()
        self.case_graders: dict[str, tuple[str, ...]] = {}  # the graders each test case's rows reported
        self.spool = tempfile.TemporaryFile()  # noqa: SIM115  # lives until write() closes it
        self.count = 0

    def grader(self, grader: dict[str, Any]) -> None:
        self.graders.setdefault(grader["id"], grader)

    def test_case(self, case: dict[str, Any]) -> bool:
        if case["id"] in self.seen:
            return False
        self.seen.add(case["id"])
        self.spool.write(json_bytes(case) + b"\n")
        self.count += 1
        return True

    @property
    def large(self) -> bool:
        """Whether the test cases are too many to hold inline: a suite is read whole, its ``test_cases_file`` line
        by line."""
        return self.spool.tell() > CASES_FILE_BYTES

    def write(self, stream: IO[bytes], header: dict[str, Any], cases: tuple[IO[bytes], str] | None = None) -> None:
        """The suite, its test cases inline, or with ``cases`` (a stream and its file name beside the suite) in that
        JSON Lines file, named by the suite's ``test_cases_file``."""
        head = {"$schema": schema_uri("suite"), "version": spec_version(), **header, "graders": list(self.graders.values())}
        if cases is not None:
            from ..pipeline import validate

            head["test_cases_file"] = cases[1]
            stream.write(json_bytes(head))
            stream = cases[0]
        else:
            stream.write(json_bytes(head)[:-1] + b',"test_cases":[')
        every = sorted(self.graders)
        self.spool.seek(0)
        for index, line in enumerate(self.spool):
            case = orjson.loads(line)
            reported = self.case_graders.get(case["id"], ())
            if "graders" in case:  # listed by the importer: the graders its rows reported beyond them join the list
                case["graders"] += [g for g in reported if g not in case["graders"]]
            else:
                case["graders"] = list(reported) or every
            if cases is None:
                stream.write((b"," if index else b"") + json_bytes(case))
                continue
            report = validate(case, "testcase")  # what validate --suite checks of each line, checked before it is written
            if not report.valid:
                first = report.errors[0]
                raise ConversionError(
                    "IMPORT_INVALID_OUTPUT",
                    f"the converted test case {case['id']!r} would not be valid: {first.code} at {first.pointer or '/'}: {first.message}",
                    "",
                    f"({cases[1]} line {index + 1})",
                )
            stream.write(json_bytes(case) + b"\n")
        if cases is None:
            stream.write(b"]}")
        self.spool.close()
