"""Classify the differences between two schema folders, field by field, through the IR.

Each finding has a stable rule ID, a level, a direction, a location (``file#pointer``, in the new folder when
the element still exists there, else in the old one), a message and the version bump it requires.

Levels: ``breaking`` — a document valid before can become invalid, or a valid document changes meaning;
``warning`` — cannot be decided from the schemas alone, or an expected break (a deprecated property removed
after its window); ``info`` — compatible.

Direction (what the change breaks):

- ``producers`` — the writers of documents: documents they wrote against the old folder may stop validating
  (or change meaning) under the new one. Example: a property became required.
- ``consumers`` — the readers of documents: the new folder lets documents contain what a reader built on the
  old folder rejects or does not expect. Example: an optional property was added to a closed object; an old
  reader validating strictly refuses documents that use it. Such changes are compatible additions (minor):
  readers upgrade to read new documents.
- ``none`` — neither (descriptions, deprecation annotations, new named types nobody uses yet).

Bumps: ``major`` for anything breaking (and for every property removal, expected or not), ``minor`` for
compatible additions, ``patch`` for documentation only. The report's ``bump`` is the largest one, or ``none``
when nothing differs.

A folder may hold a ``manifest.json`` next to its schema files (a published release): it is not a schema and
is skipped.

Where the classification is stricter than the truth — a regular expression rewritten to accept exactly the same
strings, a rule that now enforces what the prose already required — the new folder says so with an
``x-compatibility: {"bump": "patch" | "minor", "reason": …}`` annotation on the changed node (or an ancestor).
Every finding at or below it becomes ``info`` with that bump and the reason appended, in a diff whose old folder
does not carry the same annotation there (so it speaks for one step only). The annotation is checked by
codegen's annotation meta-schema and is never silent: the reason is printed with each finding it reclassifies.
"""

from __future__ import annotations

import datetime as _dt
import json
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .ir import (
    DEPRECATION_WINDOW_MONTHS,
    IR,
    Array,
    Deprecation,
    Field,
    Literal,
    Map,
    Named,
    NamedType,
    Never,
    Primitive,
    Rule,
    Tuple,
    TypeExpr,
    Union_,
    Unknown,
    add_months,
    build,
)
from .load import Location, SchemaSet, load

MANIFEST = "manifest.json"
LEVELS = ("info", "warning", "breaking")
BUMPS = ("none", "patch", "minor", "major")

# rule ID -> (level, direction, bump) for the rules whose classification never varies
_FIXED: dict[str, tuple[str, str, str]] = {
    "PROPERTY_ADDED_OPTIONAL": ("info", "consumers", "minor"),
    "PROPERTY_ADDED_REQUIRED": ("breaking", "producers", "major"),
    "BECAME_REQUIRED": ("breaking", "producers", "major"),
    "BECAME_OPTIONAL": ("info", "consumers", "minor"),
    "TYPE_NARROWED": ("breaking", "producers", "major"),
    "TYPE_WIDENED": ("info", "consumers", "minor"),
    "NULLABLE_REMOVED": ("breaking", "producers", "major"),
    "NULLABLE_ADDED": ("info", "consumers", "minor"),
    "ENUM_VALUE_REMOVED": ("breaking", "producers", "major"),
    "ENUM_VALUE_ADDED": ("info", "consumers", "minor"),
    "CONST_CHANGED": ("breaking", "producers", "major"),
    "CONSTRAINT_TIGHTENED": ("breaking", "producers", "major"),
    "CONSTRAINT_LOOSENED": ("info", "consumers", "minor"),
    "CLOSED_OBJECT_OPENED": ("info", "consumers", "minor"),
    "OPEN_OBJECT_CLOSED": ("breaking", "producers", "major"),
    "TYPE_DEFINITION_ADDED": ("info", "none", "minor"),
    "TYPE_DEFINITION_REMOVED": ("breaking", "producers", "major"),
    "RULE_REMOVED": ("info", "consumers", "minor"),
    "RULE_CHANGED": ("warning", "producers", "major"),
    "DEPRECATION_ADDED": ("info", "none", "minor"),
    "DEPRECATION_REMOVED": ("info", "none", "minor"),
    "DEPRECATION_CHANGED": ("info", "none", "patch"),
    "DESCRIPTION_CHANGED": ("info", "none", "patch"),
}
# rules whose level/direction/bump depend on the case: PROPERTY_REMOVED, RULE_ADDED, DEFAULT_CHANGED
RULE_IDS = tuple(sorted({*_FIXED, "PROPERTY_REMOVED", "RULE_ADDED", "DEFAULT_CHANGED"}))


@dataclass(frozen=True)
class Finding:
    rule: str
    level: str  # breaking | warning | info
    direction: str  # producers | consumers | none
    location: str  # file#pointer
    message: str
    bump: str  # major | minor | patch

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class DiffReport:
    findings: tuple[Finding, ...]

    @property
    def bump(self) -> str:
        return max((f.bump for f in self.findings), key=BUMPS.index, default="none")

    @property
    def breaking(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.level == "breaking")

    def rules(self) -> list[str]:
        return [f.rule for f in self.findings]

    def to_dict(self) -> dict[str, Any]:
        return {
            "bump": self.bump,
            "breaking": len(self.breaking),
            "findings": [f.to_dict() for f in self.findings],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def to_text(self) -> str:
        lines = [f"{f.level:<8} {f.rule} [{f.direction}, {f.bump}] {f.location}: {f.message}" for f in self.findings]
        counts = {level: sum(1 for f in self.findings if f.level == level) for level in reversed(LEVELS)}
        lines.append(
            f"{len(self.findings)} change(s): "
            + ", ".join(f"{n} {level}" for level, n in counts.items())
            + f"; required version bump: {self.bump}"
        )
        return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------- loading


def load_folder(folder: Path | str) -> SchemaSet:
    """Load a schema folder, skipping a release ``manifest.json`` (read from a private temporary copy)."""
    root = Path(folder)
    if not (root / MANIFEST).is_file():
        return load(root)
    with tempfile.TemporaryDirectory(prefix="codegen-diff-") as tmp:
        for path in sorted(root.glob("*.json")):
            if path.name != MANIFEST and path.is_file():
                shutil.copyfile(path, Path(tmp) / path.name)
        return load(tmp)


# ----------------------------------------------------------------------------------------------- comparison

_LOWER_BOUNDS = ("minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties")
_UPPER_BOUNDS = ("maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties")
_ADDITIONAL_RANK = {"closed": 0, "typed": 1, "open": 2}


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _show(expr: TypeExpr | None) -> str:
    if expr is None:
        return "none"
    if isinstance(expr, Primitive):
        return expr.name
    if isinstance(expr, Literal):
        return " | ".join(_json(v) for v in expr.values)
    if isinstance(expr, Named):
        return expr.ref.name
    if isinstance(expr, Array):
        return f"array of {_show(expr.items)}"
    if isinstance(expr, Tuple):
        return "tuple of (" + ", ".join(_show(p) for p in expr.prefix) + ")"
    if isinstance(expr, Map):
        return f"map of {_show(expr.values)}"
    if isinstance(expr, Union_):
        return " | ".join(_show(m) for m in expr.members)
    if isinstance(expr, Never):
        return "nothing"
    return "any"


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _covers(wide: str, narrow: str) -> bool:
    return wide == narrow or (wide == "number" and narrow == "integer")


def _relation(old: TypeExpr, new: TypeExpr) -> str:
    """``same``, ``widened`` (new accepts more), ``narrowed`` (new accepts less) or ``changed`` (neither)."""
    if old == new:
        return "same"
    if isinstance(new, Unknown):
        return "widened"
    if isinstance(old, Unknown):
        return "narrowed"
    if isinstance(old, Never):
        return "widened"
    if isinstance(new, Never):
        return "narrowed"
    if isinstance(old, Union_) or isinstance(new, Union_):
        old_m = old.members if isinstance(old, Union_) else (old,)
        new_m = new.members if isinstance(new, Union_) else (new,)
        old_in_new = all(any(_relation(o, n) in ("same", "widened") for n in new_m) for o in old_m)
        new_in_old = all(any(_relation(o, n) in ("same", "narrowed") for o in old_m) for n in new_m)
        return "same" if old_in_new and new_in_old else "widened" if old_in_new else "narrowed" if new_in_old else "changed"
    if isinstance(old, Primitive) and isinstance(new, Primitive):
        if _covers(new.name, old.name):
            return "widened"
        if _covers(old.name, new.name):
            return "narrowed"
        return "changed"
    if isinstance(old, Literal) and isinstance(new, Literal):
        o, n = {_json(v) for v in old.values}, {_json(v) for v in new.values}
        return "same" if o == n else "widened" if o < n else "narrowed" if n < o else "changed"
    if isinstance(old, Literal) and isinstance(new, Primitive):
        return "widened" if all(_covers(new.name, _json_kind(v)) for v in old.values) else "changed"
    if isinstance(old, Primitive) and isinstance(new, Literal):
        return "narrowed" if all(_covers(old.name, _json_kind(v)) for v in new.values) else "changed"
    if isinstance(old, Array) and isinstance(new, Array):
        return _relation(old.items, new.items)
    if isinstance(old, Map) and isinstance(new, Map):
        return _relation(old.values, new.values)
    if isinstance(old, Tuple) and isinstance(new, Tuple) and len(old.prefix) == len(new.prefix):
        parts = [_relation(o, n) for o, n in zip(old.prefix, new.prefix)]
        if old.rest is not None or new.rest is not None:
            parts.append(_relation(old.rest or Never(), new.rest or Never()))
        kinds = set(parts) - {"same"}
        return "same" if not kinds else kinds.pop() if len(kinds) == 1 else "changed"
    return "changed"


class _Differ:
    def __init__(self, old: IR, new: IR, today: _dt.date) -> None:
        self.old, self.new, self.today = old, new, today
        self.out: list[Finding] = []

    def add(
        self, rule: str, where: Location, message: str, level: str | None = None, direction: str | None = None, bump: str | None = None
    ) -> None:
        fixed = _FIXED.get(rule, ("breaking", "producers", "major"))
        self.out.append(Finding(rule, level or fixed[0], direction or fixed[1], str(where), message, bump or fixed[2]))

    def run(self) -> DiffReport:
        old_types = {(t.file, t.name): t for m in self.old.modules for t in m.types}
        new_types = {(t.file, t.name): t for m in self.new.modules for t in m.types}
        for key, ot in old_types.items():
            nt = new_types.get(key)
            if nt is None:
                if not ot.synthesized:  # an inline type goes with its property, reported there
                    self.add(
                        "TYPE_DEFINITION_REMOVED", ot.location, f"type {ot.name} was removed; references to {ot.location} no longer resolve"
                    )
                continue
            self.type_(ot, nt)
        for key, nt in new_types.items():
            if key not in old_types and not nt.synthesized:
                self.add("TYPE_DEFINITION_ADDED", nt.location, f"type {nt.name} was added")
        return DiffReport(tuple(self.out))

    # --- named types

    def type_(self, ot: NamedType, nt: NamedType) -> None:
        loc = nt.location
        if ot.kind != nt.kind:
            message = f"{nt.name} changed from {ot.kind} to {nt.kind}"
            self.add("TYPE_NARROWED", loc, message)
            self.add("TYPE_WIDENED", loc, message)
            return
        self.text(ot.description, nt.description, loc, f"type {nt.name}")
        self.deprecation(ot.deprecation, nt.deprecation, loc, f"type {nt.name}")
        self.rules(ot, nt)
        self.constraints(ot.constraints, nt.constraints, loc, f"type {nt.name}")
        self.nullable(ot.nullable, nt.nullable, loc, f"type {nt.name}")
        if nt.kind == "enum":
            self.values(ot.values, nt.values, loc, f"type {nt.name}")
        elif nt.kind == "alias":
            self.expr(ot.type, nt.type, loc, f"type {nt.name}")
        else:
            self.object(ot, nt)

    def object(self, ot: NamedType, nt: NamedType) -> None:
        loc = nt.location
        for base in nt.bases:
            if base not in ot.bases:
                self.add("TYPE_NARROWED", loc, f"{nt.name} now also has to satisfy {base.name}")
        for base in ot.bases:
            if base not in nt.bases:
                self.add("TYPE_WIDENED", loc, f"{nt.name} no longer has to satisfy {base.name}")
        o_rank, n_rank = _ADDITIONAL_RANK[ot.additional], _ADDITIONAL_RANK[nt.additional]
        if n_rank < o_rank:
            self.add("OPEN_OBJECT_CLOSED", loc, f"{nt.name} accepted {ot.additional} additional properties, now {nt.additional}")
        elif n_rank > o_rank:
            self.add("CLOSED_OBJECT_OPENED", loc, f"{nt.name} accepted {ot.additional} additional properties, now {nt.additional}")
        elif nt.additional == "typed":
            self.expr(ot.additional_type, nt.additional_type, loc.child("additionalProperties"), f"additional properties of {nt.name}")
        old_fields = {f.name: f for f in ot.fields}
        new_fields = {f.name: f for f in nt.fields}
        for name, of in old_fields.items():
            nf = new_fields.get(name)
            if nf is None:
                self.removed(ot, nt, of)
            else:
                self.field(nt, of, nf)
        for name, nf in new_fields.items():
            if name in old_fields:
                continue
            if nf.required:
                self.add(
                    "PROPERTY_ADDED_REQUIRED",
                    nf.location,
                    f"required property {name!r} was added to {nt.name}; documents without it become invalid",
                )
            else:
                direction = "consumers" if ot.additional != "open" else "none"
                self.add("PROPERTY_ADDED_OPTIONAL", nf.location, f"optional property {name!r} was added to {nt.name}", direction=direction)

    def removed(self, ot: NamedType, nt: NamedType, of: Field) -> None:
        direction = "producers" if nt.additional != "open" else "consumers"
        what = f"property {of.name!r} was removed from {nt.name}"
        dep = of.deprecation
        if dep is not None and dep.date is not None:
            not_before = add_months(_dt.date.fromisoformat(dep.date), DEPRECATION_WINDOW_MONTHS)
            if not_before <= self.today:
                self.add(
                    "PROPERTY_REMOVED",
                    of.location,
                    f"{what}: an expected removal (deprecated since {dep.since}, window over on {not_before.isoformat()}); requires a major version",
                    level="warning",
                    direction=direction,
                    bump="major",
                )
                return
            self.add(
                "PROPERTY_REMOVED",
                of.location,
                f"{what} before its deprecation window is over (not before {not_before.isoformat()})",
                direction=direction,
            )
            return
        self.add(
            "PROPERTY_REMOVED",
            of.location,
            what + (" (it was deprecated without a dated x-deprecation)" if dep is not None else " without a deprecation"),
            direction=direction,
        )

    def field(self, nt: NamedType, of: Field, nf: Field) -> None:
        loc, what = nf.location, f"{nt.name}.{nf.name}"
        if of.required != nf.required:
            if nf.required:
                self.add("BECAME_REQUIRED", loc, f"{what} became required")
            else:
                self.add("BECAME_OPTIONAL", loc, f"{what} became optional; readers may no longer rely on it")
        self.nullable(of.nullable, nf.nullable, loc, what)
        self.expr(of.type, nf.type, loc, what)
        self.constraints(of.constraints, nf.constraints, loc, what)
        if (of.has_default, _json(of.default)) != (nf.has_default, _json(nf.default)):
            if of.has_default and nf.has_default:
                self.add(
                    "DEFAULT_CHANGED",
                    loc,
                    f"default of {what} changed from {_json(of.default)} to {_json(nf.default)}: documents that omit it change meaning",
                )
            elif nf.has_default:
                self.add(
                    "DEFAULT_CHANGED",
                    loc,
                    f"default {_json(nf.default)} was added to {what}: the meaning of omitting it is now stated",
                    level="warning",
                    direction="consumers",
                    bump="minor",
                )
            else:
                self.add(
                    "DEFAULT_CHANGED",
                    loc,
                    f"default {_json(of.default)} was removed from {what}: the meaning of omitting it is no longer stated",
                    level="warning",
                    direction="consumers",
                    bump="minor",
                )
        self.deprecation(of.deprecation, nf.deprecation, loc, what)
        self.text(of.description, nf.description, loc, what)

    # --- parts

    def expr(self, old: TypeExpr | None, new: TypeExpr | None, loc: Location, what: str) -> None:
        if old is None or new is None or old == new:
            return
        if isinstance(old, Literal) and isinstance(new, Literal):
            if len(old.values) == 1 and len(new.values) == 1:
                self.add("CONST_CHANGED", loc, f"{what} must now be {_json(new.values[0])} (was {_json(old.values[0])})")
                return
            self.values(old.values, new.values, loc, what)
            return
        relation = _relation(old, new)
        message = f"type of {what} changed from {_show(old)} to {_show(new)}"
        if relation in ("narrowed", "changed"):
            self.add("TYPE_NARROWED", loc, message)
        if relation in ("widened", "changed"):
            self.add("TYPE_WIDENED", loc, message)

    def values(self, old: tuple[Any, ...], new: tuple[Any, ...], loc: Location, what: str) -> None:
        o, n = [_json(v) for v in old], [_json(v) for v in new]
        for v in o:
            if v not in n:
                self.add("ENUM_VALUE_REMOVED", loc, f"value {v} of {what} was removed")
        for v in n:
            if v not in o:
                self.add("ENUM_VALUE_ADDED", loc, f"value {v} was added to {what}")

    def nullable(self, old: bool, new: bool, loc: Location, what: str) -> None:
        if old and not new:
            self.add("NULLABLE_REMOVED", loc, f"{what} no longer accepts null")
        elif new and not old:
            self.add("NULLABLE_ADDED", loc, f"{what} now accepts null")

    def constraints(self, old: tuple[tuple[str, Any], ...], new: tuple[tuple[str, Any], ...], loc: Location, what: str) -> None:
        o, n = dict(old), dict(new)
        for key in dict.fromkeys([*o, *n]):
            before, after = o.get(key), n.get(key)
            if _json(before) == _json(after):
                continue
            tighter: bool | None
            if key in _LOWER_BOUNDS:
                tighter = before is None or (after is not None and after > before)
            elif key in _UPPER_BOUNDS:
                tighter = before is None or (after is not None and after < before)
            elif key == "uniqueItems":
                tighter = bool(after)
            else:  # pattern, format, multipleOf: any addition or change may reject values accepted before
                tighter = after is not None
            if after is None:
                change = f"{key} {_json(before)} removed"
            elif before is None:
                change = f"{key} {_json(after)} added"
            else:
                change = f"{key} changed from {_json(before)} to {_json(after)}"
            self.add("CONSTRAINT_TIGHTENED" if tighter else "CONSTRAINT_LOOSENED", loc, f"{what}: {change}")

    def rules(self, ot: NamedType, nt: NamedType) -> None:
        def keyed(rules: tuple[Rule, ...]) -> dict[str, Rule]:
            return {dict(r.notes).get("x-rule") or f"{r.keyword} at {r.pointer}": r for r in rules}

        old, new = keyed(ot.rules), keyed(nt.rules)
        declared_before = {f.name for f in ot.fields}
        for key, r in new.items():
            if key not in old:
                if ot.additional == "closed" and _gated_on_new(r, declared_before):
                    self.add(
                        "RULE_ADDED",
                        r.location,
                        f"rule {key} was added to {nt.name}; it only applies to documents using a property that is new in this version",
                        level="info",
                        direction="none",
                        bump="minor",
                    )
                else:
                    self.add("RULE_ADDED", r.location, f"rule {key} was added to {nt.name}; documents valid before may break it")
            elif old[key].schema != r.schema or old[key].keyword != r.keyword:
                self.add(
                    "RULE_CHANGED", r.location, f"rule {key} of {nt.name} changed; whether it accepts more or less cannot be decided here"
                )
        for key, r in old.items():
            if key not in new:
                self.add("RULE_REMOVED", r.location, f"rule {key} was removed from {nt.name}; documents it rejected become valid")

    def deprecation(self, old: Deprecation | None, new: Deprecation | None, loc: Location, what: str) -> None:
        if new is not None and old is None:
            self.add("DEPRECATION_ADDED", loc, f"{what} is deprecated: {new.message}")
        elif old is not None and new is None:
            self.add("DEPRECATION_REMOVED", loc, f"{what} is no longer deprecated")
        elif old is not None and new is not None and old != new:
            self.add("DEPRECATION_CHANGED", loc, f"deprecation of {what} changed: {new.message}")

    def text(self, old: str | None, new: str | None, loc: Location, what: str) -> None:
        if (old or "") != (new or ""):
            self.add("DESCRIPTION_CHANGED", loc, f"description of {what} changed")


def _gated_on_new(rule: Rule, declared_before: set[str]) -> bool:
    """A conditional rule whose condition requires a property the old object did not declare (so, being
    closed, the old object never held it): the rule cannot fire on any document valid before."""
    try:
        value = json.loads(rule.schema)
    except ValueError:
        return False
    condition = value.get("if") if isinstance(value, dict) and rule.keyword == "if" else None
    if not isinstance(condition, dict):
        return False
    return any(isinstance(name, str) and name not in declared_before for name in condition.get("required", []))


def diff_irs(old: IR, new: IR, today: _dt.date | None = None) -> DiffReport:
    return _Differ(old, new, today or _dt.date.today()).run()


def diff_sets(old: SchemaSet, new: SchemaSet, today: _dt.date | None = None) -> DiffReport:
    return accept(diff_irs(build(old), build(new), today), old, new)


def accept(report: DiffReport, old: SchemaSet, new: SchemaSet) -> DiffReport:
    """The report with every finding that a new ``x-compatibility`` annotation covers classified as it says."""
    return DiffReport(tuple(_accepted(finding, old, new) for finding in report.findings))


def _tokens(pointer: str) -> list[str]:
    return [] if pointer in ("", "/") else [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _child(node: Any, key: str) -> tuple[bool, Any]:
    if isinstance(node, dict) and key in node:
        return True, node[key]
    if isinstance(node, list) and key.isdigit() and int(key) < len(node):
        return True, node[int(key)]
    return False, None


def _compatibility(contents: Any, pointer: str) -> tuple[str, Any] | None:
    """The innermost ``x-compatibility`` on the path to ``pointer``, with the pointer where it stands."""
    found: tuple[str, Any] | None = None
    node, here = contents, ""
    for key in [*_tokens(pointer), None]:
        if isinstance(node, dict) and "x-compatibility" in node:
            found = (here, node["x-compatibility"])
        if key is None:
            break
        present, node = _child(node, key)
        if not present:
            break
        here += "/" + key.replace("~", "~0").replace("/", "~1")
    return found


def _node(contents: Any, pointer: str) -> Any:
    node = contents
    for key in _tokens(pointer):
        present, node = _child(node, key)
        if not present:
            return None
    return node


def _accepted(finding: Finding, old: SchemaSet, new: SchemaSet) -> Finding:
    """The finding as the new folder's ``x-compatibility`` classifies it, if an annotation new in this step covers it."""
    file, _, pointer = finding.location.partition("#")
    new_file = next((f for f in new.files if f.name == file), None)
    found = _compatibility(new_file.contents, pointer) if new_file is not None else None
    if found is None:
        return finding
    where, annotation = found
    old_file = next((f for f in old.files if f.name == file), None)
    old_node = _node(old_file.contents, where) if old_file is not None else None
    if isinstance(old_node, dict) and old_node.get("x-compatibility") == annotation:
        return finding  # the annotation speaks for the step that introduced it, not for later ones
    return Finding(
        finding.rule,
        "info",
        finding.direction,
        finding.location,
        f"{finding.message} (classified {annotation['bump']} by x-compatibility at {file}#{where}: {annotation['reason']})",
        annotation["bump"],
    )


def diff(old: Path | str, new: Path | str, today: _dt.date | None = None) -> DiffReport:
    """Compare two schema folders (raises ``SchemaError`` on unusable input)."""
    return diff_sets(load_folder(old), load_folder(new), today)
