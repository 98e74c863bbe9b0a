"""Code rules as units bound to their ledger ids (issue 17 item 3).

A :class:`Rule` is one ledger id for some kinds and what checks it. Most are checked by a *stage* of the pipeline
(``evalschema.pipeline``): an object with three steps — ``envelope(members)`` (the document's own members),
``rows(batch)`` (its rows, in batches: a document in hand is one batch), ``finish()`` — made once per document by
the rule's ``check`` factory. A family of rules checked in one pass (today's hand-written passes, or a family
generated from a table of annotations) registers several ids with one factory: :func:`family`; the pipeline runs
each factory once per document. Rules that are no stage say where they are implemented instead: the reader
(``INVALID_JSON``, ``DUPLICATE_KEY``, …), the identification of a document, the schema engine, a feature
(comparison). ``scripts/rule_units.py`` (run by ``./noxw -s check`` and the tests) fails when a ledger rule
``enforced_by: "code"`` has no unit for one of its kinds, or a unit names no such ledger rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any, Literal, NamedTuple, Protocol

from evalschema_models.rules import RULES

from ..core.findings import Finding

Family = Literal["stage", "reader", "identity", "engine", "summary", "comparison", "cli"]


class Batch(NamedTuple):
    """Rows of a document: ``items``, the first of which is row ``start``. ``positions`` (a streamed batch only):
    the (line, column) of the values of the given rows, by pointer."""

    items: list[Any]
    start: int = 0
    positions: Callable[[set[int]], dict[str, tuple[int, int]]] | None = None


class Context(NamedTuple):
    """What a stage factory is told of the document it will check."""

    kind: str
    suite: dict[str, Any] | None = None
    compact: bool = False  # rows are streamed, not held: keep cross-row state compact
    rows: str | None = None  # the member whose items come as batches of rows (not in ``envelope``'s members)


class Stage(Protocol):
    """One pass over a document: its own members (once every member is known: before the rows for a document in
    hand, after them for a stream, whose members may follow its rows), its rows in batches, then the end. A stage
    knows nothing of processes, threads or files."""

    def envelope(self, members: dict[str, Any]) -> Iterable[Finding]: ...

    def rows(self, batch: Batch) -> Iterable[Finding]: ...

    def finish(self) -> Iterable[Finding]: ...


def renumber(pointer: str, array: str, start: int) -> str:
    """A pointer into rows numbered from 0 (``/array/2/…``), with the rows numbered from ``start``
    (``/array/{start+2}/…``); ``array`` is the member's pointer token. Other pointers are kept."""
    prefix = f"/{array}/"
    if not start or not pointer.startswith(prefix):
        return pointer
    index, slash, rest = pointer[len(prefix) :].partition("/")
    return f"{prefix}{int(index) + start}{slash}{rest}"


def renumbered(findings: Iterable[Finding], array: str, start: int) -> list[Finding]:
    """Findings of rows numbered from 0, with the rows numbered from ``start`` (:func:`renumber`)."""
    if not start:
        return list(findings)
    return [replace(f, pointer=renumber(f.pointer, array, start)) for f in findings]


StageFactory = Callable[[Context], Stage | None]  # None: nothing to check for this document (no suite given, say)


class Rule(NamedTuple):
    """One ledger rule, for ``kinds``, and what checks it: ``check``, the factory of the stage that does (a stage
    rule), or ``implemented_by``, the dotted name of the function or class that does (any other family)."""

    id: str
    kinds: tuple[str, ...]
    family: Family = "stage"
    check: StageFactory | None = None
    implemented_by: str = ""


_RULES: list[Rule] = []


def register(*rules: Rule) -> None:
    _RULES.extend(rules)


def bind(rule_id: str, kind: str, check: StageFactory) -> None:
    """Register one rule for one kind, checked by the stage ``check`` makes. Several rules bound to the same
    factory are one pass over the document for all of them (the pipeline runs each factory once)."""
    register(Rule(rule_id, (kind,), "stage", check))


def family(ids: Iterable[str], kinds: Iterable[str], check: StageFactory) -> None:
    """Register several rules checked by one stage, for several kinds: a family generated from a table (schema
    annotations), whose ids and kinds come from that table."""
    kinds = tuple(kinds)
    register(*(Rule(rule_id, kinds, "stage", check) for rule_id in ids))


def elsewhere(rule_id: str, family: Family, implemented_by: str) -> None:
    """Register a rule that is no stage of the pipeline, for every kind the ledger gives it, with the dotted name
    of what implements it."""
    register(Rule(rule_id, tuple(RULES[rule_id]["kinds"]), family, None, implemented_by))


def units() -> tuple[Rule, ...]:
    return tuple(_RULES)


def stage_factories(kind: str) -> Iterator[StageFactory]:
    """The stage factories of the rules for ``kind``, each once, in the order they were registered."""
    seen: set[int] = set()
    for rule in _RULES:
        if rule.check is not None and kind in rule.kinds and id(rule.check) not in seen:
            seen.add(id(rule.check))
            yield rule.check
