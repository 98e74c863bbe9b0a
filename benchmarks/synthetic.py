"""Seeded synthetic result sets, shaped like real sweeps: 3–7 grader results per row, a ~200-character output,
some metadata, ~5 % of rows with a constraint violation (half of them invalidating), ~3 % errored."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

GRADERS = [
    ("exact", "exact_match"),
    ("judge", "llm_judge"),
    ("sim", "semantic_similarity"),
    ("has-date", "regex"),
    ("contains-id", "contains"),
    ("schema", "json_schema"),
    ("path", "json_path"),
]
WORDS = [
    "the",
    "model",
    "answered",
    "with",
    "a",
    "grounded",
    "summary",
    "of",
    "the",
    "incident",
    "and",
    "cited",
    "the",
    "retry",
    "storm",
    "logs",
    "at",
    "03:14",
    "UTC",
]


def result(rng: random.Random, index: int, attempts: int = 1) -> dict[str, Any]:
    case = f"tc-{index // attempts:06d}"
    graders = rng.sample(GRADERS, rng.randint(3, 7))
    roll = rng.random()
    row: dict[str, Any] = {"test_case_id": case}
    if attempts > 1:
        row["attempt"] = index % attempts + 1
    if roll < 0.03:
        row.update(
            grader_results=[],
            passed=False,
            error={"type": "provider_error", "message": "HTTP 529 overloaded", "code": 529, "retryable": True},
        )
        return row
    grader_results = []
    for grader_id, kind in graders:
        score = None if rng.random() < 0.04 else round(rng.random(), 4)
        grader_results.append(
            {
                "grader_id": grader_id,
                "type": kind,
                "score": score,
                "passed": score is not None and score >= 0.5,
                "reason": "threshold 0.5",
                "metadata": {"latency_ms": rng.randint(5, 900)},
            }
        )
    row["actual_output"] = " ".join(rng.choice(WORDS) for _ in range(34))[:200]
    row["grader_results"] = grader_results
    passed = all(g["passed"] for g in grader_results if g["score"] is not None) and any(g["score"] is not None for g in grader_results)
    if roll < 0.08:
        invalidates = rng.random() < 0.5
        row["constraint_violations"] = [
            {
                "id": "rbac_scope",
                "type": "authorization",
                "detail": "read outside the granted scope",
                "grader_id": grader_results[0]["grader_id"],
                "invalidates_result": invalidates,
            }
        ]
        passed = passed and not invalidates
    row["passed"] = passed
    row["duration_ms"] = rng.randint(100, 30_000)
    row["completed_at"] = "2026-11-30T09:%02d:%02dZ" % (rng.randint(0, 59), rng.randint(0, 59))
    row["metadata"] = {
        "com.example.cost": {"input_tokens": rng.randint(100, 4000), "output_tokens": rng.randint(20, 800)},
        "seed": rng.randint(0, 2**31),
    }
    return row


def header(run: str) -> dict[str, Any]:
    return {
        "$schema": "https://evalschema.org/schema/1.1.0/resultset.json",
        "version": "1.1.0",
        "suite_id": "bench-suite",
        "run_id": run,
        "started_at": "2026-11-30T09:00:00Z",
        "runner": {"name": "bench", "version": "1"},
        "isolation": "fresh",
    }


def resultset(count: int, seed: int = 20261130, attempts: int = 3) -> dict[str, Any]:
    rng = random.Random(seed)
    return {**header(f"bench-{count}"), "results": [result(rng, i, attempts) for i in range(count)]}


def jsonl_lines(target_bytes: int, seed: int = 20261130, results_per_line: int = 20) -> Iterator[bytes]:
    """JSON Lines of small result sets (one run per line) until ``target_bytes`` are produced."""
    rng, produced, line = random.Random(seed), 0, 0
    while produced < target_bytes:
        document = {**header(f"stream-{line}"), "results": [result(rng, line * results_per_line + i) for i in range(results_per_line)]}
        data = json.dumps(document, separators=(",", ":")).encode() + b"\n"
        produced += len(data)
        line += 1
        yield data


def write_resultset(path: Path, count: int) -> Path:
    path.write_text(json.dumps(resultset(count), separators=(",", ":")))
    return path


def write_large_resultset(path: Path, target_bytes: int, seed: int = 20261130, attempts: int = 3) -> int:
    """One result set of at least ``target_bytes``, written row by row (never held in memory); returns its rows.
    The claimed summary comes after the rows, as producers that count while they run write it."""
    rng, count, written = random.Random(seed), 0, 0
    with path.open("w", encoding="utf-8") as handle:
        head = json.dumps(header("bench-large"), separators=(",", ":"))
        handle.write(head[:-1] + ',"results":[')
        while written < target_bytes:
            row = json.dumps(result(rng, count, attempts), separators=(",", ":"))
            handle.write(("," if count else "") + row)
            written += len(row) + 1
            count += 1
        handle.write('],"summary":{"total":%d}}' % count)
    return count
