"""Reading a result set in pieces gives the report reading it whole gives (issue #8, streaming).

``evalschema.io.stream`` reads the root object's members one by one and ``results`` in batches; ``streaming``
validates the batches as they come. For every document here, the streamed report must equal the whole-file
report exactly: codes, pointers, severities, messages, lines and columns. The reader's sizes are shrunk (chunks
of a few bytes, batches of two rows) so that every boundary — a chunk ending inside a key, a character, a
number, a batch ending on the last row — is crossed many times in small documents.
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalschema import pipeline as streaming
from evalschema.io import stream
from evalschema.io.problem import ReadProblem
from evalschema.pipeline import validate_file, validate_stream

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import synthetic  # noqa: E402

EXAMPLES = sorted((ROOT / "spec" / "examples").glob("resultset-*.json"))
FIXTURES = [
    (path.stem, fixture)
    for path in sorted((ROOT / "spec" / "conformance").glob("*.json"))
    if (fixture := json.loads(path.read_text(encoding="utf-8"))).get("kind") == "resultset" and isinstance(fixture.get("document"), dict)
]
FUZZ_EXAMPLES = int(os.environ.get("EVALSCHEMA_FUZZ_EXAMPLES", "200"))


@pytest.fixture(
    params=[(7, 2, 200), (64, 3, 3000), (stream.CHUNK_BYTES, stream.BATCH_ITEMS, stream.BATCH_BYTES)],
    ids=["row-by-row", "small-leaps", "default"],
)
def sizes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    """Reader sizes: 7-byte chunks and 200-byte batches read rows one by one; 3000-byte batches leap a few rows
    at a time; the defaults leap over these small documents whole."""
    chunk, items, size = (int(n) for n in request.param)
    monkeypatch.setattr(stream, "CHUNK_BYTES", chunk)
    monkeypatch.setattr(stream, "BATCH_ITEMS", items)
    monkeypatch.setattr(stream, "BATCH_BYTES", size)
    return (chunk, items, size)


def styles(document: Any) -> dict[str, bytes]:
    """The same document written the ways producers write it (the rows before or after the other fields)."""
    out = {
        "compact": json.dumps(document, separators=(",", ":")).encode(),
        "indented": json.dumps(document, indent=2, ensure_ascii=False).encode(),
        "spaced": json.dumps(document, ensure_ascii=False, separators=(" ,\r\n\t", " :  ")).encode(),
    }
    if isinstance(document, dict) and "results" in document:
        # rows first, a claimed summary after them (read again to check it); and a claimed summary first (checked
        # while the rows are read)
        reordered = {"results": document["results"], **{k: v for k, v in document.items() if k != "results"}}
        out["results-first"] = json.dumps(reordered, indent=1, ensure_ascii=False).encode()
        if "summary" in document:
            reordered = {"summary": document["summary"], **{k: v for k, v in document.items() if k != "summary"}}
            out["summary-first"] = json.dumps(reordered, ensure_ascii=False).encode()
    return out


def both(path: Path, **options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(streamed report, whole-file report); the streamed one must really have been streamed."""
    kind = options.pop("kind", None)
    with path.open("rb") as handle:
        streamed = validate_stream(handle, kind, **options)
    assert streamed is not None, "a result set with a results array is streamed"
    whole = validate_file(path, kind, stream_rows=False, **options)
    return streamed.to_dict(), whole.to_dict()


def test_orjson_positions_the_reader_relies_on() -> None:
    """The reader tells "the value ended" from "the window ended" by orjson's error position (never its message):
    inside the text, after the value, counted in characters; at the text's end when it was cut short. Pin both, so
    an orjson upgrade that changes them fails here."""
    with pytest.raises(orjson.JSONDecodeError) as after:
        orjson.loads(b'{"\xc3\xa9":1} ,')
    assert after.value.pos == 8  # characters, not bytes (9)
    assert stream._value_before(memoryview(b'{"\xc3\xa9":1} ,'), 0, stream._byte_offset(b'{"\xc3\xa9":1} ,', 0, 8)) == (
        {"\u00e9": 1},
        9,
    )
    with pytest.raises(orjson.JSONDecodeError) as cut:
        orjson.loads(b'{"a":[1,2')
    assert cut.value.pos == len(b'{"a":[1,2')


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_stream_like_whole(path: Path, sizes: tuple[int, int, int], tmp_path: Path) -> None:
    for style, data in styles(json.loads(path.read_bytes())).items():
        target = tmp_path / f"{style}.json"
        target.write_bytes(data)
        streamed, whole = both(target)
        assert streamed == whole, style


@pytest.mark.parametrize(("name", "fixture"), FIXTURES, ids=[name for name, _ in FIXTURES])
def test_conformance_fixtures_stream_like_whole(name: str, fixture: dict[str, Any], sizes: tuple[int, int, int], tmp_path: Path) -> None:
    options = dict(fixture.get("options", {}))
    if "suite" in fixture:
        options["suite"] = fixture["suite"]
    for style, data in styles(fixture["document"]).items():
        target = tmp_path / f"{style}.json"
        target.write_bytes(data)
        streamed, whole = both(target, kind="resultset", **options)
        assert streamed == whole, style
        # and the fixture's own expectation holds on the streamed path
        assert streamed["valid"] == fixture["expect"]["valid"]


def _mutated(rng: random.Random, document: dict[str, Any]) -> dict[str, Any]:
    """A result set with a few rows broken the ways producers break them."""
    out = copy.deepcopy(document)
    rows = out["results"]
    for _ in range(rng.randint(1, 6)):
        row = rng.choice(rows)
        choice = rng.randrange(7)
        if choice == 0:
            row["passed"] = not row.get("passed")
        elif choice == 1:
            row.pop(rng.choice(sorted(row)), None)
        elif choice == 2:
            row["unexpected"] = 1
        elif choice == 3 and row.get("grader_results"):
            row["grader_results"][0]["score"] = None
        elif choice == 4:
            rows.append(copy.deepcopy(row))  # a duplicate (test_case_id, attempt)
        elif choice == 5:
            row["constraint_violations"] = [{"id": "c", "type": "t", "detail": "d", "grader_id": "nope", "invalidates_result": True}]
        else:
            row["attempt"] = "two"
    if rng.random() < 0.5:
        out["summary"] = {
            "total": len(rows) + 1,
            "passed": 0,
            "failed": 0,
            "skipped": 0,
            "pass_rate": 0.5,
            "avg_score": None,
            "by_grader": {},
        }
    if rng.random() < 0.3:
        out["group"] = {"group_id": "g", "parent_group_id": "g"}
    return out


@pytest.mark.parametrize("seed", range(12))
def test_generated_result_sets_stream_like_whole(seed: int, sizes: tuple[int, int, int], tmp_path: Path) -> None:
    rng = random.Random(seed)
    document = _mutated(rng, synthetic.resultset(rng.randint(1, 40), seed=seed, attempts=rng.choice([1, 3])))
    suite = {"id": "bench-suite", "version": "1.1.0", "test_cases": [{"id": f"tc-{i:06d}", "input": "q"} for i in range(8)]}
    for style, data in styles(document).items():
        target = tmp_path / f"{style}.json"
        target.write_bytes(data)
        for options in ({}, {"strict": True}, {"suite": suite}):
            streamed, whole = both(target, **options)
            assert streamed == whole, (style, options)


# --- broken text: the same finding, with the same line and column --------------------------------------------

_BASE = json.dumps(synthetic.resultset(6, attempts=3), indent=1, ensure_ascii=False).replace("answered", "répondu").encode()
_INSERTS = [
    b"{",
    b"}",
    b"[",
    b"]",
    b'"',
    b":",
    b",",
    b"\\",
    b"\xff",
    b"\xc3",
    b"\xef\xbb\xbf",
    b"NaN",
    b"1e400",
    b"9" * 30,
    b"\\ud800",
    b'"a":1,',
    b"[" * 1001,
    b" ",
    b"\n",
    b"x",
    b'"run_id": "again",',
    b'"passed": true,',
    b"\xe2\x82\xac",
]


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    edits=st.lists(st.tuples(st.integers(0, len(_BASE)), st.integers(0, 3), st.sampled_from(_INSERTS)), min_size=1, max_size=3),
    chunk=st.sampled_from([5, 13, 64, 1 << 22]),
)
def test_broken_text_reports_like_whole(edits: list[tuple[int, int, bytes]], chunk: int) -> None:
    data = bytearray(_BASE)
    for at, delete, insert in edits:
        at = min(at, len(data))
        data[at : at + delete] = insert
    previous = stream.CHUNK_BYTES, stream.BATCH_ITEMS
    stream.CHUNK_BYTES, stream.BATCH_ITEMS = chunk, 2
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "broken.json"
        target.write_bytes(bytes(data))
        try:
            whole = streaming.validate_file(target, stream_rows=False).to_dict()
            with target.open("rb") as handle:
                try:
                    streamed = validate_stream(handle)
                except stream.NotStreamable:
                    return
            if streamed is not None:
                assert streamed.to_dict() == whole
        finally:
            stream.CHUNK_BYTES, stream.BATCH_ITEMS = previous


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (b'{"version":"1.1.0","results":[{"x":1},{"x":1,"x":2}]}', "DUPLICATE_KEY"),  # a repeated key inside a row
        (b'{"version":"1.1.0","version":"1.1.0","results":[]}', "DUPLICATE_KEY"),  # …in the root, found as it closes
        (b'{"results":[{"a":1} {"b":2}]}', "INVALID_JSON"),  # a missing comma between rows
        (b'{"results":[{"a":1},]}', "INVALID_JSON"),
        (b'{"results":[{"test_case_id":"a"},,{"test_case_id":"b"}]}', "INVALID_JSON"),  # no row between two commas
        (b'{"results":[{"a":"\xff"}]}', "FILE_UNREADABLE"),
        (b'{"results":[{"a":1}, x], "b": "\xff"}', "FILE_UNREADABLE"),  # a syntax error, then a bad byte: the bad byte wins
        (b'{"results":[{"a":NaN}]}', "INVALID_JSON"),
        (b'{"results":[{"a":1e400}]}', "INVALID_JSON"),
        (b'{"results":[' + b"[" * 999 + b"]" * 999 + b"]}", "INVALID_JSON"),  # nesting past the limit, counted from the root
        (b'{"results":[' + b"[" * 998 + b"]" * 998 + b"]}", "TYPE_MISMATCH"),  # just within it: read, and validated
        (b'{"results":[{"a":1}]} {}', "INVALID_JSON"),  # text after the root
        (b'{"results":[{"a":1}', "INVALID_JSON"),  # cut short
        (b"\xef\xbb\xbf{}", "INVALID_JSON"),
        (b'{"a" 1}', "INVALID_JSON"),
        (b"{", "INVALID_JSON"),
        (b'{"weight": ' + b"9" * 5000 + b', "results": []}', "INVALID_JSON"),  # too many digits, cut by every window
        (b'{"results":[{"a":' + b"9" * 4200 + b"}]}", "INVALID_JSON"),  # beyond a double
        (b'{"results":[{"a":' + b"9" * 300 + b"}]}", "UNKNOWN_FIELD"),  # many digits, but a double holds it
    ],
)
def test_unreadable_documents_report_like_whole(text: bytes, code: str, tmp_path: Path) -> None:
    target = tmp_path / "broken.json"
    target.write_bytes(text)
    for chunk in (3, 1 << 22):
        stream.CHUNK_BYTES, previous = chunk, stream.CHUNK_BYTES
        try:
            with target.open("rb") as handle:
                streamed = validate_stream(handle)
        finally:
            stream.CHUNK_BYTES = previous
        assert streamed is not None
        assert streamed.to_dict() == validate_file(target, stream_rows=False).to_dict()
        # findings come in reading order: the expected one is placed, though a missing root property (at line 1)
        # may come before it
        assert code in [f.code for f in streamed.errors if f.line is not None]


def test_what_cannot_be_streamed_is_read_whole(tmp_path: Path) -> None:
    """Not an object, no results array, or not a result set at all: ``validate_stream`` declines, and
    ``validate_file`` reads the document whole with the same result."""
    cases = {
        "array.json": b"[1, 2]",
        "no-results.json": b'{"run_id": "r"}',
        "results-not-array.json": b'{"results": 3}',
        "pack.json": json.dumps({"prompts": {}, "results": []}).encode(),
    }
    for name, data in cases.items():
        target = tmp_path / name
        target.write_bytes(data)
        with target.open("rb") as handle:
            try:
                declined = validate_stream(handle) is None
            except stream.NotStreamable:
                declined = True
        assert declined, name
        assert validate_file(target, stream_rows=True).to_dict() == validate_file(target, stream_rows=False).to_dict()


def test_memory_is_bounded_by_a_batch_not_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's buffer never holds much more than a read chunk and a batch of rows, however long the file:
    measured on the buffer itself (this is a bound, not a timing)."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", 16 << 10)
    monkeypatch.setattr(stream, "BATCH_BYTES", 64 << 10)
    largest = 0
    fill = stream._Reader.fill

    def watched(self: stream._Reader) -> bool:
        nonlocal largest
        more = fill(self)
        largest = max(largest, len(self.buf))
        return more

    monkeypatch.setattr(stream._Reader, "fill", watched)
    target = synthetic.write_resultset(tmp_path / "big.json", 6000)
    size = target.stat().st_size
    assert size > 5_000_000
    with target.open("rb") as handle:
        report = validate_stream(handle)
    assert report is not None and report.valid
    assert largest < 256 << 10, f"the buffer grew to {largest} bytes for a {size}-byte file"


def test_batches_are_found_in_one_step_when_rows_start_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path is really taken: after the first row, batches of rows are found by one orjson read each, not
    row by row (a regression here would only show as a slower benchmark)."""
    leaps, one_by_one = [], []
    leap, single = stream._leap, stream._Reader.value

    def counted_leap(reader: stream._Reader, start: bytes) -> Any:
        found = leap(reader, start)
        leaps.append(found is not None)
        return found

    def counted_value(self: stream._Reader, max_depth: int) -> Any:
        one_by_one.append(1)
        return single(self, max_depth)

    monkeypatch.setattr(stream, "_leap", counted_leap)
    monkeypatch.setattr(stream._Reader, "value", counted_value)
    monkeypatch.setattr(stream, "BATCH_BYTES", 64 << 10)
    target = synthetic.write_resultset(tmp_path / "rows.json", 3000)
    with target.open("rb") as handle:
        report = validate_stream(handle)
    assert report is not None and report.valid
    assert sum(leaps) >= target.stat().st_size // (64 << 10) - 1
    assert len(one_by_one) < 40, "rows were read one by one"  # the root's keys and members, the first row, the last


def test_a_read_that_fails_midway_is_unreadable_not_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An I/O error after some rows were read (a failing disk, a network file system) is FILE_UNREADABLE."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", 4096)
    target = synthetic.write_resultset(tmp_path / "rows.json", 200)

    class Failing(io.BufferedReader):
        reads = 0

        def read(self, size: int | None = -1) -> bytes:
            Failing.reads += 1
            if Failing.reads > 3:
                raise OSError(5, "Input/output error")
            return super().read(size)

    with Failing(io.FileIO(target)) as handle:
        report = validate_stream(handle)
    assert report is not None
    assert [(f.code, f.message) for f in report.errors] == [("FILE_UNREADABLE", "cannot read: Input/output error")]


@pytest.mark.parametrize("chunk", [4095, 4096, 4097, 4098, 8191])
def test_characters_split_by_a_read_are_never_bad_bytes(chunk: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows full of two-, three- and four-byte characters, read in chunks that end inside them: a window that
    reaches the end of what was read must not cut a character and call it a bad byte."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", chunk)
    document = synthetic.resultset(60, attempts=1)
    for i, row in enumerate(document["results"]):
        row["actual_output"] = ("é€𝄞" * (i + 50))[: 40 + 7 * i]
    target = tmp_path / "wide.json"
    target.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    streamed, whole = both(target)
    assert streamed == whole and streamed["valid"]


def test_a_window_ending_where_the_read_ended_does_not_cut_a_character() -> None:
    """The first read ends between the two bytes of an "é", exactly where the first window ends: the reader must
    read on before judging the text, not call the half character a bad byte."""
    head = b'{"results":[{"test_case_id":"'
    data = head + b"a" * (4096 - len(head)) + "é".encode() * 10 + b'","grader_results":[],"passed":false}]}'
    assert data[4096:4098] == "é".encode()

    class Pieces(io.RawIOBase):
        def __init__(self) -> None:
            self.parts = [data[:4097], data[4097:]]

        def readable(self) -> bool:
            return True

        def read(self, size: int = -1) -> bytes:
            return self.parts.pop(0) if self.parts else b""

    pieces = list(stream.read(Pieces()))  # type: ignore[arg-type]
    assert not any(isinstance(piece, ReadProblem) for piece in pieces), pieces
    rows = [piece for piece in pieces if isinstance(piece, stream.Rows)]
    assert rows[0].items[0]["test_case_id"].endswith("é" * 10)


def test_a_claimed_summary_far_from_the_end_is_checked_by_reading_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference summary is built while the rows are read only if the claim came first or the file's end
    mentions one; a claim after the rows but far from the end is checked by reading the rows again."""
    again = []
    original = streaming._summary_again

    def counted(handle: Any, origin: int) -> Any:
        again.append(origin)
        return original(handle, origin)

    monkeypatch.setattr(streaming, "_summary_again", counted)
    document = synthetic.resultset(50, attempts=3)
    document["summary"] = {"total": 49, "passed": 0, "failed": 0, "skipped": 0, "pass_rate": None, "avg_score": None, "by_grader": {}}
    document["metadata"] = {"notes": "x" * 100_000}  # pushes the claim out of the last 64 KiB
    target = tmp_path / "claim.json"
    target.write_text(json.dumps(document))
    streamed, whole = both(target)
    assert again == [0]
    assert streamed == whole
    assert any(f["code"] == "SUMMARY_MISMATCH" and f["pointer"] == "/summary/total" for f in streamed["warnings"])
