"""The pipeline: a document, from a source, through the stages that check it (issue 17 item 4).

A source is a plain iterator of pieces: a document in hand (``validate``, ``validate_json``, a file read whole) is one
``Whole`` piece, its rows one batch; a large result set read in pieces (``validate_stream``, ``validate_file``) gives
its members as they come and ``results`` in batches, so memory is bounded by a batch of rows, not by the file.
``feed(source, stages)`` is the one loop over them — validate, summarize, compare, the columnar export, ``-j`` and
Dask all go through it — and every source feeds the same stages, each with three steps — ``envelope(members)``,
``rows(batch)``, ``finish()`` — and keeping only compact state across rows:

- the schema stage (the engine, its failures mapped to ledger codes, then deprecations);
- the rule stages registered for the kind (``evalschema.rules.registry``: units bound to ledger ids), the
  cross-document one when a suite is given;
- the summary stage (a claimed summary against the reference summary of the rows).

A streamed result set's findings are placed (line, column) while the text of their batch is still at hand; its
own fields are checked once at the end, as a document whose ``results`` is empty, and the reference summary is
built only if there is a claimed one to check. The report is the one validating the whole document gives; the
test suite checks that it is.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

from evalschema_models import constants
from evalschema_models import rules as codes
from evalschema_models.rules import RULES

from .core import messages
from .core.findings import Finding, Report
from .engine import deprecations, schema_path
from .io.loader import Loaded, irregular_file, load_path, not_an_object, open_regular, parse_json_bytes, paused_gc
from .io.problem import ReadProblem
from .rules.registry import Batch, Context, Registry, Stage, renumber, renumbered
from .rules.units import REGISTRY, DocumentPass
from .schemas.identify import Identity, identify, parse_version
from .schemas.registry import KINDS, load
from .summary.stage import ReferenceSummary, SourceFailed, SummaryStage
from .summary.states import Summary

if TYPE_CHECKING:  # read in pieces only from STREAM_THRESHOLD bytes on: a small document's run does not import it
    from .io import stream
    from .io.positions import Positions  # (and where values are: only a document with findings needs it)

KIND, ARRAY = "resultset", "results"  # the kind whose rows may be streamed, and its array of rows
# Files at least this large are streamed by default: reading whole takes about nine times the file in memory,
# reading in pieces stays flat (a batch of rows and a read chunk) whatever the size, at the same speed.
STREAM_THRESHOLD = constants.STREAM_THRESHOLD


@cache
def rule_messages() -> dict[str, str]:
    return {rule_id: str(rule["statement"]) for rule_id, rule in RULES.items()}


def _supported(pinned: str | None) -> tuple[int, int, int]:
    version = parse_version(load(pinned).version)
    assert version is not None, "the bundled schemas carry a SemVer $id"
    return version


def identified(document: Any, kind: str | None, spec_version: str | None, strict: bool) -> tuple[Identity, Report | None]:
    """The document's kind and claimed version; and the report, if that alone decides it (not an object, an unknown
    kind, a newer major version: then nothing else is checked)."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    if not isinstance(document, dict):
        if kind is None:
            finding = Finding("", codes.UNKNOWN_KIND, "error", messages.render(codes.UNKNOWN_KIND, "not_object", value=document))
        else:
            finding = Finding("", codes.TYPE_MISMATCH, "error", messages.render(codes.TYPE_MISMATCH, value=document, type="object"))
        return Identity(kind, None, "", ()), Report.build(kind, [finding], strict=strict)
    identity = identify(document, kind)
    if identity.kind is None:
        return identity, Report.build(None, list(identity.findings), strict=strict)
    supported = _supported(spec_version)
    if identity.version is not None and identity.version[0] > supported[0]:
        # a newer major may mean anything: say only that, and check nothing else
        finding = Finding(
            identity.version_pointer,
            codes.VERSION_UNSUPPORTED,
            "error",
            messages.render(codes.VERSION_UNSUPPORTED, value=identity.version[0], limit=supported[0], version=load(spec_version).version),
        )
        return identity, Report.build(identity.kind, [finding], strict=strict)
    return identity, None


def as_document(value: Any) -> Any:
    """A generated model (any pydantic model) as the document it holds (``model_dump(mode="json")``: by alias, the
    fields it was given); anything else as it is."""
    dump = getattr(type(value), "model_dump", None)
    if dump is not None and hasattr(type(value), "model_fields"):
        return dump(value, mode="json")
    return value


class Options(NamedTuple):
    """How a document is checked (the keyword arguments of ``validate``)."""

    strict: bool = False
    allow_unknown: bool = False
    suite: dict[str, Any] | None = None
    engine: schema_path.Engine = "fast"
    spec_version: str | None = None
    registry: Registry = REGISTRY  # the code rules and their units (``evalschema.rules.registry.build``)


class SchemaStage:
    """The schema: the whole document in hand at once; streamed, each batch of rows on the rows' subschema (which
    judges each row on its own: ``schema_path.rows_stand_alone``) and the document's own members at the end. Then
    the deprecated locations the document uses."""

    def __init__(self, kind: str, options: Options, *, streamed: bool) -> None:
        self.kind, self.options, self.streamed = kind, options, streamed
        self.found: list[Finding] = []
        self.deprecated: list[schema_path.DeprecatedUse] = []
        self.deprecated_at: Positions = {}  # streamed: where the deprecated uses in rows are

    def envelope(self, members: dict[str, Any]) -> Iterable[Finding]:
        options = self.options
        outcome = schema_path.check(members, self.kind, rule_messages(), options.engine, options.spec_version)
        self.deprecated[:0] = outcome.deprecated
        return outcome.findings

    def rows(self, batch: Batch) -> Iterable[Finding]:
        if not self.streamed:  # the document in hand was checked whole
            return ()
        options = self.options
        part = schema_path.check_rows(batch.items, 0, self.kind, ARRAY, rule_messages(), options.engine, options.spec_version)
        if part.deprecated:
            deprecated = [u._replace(pointer=renumber(u.pointer, ARRAY, batch.start)) for u in part.deprecated]
            self.deprecated.extend(deprecated)
            if batch.positions is not None:
                where = batch.positions({_row(u.pointer) for u in deprecated})
                self.deprecated_at.update({u.pointer: where[u.pointer] for u in deprecated if u.pointer in where})
        return renumbered(part.findings, ARRAY, batch.start)

    def finish(self) -> Iterable[Finding]:
        return deprecations.warnings_for(self.deprecated, self.kind)


def stages(kind: str, options: Options, *, streamed: bool, summary: SummaryStage | None = None) -> tuple[SchemaStage, list[Stage]]:
    """The stages that check a document of ``kind``, in the order they run: the schema, the rules registered for
    the kind (and the cross-document ones when a suite is given), the summary (a result set's)."""
    schema = SchemaStage(kind, options, streamed=streamed)
    context = Context(
        kind, options.suite if isinstance(options.suite, dict) else None, compact=streamed, rows=ARRAY if kind == KIND else None
    )
    out: list[Stage] = [schema]
    out.extend(stage for make in options.registry.stage_factories(kind) if (stage := make(context)) is not None)
    if kind == KIND:
        out.append(summary if summary is not None else SummaryStage())
    return schema, out


def _envelope(run: list[Stage], members: dict[str, Any]) -> list[Finding]:
    return [finding for stage in run for finding in stage.envelope(members)]


def _rows(run: list[Stage], batch: Batch) -> list[Finding]:
    return [finding for stage in run for finding in stage.rows(batch)]


def _finish(run: list[Stage]) -> list[Finding]:
    return [finding for stage in run for finding in stage.finish()]


def _relaxed(findings: Iterable[Finding], identity: Identity, options: Options) -> Iterable[Finding]:
    """Unknown fields allowed (as warnings) in a document of a newer minor version, with ``allow_unknown``."""
    newer_minor = identity.version is not None and identity.version[:2] > _supported(options.spec_version)[:2]
    if not (options.allow_unknown and newer_minor):
        yield from findings
        return
    for finding in findings:
        if finding.code == codes.UNKNOWN_FIELD:
            finding = replace(finding, severity="warning", message=messages.render(codes.UNKNOWN_FIELD, "allowed", reason=finding.message))
        yield finding


# More stages to run over a result set's reading (``summarize``: the reference summary and what it shows of the rows),
# made afresh for each reading: a file first read in pieces may be given up on and read whole.
MoreStages = Callable[[], list[Stage]]


def _add_more(run: list[Stage], more: MoreStages | None) -> None:
    """``more``'s stages at the end of a result set's run; a reference summary among them is the summary stage's."""
    if more is None:
        return
    extra = more()
    built = next((stage for stage in extra if isinstance(stage, ReferenceSummary)), None)
    for stage in run:
        if isinstance(stage, SummaryStage):
            stage.built = built
    run.extend(extra)


def _check(document: Any, kind: str | None, options: Options, more: MoreStages | None = None, *, ordered: bool = True) -> Report:
    """A document in hand through the pipeline: its members, then its rows as one batch (``ordered`` false: its
    findings left unordered, for a caller that places them and orders them then)."""
    identity, decided = identified(document, kind, options.spec_version, options.strict)
    if decided is not None:
        return decided
    assert identity.kind is not None
    _, run = stages(identity.kind, options, streamed=False)
    if identity.kind == KIND:
        _add_more(run, more)
    findings: list[Finding] = []
    feed(whole(document, rows=identity.kind == KIND), run, findings)
    findings.extend(_finish(run))
    return Report.build(identity.kind, [*identity.findings, *_relaxed(findings, identity, options)], strict=options.strict, ordered=ordered)


def validate(
    document: Any,
    kind: str | None = None,
    *,
    strict: bool = False,
    allow_unknown: bool = False,
    suite: dict[str, Any] | None = None,
    engine: schema_path.Engine = "fast",
    spec_version: str | None = None,
    registry: Registry = REGISTRY,
) -> Report:
    """Validate one document: schema rules, hand-rolled rules, deprecations, and (with ``suite``) cross-document rules.

    ``document`` is a parsed JSON value or a generated model instance (``evalschema_models``). ``kind`` is detected
    from ``$schema`` or shape when not given. ``strict`` reports warnings as errors.
    ``allow_unknown`` reports unknown properties as warnings in a document of a newer minor version.
    ``engine`` picks the JSON Schema implementation: ``fast`` (jsonschema-rs) or ``reference`` (python-jsonschema);
    both give the same findings. ``spec_version`` pins a published release (e.g. ``"1.0.0"``) instead of the
    working schemas. ``registry`` binds the code rules to the units that check them (the ledger's, by default).
    ``suite`` is a suite document with its test cases in hand (the public API, ``evalschema.api``, reads a suite's
    path and follows its ``test_cases_file``).
    """
    document = as_document(document)
    options = Options(strict, allow_unknown, as_document(suite), engine, spec_version, registry)
    return _check(document, kind, options)


def validate_json(
    data: bytes | str,
    kind: str | None = None,
    *,
    strict: bool = False,
    allow_unknown: bool = False,
    suite: dict[str, Any] | None = None,
    engine: schema_path.Engine = "fast",
    spec_version: str | None = None,
) -> Report:
    """Parse strict JSON (duplicate keys, NaN and Infinity are errors) and validate it, in one call.

    The fastest way to check a whole file: ``validate_json(path.read_bytes())``.
    """
    with paused_gc():
        loaded = parse_json_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        if loaded.problem is not None:
            return Report.build(kind, [loaded.problem], strict=False)
        report = validate(
            loaded.document,
            kind,
            strict=strict,
            allow_unknown=allow_unknown,
            suite=suite,
            engine=engine,
            spec_version=spec_version,
        )
        del loaded  # freed while the collector is still paused, so it never walks the document
    return report


def place(finding: Finding, positions: Positions) -> Finding:
    """The finding with the line and column of its value (or of its nearest ancestor that has one)."""
    if finding.line is not None:
        return finding
    from .io.positions import locate

    where = locate(positions, finding.pointer)
    return finding if where is None else replace(finding, line=where[0], column=where[1])


def placed(report: Report, positions: Positions) -> Report:
    """The report with every finding placed, in reading order (line, column, then pointer)."""
    return Report(
        report.kind, tuple(place(f, positions) for f in report.errors), tuple(place(f, positions) for f in report.warnings)
    ).ordered()


class _FirstRows:
    """The texts of the rows whose findings can be among the first ``limit`` errors or warnings in reading order:
    the ``limit`` rows with findings of each severity that come first. Rows are read in the order they are written,
    so the first rows are those with the smallest indices; only their texts are kept (memory stays within
    2 × limit rows per severity), and only their findings are placed."""

    def __init__(self, limit: int, strict: bool) -> None:
        self.limit, self.strict = limit, strict
        self.rows: dict[str, set[int]] = {"error": set(), "warning": set()}
        self.texts: dict[int, stream.Text] = {}

    def add(self, found: list[Finding], texts: dict[int, stream.Text]) -> None:
        for finding in found:
            self.rows["error" if self.strict else finding.severity].add(_row(finding.pointer))
        for severity, rows in self.rows.items():
            if len(rows) > 2 * self.limit:  # trimmed now and then: amortised
                self.rows[severity] = set(sorted(rows)[: self.limit])
        wanted = self.kept()
        self.texts.update({row: text for row, text in texts.items() if row in wanted})
        for row in [r for r in self.texts if r not in wanted]:
            del self.texts[row]

    def kept(self) -> set[int]:
        return self.rows["error"] | self.rows["warning"]

    def positions(self) -> Positions:
        out: Positions = {}
        for row, text in self.texts.items():
            out.update(text.positions(f"/{ARRAY}/{row}"))
        return out


def _placed_first(report: Report, positions: Positions, kept: set[int]) -> Report:
    """The report in reading order with the findings of the ``kept`` rows and of the result set's own fields placed;
    the other rows' findings stay without a position, in row order where their rows are (after the kept rows')."""
    rows_at = positions.get("/" + ARRAY)
    prefix = f"/{ARRAY}/"

    def put(finding: Finding) -> Finding:
        if finding.pointer.startswith(prefix) and _row(finding.pointer) not in kept:
            return finding
        return place(finding, positions)

    def order(finding: Finding) -> tuple[int, int, int, int, str, str]:
        line, column = finding.line or 0, finding.column or 0
        if finding.pointer.startswith(prefix):
            return (1, _row(finding.pointer), line, column, finding.pointer, finding.code)
        if finding.line is None:
            return (3, 0, 0, 0, finding.pointer, finding.code)
        # the result set's own members are written before the rows or after them, never among them
        after = rows_at is not None and (line, column) > rows_at
        return (2 if after else 0, 0, line, column, finding.pointer, finding.code)

    errors = sorted((put(f) for f in report.errors), key=order)
    warnings = sorted((put(f) for f in report.warnings), key=order)
    return Report(report.kind, tuple(errors), tuple(warnings))


def validate_file(
    path: str | os.PathLike[str],
    kind: str | None = None,
    *,
    strict: bool = False,
    allow_unknown: bool = False,
    suite: dict[str, Any] | None = None,
    engine: schema_path.Engine = "fast",
    spec_version: str | None = None,
    stream_rows: bool | None = None,
    place_limit: int | None = None,
) -> Report:
    """Read one JSON file and validate it; every finding carries its line and column.

    ``place_limit``: only the findings among the first ``place_limit`` errors and the first ``place_limit`` warnings
    in reading order need a line and column — a caller that shows no more than that many saves keeping and
    placing the rest of a streamed result set's rows (over a million findings, most of the time and memory); the
    others keep no position and follow in row order. ``None``: every finding is placed.

    A result set is read in pieces (``stream_rows``: ``None`` from ``STREAM_THRESHOLD`` bytes on, ``True`` always,
    ``False`` never), so memory is bounded by the largest batch of rows, not the file. The report is the same
    either way. Other documents, and result sets whose rows cannot be judged one by one, are read whole.
    """
    options = Options(strict, allow_unknown, as_document(suite), engine, spec_version)
    return _validate_file(Path(path), kind, options, stream_rows, place_limit)


def _validate_file(
    file: Path,
    kind: str | None,
    options: Options,
    stream_rows: bool | None,
    place_limit: int | None,
    more: MoreStages | None = None,
) -> Report:
    handle = _open(file) if kind in (None, KIND) and wants_stream(file, stream_rows) else None
    if handle is not None:
        with paused_gc(), handle:
            report = _validate_stream(handle, kind, options, place_limit, more)
        if report is not None:
            return report
    with paused_gc():
        loaded = _load_whole(file)
        if loaded.problem is not None:
            return Report.build(kind, [loaded.problem], strict=False)
        report = _check(loaded.document, kind, options, more, ordered=False)
        if report.findings:
            report = placed(report, loaded.positions())  # ordered here, once
        del loaded  # freed while the collector is still paused, so it never walks the document
    return report


def validate_and_summarize_file(
    path: str | os.PathLike[str],
    *,
    stream_rows: bool | None = None,
    place_limit: int | None = None,
    each_row: Callable[[], Callable[[Any], None]] | None = None,
) -> tuple[Report, tuple[dict[str, Any], Summary] | None]:
    """``validate_file`` as a result set and ``summarize_file`` in one reading: the report, and the result set's own
    fields with the reference summary of its rows — ``None`` when the report was decided before the rows were
    looked at (a file that cannot be read, no object, a newer major version; ``summarize_file`` reads what it can).
    ``each_row``, if given, makes the function that sees every row once (made again should the reading start over)."""
    made: list[tuple[_Fields, ReferenceSummary]] = []

    def more() -> list[Stage]:
        fields, reference = _Fields(), ReferenceSummary(each_row=each_row() if each_row is not None else None)
        made.append((fields, reference))
        return [fields, reference]

    report = _validate_file(Path(path), KIND, Options(), stream_rows, place_limit, more)
    if not made or made[-1][0].members is None:
        return report, None
    fields, reference = made[-1]
    assert fields.members is not None
    return report, ({k: v for k, v in fields.members.items() if k != ARRAY}, reference.build())


def validate_and_read_file(
    path: str | os.PathLike[str],
    each_row: Callable[[], Callable[[Any], None]],
    kind: str | None = KIND,
    *,
    strict: bool = False,
    allow_unknown: bool = False,
    suite: dict[str, Any] | None = None,
    engine: schema_path.Engine = "fast",
    spec_version: str | None = None,
    stream_rows: bool | None = None,
    place_limit: int | None = None,
    rows_in_place: bool = False,
) -> tuple[Report, dict[str, Any] | None]:
    """``validate_file`` (as a result set unless ``kind`` says otherwise), and every row of a result set handed to
    the function ``each_row()`` makes, in one reading: the report, and the result set's own fields (without its
    rows) — ``None`` when the document is no result set or the report was decided before the rows were looked at
    (a file that cannot be read, no object, a newer major version). ``each_row`` is called again should the reading
    start over (a stream given up for a whole reading): the rows then come again, from the first. ``rows_in_place``:
    the fields keep ``results`` where it stood among them, as an empty list (for a writer that rebuilds the order)."""
    made: list[_Fields] = []

    def more() -> list[Stage]:
        fields = _Fields()
        made.append(fields)
        return [fields, _EachRow(each_row())]

    options = Options(strict, allow_unknown, as_document(suite), engine, spec_version)
    report = _validate_file(Path(path), kind, options, stream_rows, place_limit, more)
    members = made[-1].members if made and report.kind == KIND else None
    if members is None:
        return report, None
    if rows_in_place:
        return report, {k: ([] if k == ARRAY and isinstance(v, list) else v) for k, v in members.items()}
    return report, {k: v for k, v in members.items() if k != ARRAY}


class _EachRow(DocumentPass):
    """A stage that hands every row to ``see``, in reading order."""

    def __init__(self, see: Callable[[Any], None]) -> None:
        super().__init__(lambda members: iter(()))
        self.see = see

    def rows(self, batch: Batch) -> Iterable[Finding]:
        for item in batch.items:
            self.see(item)
        return ()


class _Fields(DocumentPass):
    """A stage that keeps the document's own members (``None`` until the envelope step: then it was checked)."""

    def __init__(self) -> None:
        super().__init__(self._keep)
        self.members: dict[str, Any] | None = None

    def _keep(self, members: dict[str, Any]) -> Iterator[Finding]:
        self.members = members
        return iter(())


def wants_stream(file: Path, stream_rows: bool | None) -> bool:
    """Whether to read this file in pieces: asked for, or (``None``) a regular file of ``STREAM_THRESHOLD`` bytes
    or more. A pipe or a device is never opened here: the whole-file path reports it."""
    if stream_rows is False or irregular_file(file) is not None:
        return False
    try:
        return stream_rows is True or file.stat().st_size >= STREAM_THRESHOLD
    except OSError:
        return False


def summarize_file(
    path: str | os.PathLike[str], *, stream_rows: bool | None = None, each_row: Callable[[Any], None] | None = None
) -> tuple[dict[str, Any], Summary] | Finding:
    """The reference summary of the result set in a JSON file, and the result set's own fields (without its
    rows); or the finding that says why the file cannot be read. Large files are read in pieces. ``each_row``, if
    given, sees every row once (the HTML report's case lists)."""
    from .io import stream

    file = Path(path)
    with paused_gc():
        handle = _open(file) if wants_stream(file, stream_rows) else None
        if handle is not None:
            with handle:
                try:
                    return _summary_of(streamed(handle), each_row)
                except stream.NotStreamable:
                    pass  # read whole below
        loaded = _load_whole(file)
        if loaded.problem is not None:
            return loaded.problem
        if not isinstance(loaded.document, dict):
            return not_an_object()
        return _summary_of(whole(loaded.document, rows=True), each_row)


def _summary_of(source: Iterable[Any], each_row: Callable[[Any], None] | None) -> tuple[dict[str, Any], Summary] | Finding:
    """A source through the reference summary's stage: the result set's own fields and the summary of its rows, or
    the finding that says why the source cannot be read."""
    reference = ReferenceSummary(each_row=each_row)
    fed = feed(source, [reference], [])
    if isinstance(fed, Finding):
        return fed
    # "results" present but not an array: no rows were fed, and the summary is the one of no rows
    reference.builder.provenance = fed.members.get("graders")  # the reducers of the per-test-case view (SPEC 4.7)
    return {k: v for k, v in fed.members.items() if k != ARRAY}, reference.build()


def _open(file: Path) -> BinaryIO | None:
    """The file, open for reading through the input gate; ``None`` if it cannot be opened or is not a regular file
    (the whole-file path, through the same gate, then says why)."""
    handle = open_regular(file)
    return None if isinstance(handle, Finding) else handle


def _load_whole(file: Path) -> Loaded:
    return next(iter(load_path(file, "json")))


class Whole(NamedTuple):
    """A piece of a source: a document in hand — its own members, then (``rows``: a result set's ``results``) its
    rows as one batch. What a streamed source (``evalschema.io.stream.read``) gives in pieces, at once."""

    document: dict[str, Any]
    rows: bool


def whole(document: dict[str, Any], *, rows: bool) -> Iterator[Any]:
    """A document in hand as a source: one piece."""
    yield Whole(document, rows)


def streamed(handle: BinaryIO) -> Iterator[Any]:
    """The JSON document in ``handle`` as a source read in pieces: its members as they come, ``results`` in batches
    of rows. Raises ``stream.NotStreamable`` (as it is read) when it must be read whole instead."""
    from .io import stream

    return stream.read(handle, ARRAY)


class Fed:
    """What ``feed`` read of a source: the document's own members (``results`` empty when streamed), and for a
    streamed source their texts and where they are (to place findings in them later)."""

    def __init__(self) -> None:
        self.members: dict[str, Any] = {}
        self.texts: dict[str, stream.Text] = {}
        self.positions: Positions = {}
        self.enveloped = False  # the envelope step ran (a document in hand); a stream's members come whole at the end

    def has_rows(self) -> bool:
        """Whether ``results`` was an array (read in batches, or in hand)."""
        return isinstance(self.members.get(ARRAY), list)


def feed(
    source: Iterable[Any],
    run: list[Stage],
    found: list[Finding],
    on_rows: Callable[[stream.Rows, list[Finding]], None] | None = None,
    on_array: Callable[[Fed], None] | None = None,
) -> Fed | Finding:
    """The one driver: every piece of ``source`` through the stages ``run``. A document in hand (``Whole``) goes
    through their envelope step, then its rows as one batch; a stream's rows go through their rows step batch by
    batch as they are read (``on_rows`` sees each batch and its findings; without it they join ``found``), its
    members are kept for the caller's envelope step at the end (they may follow the rows); ``on_array`` is told when
    the rows start (with what was read so far). The findings of a document in hand join ``found``. Returns what was read, or the reader's
    finding when the input cannot be read. Raises ``stream.NotStreamable`` when a stream must be read whole."""
    fed = Fed()
    members, positions = fed.members, fed.positions
    pieces = iter(source)
    first = next(pieces, None)
    if isinstance(first, Whole):
        fed.members, fed.enveloped = first.document, True
        found.extend(_envelope(run, first.document))
        if first.rows and fed.has_rows():
            found.extend(_rows(run, Batch(first.document[ARRAY], 0)))
        return fed
    if first is None:
        return fed
    from .io import stream

    for piece in itertools.chain((first,), pieces):
        if isinstance(piece, stream.Rows):
            batch = _rows(run, Batch(piece.items, piece.start, piece.positions))
            if on_rows is not None:
                on_rows(piece, batch)
            else:
                found.extend(batch)
        elif isinstance(piece, stream.Member):
            members[piece.key] = piece.value
            fed.texts[piece.key] = piece.text
        elif isinstance(piece, stream.Array):
            members[ARRAY] = []
            positions["/" + ARRAY] = (piece.line, piece.column)
            if on_array is not None:
                on_array(fed)
        elif isinstance(piece, stream.Opened):
            positions[""] = (piece.line, piece.column)
        else:
            assert isinstance(piece, ReadProblem)
            return piece.finding()
    return fed


def validate_stream(
    handle: BinaryIO,
    kind: str | None = None,
    *,
    strict: bool = False,
    allow_unknown: bool = False,
    suite: dict[str, Any] | None = None,
    engine: schema_path.Engine = "fast",
    spec_version: str | None = None,
    place_limit: int | None = None,
) -> Report | None:
    """Validate the JSON result set in ``handle`` in pieces; ``None`` if it must be read whole instead (it is not
    an object with a ``results`` array, or not a result set, or its schema judges rows together). ``place_limit``:
    as for :func:`validate_file`."""
    return _validate_stream(handle, kind, Options(strict, allow_unknown, as_document(suite), engine, spec_version), place_limit)


def _validate_stream(
    handle: BinaryIO, kind: str | None, options: Options, place_limit: int | None, more: MoreStages | None = None
) -> Report | None:
    if kind not in (None, KIND) or not schema_path.rows_stand_alone(KIND, ARRAY, options.spec_version):
        return None
    return _stream_report(handle, kind, options, place_limit, more)


def _stream_report(handle: BinaryIO, kind: str | None, options: Options, place_limit: int | None, more: MoreStages | None) -> Report | None:
    from .io import stream

    strict, spec_version = options.strict, options.spec_version
    members: dict[str, Any] = {}  # the result set's own members, so far: asked as the rows start
    rows_found: list[Finding] = []
    origin = handle.tell() if handle.seekable() else 0

    def while_reading() -> bool:
        # the reference summary is only needed to check a claimed one: it is built while the rows are read when a
        # claim came before them or may follow them (the file's end mentions one), or the input cannot be read
        # again; otherwise, should a claim turn up after the rows all the same, the rows are read again for it.
        return "summary" in members or not handle.seekable() or _ends_with_a_summary(handle)

    summary = SummaryStage(streamed=True, while_reading=while_reading, again=lambda: _summary_again(handle, origin))
    schema, run = stages(KIND, options, streamed=True, summary=summary)
    _add_more(run, more)
    first_rows = _FirstRows(place_limit, strict) if place_limit is not None else None

    def placed_rows(piece: stream.Rows, found: list[Finding]) -> None:
        if not found:
            return
        if first_rows is not None:
            first_rows.add(found, piece.texts({_row(f.pointer) for f in found}))
            rows_found.extend(found)  # placed at the end, if they are among the first
        else:
            where = piece.positions({_row(f.pointer) for f in found})
            rows_found.extend(place(f, where) for f in found)

    def rows_start(so_far: Fed) -> None:
        members.update(so_far.members)
        summary.start_rows()

    try:
        fed = feed(streamed(handle), run, rows_found, placed_rows, rows_start)
    except stream.NotStreamable:
        return None
    if isinstance(fed, Finding):
        return Report.build(kind, [fed], strict=False)
    if not fed.has_rows():
        return None  # no rows were streamed: the whole document is in hand, read it the usual way
    envelope, texts, positions = fed.members, fed.texts, fed.positions
    identity, decided = identified(envelope, kind, spec_version, strict)
    if identity.kind != KIND:
        return None  # a pack that happens to have "results", say: validate it whole, as what it is
    if decided is not None:
        return _placed_envelope(decided, positions, texts)
    findings = _envelope(run, envelope)
    try:
        findings.extend(_finish(run))
    except SourceFailed as failed:  # the input changed or failed under the second read
        return Report.build(kind, [failed.finding], strict=False)
    findings.extend(rows_found)
    report = Report.build(
        KIND, [*identity.findings, *_relaxed(findings, identity, options)], strict=strict, ordered=False
    )  # ordered once placed
    positions.update(schema.deprecated_at)
    if first_rows is None:
        return _placed_envelope(report, positions, texts)
    positions.update(first_rows.positions())
    return _placed_envelope(report, positions, texts, first_rows.kept())


def _ends_with_a_summary(handle: BinaryIO) -> bool:
    """Whether the last 64 KiB of the input mention ``"summary"`` (where producers that count as they run write
    it). Only a guess, to save reading the rows twice: a wrong one costs time, never correctness."""
    try:
        where = handle.tell()
        try:
            handle.seek(-min(handle.seek(0, os.SEEK_END), 1 << 16), os.SEEK_END)
            return b'"summary"' in handle.read(1 << 16)
        finally:
            handle.seek(where)
    except OSError:
        return True  # build it while reading, then: the input may not be read twice


def _summary_again(handle: BinaryIO, origin: int) -> Summary | Finding:
    """The reference summary of the rows, reading the input again from ``origin`` (it was read to its end once
    already, without a problem: one now means it changed, or failed, under the second read)."""
    try:
        handle.seek(origin)
    except OSError as exc:
        return Finding(
            "", codes.FILE_UNREADABLE, "error", messages.render(codes.FILE_UNREADABLE, "reread_error", detail=exc.strerror or exc)
        )
    from .io import stream

    reference = ReferenceSummary()
    try:
        fed = feed(streamed(handle), [reference], [])
    except stream.NotStreamable:  # it was streamable the first time: it changed under the second read
        return Finding("", codes.FILE_UNREADABLE, "error", messages.render(codes.FILE_UNREADABLE, "changed"))
    return fed if isinstance(fed, Finding) else reference.build()


def _row(pointer: str) -> int:
    """The row index of a pointer under the streamed array (``/results/12/…`` → 12)."""
    return int(pointer.split("/", 3)[2])


def _placed_envelope(report: Report, positions: Positions, texts: dict[str, stream.Text], kept: set[int] | None = None) -> Report:
    """Place findings in the result set's own fields, scanning only the members that have one. ``kept``: the rows
    whose findings are placed (their positions are in ``positions``); ``None``: every row's findings were placed."""
    scanned: set[str] = set()
    for finding in report.findings:
        if finding.line is not None or not finding.pointer.startswith("/") or finding.pointer.startswith(f"/{ARRAY}/"):
            continue
        token = finding.pointer.split("/", 2)[1]
        key = token.replace("~1", "/").replace("~0", "~")
        if key in texts and key not in scanned:
            scanned.add(key)
            positions.update(texts[key].positions("/" + token))
    return placed(report, positions) if kept is None else _placed_first(report, positions, kept)
