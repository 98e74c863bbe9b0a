"""Import Inspect AI eval logs (``.eval`` archives and ``.json`` logs) through the ``inspect-ai`` package's reader.

Needs the ``inspect`` extra. A ``.eval`` archive is read sample by sample (see ``_samples``): memory holds one
sample at a time. Inspect's API has no incremental reader for ``.json`` logs, which are read whole.
The field-by-field mapping is SPEC.md, Appendix A.1.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..core.extras import require
from ..core.findings import Finding
from ..io.loader import open_regular, read_limited
from .base import PASS_THRESHOLD, Scales, Sink, finite_number, map_score, prefixed, text_or_default
from .common import ConversionError, LossReport, pointer, read_input

FORMAT = "inspect_ai"
LOG_SUFFIXES = (".eval", ".json")  # the files Inspect writes its logs to
SUPPORTED_VERSIONS = (1, 2)

# sample fields carried by a field of their own; everything else is metadata or listed as dropped
_SAMPLE_MAPPED = {"id", "epoch", "input", "target", "output", "scores", "error", "total_time", "completed_at", "metadata"}
_SAMPLE_DROPPED = {
    "messages": "the conversation transcript has no field in a result row (the final completion is actual_output)",
    "events": "the event transcript has no field in a result row",
    "attachments": "attachments are content referenced by the transcript, which is dropped",
    "events_data": "event payloads belong to the dropped transcript",
    "timelines": "timelines belong to the dropped transcript",
}


# Inspect's epoch reducers by name (``Epochs(n, "...")``, the log's ``eval.config.epochs_reducer``), as the
# specification's reducers (SPEC 4.7); ``at_least_K`` and ``pass_at_K`` carry their k. Inspect's ``value`` threshold
# is 1.0 unless the task passes another, which the log does not record.
_REDUCERS = {"mean": "mean", "median": "median", "mode": "mode", "max": "max"}
_REDUCER_WITH_K = re.compile(r"(?P<method>at_least|pass_at)_(?P<k>[1-9][0-9]*)")


def _reducer(config: dict[str, Any], loss: LossReport, source: str) -> dict[str, Any] | None:
    """The reducer of the log's epochs, as the specification's ``Reducer``; ``None`` for one epoch and no reducer."""
    names = config.get("epochs_reducer") or []
    epochs = config.get("epochs")
    if not names:
        return {"method": "mean"} if isinstance(epochs, int) and epochs > 1 else None  # Inspect's default
    name = names[0] if isinstance(names[0], str) else ""
    if len(names) > 1:
        loss.dropped(source, "/eval/config/epochs_reducer", f"several epoch reducers: only the first ({name}) is recorded")
    if name in _REDUCERS:
        return {"method": _REDUCERS[name]}
    match = _REDUCER_WITH_K.fullmatch(name)
    if match is not None:
        return {"method": match["method"], "k": int(match["k"]), "threshold": 1}
    loss.dropped(source, "/eval/config/epochs_reducer", f"epoch reducer {name!r} has no counterpart: attempts reduce by mean")
    return None


def _values(sample: Any) -> Iterator[tuple[str, Any]]:
    """(grader id, value) of every score of a sample (a model or its JSON dump): a dict-valued score gives one
    grader per key, ``scorer/key``."""
    scores = sample.get("scores") if isinstance(sample, dict) else getattr(sample, "scores", None)
    for name, score in (scores or {}).items():
        value = score.get("value") if isinstance(score, dict) else getattr(score, "value", None)
        if isinstance(value, dict):
            for key, part in value.items():
                yield f"{name}/{key}", part
        else:
            yield name, value


def _scan(path: Path, header: Any, scales: Scales) -> None:
    """Every score value of the log, for the scales, before any row is written (a row's score is normalised by its
    grader's scale, and the result set's ``graders`` come first): a ``.json`` log's samples are in memory; a
    ``.eval`` archive's sample summaries (``summaries.json``, or the journal's ``_journal/summaries/*.json``) hold
    every sample's scores without its transcript."""
    if path.suffix != ".eval":
        for sample in header.samples or []:
            for grader_id, value in _values(sample):
                scales.see(grader_id, value)
        return
    with contextlib.suppress(ImportError):  # Inspect's zstd entries (zipfile-zstd: an inspect-ai dependency before Python 3.14)
        import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        entries = ["summaries.json"] if "summaries.json" in names else sorted(n for n in names if n.startswith("_journal/summaries/"))
        for entry in entries:
            for sample in _array_items(_member(archive, entry, path)):
                for grader_id, value in _values(sample):
                    scales.see(grader_id, value)


_BLANK = re.compile(r"[ \t\n\r]*")


def _array_items(data: bytes) -> Iterator[Any]:
    """The items of a JSON array one at a time (nothing for another value), as ``json.loads`` reads them -- Inspect
    writes ``NaN`` -- without holding them all: ``summaries.json`` holds every sample's summary (13.5 MB of JSON for
    20,000 samples, five times that as objects)."""
    text = data.decode(json.detect_encoding(data), "surrogatepass")
    decoder = json.JSONDecoder()
    at = _BLANK.match(text).end()  # type: ignore[union-attr]
    if not text.startswith("[", at):
        decoder.decode(text)  # a malformed file is refused as json.loads refuses it
        return
    at = _BLANK.match(text, at + 1).end()  # type: ignore[union-attr]
    closed = text.startswith("]", at)
    while not closed:
        item, at = decoder.raw_decode(text, at)
        yield item
        at = _BLANK.match(text, at).end()  # type: ignore[union-attr]
        if text.startswith(",", at):
            at = _BLANK.match(text, at + 1).end()  # type: ignore[union-attr]
        elif text.startswith("]", at):
            closed = True
        else:
            break
    if not closed or _BLANK.match(text, at + 1).end() != len(text):  # type: ignore[union-attr]
        decoder.decode(text)  # malformed: refused as json.loads refuses it, in the decoder's own words


def _dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", exclude_none=True)
    return dumped


# What a broken archive raises while it is opened or an entry is read (zlib: a corrupt deflate stream).
_ARCHIVE_ERRORS = (zipfile.BadZipFile, EOFError, zlib.error, OSError)
# The entries of a .eval archive that hold its header: the finished log's, else the one an unfinished run starts with.
_HEADERS = ("header.json", "_journal/start.json")


def _first_line(exc: BaseException) -> str:
    """An exception's text to show (its first line): never read to decide anything."""
    shown = str(exc)
    return shown.splitlines()[0] if shown.strip() else type(exc).__name__


def _not_json(path: Path, exc: ValueError) -> ConversionError:
    detail = "not UTF-8" if isinstance(exc, UnicodeDecodeError) else _first_line(exc)
    return ConversionError("IMPORT_UNREADABLE", f"not valid JSON: {detail}", str(path))


def _not_archive(path: Path, exc: BaseException) -> ConversionError:
    return ConversionError("IMPORT_UNREADABLE", f"not a readable .eval archive (truncated or corrupt): {_first_line(exc)}", str(path))


def _unsupported(version: Any, path: Path) -> ConversionError | None:
    """IMPORT_VERSION_UNSUPPORTED for a header whose ``version`` is a whole number this importer does not read."""
    if isinstance(version, int) and not isinstance(version, bool) and version not in SUPPORTED_VERSIONS:
        return ConversionError(
            "IMPORT_VERSION_UNSUPPORTED", f"log format version {version!r} (reads {SUPPORTED_VERSIONS})", str(path), "/version"
        )
    return None


def _member(archive: zipfile.ZipFile, name: str, path: Path) -> bytes:
    """An archive entry's bytes, counted as they inflate (the input gate's :func:`evalschema.io.loader.read_limited`):
    an entry that inflates past the input size limit is refused, whatever size the archive's directory claims."""
    with archive.open(name) as entry:
        data = read_limited(entry)
    if isinstance(data, Finding):
        raise ConversionError("IMPORT_UNREADABLE", f"{data.code}: {data.message}", str(path), "/" + name)
    return data


def _gate(path: Path) -> None:
    """The input gate, before Inspect's reader opens the file: a regular file (never a FIFO or a device, which
    would block or never end), within the input size limit — a ``.json`` log as a whole, a ``.eval`` archive's
    header entry as it inflates (the sample entries are counted as they are read, ``_samples``). An archive that
    cannot be read at all is left to the reader and ``_header_problem`` to describe."""
    handle = open_regular(path)
    if isinstance(handle, Finding):
        raise ConversionError("IMPORT_UNREADABLE", f"{handle.code}: {handle.message}", str(path))
    with handle:
        if path.suffix == ".json":
            data = read_limited(handle)
            if isinstance(data, Finding):
                raise ConversionError("IMPORT_UNREADABLE", f"{data.code}: {data.message}", str(path))
            return
        with contextlib.suppress(ImportError):  # Inspect's zstd entries (zipfile-zstd: an inspect-ai dependency before Python 3.14)
            import zipfile_zstd  # noqa: F401
        try:
            with zipfile.ZipFile(handle) as archive:
                names = set(archive.namelist())
                for entry in _HEADERS:
                    if entry in names:
                        _member(archive, entry, path)
        except (NotImplementedError, *_ARCHIVE_ERRORS):
            return


def _header_problem(path: Path) -> ConversionError | None:
    """Why the log's header cannot be read, found by our own checks (Inspect's reader raises ValueError for
    nearly everything, with only its text to tell the cases apart): a ``.eval`` file that is no zip archive or whose
    header entry is missing, truncated or not JSON; a ``.json`` log that is not JSON; a ``version`` this importer does
    not read. None when these checks find nothing (the log is then of the wrong shape: Inspect's model says where)."""
    if path.suffix == ".json":
        try:
            data = json.loads(read_input(path))
        except ConversionError as exc:  # not a regular file, or over the input size limit
            return exc
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
            return _not_json(path, exc)
        except OSError as exc:
            return ConversionError("IMPORT_UNREADABLE", f"cannot read the file: {_first_line(exc)}", str(path))
        return _unsupported(data.get("version"), path) if isinstance(data, dict) else None
    with contextlib.suppress(ImportError):  # Inspect's zstd entries (zipfile-zstd: an inspect-ai dependency before Python 3.14)
        import zipfile_zstd  # noqa: F401
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            entry = next((name for name in _HEADERS if name in names), None)
            if entry is None:
                return ConversionError(
                    "IMPORT_NOT_FORMAT", f"not an Inspect log: the archive holds none of {', '.join(_HEADERS)}", str(path)
                )
            body = _member(archive, entry, path)
    except NotImplementedError:  # an entry compressed in a way this Python cannot read: nothing more to learn here
        return None
    except _ARCHIVE_ERRORS as exc:
        return _not_archive(path, exc)
    try:
        header = json.loads(body)
    except ValueError as exc:
        return _not_json(path, exc)
    return _unsupported(header.get("version"), path) if isinstance(header, dict) else None


def _read_error(path: Path, exc: BaseException) -> ConversionError:
    """The reader's exception as a conversion error, decided by the exception's type (its text is only shown):
    pydantic's ValidationError (a log of the wrong shape: the first problem, with its location), a broken archive,
    invalid JSON, else a log Inspect could not read."""
    if isinstance(exc, FileNotFoundError):
        return ConversionError("IMPORT_UNREADABLE", "no such file", str(path))
    errors = getattr(exc, "errors", None)
    if callable(errors):  # pydantic's ValidationError: the first problem, with its location
        try:
            first = errors()[0]
            return ConversionError(
                "IMPORT_NOT_FORMAT", f"not an Inspect log: {first.get('msg', _first_line(exc))}", str(path), pointer(*first.get("loc", ()))
            )
        except (TypeError, IndexError, KeyError):
            pass
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):
        return _not_json(path, exc)
    if path.suffix == ".eval" and isinstance(exc, _ARCHIVE_ERRORS):
        return _not_archive(path, exc)
    return ConversionError("IMPORT_NOT_FORMAT", f"not an Inspect log ({type(exc).__name__}): {_first_line(exc)}", str(path))


def _samples(path: Path, header: Any, loss: LossReport) -> Iterator[Any]:
    """The samples of a log, one at a time.

    A ``.eval`` archive is opened once and its sample entries are read in the order of the header's sample ids
    and epochs, each parsed with Inspect's own ``EvalSample`` model exactly as Inspect's ``read_eval_log_sample``
    does (``json.loads`` of the entry, then ``EvalSample.model_validate`` with Inspect's deserialising context).
    Inspect's ``read_eval_log_samples`` gives the same samples but reopens the archive and re-reads its directory
    for every sample, which makes a large log quadratic (hours for 100k samples); memory is one sample either way.
    The entries read are the archive's own ``samples/<id>_epoch_<n>.json``, never a count from the header (an
    ``epochs`` of 1e9 would be a billion lookups): those of the header's sample ids first, in its order and by
    epoch, then any the header does not list (imported, with a loss-report entry). A sample id the header lists
    with no entry is skipped, as ``all_samples_required=False`` does. An entry the archive holds twice (two
    directory records of one name) is refused: which copy is the sample cannot be told.
    """
    from inspect_ai.log import EvalSample

    if path.suffix != ".eval":  # a .json log was read whole with its header
        yield from header.samples or []
        return
    sample_ids = header.eval.dataset.sample_ids
    if sample_ids is None:
        raise ConversionError(
            "IMPORT_NOT_FORMAT",
            "the log lists no sample ids (its samples cannot be read one by one)",
            str(path),
            "/eval/dataset/sample_ids",
        )
    with contextlib.suppress(ImportError):  # Inspect's zstd entries (zipfile-zstd: an inspect-ai dependency before Python 3.14)
        import zipfile_zstd  # noqa: F401
    try:
        from inspect_ai._util.constants import get_deserializing_context

        fresh_context: Callable[[], dict[str, Any]] = get_deserializing_context
    except ImportError:  # a private helper: without it, pydantic's default context
        fresh_context = dict
    with zipfile.ZipFile(path) as archive:
        for member in _sample_members(archive, sample_ids, path, loss):
            data = json.loads(_member(archive, member, path))
            # a fresh context per sample, as Inspect does: it holds a message cache that would otherwise grow
            # with every sample read
            yield EvalSample.model_validate(data, context=fresh_context())


_SAMPLE_ENTRY = re.compile(r"samples/(?P<id>.+)_epoch_(?P<epoch>[0-9]+)\.json", re.DOTALL)


def _sample_members(archive: zipfile.ZipFile, sample_ids: list[Any], path: Path, loss: LossReport) -> list[str]:
    """The archive's sample entries in reading order: the header's sample ids first (its order), then the others,
    each by epoch. Duplicate entries are refused; entries the header does not list are reported."""
    listed = {str(sample_id): rank for rank, sample_id in reversed(list(enumerate(sample_ids)))}
    seen: set[str] = set()
    keyed: list[tuple[int, str, int, str]] = []
    for name in archive.namelist():
        match = _SAMPLE_ENTRY.fullmatch(name)
        if match is None:
            continue
        if name in seen:
            raise ConversionError(
                "IMPORT_UNREADABLE",
                "the archive holds this sample entry twice: which copy is the sample cannot be told",
                str(path),
                "/" + name,
            )
        seen.add(name)
        rank = listed.get(match["id"], len(listed))
        if rank == len(listed):
            loss.approximated(path.name, "/eval/dataset/sample_ids", "a sample the header does not list: imported, after the listed ones")
        keyed.append((rank, match["id"] if rank == len(listed) else "", int(match["epoch"]), name))
    keyed.sort()
    return [name for *_, name in keyed]


def read(inputs: list[Path], sink: Sink, loss: LossReport) -> None:
    require("inspect_ai", "inspect", "evalschema import --from inspect_ai")
    if len(inputs) != 1:
        raise ConversionError("IMPORT_NOT_FORMAT", "Inspect import takes one log file (.eval or .json)", ", ".join(map(str, inputs)))
    from inspect_ai.log import read_eval_log

    path = inputs[0]
    source = path.name
    if path.suffix not in LOG_SUFFIXES:
        raise ConversionError("IMPORT_NOT_FORMAT", f"an Inspect log ends in .eval or .json, not {path.suffix or '(none)'!r}", str(path))
    _gate(path)
    try:
        if path.suffix == ".eval":
            header = read_eval_log(str(path), header_only=True, format="eval")
        else:  # no incremental reader for .json logs (and its header-only scan needs `version` first)
            header = read_eval_log(str(path), format="json")
    except ConversionError:
        raise
    except Exception as exc:  # the reader's own errors: our checks say why, else its exception's type; never a traceback
        raise (_header_problem(path) or _read_error(path, exc)) from None
    head: dict[str, Any] = header.model_dump(mode="json", exclude_none=True, exclude={"samples"})
    if head.get("version") not in SUPPORTED_VERSIONS:
        raise ConversionError(
            "IMPORT_VERSION_UNSUPPORTED", f"log format version {head.get('version')!r} (reads {SUPPORTED_VERSIONS})", str(path), "/version"
        )
    scales = Scales()
    for scorer in (head.get("eval") or {}).get("scorers") or []:
        if isinstance(scorer, dict):
            scales.declare(scorer)
    try:
        _scan(path, header, scales)
    except ConversionError:
        raise
    except Exception as exc:
        raise _read_error(path, exc) from None
    reducer = _reducer((head.get("eval") or {}).get("config") or {}, loss, source)
    _start(head, sink, loss, source, scales, reducer)
    count = 0
    try:
        for sample in _samples(path, header, loss):
            _sample(_dump(sample), count, sink, loss, source, scales, reducer)
            count += 1
    except ConversionError:
        raise
    except Exception as exc:
        raise _read_error(path, exc) from None
    if count and head.get("reductions"):
        loss.dropped(source, "/reductions", "epoch reductions are recomputable from the attempt rows (the graders' reducer)")


def _start(head: dict[str, Any], sink: Sink, loss: LossReport, source: str, scales: Scales, reducer: dict[str, Any] | None) -> None:
    spec = head.get("eval", {})
    stats = head.get("stats", {})
    task = spec.get("task") or "inspect-task"
    run_id = spec.get("eval_id") or spec.get("run_id") or spec.get("task_id") or "inspect-run"
    started = stats.get("started_at") or spec.get("created")
    if not started:
        raise ConversionError(
            "IMPORT_NOT_FORMAT", "the log has no start time (stats.started_at or eval.created)", source, "/stats/started_at"
        )
    provider: dict[str, Any] = {"model": spec["model"]} if spec.get("model") else {}
    config = spec.get("model_generate_config") or {}
    if isinstance(config.get("temperature"), (int, float)):
        provider["temperature"] = config["temperature"]
    if isinstance(config.get("max_tokens"), int) and config["max_tokens"] >= 1:
        provider["max_tokens"] = config["max_tokens"]
    if spec.get("model_base_url"):
        provider["api_base"] = spec["model_base_url"]
    extra = {k: v for k, v in {"model_args": spec.get("model_args"), "generate_config": config}.items() if v}
    if extra:
        provider["extra"] = extra
    runner: dict[str, Any] = {"name": "inspect_ai"}
    if (spec.get("packages") or {}).get("inspect_ai"):
        runner["version"] = spec["packages"]["inspect_ai"]
    metadata = prefixed(
        FORMAT,
        {
            "log_version": head.get("version"),
            "status": head.get("status"),
            "run_id": spec.get("run_id"),
            "eval": {k: v for k, v in spec.items() if k not in {"model_generate_config", "model_args", "model_base_url"}},
            "plan": head.get("plan"),
            "results": head.get("results"),
            "stats": stats,
            "error": head.get("error"),
            "tags": head.get("tags"),
            "metadata": head.get("metadata"),
            "invalidated": head.get("invalidated") or None,
        },
    )
    resultset: dict[str, Any] = {"suite_id": str(task), "run_id": str(run_id), "started_at": started}
    if spec.get("task_version") not in (None, ""):
        resultset["suite_version"] = str(spec["task_version"])
    if stats.get("completed_at"):
        resultset["completed_at"] = stats["completed_at"]
    if provider:
        resultset["provider"] = provider
    resultset["runner"] = runner
    # each grader's provenance: its scale where its values leave [0, 1], and the epochs' reducer (SPEC 4.7)
    grader_ids = [str(s["name"]) for s in spec.get("scorers") or [] if isinstance(s, dict) and s.get("name")]
    grader_ids += [g for g in sorted(set(scales.low) | set(scales.declared)) if g not in grader_ids]
    provenance = {g: _provenance(g, scales, reducer) for g in grader_ids}
    provenance = {g: p for g, p in provenance.items() if len(p) > 1}
    if provenance:
        resultset["graders"] = provenance
    resultset["metadata"] = metadata
    suite: dict[str, Any] = {"id": str(task), "name": spec.get("task_display_name") or str(task)}
    if spec.get("tags") or head.get("tags"):
        suite["tags"] = [str(t) for t in (spec.get("tags") or head.get("tags") or [])]
    if spec.get("model"):
        suite["config"] = {"provider": {"model": spec["model"]}}
    suite["metadata"] = prefixed(FORMAT, {"task_file": spec.get("task_file"), "dataset": spec.get("dataset"), "solver": spec.get("solver")})
    sink.start(resultset, suite)
    for scorer in spec.get("scorers") or []:
        sink.grader(_grader(scorer["name"], scorer, scales, reducer))
    if not spec.get("scorers"):
        for score in (head.get("results") or {}).get("scores") or []:
            sink.grader(_grader(score.get("scorer") or score["name"], {}, scales, reducer))
    for grader_id in provenance:
        if scales.of(grader_id) is not None and scales.of(grader_id) != scales.declared.get(grader_id.split("/", 1)[0]):
            loss.approximated(
                source,
                "/eval/scorers",
                f"{grader_id}: values outside [0, 1] and no declared scale: the scale is the smallest and largest values in the log, "
                "raw values kept as raw_score",
            )


def _provenance(grader_id: str, scales: Scales, reducer: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "custom"}
    scale = scales.of(grader_id)
    if scale is not None:
        out["scale"] = scale
    if reducer is not None:
        out["reducer"] = reducer
    return out


def _grader(name: str, spec: dict[str, Any], scales: Scales, reducer: dict[str, Any] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"handler": f"inspect_ai:{name}"}
    if spec.get("options"):
        params["options"] = spec["options"]
    if spec.get("metrics"):
        params["metrics"] = spec["metrics"]
    grader = {"id": name, "type": "custom", "params": params}
    grader.update({k: v for k, v in _provenance(name, scales, reducer).items() if k != "type"})
    return grader


def _input(value: Any, loss: LossReport, source: str, where: str) -> str | list[str]:
    if isinstance(value, str):
        return text_or_default(value, loss, source, where)
    texts: list[str] = []
    for message in value or []:
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text")
        texts.append(f"{message.get('role', 'user')}: {content or ''}")
    if not texts:
        return text_or_default("", loss, source, where)
    loss.approximated(source, where, "chat messages flattened to 'role: text' strings; the messages are kept in metadata inspect_ai.input")
    return texts


def _score(
    part: Any, scale: dict[str, float] | None, loss: LossReport, source: str, where: str
) -> tuple[float | None, bool, dict[str, Any], float | None]:
    """One score value as (score, passed, metadata to keep, raw value): a value on its grader's scale keeps its raw
    value beside the normalised score (SPEC 4.7); NaN, Inspect's unscored value, is a null score."""
    if isinstance(part, float) and math.isnan(part):
        loss.approximated(source, where, "NaN (Inspect's unscored value): a null score")
        return None, False, {}, None
    number = finite_number(part)
    if scale is not None and number is not None and not isinstance(part, bool):
        low, high = scale["min"], scale["max"]
        score = min(1.0, max(0.0, (number - low) / (high - low)))
        if not low <= number <= high:
            loss.approximated(source, where, "a raw value outside its scale: the normalised score is clipped to [0, 1]")
        return score, score >= PASS_THRESHOLD, {}, number
    mapped, passed, kept = map_score(part, loss, source, where, letters=True)
    return mapped, passed, kept, None


def _sample(
    sample: dict[str, Any], index: int, sink: Sink, loss: LossReport, source: str, scales: Scales, reducer: dict[str, Any] | None
) -> None:
    sid = sample.get("id")
    epoch = sample.get("epoch", 1)
    base = f"/samples/{index}"  # the position in a .json log; in a .eval archive, the reading order (ids × epochs)
    if sid is None or sid == "":
        raise ConversionError("IMPORT_NOT_FORMAT", "a sample has no id", source, "/samples")
    if isinstance(sid, bool) or not isinstance(sid, (str, int)):
        raise ConversionError("IMPORT_NOT_FORMAT", "a sample id is text or a whole number", source, base + "/id")
    case_id = sink.case_id(sid, source, base + "/id")
    case: dict[str, Any] = {"id": case_id, "input": _input(sample.get("input"), loss, source, base + "/input")}
    target = sample.get("target")
    case_meta: dict[str, Any] = {}
    if isinstance(target, str) and target:
        case["expected_output"] = target
    elif isinstance(target, list) and len(target) == 1 and isinstance(target[0], str):
        case["expected_output"] = target[0]
    elif isinstance(target, list) and target:
        case_meta["inspect_ai.target"] = target
        loss.approximated(
            source,
            base + "/target",
            "several accepted targets: expected_output holds one reference, so all are kept in metadata inspect_ai.target",
        )
    if isinstance(sample.get("input"), list):
        case_meta["inspect_ai.input"] = sample["input"]
    case_meta.update(prefixed(FORMAT, {k: sample.get(k) for k in ("choices", "metadata", "files", "setup", "sandbox", "description")}))
    if not isinstance(sid, str):
        case_meta["inspect_ai.id"] = sid
    if case_meta:
        case["metadata"] = case_meta
    sink.test_case(case)

    row: dict[str, Any] = {"test_case_id": case_id, "attempt": int(epoch) if isinstance(epoch, int) and epoch >= 1 else 1}
    output = sample.get("output") or {}
    completion = output.get("completion")
    if isinstance(completion, str) and (completion or "error" not in sample):
        row["actual_output"] = completion
    grader_results: list[dict[str, Any]] = []
    for name, score in (sample.get("scores") or {}).items():
        where = f"{base}/scores/{name}/value"
        value = score.get("value")
        parts = value.items() if isinstance(value, dict) else [(None, value)]
        for key, part in parts:
            grader_id = name if key is None else f"{name}/{key}"
            sink.grader(_grader(grader_id, {}, scales, reducer))
            mapped, passed, kept, raw = _score(part, scales.of(grader_id), loss, source, where if key is None else f"{where}/{key}")
            result: dict[str, Any] = {"grader_id": grader_id, "type": "custom", "score": mapped}
            if raw is not None:
                result["raw_score"] = raw
            result["passed"] = passed
            if isinstance(score.get("explanation"), str):
                result["reason"] = score["explanation"]
            meta = prefixed(
                FORMAT, {**kept, "answer": score.get("answer"), "metadata": score.get("metadata"), "history": score.get("history")}
            )
            if meta:
                result["metadata"] = meta
            grader_results.append(result)
    row["grader_results"] = grader_results
    if isinstance(sample.get("total_time"), (int, float)) and sample["total_time"] >= 0:
        row["duration_ms"] = round(sample["total_time"] * 1000)
    if sample.get("completed_at"):
        row["completed_at"] = sample["completed_at"]
    error = sample.get("error")
    if error:
        row["error"] = {"type": "runner_error", "message": str(error.get("message", "")), "retryable": False}
        loss.defaulted(source, base + "/error", "Inspect does not classify sample errors: error.type is runner_error, retryable false")
        if error.get("traceback_ansi"):
            loss.dropped(source, base + "/error/traceback_ansi", "the ANSI-coloured copy of the traceback (the plain traceback is kept)")
    # the provider's id of the graded response, as Inspect's providers record it (gen_ai.response.id, spec 1.4.0);
    # Inspect's own span ids (events' span_id) are no W3C ids and its logs hold no trace id: nothing to map for those
    response_id = output.get("response_id")
    if isinstance(response_id, str) and response_id:
        row["response_id"] = response_id
    row_meta = prefixed(
        FORMAT,
        {
            "uuid": sample.get("uuid"),
            "usage": output.get("usage"),
            "output_model": output.get("model"),
            "stop_reason": (output.get("choices") or [{}])[0].get("stop_reason"),
            "model_usage": sample.get("model_usage"),
            "role_usage": sample.get("role_usage"),
            "store": sample.get("store"),
            "started_at": sample.get("started_at"),
            "working_time": sample.get("working_time"),
            "limit": sample.get("limit"),
            "error_retries": sample.get("error_retries"),
            "traceback": (error or {}).get("traceback"),
            "invalidation": sample.get("invalidation"),
            "turn_count": sample.get("turn_count"),
            "model_fallbacks": sample.get("model_fallbacks"),
            **{k: sample.get(k) for k in ("token_limit", "token_limit_type", "token_limit_usage", "message_limit", "time_limit")},
        },
    )
    if row_meta:
        row["metadata"] = row_meta
    sink.result(row)
    for field, reason in _SAMPLE_DROPPED.items():
        if sample.get(field):
            loss.dropped(source, f"{base}/{field}", reason)
    if output.get("choices") and len(output["choices"]) > 1:
        loss.dropped(source, base + "/output/choices", "alternative choices beyond the first (actual_output is the completion)")
