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
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .extras import MissingExtra, require

from .atomic import write_atomic
from .findings import pointer

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
    return json.dumps(document, indent=indent, ensure_ascii=False) + ("\n" if text.endswith("\n") else ""), plan


def run(paths: list[Path], *, check: bool, write: Callable[[str], None]) -> int:
    status = EXIT_OK
    for path in paths:
        form = "yaml" if path.suffix.lower() in (".yaml", ".yml") else "json"
        try:
            text = path.read_text(encoding="utf-8")
            migrated, plan = migrate_text(text, form)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            write(f"evalschema migrate: {path}: cannot read: {exc}\n")
            status = EXIT_UNREADABLE
            continue
        except MissingExtra:  # not a problem of this file: the command cannot run at all
            raise
        except Exception as exc:  # ruamel's parse errors have no common base worth importing here
            write(f"evalschema migrate: {path}: not valid {form.upper()}: {exc}\n")
            status = EXIT_UNREADABLE
            continue
        if not plan.changed:
            write(f"{path}: nothing to migrate\n")
            continue
        if check:
            write("".join(difflib.unified_diff(text.splitlines(True), migrated.splitlines(True), f"a/{path}", f"b/{path}")))
            status = max(status, EXIT_NEEDED)
        else:
            write_atomic(path, migrated.encode("utf-8"))
        verb = "would change" if check else "migrated"
        write(f"{path}: {verb}: dropped {len(plan.dropped)} fail_on_violation line(s), moved {len(plan.moved)} validator(s) to evals\n")
        for decision in plan.decisions:
            write(f"  to decide: {decision}\n")
    return status
