"""``evalschema migrate``: move packs off the deprecated ``fail_on_violation`` (RFC 0002).

What is mechanical is done; what needs a human is listed:
- ``fail_on_violation: true`` (or on a disabled validator): the line is dropped — the validator already enforced.
- ``fail_on_violation: false`` on an enabled validator: it was an observation, so it becomes an eval on the same
  prompt (same ``type`` and ``params``, a generated ``id``) with a placeholder trigger, metric and threshold,
  marked for review in ``extensions["evalschema.migration"]`` (and a comment in YAML); the validator is removed.

YAML keeps its comments, key order and indentation (round-trip); JSON keeps its indentation; files are replaced
atomically. ``--check`` prints the diff and exits 1 when a migration is needed, writing nothing.
"""

from __future__ import annotations

import copy
import difflib
import io
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .extras import MissingExtra, require

from .atomic import write_atomic
from .findings import Finding, pointer

EXIT_OK, EXIT_NEEDED, EXIT_UNREADABLE = 0, 1, 2
PLACEHOLDER_TRIGGER = "every_turn"
PLACEHOLDER_THRESHOLD = {"operator": "gte", "value": 1.0}
REVIEW_NOTE = "placeholder trigger, metric and threshold: a human must choose them"


@dataclass
class Plan:
    """What the migration did to one pack, and what a human must still decide."""

    dropped: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)  # (validator pointer, new eval pointer)
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


def migrate_document(
    pack: Any, new_map: Callable[[], Any], new_list: Callable[[], Any], comment: Callable[[Any, int, str], None]
) -> Plan:
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
        taken = {str(i) for i in pack_eval_ids | ({e.get("id") for e in evals if isinstance(e, dict)} if isinstance(evals, list) else set()) if i}
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
    return plan


def _yaml_engine(text: str) -> tuple[Any, int]:
    """A round-trip YAML engine with the file's own indentation, and the column of a prompt's eval items."""
    require("ruamel.yaml", "migrate", "evalschema migrate")
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    _, sequence, offset = load_yaml_guess_indent(text)
    mapping = min(
        (len(line) - len(line.lstrip(" ")) for line in text.splitlines() if line.startswith(" ") and not line.lstrip().startswith(("-", "#"))),
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
    """The migrated text of a pack, and the plan; ``form`` is ``yaml`` or ``json``."""
    if form == "yaml":
        engine, column = _yaml_engine(text)
        from ruamel.yaml.comments import CommentedMap, CommentedSeq

        document = engine.load(text)

        def yaml_comment(sequence: Any, index: int, note: str) -> None:
            sequence.yaml_set_comment_before_after_key(index, before=note, indent=column)

        plan = migrate_document(document, CommentedMap, CommentedSeq, yaml_comment)
        if not plan.changed:
            return text, plan
        out = io.StringIO()
        engine.dump(document, out)
        return out.getvalue(), plan
    document = json.loads(text)
    plan = migrate_document(document, dict, list, lambda sequence, index, note: None)
    if not plan.changed:
        return text, plan
    match = re.search(r"\n([ \t]+)\S", text)
    indent: int | str | None = (len(match.group(1)) if match.group(1).strip(" ") == "" else match.group(1)) if match else None
    return _dump_json(document, indent) + ("\n" if text.endswith("\n") else ""), plan


def _readable(path: Path, form: str) -> tuple[str | None, str | None]:
    """(text, None), or (None, why the pack cannot be migrated): exactly the inputs ``validate`` reads."""
    from .display import visible
    from .loader import decode, load_text, name_problem, read_bytes

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
    from .display import display_path, visible

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
