"""Property-based fuzzing of the loaders and the validator (issue #9), with hypothesis.

- The loaders (``parse_json``, ``parse_yaml``, ``iter_jsonl``, and ``parse_json_bytes`` when present) take
  arbitrary text and mutated real documents (byte flips, truncations, insertions of ``{``, ``[``, ``"``, NUL,
  huge numbers…): they never raise, and every problem is a file-scope finding with a ledger code.
- ``validate`` takes mutated documents of every kind (values replaced with arbitrary JSON, keys removed or
  added): it never raises, and every finding has a ledger code and an RFC 6901 pointer that resolves in the
  document (or names a missing property whose parent resolves).

Bounded in the default suite (``EVALSCHEMA_FUZZ_EXAMPLES``, default 200 examples per test and per kind); the
nox session ``fuzz`` runs the same tests deeper: ``EVALSCHEMA_FUZZ_EXAMPLES=10000 ./noxw -s fuzz``.
"""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evalschema
from evalschema.core.findings import Finding
from evalschema.io import loader

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "spec" / "examples"
LEDGER = {rule["id"] for rule in json.loads((ROOT / "spec" / "ledger.json").read_text(encoding="utf-8"))["rules"]}
FILE_SCOPE = {"FILE_UNREADABLE", "INVALID_JSON", "INVALID_YAML", "DUPLICATE_KEY"}
KINDS = ("testcase", "grader", "suite", "resultset", "pack")

EXAMPLE_COUNT = int(os.environ.get("EVALSCHEMA_FUZZ_EXAMPLES", "200"))
settings.register_profile(
    "evalschema-fuzz",
    max_examples=EXAMPLE_COUNT,
    deadline=None,
    database=None,
    derandomize=os.environ.get("EVALSCHEMA_FUZZ_SEED") is None and EXAMPLE_COUNT <= 200,  # the default suite is reproducible
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
FUZZ = settings.get_profile("evalschema-fuzz")

TEXTS = {p.name: p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.glob("*.json"))}
DOCUMENTS = {name: json.loads(text) for name, text in TEXTS.items()}
BY_KIND = {kind: [n for n in DOCUMENTS if n.startswith(kind + "-")] for kind in KINDS}
assert all(BY_KIND.values()), "every kind has an example"

# Inputs that once triggered bugs stay in: lone surrogates, integers of more than 4300 digits, empty property names.
_LONE = ["\ud800", "\\ud800"]
_LONG_DIGITS = "9" * 5000
_KEY_MIN = 0
INSERTIONS = [
    "{",
    "}",
    "[",
    "]",
    '"',
    ":",
    ",",
    "\\",
    "\\u0000",
    "\x00",
    "\ufeff",
    *_LONE,
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    _LONG_DIGITS,
    "1" * 20,
    "true",
    "null",
    "\n",
    "\t",
    " ",
    '"a": 1, "a": 2',
    '\\"',
    "/*",
    "é",
    "\x7f",
]
YAML_INSERTIONS = [
    "&a ",
    "*a",
    "!!python/object:os.system ",
    "!!binary ",
    "<<: ",
    "? ",
    "- ",
    ": ",
    "'",
    "|",
    ">",
    "#",
    "---\n",
    "...\n",
    ".nan",
    ".inf",
    "0x1F",
    "2026-11-30",
    "\t",
]


# --- the loaders -------------------------------------------------------------------------------------------


def _check_loaded(item: loader.Loaded, allowed: set[str]) -> None:
    assert isinstance(item, loader.Loaded)
    if item.problem is not None:
        assert item.document is None
        assert item.problem.code in allowed, item.problem
        assert item.problem.pointer == ""
        assert item.problem.message
        for value in (item.problem.line, item.problem.column):
            assert value is None or (isinstance(value, int) and value >= 1)
    else:
        _assert_json_value(item.document)
        item.positions()  # positions of a parsed document never fail


def _assert_json_value(value: Any) -> None:
    """Plain JSON data: dict with str keys, list, str, int, finite float, bool, None (iteratively)."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            assert all(isinstance(k, str) for k in current), current.keys()
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
        elif isinstance(current, float):
            assert current == current and current not in (float("inf"), float("-inf"))
        else:
            assert current is None or isinstance(current, (str, int, bool)), type(current)


@st.composite
def mutated_text(draw: st.DrawFn, yaml: bool = False) -> str:
    text = draw(st.sampled_from(sorted(TEXTS.values())))
    if yaml:
        import yaml as pyyaml

        text = pyyaml.safe_dump(json.loads(text), sort_keys=False, allow_unicode=True)
    pool = INSERTIONS + (YAML_INSERTIONS if yaml else [])
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        operation = draw(st.sampled_from(["insert", "delete", "truncate", "flip", "swap"]))
        if operation == "insert":
            text = text[:at] + draw(st.sampled_from(pool) | st.text(max_size=4)) + text[at:]
        elif operation == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 16)) :]
        elif operation == "truncate":
            text = text[:at]
        elif operation == "flip" and at < len(text):
            text = text[:at] + chr(ord(text[at]) ^ (1 << draw(st.integers(0, 6)))) + text[at + 1 :]
        elif operation == "swap" and text:
            other = draw(st.integers(0, len(text) - 1))
            text = text[:at] + text[other : other + 1] + text[at + 1 :]
    return text


@st.composite
def mutated_bytes(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(mutated_text()).encode("utf-8", "surrogatepass"))
    for _ in range(draw(st.integers(0, 3))):
        if data:
            at = draw(st.integers(0, len(data) - 1))
            data[at] = draw(st.integers(0, 255))
    return bytes(data)


@FUZZ
@given(st.text())
def test_parse_json_arbitrary_text(text: str) -> None:
    _check_loaded(loader.parse_json(text, "fuzz.json"), {"INVALID_JSON", "DUPLICATE_KEY"})


@FUZZ
@given(mutated_text())
def test_parse_json_mutated_documents(text: str) -> None:
    _check_loaded(loader.parse_json(text, "fuzz.json"), {"INVALID_JSON", "DUPLICATE_KEY"})


@FUZZ
@given(st.text())
def test_parse_yaml_arbitrary_text(text: str) -> None:
    for item in loader.parse_yaml(text, "fuzz.yaml"):
        _check_loaded(item, {"INVALID_YAML", "DUPLICATE_KEY"})


@FUZZ
@given(mutated_text(yaml=True))
def test_parse_yaml_mutated_documents(text: str) -> None:
    for item in loader.parse_yaml(text, "fuzz.yaml"):
        _check_loaded(item, {"INVALID_YAML", "DUPLICATE_KEY"})


@FUZZ
@given(st.lists(st.one_of(mutated_text(), st.text(max_size=40)), max_size=6))
def test_iter_jsonl(lines: list[str]) -> None:
    flat = [piece for line in lines for piece in line.replace("\r", "\n").split("\n")]
    items = list(loader.iter_jsonl(iter(flat), "fuzz.jsonl"))
    assert len(items) == sum(1 for line in flat if line.strip())
    for item in items:
        _check_loaded(item, {"INVALID_JSON", "DUPLICATE_KEY"})
        assert item.line is not None and 1 <= item.line <= len(flat)
        if item.problem is not None and item.problem.line is not None:
            assert item.problem.line == item.line


def _same_reading(fast: loader.Loaded, exact: loader.Loaded) -> None:
    if exact.problem is None:
        assert fast.problem is None, fast.problem
        assert fast.document == exact.document
        assert json.dumps(fast.document, sort_keys=True) == json.dumps(exact.document, sort_keys=True)
    else:
        assert fast.problem is not None and fast.problem.code == exact.problem.code, (fast.problem, exact.problem)


@FUZZ
@given(mutated_bytes())
def test_parse_json_bytes_agrees_with_the_exact_path(data: bytes) -> None:
    """The fast (orjson) path reads every byte string exactly as the strict standard-library path does."""
    fast = loader.parse_json_bytes(data, "fuzz.json")
    _check_loaded(fast, FILE_SCOPE)
    text = loader.decode(data)
    if isinstance(text, Finding):
        assert fast.problem is not None and fast.problem.code == "FILE_UNREADABLE"
        return
    _same_reading(fast, loader.parse_json(text, "fuzz.json"))


# Pieces of text that could fool a count of the text's keys: colons inside strings, written plainly or escaped
# (\u003a, \u003A, or a backslash before the letters), quotes written as escapes, whitespace around a colon.
_TRICKY_STRINGS = st.lists(st.sampled_from(["a", ":", '\\"', "\\u003a", "\\u003A", "\\\\u003a", "\\u0022", '\\":', " "]), max_size=4).map(
    "".join
)
_COLON = st.sampled_from([":", " :", ":\n", "\t: "])


@st.composite
def objects_with_keys_written_any_way(draw: Any) -> bytes:
    """An object (or a list of them) whose keys may repeat, with tricky strings as keys and values."""
    keys = draw(st.lists(_TRICKY_STRINGS, min_size=1, max_size=4))
    members = [f'"{draw(st.sampled_from(keys))}"{draw(_COLON)}"{draw(_TRICKY_STRINGS)}"' for _ in range(draw(st.integers(1, 5)))]
    text = "{" + ",".join(members) + "}"
    return (f"[{text},{text}]" if draw(st.booleans()) else text).encode()


@FUZZ
@given(objects_with_keys_written_any_way())
def test_repeated_keys_are_found_however_they_are_written(data: bytes) -> None:
    """The fast path's key count never misses a repeated key, and never refuses an object without one."""
    _same_reading(loader.parse_json_bytes(data, "fuzz.json"), loader.parse_json(data.decode(), "fuzz.json"))


# --- the validator -------------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(min_size=_KEY_MIN, max_size=8), inner, max_size=4),
    max_leaves=8,
)
INTERESTING_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "x" * 300,
        "\x00",
        *_LONE[:1],
        "a/b~c",
        "~1",
        "1.1.0",
        "2.0.0",
        "v1.0.0",
        "not a date",
        "2026-11-30T00:00:00Z",
        "(a+)+$",
        "[",
        "(?<n>x)\\k<n>",
        "{output}",
        "contains",
        "regex",
        "custom",
        "llm_judge",
        "https://example.com/x.json",
        "https://evalschema.org/schema/1.1.0/suite.json",
        "https://evalschema.org/schema/2.0.0/pack.json",
    ]
)
VALUES = JSON_VALUES | INTERESTING_STRINGS


def _paths(document: Any) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(document, ())]
    while stack:
        value, path = stack.pop()
        out.append(path)
        if isinstance(value, dict):
            stack.extend((v, (*path, k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(value))
    return sorted(out, key=lambda p: [str(t) for t in p])


def _get(document: Any, path: tuple[Any, ...]) -> Any:
    for token in path:
        document = document[token]
    return document


@st.composite
def mutated_document(draw: st.DrawFn, kind: str) -> tuple[str, Any]:
    name = draw(st.sampled_from(BY_KIND[kind]))
    document = copy.deepcopy(DOCUMENTS[name])
    for _ in range(draw(st.integers(1, 4))):
        paths = _paths(document)
        path = draw(st.sampled_from(paths))
        operation = draw(st.sampled_from(["replace", "replace", "delete", "add", "duplicate", "retype"]))
        target = _get(document, path)
        if operation == "replace" and path:
            _get(document, path[:-1])[path[-1]] = draw(VALUES)
        elif operation == "retype" and path:
            _get(document, path[:-1])[path[-1]] = draw(st.sampled_from([None, True, 0, -1, 1.5, "s", [], {}, [None], {"": None}]))
        elif operation == "delete" and path:
            parent = _get(document, path[:-1])
            del parent[path[-1]]
        elif operation == "add" and isinstance(target, dict):
            target[
                draw(
                    st.text(min_size=_KEY_MIN, max_size=10)
                    | st.sampled_from(["$schema", "$ref", "id", "type", "passed", "score", "attempt"])
                )
            ] = draw(VALUES)
        elif operation == "add" and isinstance(target, list):
            target.insert(draw(st.integers(0, len(target))), draw(VALUES))
        elif operation == "duplicate" and isinstance(target, list) and target:
            target.append(copy.deepcopy(target[draw(st.integers(0, len(target) - 1))]))
    return name, document


_TOKEN = re.compile(r"^(?:[^~]|~[01])*$")
# codes whose pointer names a property that is absent from the document (the place it is required)
MISSING_OK = {
    "REQUIRED_FIELD",
    "GRADER_PARAMS_INVALID",
    "CUSTOM_GRADER_HANDLER",
    "SUITE_TEST_CASES_SOURCE",
    "GRADER_RESULT_MISSING",
    "JUDGE_PROMPT_PLACEHOLDER",
}


def _resolves(document: Any, pointer: str) -> tuple[bool, bool]:
    """(resolves, parent resolves to an object and only the last token is missing)."""
    if pointer == "":
        return True, False
    assert pointer.startswith("/"), pointer
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]
    for raw in pointer[1:].split("/"):
        assert _TOKEN.match(raw), f"bad escape in {pointer!r}"
    current = document
    for index, token in enumerate(tokens):
        last = index == len(tokens) - 1
        if isinstance(current, dict):
            if token not in current:
                return False, last
            current = current[token]
        elif isinstance(current, list):
            if not re.fullmatch(r"0|[1-9][0-9]*", token) or int(token) >= len(current):
                return False, False
            current = current[int(token)]
        else:
            return False, False
    return True, False


def check_report(document: Any, report: Any) -> None:
    for finding in report.errors + report.warnings:
        assert finding.code in LEDGER, finding
        assert finding.code not in FILE_SCOPE, finding
        assert finding.severity in ("error", "warning")
        assert isinstance(finding.message, str) and finding.message
        resolves, missing_leaf = _resolves(document, finding.pointer)
        assert resolves or (missing_leaf and finding.code in MISSING_OK), (
            f"{finding.code} at {finding.pointer!r} does not resolve in the document"
        )
    assert report.valid == (not report.errors)


@pytest.mark.parametrize("kind", KINDS)
@FUZZ
@given(data=st.data(), explicit=st.booleans())
def test_validate_mutated_documents(kind: str, data: st.DataObject, explicit: bool) -> None:
    _, document = data.draw(mutated_document(kind))
    report = evalschema.validate(document, kind if explicit else None)
    check_report(document, report)


@pytest.mark.parametrize("kind", KINDS)
@FUZZ
@given(data=st.data())
def test_validate_mutated_texts(kind: str, data: st.DataObject) -> None:
    """Text-level mutations of a kind's examples, through the loader, then the validator."""
    name = data.draw(st.sampled_from(BY_KIND[kind]))
    text = TEXTS[name]
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        text = text[:at] + data.draw(st.sampled_from(INSERTIONS) | st.text(max_size=3)) + text[at + data.draw(st.integers(0, 3)) :]
    loaded = loader.parse_json(text, name)
    _check_loaded(loaded, {"INVALID_JSON", "DUPLICATE_KEY"})
    if loaded.problem is None:
        check_report(loaded.document, evalschema.validate(loaded.document))


@FUZZ
@given(JSON_VALUES, st.sampled_from([None, *KINDS]))
def test_validate_arbitrary_values(value: Any, kind: str | None) -> None:
    check_report(value, evalschema.validate(value, kind))
