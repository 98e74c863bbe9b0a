"""The shared corpus of the oracle test and the agreement test: every conformance fixture, every example, and
``MUTANTS`` seeded mutants of them whose replacements include the edges where implementations part ways.

A case carries its document as JSON *text* (``text``, UTF-8 bytes) and as Python reads it (``document``): some
edges (``1e309``) have no JSON encoding from a Python value, and every path reads the same bytes.
"""

from __future__ import annotations

import copy
import json
import os
import random
from functools import cache
from pathlib import Path
from typing import Any

from schema_helpers import value_paths

from evalschema.schemas.identify import identify

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = int(os.environ.get("EVALSCHEMA_AGREEMENT_MUTANTS", "3200"))
SEED = 20261130


class Raw:
    """A number written as given (``1e309``, ``2.0``): Python's json cannot write these texts itself."""

    def __init__(self, text: str) -> None:
        self.text = text


# The edges of issue 16: leap seconds, year 0000, trailing line terminators, Unicode digits, 2.0 vs 2, the
# largest double and one past it, a 400-digit integer, empty strings and keys.
EDGES: list[Any] = [
    "2026-12-31T23:59:60Z", "2026-11-30T23:59:60Z", "2026-06-15T23:59:60Z", "2026-12-31T22:59:60-01:00",
    "2027-01-01T00:59:60+01:00", "2026-12-31T22:59:60Z", "2026-12-31T23:58:60Z", "2026-12-31T23:59:61Z",
    "0000-01-01T00:00:00Z", "0000-02-29T00:00:00Z", "0000-01-01", "0000-02-29", "1900-02-29", "2026-11-30",
    "2026-11-30T09:15:00Z\n", "2026-11-30T09:15:00Z\r", "2026-11-30T09:15:00Z\u2028", "2026-11-30\n",
    "2026-11-30T09:15:00+0100", "2026-11-30t09:15:00z", "2026-11-30T09:15:00.Z", "2026-11-30T09:15:00-00:00",
    "2026-11-3\u0660T09:15:00Z", "\u0662026-11-30", "1.1.0\n", "1.1.0\r", "1.1.0\u2028", "1.\u0661.0",
    "v1.2.3\n", "1.1.01", "1.1.0-rc.1+build.5", "support-pack\n", "a\u0660", "company\n",
    Raw("2.0"), 2, Raw("1e308"), Raw("1e309"), Raw("-1e309"), Raw("9" * 400), Raw("-" + "9" * 400), Raw("1.0e2"), "",
]  # fmt: skip
REPLACEMENTS: list[Any] = [
    None, True, False, -3, -1, 0, 1, 2, 3, -1.5, 0.25, 0.5, 1.5, 2.5,
    "", "x", "(", "[a-", "2026-13-01", "2026-02-29", "2024-02-29", "2026-11-30T09:15:00Z", "2026-11-30T09:15:00",
    "2026-11-30 09:15:00Z", "1.1.0", "v1.2.3", "2.0.0", "1.2.0", "{output}", "Rate {input} please",
    "contains", "regex", "llm_judge", "custom", "code", "json_path", "regex_match", "timeout",
    "https://evalschema.org/schema/2.0.0/resultset.json", "https://evalschema.org/schema/1.2.0/grader.json",
    "https://example.com/schema.json",
    [], [1], ["x"], {}, {"unexpected": 1}, {"id": "g1"},
    *EDGES,
]  # fmt: skip
ADDED_KEYS = [
    "extra", "passed", "score", "attempt", "id", "error", "type", "params", "pattern", "version", "$schema",
    "fail_on_violation", "invalidates_result", "handler", "test_cases_file", "summary", "",
]  # fmt: skip
SUFFIXES = ["\n", "\r", "\u2028", " ", "\u0660"]


def to_text(value: Any) -> str:
    """JSON text of a value that may hold :class:`Raw` numbers."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {to_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(to_text(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def mutate(rng: random.Random, document: Any) -> Any:
    document = copy.deepcopy(document)
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(value_paths(document))
        if not path:
            continue
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        action = rng.choice(["replace", "replace", "edge", "suffix", "delete", "add"])
        if action == "replace":
            parent[path[-1]] = copy.deepcopy(rng.choice(REPLACEMENTS))
        elif action == "edge":
            parent[path[-1]] = copy.deepcopy(rng.choice(EDGES))
        elif action == "suffix" and isinstance(parent[path[-1]], str):
            parent[path[-1]] += rng.choice(SUFFIXES)
        elif action == "delete":
            del parent[path[-1]]
        elif action == "add" and isinstance(parent[path[-1]], dict):
            parent[path[-1]][rng.choice(ADDED_KEYS)] = copy.deepcopy(rng.choice(REPLACEMENTS))
        elif action == "add" and isinstance(parent[path[-1]], list):
            parent[path[-1]].append(copy.deepcopy(rng.choice(parent[path[-1]] or REPLACEMENTS)))
    return document


Case = dict[str, Any]  # name, text, document, kind, schema_kind, strict, allow_unknown, suite, expect (fixtures only)


def _case(
    name: str,
    value: Any,
    kind: str | None,
    strict: bool,
    allow_unknown: bool,
    suite: Any,
    expect: Any = None,
    schema_kind: str | None = None,
) -> Case:
    text = to_text(value)
    document = json.loads(text)
    if schema_kind is None:
        schema_kind = kind if kind is not None else identify(document, None).kind if isinstance(document, dict) else None
    return {
        "name": name,
        "text": text.encode("utf-8"),
        "document": document,
        "kind": kind,
        "schema_kind": schema_kind,  # the kind whose schema the document is checked against by the oracles
        "strict": strict,
        "allow_unknown": allow_unknown,
        "suite": suite,
        "expect": expect,
    }


@cache
def corpus(mutants: int = MUTANTS) -> tuple[Case, ...]:
    """Fixtures, examples, then ``mutants`` mutants (the same ones on every run: the generator is seeded)."""
    cases: list[Case] = []
    for path in sorted((ROOT / "spec" / "conformance").glob("*.json")):
        fixture = json.loads(path.read_text(encoding="utf-8"))
        options = fixture.get("options", {})
        cases.append(
            _case(
                f"fixture:{path.stem}", fixture["document"], fixture["kind"], bool(options.get("strict")),
                bool(options.get("allow_unknown")), fixture.get("suite"), fixture["expect"],
            )
        )  # fmt: skip
    for path in sorted((ROOT / "spec" / "examples").glob("*.json")):
        cases.append(_case(f"example:{path.stem}", json.loads(path.read_text(encoding="utf-8")), None, False, False, None))
    seeds = [c for c in cases if isinstance(c["document"], dict) and c["schema_kind"] is not None]
    rng = random.Random(SEED)
    for number in range(mutants):
        seed = rng.choice(seeds)
        cases.append(
            _case(
                f"mutant:{number}:{seed['name']}", mutate(rng, seed["document"]), seed["kind"] if rng.random() < 0.5 else None,
                rng.random() < 0.1, rng.random() < 0.2, seed["suite"], schema_kind=seed["schema_kind"],
            )
        )  # fmt: skip
    return tuple(cases)


def show(case: Case) -> str:
    """The document as it was read, for a failure message."""
    text = bytes(case["text"]).decode("utf-8", "replace")
    return text if len(text) < 6000 else text[:6000] + "…"
