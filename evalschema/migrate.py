"""``evalschema migrate``: move packs off the deprecated ``fail_on_violation`` (RFC 0002).

What is mechanical is done; what needs a human is listed:
- ``fail_on_violation: true`` (or on a disabled validator): the line is dropped — the validator already enforced.
- ``fail_on_violation: false`` on an enabled validator: it was an observation, so it becomes an eval on the same
  prompt (same ``type`` and ``params``, a generated ``id``) with a placeholder trigger, metric and threshold,
  marked for review in ``extensions["evalschema.migration"]`` (so ``validate --strict`` fails on it:
  MIGRATION_PLACEHOLDER) and, in YAML, a comment that carries the validator's own comments; the validator is
  removed, and a ``validators`` list the migration empties goes too.

Only the migrated lines are edited, in the text (JSON and YAML): every other byte stays; files are replaced
atomically. ``--check`` prints the diff and exits 1 when a migration is needed, writing nothing.
"""

from __future__ import annotations

import copy
import difflib
import io
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .core.extras import MissingExtra, require
from .core.findings import Finding, pointer
from .io.atomic import write_atomic

EXIT_OK, EXIT_NEEDED, EXIT_UNREADABLE = 0, 1, 2
PLACEHOLDER_TRIGGER = "every_turn"
PLACEHOLDER_THRESHOLD = {"operator": "gte", "value": 1.0}
REVIEW_NOTE = "placeholder trigger, metric and threshold: a human must choose them"


@dataclass
class Plan:
    """What the migration did to one pack, and what a human must still decide."""

    dropped: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)  # (validator pointer, new eval pointer)
    emptied: list[str] = field(default_factory=list)  # prompts whose validators all moved: the empty list is removed
    decisions: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.dropped or self.moved)


def _metric_name(eval_id: str) -> str:
    name = re.sub(r"[^a-zA-Z0-9_:]", "_", eval_id)
    return (name if re.match(r"[a-zA-Z_:]", name) else "_" + name) + "_score"


def _unique(base: str, taken: set[str]) -> str:
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}_{n}", n + 1
    taken.add(candidate)
    return candidate


def migrate_document(pack: Any, new_map: Callable[[], Any], new_list: Callable[[], Any], comment: Callable[[Any, int, str], None]) -> Plan:
    """Migrate a parsed pack in place (plain dicts or ruamel's round-trip maps)."""
    plan = Plan()
    prompts = pack.get("prompts") if isinstance(pack, dict) else None
    if not isinstance(prompts, dict):
        return plan
    pack_evals = pack.get("evals")
    pack_eval_ids = {e.get("id") for e in pack_evals if isinstance(e, dict)} if isinstance(pack_evals, list) else set()
    for name, prompt in prompts.items():
        validators = prompt.get("validators") if isinstance(prompt, dict) else None
        if not isinstance(validators, list):
            continue
        evals = prompt.get("evals")
        taken = {
            str(i) for i in pack_eval_ids | ({e.get("id") for e in evals if isinstance(e, dict)} if isinstance(evals, list) else set()) if i
        }
        keep = []
        for index, validator in enumerate(validators):
            where = pointer("prompts", name, "validators", index)
            if not isinstance(validator, dict) or "fail_on_violation" not in validator:
                keep.append(validator)
                continue
            if validator["fail_on_violation"] is not False or validator.get("enabled") is False:
                del validator["fail_on_violation"]
                plan.dropped.append(where + "/fail_on_violation")
                keep.append(validator)
                continue
            if not isinstance(evals, list):
                evals = new_list()
                prompt["evals"] = evals
            eval_id = _unique(f"{validator.get('id') or validator.get('type', 'validator')}_observed", taken)
            entry = new_map()
            entry["id"] = eval_id
            entry["type"] = validator.get("type")
            entry["trigger"] = PLACEHOLDER_TRIGGER
            if "params" in validator:
                entry["params"] = copy.deepcopy(validator["params"])
            metric = new_map()
            metric["name"], metric["type"] = _metric_name(eval_id), "gauge"
            entry["metric"] = metric
            threshold = new_map()
            threshold.update(PLACEHOLDER_THRESHOLD)
            entry["threshold"] = threshold
            if isinstance(validator.get("message"), str):
                entry["message"] = validator["message"]
            marker = new_map()
            marker["from"] = where
            marker["decide"] = ["trigger", "metric", "threshold"]
            marker["note"] = REVIEW_NOTE
            extensions = new_map()
            extensions["evalschema.migration"] = marker
            entry["extensions"] = extensions
            evals.append(entry)
            comment(evals, len(evals) - 1, f"evalschema migrate: was the observe-only validator {where}; {REVIEW_NOTE}")
            new_where = pointer("prompts", name, "evals", len(evals) - 1)
            plan.moved.append((where, new_where))
            plan.decisions.append(
                f"{new_where} ({eval_id}): choose its trigger (placeholder {PLACEHOLDER_TRIGGER!r}), metric (placeholder "
                f"gauge {metric['name']!r}) and threshold (placeholder gte 1.0), then assert on it in the test scenarios "
                "that relied on the validator"
            )
        if len(keep) != len(validators):
            validators[:] = keep
            if not keep:
                del prompt["validators"]
                plan.emptied.append(name)
    return plan


class _NotLoaded:
    """In ``load_yaml_guess_indent``'s place of a YAML loader: its guess of the indentation reads the text's lines;
    the loading it does after that would parse the whole file a second time, for nothing."""

    def load(self, text: str) -> None:
        return None


def _yaml_engine(text: str) -> tuple[Any, int]:
    """A round-trip YAML engine with the file's own indentation, and the column of a prompt's eval items."""
    require("ruamel.yaml", "migrate", "evalschema migrate")
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    # only the guess: the file is parsed by the caller (``yaml`` stands in for the loader ruamel would run again)
    _, sequence, offset = load_yaml_guess_indent(text, yaml=_NotLoaded())
    mapping = min(
        (
            len(line) - len(line.lstrip(" "))
            for line in text.splitlines()
            if line.startswith(" ") and not line.lstrip().startswith(("-", "#"))
        ),
        default=2,
    )
    engine = YAML()  # round-trip: comments, key order and quotes survive
    engine.preserve_quotes = True
    engine.width = 4096
    engine.indent(mapping=mapping, sequence=max(sequence or 2, (offset or 0) + 2), offset=offset or 0)
    return engine, 2 * mapping + (offset or 0)  # prompts → <name> → evals → items


def _dump_json(document: Any, indent: int | str | None) -> str:
    """JSON text for a migrated pack: never a value JSON cannot hold (``allow_nan=False``); a string holding a lone
    surrogate (which UTF-8 cannot encode) is written as ``\\u`` escapes, as it was read."""
    text = json.dumps(document, indent=indent, ensure_ascii=False, allow_nan=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(document, indent=indent, ensure_ascii=True, allow_nan=False)
    return text


def migrate_text(text: str, form: str) -> tuple[str, Plan]:
    """The migrated text of a pack, and the plan; ``form`` is ``yaml`` or ``json``.

    Only what the migration changes is edited, in the text itself: every other byte — comments (inline,
    standalone, the file's last), blank lines, quoting, inline objects and arrays — stays as it was, so a diff
    shows the migration and nothing else. The comments of a validator that becomes an eval go with it. (A YAML
    pack that writes a touched validator or list in flow style is re-emitted by the round-trip dumper instead.)
    """
    if form == "yaml":
        require("ruamel.yaml", "migrate", "evalschema migrate")
        from ruamel.yaml import YAML

        document = YAML().load(text)
        plan, migrated = _planned(_plain(document))
        if not plan.changed:
            return text, plan
        edited = _yaml_edits(text, document, plan, migrated)
        return (edited if edited is not None else _yaml_dump(text)), plan
    document = json.loads(text)
    plan, migrated = _planned(document)
    if not plan.changed:
        return text, plan
    return _json_edits(text, document, plan, migrated), plan


def _plain(value: Any) -> Any:
    """ruamel's round-trip containers as plain dicts and lists (the migration runs on a copy)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _planned(document: Any) -> tuple[Plan, Any]:
    migrated = copy.deepcopy(document)
    return migrate_document(migrated, dict, list, lambda sequence, index, note: None), migrated


def _new_evals(plan: Plan, migrated: Any) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Per prompt, the evals the migration added: (the validator it came from, the eval)."""
    out: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for source, target in plan.moved:
        _, _, name, _, index = target.split("/")
        name = name.replace("~1", "/").replace("~0", "~")
        out.setdefault(name, []).append((source, migrated["prompts"][name]["evals"][int(index)]))
    return out


def _note(source: str) -> str:
    return f"evalschema migrate: was the observe-only validator {source}; {REVIEW_NOTE}"


# --- JSON: edits at the spans of the values -------------------------------------------------------------------

_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+|\s+', re.DOTALL)


@dataclass
class _Span:
    member: int  # where the member starts: its key, or the value of an array item
    start: int
    end: int


def _json_spans(text: str) -> dict[str, _Span]:
    """The span of every value of a JSON text, by JSON Pointer (the text is known to be valid JSON)."""
    spans: dict[str, _Span] = {}
    stack: list[list[Any]] = []  # [kind, pointer, start, member start, key, key start, index]
    key: str | None = None
    key_start = 0

    def child() -> tuple[str, int]:
        if not stack:
            return "", -1
        frame = stack[-1]
        if frame[0] == "o":
            return frame[1] + "/" + str(key).replace("~", "~0").replace("/", "~1"), key_start
        return f"{frame[1]}/{frame[6]}", -1

    expecting_key = False
    for match in _JSON_TOKEN.finditer(text):
        token, at = match.group(), match.start()
        if token.isspace():
            continue
        if token in "{[":
            where, member = child()
            stack.append(["o" if token == "{" else "a", where, at, member if member >= 0 else at, None, 0, 0])
            expecting_key = token == "{"
        elif token in "}]":
            frame = stack.pop()
            spans[frame[1]] = _Span(frame[3], frame[2], match.end())
            expecting_key = False
        elif token == ",":
            if stack[-1][0] == "a":
                stack[-1][6] += 1
            expecting_key = stack[-1][0] == "o"
        elif token == ":":
            expecting_key = False
        elif expecting_key:
            key, key_start = json.loads(token), at
        else:
            where, member = child()
            spans[where] = _Span(member if member >= 0 else at, at, match.end())
    return spans


def _skip_space(text: str, at: int, step: int) -> int:
    while 0 <= at < len(text) and text[at] in " \t\r\n":
        at += step
    return at


def _removal(text: str, span: _Span) -> tuple[int, int]:
    """The range to delete to remove a member or an item, with its comma, keeping the layout of the rest."""
    after = _skip_space(text, span.end, 1)
    if after < len(text) and text[after] == ",":
        return span.member, _skip_space(text, after + 1, 1)
    before = _skip_space(text, span.member - 1, -1)
    if text[before] == ",":
        return before, span.end
    return before + 1, after  # the only member: the container becomes empty


def _indent_of(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    prefix = text[line_start:at]
    return prefix if prefix.strip() == "" else prefix[: len(prefix) - len(prefix.lstrip())]


def _json_edits(text: str, document: Any, plan: Plan, migrated: Any) -> str:
    match = re.search(r"\n([ \t]+)\S", text)
    if match is None:  # all on one line: there is no layout to keep
        return _dump_json(migrated, None) + ("\n" if text.endswith("\n") else "")
    unit = match.group(1)
    spans = _json_spans(text)
    edits: list[tuple[int, int, str]] = []
    emptied = {pointer("prompts", name, "validators") for name in plan.emptied}
    for where in plan.dropped:
        edits.append((*_removal(text, spans[where]), ""))
    for source, _ in plan.moved:
        if source.rsplit("/", 1)[0] not in emptied:
            edits.append((*_removal(text, spans[source]), ""))
    added_by_prompt = _new_evals(plan, migrated)
    for where in emptied:
        name = _unescape(where.split("/")[2])
        if name in added_by_prompt and "evals" not in document["prompts"][name]:
            continue  # the evals take the validators' place (below)
        edits.append((*_removal(text, spans[where]), ""))
    for name, added in added_by_prompt.items():
        prompt = pointer("prompts", name)
        evals = spans.get(prompt + "/evals")
        original = document["prompts"][name].get("evals")
        if evals is not None and isinstance(original, list) and original:
            indent = _indent_of(text, spans[f"{prompt}/evals/{len(original) - 1}"].member)
            body = "".join(",\n" + indent + _json_block(entry, unit, indent) for _, entry in added)
            edits.append((spans[f"{prompt}/evals/{len(original) - 1}"].end, spans[f"{prompt}/evals/{len(original) - 1}"].end, body))
        elif evals is not None and isinstance(original, list):
            base = _indent_of(text, evals.member)
            inner = base + unit
            body = ",\n".join(inner + _json_block(entry, unit, inner) for _, entry in added)
            edits.append((evals.start, evals.end, "[\n" + body + "\n" + base + "]"))
        elif name in plan.emptied:  # no evals yet: they take the place of the validators they came from
            validators = spans[prompt + "/validators"]
            indent = _indent_of(text, validators.member)
            inner = indent + unit
            body = ",\n".join(inner + _json_block(entry, unit, inner) for _, entry in added)
            edits.append((validators.member, validators.end, '"evals": [\n' + body + "\n" + indent + "]"))
        else:  # no evals yet: a new member after the prompt's last one
            keys = list(document["prompts"][name])
            last = spans[prompt + "/" + keys[-1].replace("~", "~0").replace("/", "~1")]
            indent = _indent_of(text, last.member)
            inner = indent + unit
            body = ",\n".join(inner + _json_block(entry, unit, inner) for _, entry in added)
            edits.append((last.end, last.end, ",\n" + indent + '"evals": [\n' + body + "\n" + indent + "]"))
    return "".join(_spliced(text, edits))


Text = TypeVar("Text", str, list[str])  # a text, or its lines


def _spliced(whole: Text, edits: Sequence[tuple[int, int, Text]]) -> Iterator[Text]:
    """The pieces of ``whole`` with each ``(start, end, replacement)`` edit made, in one pass (edits made one by
    one into the whole copy it each time: quadratic in a pack of thousands of prompts). Insertions at one place
    come out in the reverse of their order in ``edits``, as if each were made at that place in turn."""
    at = 0
    for start, end, _, replacement in sorted((start, end, -i, r) for i, (start, end, r) in enumerate(edits)):
        yield whole[at:start]
        yield replacement
        at = max(at, end)
    yield whole[at:]


def _json_block(value: Any, unit: str, indent: str) -> str:
    return _dump_json(value, unit).replace("\n", "\n" + indent)


# --- YAML: edits of whole lines -------------------------------------------------------------------------------


def _yaml_dump(text: str) -> str:
    """The whole pack through the round-trip dumper (comments and order kept; layout normalised)."""
    engine, column = _yaml_engine(text)
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    document = engine.load(text)

    def yaml_comment(sequence: Any, index: int, note: str) -> None:
        sequence.yaml_set_comment_before_after_key(index, before=note, indent=column)

    migrate_document(document, CommentedMap, CommentedSeq, yaml_comment)
    out = io.StringIO()
    engine.dump(document, out)
    return out.getvalue()


def _is_flow(lines: list[str], line: int, column: int) -> bool:
    return lines[line][column : column + 1] in ("{", "[")


def _item_lines(lines: list[str], sequence: Any, index: int) -> tuple[int, int, int]:
    """(first line, end line, dash column) of a block sequence item: from the comment lines right above it to its
    last line of content (blank and comment lines after it belong to what follows)."""
    line, column = sequence.lc.item(index)
    dash = lines[line].rfind("-", 0, column)
    first = line
    while first > 0 and lines[first - 1].strip().startswith("#") and _indent(lines[first - 1]) >= dash:
        first -= 1
    end = _block_end(lines, line, dash, item=True)
    return first, end, dash


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_end(lines: list[str], line: int, column: int, *, item: bool) -> int:
    """The line after the last content line of the block starting on ``line`` whose siblings start at ``column``."""
    end = line + 1
    for number in range(line + 1, len(lines)):
        stripped = lines[number].strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = _indent(lines[number])
        if indent < column or (indent == column and (not item or stripped.startswith("-"))):
            break
        end = number + 1
    return end


def _comments_of(lines: list[str], first: int, end: int) -> list[str]:
    """The comments in some lines, standalone and inline (without their ``#``)."""
    out = []
    for text in lines[first:end]:
        hash_at = _comment_start(text)
        if hash_at is not None:
            out.append(text[hash_at + 1 :].strip())
    return [c for c in out if c]


def _comment_start(line: str) -> int | None:
    """Where a YAML comment starts on a line (a ``#`` at the start or after a space, outside quotes)."""
    quote = None
    for at, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or line[at - 1] in " \t"):
            return at
    return None


def _yaml_block(entry: dict[str, Any], engine: Any, dash: int, notes: list[str]) -> list[str]:
    """The lines of one new eval item, dumped by ``engine`` (the file's, made once: making it parses the file)."""
    out = io.StringIO()
    engine.dump([entry], out)
    dumped_lines = out.getvalue().splitlines(True)
    own = _indent(dumped_lines[0])  # the dumper's own offset of a top-level sequence's dash
    pad = " " * dash
    dumped = [pad + line[own:] if line.strip() else line for line in dumped_lines]
    return [f"{pad}# {note}\n" for note in notes] + dumped


def _yaml_edits(text: str, document: Any, plan: Plan, migrated: Any) -> str | None:
    lines = text.splitlines(True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    edits: list[tuple[int, int, list[str]]] = []  # (first line, end line, replacement lines)
    prompts = document["prompts"]
    for where in plan.dropped:
        _, _, name, _, index, _ = where.split("/")
        validator = prompts[_unescape(name)]["validators"][int(index)]
        line, column = validator.lc.key("fail_on_violation")
        value_line, _ = validator.lc.value("fail_on_violation")
        item_line, _ = prompts[_unescape(name)]["validators"].lc.item(int(index))
        if (
            line == item_line
            or value_line != line
            or _is_flow(lines, item_line, prompts[_unescape(name)]["validators"].lc.item(int(index))[1])
        ):
            return None  # the key shares its line with the item's dash, or is in flow style
        comment = _comment_start(lines[line])
        keep = [" " * column + lines[line][comment:].rstrip("\n") + "\n"] if comment is not None else []  # an inline comment stays
        edits.append((line, line + 1, keep))
    added = _new_evals(plan, migrated)
    # made once per file, not per prompt: guessing the file's indentation parses all of it (per prompt, that made
    # a pack of n prompts cost n parses)
    engine = _yaml_engine(text)[0] if added else None
    offset: int | None = None  # the file's sequence offset, found on first use (it scans the prompts)
    moved_from: dict[str, list[str]] = {}
    emptied: dict[str, tuple[int, int]] = {}  # prompt → the lines of its validators block, all moved
    for name in {_unescape(s.split("/")[2]) for s, _ in plan.moved}:
        validators = prompts[name]["validators"]
        if _is_flow(lines, *prompts[name].lc.value("validators")):
            return None
        if name in plan.emptied:  # every validator moved: the key goes, with its block
            key_line, key_column = prompts[name].lc.key("validators")
            emptied[name] = (key_line, _block_end(lines, key_line, key_column, item=False))
    for source, _ in plan.moved:
        _, _, name, _, index = source.split("/")
        name = _unescape(name)
        validators = prompts[name]["validators"]
        first, end, _ = _item_lines(lines, validators, int(index))
        moved_from[source] = _comments_of(lines, first, end)
        if name not in plan.emptied:
            edits.append((first, end, []))
    for name, entries in added.items():
        prompt = prompts[name]
        blocks: list[str] = []
        evals = prompt.get("evals")
        if isinstance(evals, list) and evals:
            _, last_end, dash = _item_lines(lines, evals, len(evals) - 1)
            for source, entry in entries:
                blocks += _yaml_block(entry, engine, dash, [_note(source), *(f"from the validator: {c}" for c in moved_from[source])])
            edits.append((last_end, last_end, blocks))
            continue
        key_line, key_column = prompt.lc.key("validators") if "validators" in prompt else prompt.lc.key(next(iter(prompt)))
        if offset is None:
            offset = _sequence_offset(lines, document)
        dash = key_column + offset
        for source, entry in entries:
            blocks += _yaml_block(entry, engine, dash, [_note(source), *(f"from the validator: {c}" for c in moved_from[source])])
        if "evals" in prompt:  # evals: [] — the empty flow list becomes a block
            line, column = prompt.lc.key("evals")
            comment = _comment_start(lines[line])
            tail = "  " + lines[line][comment:].rstrip("\n") if comment is not None else ""
            edits.append((line, line + 1, [" " * column + "evals:" + tail + "\n", *blocks]))
        elif name in emptied:  # the evals take the place of the validators they came from
            first, end = emptied.pop(name)
            edits.append((first, end, [" " * key_column + "evals:\n", *blocks]))
        else:
            _, column = prompt.lc.key(next(iter(prompt)))  # the prompt's keys' column
            prompt_line, prompt_column = prompts.lc.key(name)
            end = _block_end(lines, prompt_line, prompt_column, item=False)  # after the prompt's last line
            edits.append((end, end, [" " * column + "evals:\n", *blocks]))
    edits.extend((first, end, []) for first, end in emptied.values())
    return "".join(line for piece in _spliced(lines, edits) for line in piece)


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _sequence_offset(lines: list[str], document: Any) -> int:
    """How far a block sequence's dash sits right of its key in this file (0 or 2, usually)."""
    for prompt in document["prompts"].values():
        for key in ("validators", "evals", "variables"):
            value = prompt.get(key) if isinstance(prompt, dict) else None
            if isinstance(value, list) and value and not _is_flow(lines, *prompt.lc.value(key)):
                item_line, item_column = value.lc.item(0)  # type: ignore[attr-defined]  # ruamel's CommentedSeq
                offset: int = lines[item_line].rfind("-", 0, item_column) - prompt.lc.key(key)[1]
                return max(0, offset)
    return 2


def _readable(path: Path, form: str) -> tuple[str | None, str | None]:
    """(text, None), or (None, why the pack cannot be migrated): exactly the inputs ``validate`` reads."""
    from .core.display import visible
    from .io.loader import decode, load_text, name_problem, read_bytes

    problem = name_problem(str(path))
    data = read_bytes(path) if problem is None else problem
    if isinstance(data, Finding):
        return None, f"{data.code}: {visible(data.message)}"
    text = decode(data)
    if isinstance(text, Finding):
        return None, f"{text.code}: {visible(text.message)}"
    for loaded in load_text(text, str(path), form):
        if loaded.problem is not None:
            where = f" (line {loaded.problem.line}, column {loaded.problem.column})" if loaded.problem.line else ""
            return None, f"{loaded.problem.code}{where}: {visible(loaded.problem.message)}"
    return text, None


class _AnchoredMatcher(difflib.SequenceMatcher[str]):
    """difflib's matcher between anchors: lines found exactly once in each text, in the same order (as patience
    diff does). A migrated pack repeats the same lines in every prompt, which makes difflib's own search quadratic;
    between anchors it only ever sees one prompt's worth of lines."""

    def get_opcodes(self) -> Any:
        done = getattr(self, "opcodes", None)
        if done is not None:
            return done
        a, b = self.__dict__["a"], self.__dict__["b"]  # set by SequenceMatcher, not declared by its stubs
        once_a: dict[str, int] = {}
        for i, line in enumerate(a):
            once_a[line] = -1 if line in once_a else i
        once_b: dict[str, int] = {}
        for j, line in enumerate(b):
            once_b[line] = -1 if line in once_b else j
        anchors = [(i, once_b[line]) for line, i in once_a.items() if i >= 0 and once_b.get(line, -1) >= 0]
        anchors.sort()
        kept: list[tuple[int, int]] = []  # in order in both texts (greedy: enough for texts that only grew locally)
        for i, j in anchors:
            if not kept or j > kept[-1][1]:
                kept.append((i, j))
        ops: list[tuple[str, int, int, int, int]] = []
        i0 = j0 = 0
        for i1, j1 in [*kept, (len(a), len(b))]:
            for tag, x0, x1, y0, y1 in difflib.SequenceMatcher(None, a[i0:i1], b[j0:j1], autojunk=False).get_opcodes():
                ops.append((tag, i0 + x0, i0 + x1, j0 + y0, j0 + y1))
            if i1 < len(a):
                ops.append(("equal", i1, i1 + 1, j1, j1 + 1))
            i0, j0 = i1 + 1, j1 + 1
        merged: list[tuple[str, int, int, int, int]] = []
        for op in ops:
            if op[1] == op[2] and op[3] == op[4]:
                continue
            if merged and merged[-1][0] == op[0] == "equal":
                merged[-1] = ("equal", merged[-1][1], op[2], merged[-1][3], op[4])
            else:
                merged.append(op)
        self.opcodes = merged or [("equal", 0, 0, 0, 0)]
        return self.opcodes


def unified_diff(old: list[str], new: list[str], old_name: str, new_name: str) -> str:
    """A unified diff (as ``difflib.unified_diff`` writes it, 3 lines of context), in time about linear in the
    texts for a migration's local changes."""
    out: list[str] = []
    for group in _AnchoredMatcher(None, old, new, autojunk=False).get_grouped_opcodes(3):
        if not out:
            out += [f"--- {old_name}\n", f"+++ {new_name}\n"]
        first, last = group[0], group[-1]
        old_range = difflib._format_range_unified(first[1], last[2])  # type: ignore[attr-defined]
        new_range = difflib._format_range_unified(first[3], last[4])  # type: ignore[attr-defined]
        out.append(f"@@ -{old_range} +{new_range} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in old[i1:i2]]
                continue
            if tag in ("replace", "delete"):
                out += ["-" + line for line in old[i1:i2]]
            if tag in ("replace", "insert"):
                out += ["+" + line for line in new[j1:j2]]
    return "".join(out)


def run(paths: list[Path], *, check: bool, write: Callable[[str], None]) -> int:
    """Migrate each pack (or with ``check``, show the diff); report exactly which files were rewritten."""
    from .core.display import display_path, visible

    status = EXIT_OK
    changed: list[str] = []
    for path in paths:
        shown = visible(display_path(str(path)))
        form = "yaml" if path.suffix.lower() in (".yaml", ".yml") else "json"
        text, why = _readable(path, form)
        if text is None:
            write(f"evalschema migrate: {shown}: cannot read: {why}; the file is unchanged\n")
            status = EXIT_UNREADABLE
            continue
        try:
            migrated, plan = migrate_text(text, form)
        except (ValueError, RecursionError) as exc:
            write(f"evalschema migrate: {shown}: cannot migrate: {visible(str(exc))[:500]}; the file is unchanged\n")
            status = EXIT_UNREADABLE
            continue
        except MissingExtra:  # not a problem of this file: the command cannot run at all
            raise
        except Exception as exc:  # ruamel's parse errors have no common base worth importing here
            write(f"evalschema migrate: {shown}: not valid {form.upper()}: {visible(str(exc))[:500]}; the file is unchanged\n")
            status = EXIT_UNREADABLE
            continue
        if not plan.changed:
            write(f"{shown}: nothing to migrate\n")
            continue
        if check:
            write(unified_diff(text.splitlines(True), migrated.splitlines(True), f"a/{shown}", f"b/{shown}"))
            status = max(status, EXIT_NEEDED)
        else:
            try:
                # through a link, the file it names is replaced (the link stays a link)
                write_atomic(Path(os.path.realpath(path)), migrated.encode("utf-8"))
            except OSError as exc:
                write(f"evalschema migrate: {shown}: cannot write: {exc.strerror or exc}; the file is unchanged\n")
                status = EXIT_UNREADABLE
                continue
            changed.append(shown)
        verb = "would change" if check else "migrated"
        write(f"{shown}: {verb}: dropped {len(plan.dropped)} fail_on_violation line(s), moved {len(plan.moved)} validator(s) to evals\n")
        for decision in plan.decisions:
            write(f"  to decide: {visible(decision)}\n")
    if not check and status == EXIT_UNREADABLE:
        write(f"evalschema migrate: rewritten: {', '.join(changed) if changed else 'none'}; every other file is unchanged\n")
    return status
