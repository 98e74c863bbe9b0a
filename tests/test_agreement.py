"""Agreement of every project path on the same bytes: complete findings, not (code, pointer) sets.

Paths (SPEC's "every path"): Python ``validate`` with the default engine and with ``engine="reference"``,
``validate_file`` read whole and streamed, the ``evalschema`` CLI; TypeScript ``validate``, ``validateFile`` read
whole and streamed (``checkFile``, which also says whether the file was readable), the ``evalschema-js`` CLI.
Documents: the corpus of tests/corpus.py (every fixture, every example, 3,000+ seeded mutants with the edges of
issue 16) and files that cannot be read or parsed, written to a temporary directory; each process checks a batch
of files (one process per batch, never one per file).

What is compared, and between which paths, is the table ``COMPARED``; what is not compared yet is ``NOT_YET`` and
printed with the test's result line, with how often those fields differ right now. The message of every finding is
compared on every path (``_message_differences``): both SDKs render it from its rule's ledger template.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from corpus import Case, corpus, show

from evalschema.core.findings import Report
from evalschema.io.loader import parse_json_bytes
from evalschema.pipeline import validate, validate_file
from evalschema.summary import summarize

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "js"
BATCH = 400
MIN_MUTANTS = 3000 if "EVALSCHEMA_AGREEMENT_MUTANTS" not in os.environ else 0  # a developer may run fewer, CI never sets it

PY_API = ("py.validate.fast", "py.validate.reference")
PY_FILE = ("py.validate_file.whole", "py.validate_file.stream", "py.cli")
TS_API = ("ts.validate",)
TS_FILE = ("ts.validateFile.whole", "ts.validateFile.stream", "ts.cli")
PATHS = PY_API + PY_FILE + TS_API + TS_FILE
WHOLE = ("py.validate.fast", "py.validate_file.whole", "py.cli")  # Python, default engine, the document read whole

# (what, fields of each finding, the paths that must agree on them)
COMPARED: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
    ("kind, validity; code, pointer, severity of every finding", ("code", "pointer", "severity"), PATHS),
    ("messages, Python default engine, documents read whole", ("code", "pointer", "severity", "message"), WHOLE),
    ("messages, TypeScript", ("code", "pointer", "severity", "message"), TS_API + TS_FILE),
    ("line and column, Python files", ("code", "pointer", "severity", "line", "column"), PY_FILE),
    ("line and column, TypeScript files", ("code", "pointer", "severity", "message", "line", "column"), TS_FILE),
    ("line and column, Python and TypeScript files", ("code", "pointer", "severity", "line", "column"), PY_FILE + TS_FILE),
]
UNREADABLE_FIELDS = ("code", "pointer", "severity", "line", "column")  # where a file could not be read: every file path
NOT_YET: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []  # every path now agrees on every field

BROKEN_FILES: dict[str, bytes] = {
    "empty": b"",
    "blank": b"  \n ",
    "truncated_object": b'{\n  "id": "x",\n  "type": ',
    "missing_value": b'{\n  "id": "x",\n  "type": }',
    "trailing_comma_object": b'{"id": "x",}',
    "trailing_comma_array": b'{"results": [1, 2,]}',
    "missing_colon": b'{"id" "x"}',
    "missing_comma": b'{"id": "x" "type": "y"}',
    "single_quotes": b"{'id': 'x'}",
    "extra_data": b'{"id": "x"} {}',
    "bad_escape": b'{"id": "a\\qb"}',
    "bad_unicode_escape": b'{"id": "\\u12G4"}',
    "control_char": b'{"id": "a\tb"}',
    "unterminated": b'{"id": "abc',
    "nan": b'{"weight": NaN}',
    "infinity": b'{"weight": -Infinity}',
    "leading_zero": b'{"weight": 01}',
    "bare_minus": b'{"weight": -}',
    "duplicate_key": b'{"id": "x", "id": "y"}',
    "nested_duplicate": b'{"a": {"k": 1, "k": 2}, "b": }',
    "duplicate_after_error": b'{"k": 1, "k": 2, "b": }',
    "bom": b'\xef\xbb\xbf{"id": "x"}',
    "latin1": b'{\n"id": "caf\xe9"}',
    "latin1_after_utf8": b'{"a": "\xc3\xa9\xc3\xa9",\n "id": "caf\xe9"}',
    "non_ascii_column": b'{"id": "\xc3\xa9\xc3\xa9", "x": }',
    "not_object": b"[1, 2, 3]",
    "float_overflow": b'{"weight": 1e400}',
    "integer_beyond_double": b'{"weight": ' + b"9" * 400 + b"}",
    "integer_309_digits_beyond_double": b'{"weight": ' + b"9" * 309 + b"}",
    "integer_309_digits_within_double": b'{"weight": 1' + b"0" * 308 + b"}",
    "latin1_same_line_after_utf8": b'{"a": "\xc3\xa9\xc3\xa9", "id": "caf\xe9"}',
    "string_document": b'"just a string"',
    # the strict readers' variants (strict_json.py, strictJson.ts): what was found, what was expected, and where
    "escape_astral": '{"id": "\\\U0001f600"}'.encode(),
    "unicode_escape_cut": b'{"id": "\\u12',
    "bad_literal": b'{"id": tru}',
    "fraction_without_digits": b'{"weight": 1.}',
    "exponent_without_digits": b'{"weight": 1.5e}',
    "too_deep": b'{"a": ' + b"[" * 1001 + b"]" * 1001 + b"}",
    "astral_before_error": '{"id": "\U0001f600\U0001f600", "x": ]}'.encode(),
    "trailing_text": b'{"id": "x"} x',
    "multiline_error": b'{\n  "id": "x",\n\n   "type" "y"\n}',
    "lone_surrogate_escape": b'{"id": "\\ud800"}',
}


def _findings(entry: dict[str, Any], fields: tuple[str, ...]) -> list[tuple[Any, ...]]:
    return sorted((tuple(f.get(name) for name in fields) for f in entry["errors"] + entry["warnings"]), key=repr)


def _answer(entry: dict[str, Any], fields: tuple[str, ...]) -> tuple[Any, ...]:
    return (entry.get("kind"), entry["valid"], _findings(entry, fields))


def _message_differences(row: dict[str, dict[str, Any]]) -> tuple[int, list[tuple[str, str, dict[str, str]]]]:
    """How many findings (by code, pointer and severity) every path gives, and those whose message is not the same on
    all of them: (code, pointer, the message of each path). A finding some path lacks is a disagreement of its own
    (``COMPARED``)."""
    by_finding: dict[tuple[str, str, str], dict[str, str]] = defaultdict(dict)
    for path, entry in row.items():
        for f in entry["errors"] + entry["warnings"]:
            by_finding[(f["code"], f["pointer"], f["severity"])][path] = f["message"]
    everywhere = [(code, where, messages) for (code, where, _), messages in sorted(by_finding.items()) if len(messages) == len(row)]
    return len(everywhere), [(code, where, messages) for code, where, messages in everywhere if len(set(messages.values())) > 1]


def _python_api(text: bytes, kind: str | None, strict: bool, allow_unknown: bool, suite: Any, engine: Any) -> dict[str, Any]:
    loaded = parse_json_bytes(text)
    if loaded.problem is not None:
        return {"unreadable": True, **Report.build(kind, [loaded.problem], strict=False).to_dict()}
    return {
        "unreadable": False,
        **validate(loaded.document, kind, strict=strict, allow_unknown=allow_unknown, suite=suite, engine=engine).to_dict(),
    }


def _run(args: list[str]) -> Any:
    out = subprocess.run(args, capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1, 2), f"{args[:3]} crashed ({out.returncode}):\n{out.stderr[-4000:]}"
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        raise AssertionError(f"{args[:3]} printed no JSON (exit {out.returncode}):\n{out.stderr[-4000:]}") from None


# The CLIs follow a suite's `test_cases_file` from the suite's folder; the library paths take the document
# alone, and the corpus puts no such file beside its suites. What each CLI said about that file is set aside
# here (and the two CLIs must say it of the same documents); everything else is compared like any path.
FOLLOWED: dict[str, set[str]] = defaultdict(set)


def _cli_entries(args: list[str], paths: list[Path]) -> list[dict[str, Any]]:
    report = _run(args)
    assert [f["path"] for f in report["files"]] == [str(p) for p in paths]
    entries = []
    for entry in report["files"]:
        kept = [f for f in entry["errors"] if not (f["code"] == "TEST_CASES_FILE_UNREADABLE" and f["pointer"] == "/test_cases_file")]
        if len(kept) != len(entry["errors"]):
            FOLLOWED["ts" if args[0] == "node" else "py"].add(entry["path"])
            # the followed file made the entry unreadable (SPEC §3.4); the document itself was read
            entry = {**entry, "errors": kept, "valid": not kept, **({"unreadable": False} if "unreadable" in entry else {})}
        entries.append(entry)
    return entries


def test_every_project_path_agrees(built_js: Path, tmp_path: Path) -> None:
    FOLLOWED.clear()
    cases: list[Case] = list(corpus())
    mutants = sum(c["name"].startswith("mutant:") for c in cases)
    assert mutants >= MIN_MUTANTS, mutants
    groups: dict[tuple[Any, ...], list[tuple[str, bytes, Any]]] = defaultdict(list)
    for case in cases:
        key = (case["kind"], case["strict"], case["allow_unknown"], json.dumps(case["suite"], sort_keys=True))
        groups[key].append((case["name"], case["text"], case))
    for name, data in BROKEN_FILES.items():
        groups[(None, False, False, "null")].append((f"broken:{name}", data, None))

    compared = 0
    disagreements: list[str] = []
    not_yet: Counter[str] = Counter()
    messages_compared = 0
    messages_differ: Counter[str] = Counter()  # by rule
    resultsets: list[tuple[Path, Case]] = []
    for group_number, ((kind, strict, allow_unknown, suite_text), members) in enumerate(sorted(groups.items(), key=lambda kv: repr(kv[0]))):
        suite = json.loads(suite_text)
        directory = tmp_path / f"group{group_number}"
        directory.mkdir()
        flags: list[str] = []
        options: dict[str, Any] = {"kind": kind, "strict": strict, "allowUnknown": allow_unknown}
        if kind is not None:
            flags += ["--kind", kind]
        if strict:
            flags.append("--strict")
        if allow_unknown:
            flags.append("--allow-unknown")
        if suite is not None:
            suite_path = directory / "suite.json"
            suite_path.write_text(json.dumps(suite))
            flags += ["--suite", str(suite_path)]
            options["suitePath"] = str(suite_path)
        for start in range(0, len(members), BATCH):
            batch = members[start : start + BATCH]
            paths = []
            for index, (_, data, case) in enumerate(batch, start):
                path = directory / f"doc{index:05d}.json"
                path.write_bytes(data)
                paths.append(path)
                if (
                    case is not None
                    and isinstance(case["document"], dict)
                    and ("results" in case["document"] or "run_id" in case["document"])
                ):
                    resultsets.append((path, case))
            entries: dict[str, list[dict[str, Any]]] = {
                "py.cli": _cli_entries(
                    [sys.executable, "-m", "evalschema", "validate", "--format", "json", *flags, *map(str, paths)], paths
                ),
                "ts.cli": _cli_entries(["node", str(built_js), "validate", "--format", "json", *flags, *map(str, paths)], paths),
            }
            library = _run(["node", str(JS / "scripts" / "paths.mjs"), json.dumps(options), *map(str, paths)])
            entries.update({f"ts.{name}": answers for name, answers in library.items()})
            python_options: dict[str, Any] = {"strict": strict, "allow_unknown": allow_unknown, "suite": suite}
            entries["py.validate.fast"] = [_python_api(data, kind, strict, allow_unknown, suite, "fast") for _, data, _ in batch]
            entries["py.validate.reference"] = [_python_api(data, kind, strict, allow_unknown, suite, "reference") for _, data, _ in batch]
            entries["py.validate_file.whole"] = [validate_file(p, kind, stream_rows=False, **python_options).to_dict() for p in paths]
            entries["py.validate_file.stream"] = [validate_file(p, kind, stream_rows=True, **python_options).to_dict() for p in paths]
            assert set(entries) == set(PATHS), sorted(entries)
            for number, (name, data, case) in enumerate(batch):
                row = {path_name: entries[path_name][number] for path_name in PATHS}
                compared += 1
                problems = []
                for what, fields, among in COMPARED:
                    answers = {p: _answer(row[p], fields) for p in among}
                    if len(set(map(repr, answers.values()))) > 1:
                        problems.append(f"{what}:\n" + "\n".join(f"  {p}: {a}" for p, a in answers.items()))
                unreadable = {p: row[p]["unreadable"] for p in PATHS if "unreadable" in row[p]}
                if len(set(unreadable.values())) > 1:
                    problems.append(f"readable or not: {unreadable}")
                if any(unreadable.values()):
                    unreadable_answers = {p: _findings(row[p], UNREADABLE_FIELDS) for p in PY_FILE + TS_FILE}
                    if len(set(map(repr, unreadable_answers.values()))) > 1:
                        problems.append(
                            "where the file cannot be read:\n" + "\n".join(f"  {p}: {a}" for p, a in unreadable_answers.items())
                        )
                count, differences = _message_differences(row)
                messages_compared += count
                for code, where, messages in differences:
                    messages_differ[code] += 1
                    problems.append(f"message of {code} at {where!r}:\n" + "\n".join(f"  {p}: {m}" for p, m in messages.items()))
                for what, fields, among in NOT_YET:
                    if len({repr(_findings(row[p], fields)) for p in among}) > 1:
                        not_yet[what] += 1
                if problems:
                    shown = show(case) if case is not None else repr(data)
                    disagreements.append(
                        f"--- {name} (kind={kind}, strict={strict}, allow_unknown={allow_unknown}, suite={suite is not None})\n{shown}\n"
                        + "\n".join(problems)
                    )

    # the reference summary, for every result set (mutants included)
    summaries = 0
    for start in range(0, len(resultsets), BATCH):
        batch_sets = resultsets[start : start + BATCH]
        out = {
            item["path"]: item.get("summary")
            for item in _run(["node", str(built_js), "summarize", "--force", "--format", "json", *(str(p) for p, _ in batch_sets)])
        }
        for path, case in batch_sets:
            if parse_json_bytes(case["text"]).problem is not None:
                continue  # unreadable: its INVALID_JSON is compared above
            expected = summarize(case["document"]).to_dict()
            summaries += 1
            if not _same_numbers(out.get(str(path)), expected):
                disagreements.append(
                    f"--- summary of {case['name']}\n{show(case)}\npython:     {expected}\ntypescript: {out.get(str(path))}"
                )

    message = (
        f"{compared} documents x {len(PATHS)} paths compared ({mutants} mutants), {summaries} summaries compared, "
        f"messages of {messages_compared} findings compared on every path, {sum(messages_differ.values())} differ "
        f"{dict(sorted(messages_differ.items()))}, "
        f"{len(disagreements)} disagreement(s); compared: {[w for w, _, _ in COMPARED]}; "
        f"NOT YET COMPARED (documents where they differ now): {[(w, not_yet[w]) for w, _, _ in NOT_YET]}"
    )
    print(f"\n{message}")
    assert not disagreements, message + "\n" + "\n".join(disagreements[:20])
    assert FOLLOWED["py"] == FOLLOWED["ts"], "the two CLIs disagree on which suites' test_cases_file they could not read"


def _same_numbers(actual: Any, expected: Any) -> bool:
    """Equal JSON values; numbers compare exactly up to float formatting (2 vs 2.0), within 1e-12 relative."""
    if isinstance(expected, bool) or isinstance(actual, bool) or expected is None or actual is None:
        return actual is expected or (actual == expected and type(actual) is type(expected))
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(actual, expected, rel_tol=1e-12, abs_tol=1e-15)
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(_same_numbers(actual[k], expected[k]) for k in expected)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(_same_numbers(a, e) for a, e in zip(actual, expected))
    return bool(actual == expected)
