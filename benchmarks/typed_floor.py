"""The least a Python validator of a lone result set does after decoding it into the generated msgspec types.

Issue 44 asks ``evalschema validate`` to cost <= 1.25x a process that only decodes the file into those types. This
program measures what any Python code on the typed objects adds to that decode, before it checks anything the
specification needs beyond three row rules, so ``limit_bench.py`` can print it beside the limit:

- ``decode``: the typed limit itself (the file decoded, collector off);
- ``rules``: that, then three of the rules the types cannot say, on every row: a grader result with a null
  score has not passed (``NULL_SCORE_PASSED``), a row with no scored grader result has not passed
  (``UNSCORED_RESULT_PASSED``), no two rows that carry an attempt share a test case and attempt
  (``DUPLICATE_ATTEMPT``) -- no format, no repeated-key check (msgspec keeps the last of repeated keys silently:
  msgspec/msgspec#648), no other rule;
- ``sums``: the decode, then only the sums a summary is made of (rows passed; per grader: results, passes, score
  sum and sum of squares).

Each mode frees what it decoded before it exits, as the limit's process does (its decoded value is dropped at
once). ``--print`` prints what the mode found (a test compares it with the same figures computed from ``json.loads``).
"""

from __future__ import annotations

import gc
import json
import sys

import msgspec

from evalschema_msgspec import ROOTS


def rules(document: object) -> int:
    broken, seen, unset = 0, set(), msgspec.UNSET
    for row in document.results:  # type: ignore[attr-defined]
        if row.attempt is not unset:
            key = (row.test_case_id, row.attempt)
            if key in seen:
                broken += 1
            seen.add(key)
        scored = False
        for result in row.grader_results:
            if result.score is None:
                if result.passed:
                    broken += 1
            else:
                scored = True
        if row.passed and not scored:
            broken += 1
    return broken


def sums(document: object) -> dict[str, list[float]]:
    rows_passed = 0
    per_grader: dict[str, list[float]] = {}
    for row in document.results:  # type: ignore[attr-defined]
        if row.passed:
            rows_passed += 1
        for result in row.grader_results:
            figures = per_grader.get(result.grader_id)
            if figures is None:
                figures = per_grader[result.grader_id] = [0, 0, 0.0, 0.0]
            figures[0] += 1
            if result.passed:
                figures[1] += 1
            if result.score is not None:
                figures[2] += result.score
                figures[3] += result.score * result.score
    return {"": [rows_passed], **per_grader}


def main() -> None:
    gc.disable()
    path, mode = sys.argv[1], sys.argv[2]
    with open(path, "rb") as file:
        document = msgspec.json.decode(file.read(), type=ROOTS["resultset.json"])
    found: object = None
    if mode == "rules":
        found = rules(document)
    elif mode == "sums":
        found = sums(document)
    elif mode != "decode":
        raise SystemExit(f"unknown mode {mode!r}")
    del document
    if "--print" in sys.argv[3:]:
        print(json.dumps(found, sort_keys=True), flush=True)


if __name__ == "__main__":
    main()
