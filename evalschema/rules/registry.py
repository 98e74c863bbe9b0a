"""Code rules bound to the units that implement them, as data (issue 38 item 7).

The ledger names, for each rule enforced by code, the *unit* that implements it (its ``unit``: a name every SDK
shares); codegen writes the rules of each unit into a table (``evalschema_models.rules.RULES_BY_UNIT``). An SDK
gives one function per unit name, and :func:`build` makes the :class:`Registry` — a value, passed to the pipeline
— from that table and those functions. No table here binds a rule id to an implementation: adding a code rule is
a ledger entry (naming an existing unit or a new one), one function per language for a new unit, and fixtures.

A unit is most often a *stage* of the pipeline (``evalschema.pipeline``): an object with three steps —
``envelope(members)`` (the document's own members), ``rows(batch)`` (its rows, in batches: a document in hand is
one batch), ``finish()`` — made once per document by the unit's factory; one pass finds every rule of the unit.
A unit that is no stage (:class:`Elsewhere`) says where it runs instead: the reader (``INVALID_JSON``, …), the
identification of a document, the schema engine, the summary, the CLI, a feature (comparison).
``scripts/rule_units.py`` (run by the tests) lists the registry and fails on any gap between it and the ledger.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any, Literal, NamedTuple, Protocol

from evalschema_models.rules import RULES, RULES_BY_UNIT

from ..core.findings import Finding

# where a unit runs: a stage of the pipeline, or elsewhere (:class:`Elsewhere`)
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


class Elsewhere(NamedTuple):
    """A unit that is no stage of the pipeline: where it runs, and the dotted name of the function or class that
    implements it (named, not imported: it lives in a layer above this one; ``scripts/rule_units.py`` checks that
    it imports)."""

    family: Family
    implemented_by: str


Unit = StageFactory | Elsewhere  # the function of one unit: a stage factory, or where the unit runs instead


class Rule(NamedTuple):
    """One ledger rule, for ``kinds``, and the unit that checks it: ``check``, the factory of the stage that does (a
    stage rule), or ``implemented_by``, the dotted name of the function or class that does (any other family)."""

    id: str
    kinds: tuple[str, ...]
    family: Family = "stage"
    check: StageFactory | None = None
    implemented_by: str = ""
    unit: str = ""


class UnitError(ValueError):
    """The units given and the ledger's do not match: a ledger rule's unit has no function, or a function is given
    for a unit no ledger rule names."""


class Registry(NamedTuple):
    """The code rules, each bound to its unit (:func:`build`); the stages run in the order of the units given."""

    rules: tuple[Rule, ...]

    def stage_factories(self, kind: str) -> Iterator[StageFactory]:
        """The stage factories of the units that check ``kind``, each once, in the order the units were given."""
        seen: set[int] = set()
        for rule in self.rules:
            if rule.check is not None and kind in rule.kinds and id(rule.check) not in seen:
                seen.add(id(rule.check))
                yield rule.check


def build(
    units: Mapping[str, Unit],
    by_unit: Mapping[str, Iterable[str]] = RULES_BY_UNIT,
    ledger: Mapping[str, Mapping[str, Any]] = RULES,
) -> Registry:
    """The registry of the ledger's code rules: every rule of each unit (``by_unit``, the generated table) bound to
    that unit's function in ``units``, for the kinds the ledger gives the rule. A unit is checked on the kinds of
    its rules. Raises :class:`UnitError` naming each rule whose unit has no function, and each function whose unit
    no ledger rule names."""
    problems = [f"{name}: a function is given for unit {name!r}, which no ledger rule names" for name in units if name not in by_unit]
    for name, ids in by_unit.items():
        if name not in units:
            problems.append(f"{', '.join(ids)}: the ledger's unit {name!r} has no function (give one for it)")
    if problems:
        raise UnitError("; ".join(problems))
    rules: list[Rule] = []
    for name, unit in units.items():
        for rule_id in by_unit[name]:
            kinds = tuple(ledger[rule_id]["kinds"])
            if isinstance(unit, Elsewhere):
                rules.append(Rule(rule_id, kinds, unit.family, None, unit.implemented_by, name))
            else:
                rules.append(Rule(rule_id, kinds, "stage", unit, "", name))
    return Registry(tuple(rules))
