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

Proof (:func:`prove`, :mod:`codegen.compat`): a finding is ``breaking`` only with a **witness** — a document the
old folder accepts and the new one rejects at the finding's location (the reverse for ``consumers``), checked
against both folders as published, each file in its own dialect (draft-04 to 2020-12). A finding for which no
witness is found within the budget becomes a ``warning`` (bump ``minor``) that says so. A walk of each file's schema
graph adds ``DOCUMENT_REJECTED`` for a proven break that no field-level rule names (conditionals, ``$dynamicRef``,
``$recursiveRef``). A field pinned to the schema's version changing is ``VERSION_PIN_CHANGED`` (expected, ``info``,
with ``expect_version_pins``). Types are matched by where they are defined (a root type's name comes from its
``title``, an annotation); references to differently named types compare the types' content.

Where the classification is stricter than the truth — a regular expression rewritten to accept exactly the same
strings, a rule that now enforces what the prose already required — the new folder says so with an
``x-compatibility: {"bump": "patch" | "minor", "reason": …}`` annotation on the changed node (or an ancestor).
Every finding at or below it becomes ``info`` with that bump and the reason appended, in a diff whose old folder
does not carry the same annotation there (so it speaks for one step only). The annotation is checked by
codegen's annotation meta-schema and is never silent: the reason is printed with each finding it reclassifies.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import gc
import json
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped,unused-ignore]

from .compat.folder import DRAFT4, DRAFT6, Folder, dialect_of, draft07_copy
from .compat.folder import read as read_folder
from .compat.witness import Witness, explore, unversioned, used
from .compat.witness import find as find_witness
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
    json_type,
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
    "VERSION_PIN_CHANGED": ("breaking", "producers", "major"),
    "DOCUMENT_REJECTED": ("breaking", "producers", "major"),
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
    witness: Witness | None = None  # a document valid before and rejected now (valid now, rejected before for consumers)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "level": self.level,
            "direction": self.direction,
            "location": self.location,
            "message": self.message,
            "bump": self.bump,
            "witness": self.witness.to_dict() if self.witness is not None else None,
        }

    def to_text(self) -> str:
        line = f"{self.level:<8} {self.rule} [{self.direction}, {self.bump}] {self.location}: {self.message}"
        if self.witness is not None:
            verdict = "valid before, invalid now" if self.direction != "consumers" else "valid now, invalid before"
            line += f"\n         witness ({verdict}, {self.witness.file}): {self.witness.short()}"
        return line


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
        lines = [f.to_text() for f in self.findings]
        counts = {level: sum(1 for f in self.findings if f.level == level) for level in reversed(LEVELS)}
        lines.append(
            f"{len(self.findings)} change(s): "
            + ", ".join(f"{n} {level}" for level, n in counts.items())
            + f"; required version bump: {self.bump}"
        )
        return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------- loading


def _older_dialect(path: Path) -> str | None:
    """DRAFT4 or DRAFT6 when the file declares it (the loader reads draft-07 on), else None."""
    try:
        dialect = dialect_of(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, OSError):
        return None  # the loader reports it
    return dialect if dialect in (DRAFT4, DRAFT6) else None


def load_folder(folder: Path | str) -> SchemaSet:
    """Load a schema folder, skipping a release ``manifest.json`` and reading draft-04/draft-06 files as their
    draft-07 equivalent (both from a private temporary copy)."""
    root = Path(folder)
    paths = sorted(p for p in root.glob("*.json") if p.is_file() and p.name != MANIFEST) if root.is_dir() else []
    older = {p.name: d for p in paths if (d := _older_dialect(p)) is not None}
    if not (root / MANIFEST).is_file() and not older:
        return load(root)
    with tempfile.TemporaryDirectory(prefix="codegen-diff-") as tmp:
        for path in paths:
            if path.name in older:
                contents = draft07_copy(json.loads(path.read_text(encoding="utf-8")), older[path.name])
                (Path(tmp) / path.name).write_text(json.dumps(contents, ensure_ascii=False), encoding="utf-8")
            else:
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


def _covers(wide: str, narrow: str) -> bool:
    return wide == narrow or (wide == "number" and narrow == "integer")


# format -> the formats whose every valid string it accepts too, where the specification defines the inclusion
# (JSON Schema Validation 2020-12 §7.3: a URI is a URI reference and an IRI; an IRI is an IRI reference; an email
# address and a host name are their internationalized forms)
FORMAT_INCLUDES = {
    "uri-reference": ("uri",),
    "iri": ("uri",),
    "iri-reference": ("iri", "uri", "uri-reference"),
    "idn-email": ("email",),
    "idn-hostname": ("hostname",),
}
FORMAT_CHECKER = Draft202012Validator.FORMAT_CHECKER
_VERSION = re.compile(r"^v?\d+(\.\d+){1,2}(-[0-9A-Za-z.-]+)?$")
_WIDENING = frozenset(
    {
        "TYPE_WIDENED",
        "NULLABLE_ADDED",
        "ENUM_VALUE_ADDED",
        "CONSTRAINT_LOOSENED",
        "CLOSED_OBJECT_OPENED",
        "PROPERTY_ADDED_OPTIONAL",
        "BECAME_OPTIONAL",
        "RULE_REMOVED",
    }
)


def _admits(key: str, bound: Any, value: Any) -> bool:
    """Whether the value satisfies the constraint ``key: bound`` (a constraint for another JSON type does not apply;
    ``False`` when it cannot be decided)."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    try:
        if key in ("minLength", "maxLength", "pattern", "format"):
            if not isinstance(value, str):
                return True
            if key == "minLength":
                return bool(len(value) >= bound)
            if key == "maxLength":
                return bool(len(value) <= bound)
            if key == "pattern":
                return re.search(bound, value) is not None
            return bool(FORMAT_CHECKER.conforms(value, bound)) and bound in FORMAT_CHECKER.checkers
        if key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
            if not number:
                return True
            return bool(
                {
                    "minimum": lambda: value >= bound,
                    "maximum": lambda: value <= bound,
                    "exclusiveMinimum": lambda: value > bound,
                    "exclusiveMaximum": lambda: value < bound,
                    "multipleOf": lambda: (value / bound).is_integer(),
                }[key]()
            )
        if key in ("minItems", "maxItems", "uniqueItems"):
            if not isinstance(value, list):
                return True
            if key == "uniqueItems":
                return not bound or len({_json(v) for v in value}) == len(value)
            return bool(len(value) >= bound if key == "minItems" else len(value) <= bound)
    except (re.error, TypeError, ValueError, ZeroDivisionError, OverflowError):
        return False
    return False


def _version_pin(old: Any, new: Any) -> bool:
    """Both values are version strings: a field that pins the version of the schema (AsyncAPI's ``asyncapi``)."""
    return isinstance(old, str) and isinstance(new, str) and bool(_VERSION.match(old)) and bool(_VERSION.match(new))


def _relation(old: TypeExpr, new: TypeExpr, named: Callable[[Named, Named], str] | None = None) -> str:
    """``same``, ``widened`` (new accepts more), ``narrowed`` (new accepts less) or ``changed`` (neither).
    ``named`` compares two different named types by content (renamed or moved types)."""
    if old == new:
        return "same"
    if named is not None and isinstance(old, Named) and isinstance(new, Named):
        return named(old, new)
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
        old_in_new = all(any(_relation(o, n, named) in ("same", "widened") for n in new_m) for o in old_m)
        new_in_old = all(any(_relation(o, n, named) in ("same", "narrowed") for o in old_m) for n in new_m)
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
        return "widened" if all(_covers(new.name, json_type(v)) for v in old.values) else "changed"
    if isinstance(old, Primitive) and isinstance(new, Literal):
        return "narrowed" if all(_covers(old.name, json_type(v)) for v in new.values) else "changed"
    if isinstance(old, Array) and isinstance(new, Array):
        return _relation(old.items, new.items, named)
    if isinstance(old, Map) and isinstance(new, Map):
        return _relation(old.values, new.values, named)
    if isinstance(old, Tuple) and isinstance(new, Tuple) and len(old.prefix) == len(new.prefix):
        parts = [_relation(o, n, named) for o, n in zip(old.prefix, new.prefix)]
        if old.rest is not None or new.rest is not None:
            parts.append(_relation(old.rest or Never(), new.rest or Never(), named))
        kinds = set(parts) - {"same"}
        return "same" if not kinds else kinds.pop() if len(kinds) == 1 else "changed"
    return "changed"


class _Differ:
    def __init__(self, old: IR, new: IR, today: _dt.date) -> None:
        self.old, self.new, self.today = old, new, today
        self.out: list[Finding] = []
        self.old_by_ref = {t.ref: t for m in old.modules for t in m.types}
        self.new_by_ref = {t.ref: t for m in new.modules for t in m.types}
        self._named: dict[tuple[Any, Any], str] = {}

    def add(
        self, rule: str, where: Location, message: str, level: str | None = None, direction: str | None = None, bump: str | None = None
    ) -> None:
        fixed = _FIXED.get(rule, ("breaking", "producers", "major"))
        self.out.append(Finding(rule, level or fixed[0], direction or fixed[1], str(where), message, bump or fixed[2]))

    def named(self, old: Named, new: Named) -> str:
        """How the content of two differently named types compares (coinductively: a pair met again while it is
        being compared counts as the same). Renames and moves into ``$defs`` compare what the types accept."""
        key = (old.ref, new.ref)
        if key in self._named:
            return self._named[key]
        ot, nt = self.old_by_ref.get(old.ref), self.new_by_ref.get(new.ref)
        if ot is None or nt is None:
            return "changed"
        self._named[key] = "same"
        saved, self.out = self.out, []
        try:
            self.type_(ot, nt)
            found = self.out
        finally:
            self.out = saved
        narrowed = any(f.level != "info" for f in found)
        widened = any(f.rule in _WIDENING for f in found)
        result = "changed" if narrowed and widened else "narrowed" if narrowed else "widened" if widened else "same"
        self._named[key] = result
        return result

    def run(self) -> DiffReport:
        # types are matched by where they are defined, not by name: a root type is named from its title, which
        # is an annotation (AsyncAPI keeps its version there)
        # (and a $defs key that is an $id carrying the version, as in AsyncAPI's bundles, names the same definition)
        old_types = {(t.file, unversioned(t.location.pointer)): t for m in self.old.modules for t in m.types}
        new_types = {(t.file, unversioned(t.location.pointer)): t for m in self.new.modules for t in m.types}
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
        self.constraints(ot.constraints, nt.constraints, loc, f"type {nt.name}", _values(ot.type, nt.type))
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
        if not isinstance(nf.type, Unknown):  # a field of any type accepts null whatever its old type said
            self.nullable(of.nullable, nf.nullable, loc, what)
        self.expr(of.type, nf.type, loc, what)
        self.constraints(of.constraints, nf.constraints, loc, what, _values(of.type, nf.type))
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
                pin = _version_pin(old.values[0], new.values[0])
                self.add(
                    "VERSION_PIN_CHANGED" if pin else "CONST_CHANGED",
                    loc,
                    f"{what} must now be {_json(new.values[0])} (was {_json(old.values[0])})" + (": a version pin" if pin else ""),
                )
                return
            self.values(old.values, new.values, loc, what)
            return
        relation = _relation(old, new, self.named)
        message = f"type of {what} changed from {_show(old)} to {_show(new)}"
        if relation in ("narrowed", "changed"):
            self.add("TYPE_NARROWED", loc, message)
        if relation in ("widened", "changed"):
            self.add("TYPE_WIDENED", loc, message)

    def values(self, old: tuple[Any, ...], new: tuple[Any, ...], loc: Location, what: str) -> None:
        if len(old) == 1 and len(new) == 1 and _version_pin(old[0], new[0]):
            self.add("VERSION_PIN_CHANGED", loc, f"{what} must now be {_json(new[0])} (was {_json(old[0])}): a version pin")
            return
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

    def constraints(
        self, old: tuple[tuple[str, Any], ...], new: tuple[tuple[str, Any], ...], loc: Location, what: str, values: tuple[Any, ...] = ()
    ) -> None:
        """``values``: the only values the old location accepted (an enum replaced by a constrained type): a
        constraint they all satisfy rejects none of them, so it is no tightening."""
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
            elif key == "format":
                tighter = after is not None and before not in FORMAT_INCLUDES.get(after, ())
            else:  # pattern, format, multipleOf: any addition or change may reject values accepted before
                tighter = after is not None
            if tighter and values and after is not None and all(_admits(key, after, v) for v in values):
                continue
            if after is None:
                change = f"{key} {_json(before)} removed"
            elif before is None:
                change = f"{key} {_json(after)} added"
            else:
                change = f"{key} changed from {_json(before)} to {_json(after)}"
            self.add("CONSTRAINT_TIGHTENED" if tighter else "CONSTRAINT_LOOSENED", loc, f"{what}: {change}")

    def rules(self, ot: NamedType, nt: NamedType) -> None:
        def keyed(rules: tuple[Rule, ...], base: str) -> dict[str, Rule]:
            # a rule without an id is matched by where it stands in its type (the types may be renamed or moved)
            def where(rule: Rule) -> str:
                return rule.pointer[len(base) :] if rule.pointer.startswith(base + "/") else unversioned(rule.pointer)

            return {dict(r.notes).get("x-rule") or f"{r.keyword} at {where(r)}": r for r in rules}

        def label(rule: Rule) -> str:
            return dict(rule.notes).get("x-rule") or f"{rule.keyword} at {rule.pointer}"

        old, new = keyed(ot.rules, ot.location.pointer), keyed(nt.rules, nt.location.pointer)
        declared_before = {f.name for f in ot.fields}
        for key, r in new.items():
            if key not in old:
                if ot.additional == "closed" and (_gated_on_new(r, declared_before) or _under_new(r, nt.location.pointer, declared_before)):
                    self.add(
                        "RULE_ADDED",
                        r.location,
                        f"rule {label(r)} was added to {nt.name}; it only applies to documents using a property that is new in this version",
                        level="info",
                        direction="none",
                        bump="minor",
                    )
                else:
                    self.add("RULE_ADDED", r.location, f"rule {label(r)} was added to {nt.name}; documents valid before may break it")
            elif unversioned(old[key].schema) != unversioned(r.schema) or old[key].keyword != r.keyword:
                self.add(
                    "RULE_CHANGED",
                    r.location,
                    f"rule {label(r)} of {nt.name} changed; whether it accepts more or less cannot be decided here",
                )
        for key, r in old.items():
            if key not in new:
                self.add("RULE_REMOVED", r.location, f"rule {label(r)} was removed from {nt.name}; documents it rejected become valid")

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


def _values(old: TypeExpr | None, new: TypeExpr | None) -> tuple[Any, ...]:
    """The old literal values when the new type is not a literal (the new constraints then judge them)."""
    return old.values if isinstance(old, Literal) and not isinstance(new, Literal) else ()


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


def _under_new(rule: Rule, base: str, declared_before: set[str]) -> bool:
    """A rule inside the subschema of a property the old object did not declare (so, being closed, the old object
    never held it): it only judges that property's values, which no document valid before had."""
    prefix = base + "/properties/"
    if not rule.pointer.startswith(prefix):
        return False
    token = rule.pointer[len(prefix) :].split("/", 1)[0]
    return token.replace("~1", "/").replace("~0", "~") not in declared_before


def diff_irs(old: IR, new: IR, today: _dt.date | None = None) -> DiffReport:
    return _Differ(old, new, today or _dt.date.today()).run()


@dataclass(frozen=True)
class Budget:
    """Seconds a witness search may take: per finding, and for the walk that looks for what no finding names."""

    per_finding: float = 3.0
    explore: float = 2.0


DEFAULT_BUDGET = Budget()
_UNUSED = " (no schema file reaches it: an unused definition, whether under $defs or definitions)"
_USES_COMPARED = " (its uses are compared where they are, and no document valid before is invalid now)"
_NO_WITNESS = " (no witness found: no document valid before and invalid now was found, so this is not proven breaking)"


def _needs_proof(finding: Finding) -> bool:
    """Every breaking finding, a rule change, and a property added to an object that accepted any property
    (documents holding that property with another value become invalid)."""
    if finding.level == "breaking" or finding.rule == "RULE_CHANGED":
        return True
    return finding.rule == "PROPERTY_ADDED_OPTIONAL" and finding.direction == "none"


def _names_place(finding: Finding, where: str) -> bool:
    """The finding is at ``where`` (``file#pointer/keyword``, where a document is rejected) or above it, is the
    conditional whose ``then``/``else`` rejects there, or is a property of the object whose keyword rejects."""
    location = finding.location
    if location.rsplit("/", 1)[-1] in ("if", "then", "else"):
        location = location.rsplit("/", 1)[0]
    keyword_at = where.rsplit("/", 1)[0]
    if "#" not in where or where.endswith("#"):
        return False  # no place named
    if where == location or where.startswith(location + "/"):
        return True
    parent, _, name = location.rpartition("/properties/")
    return bool(name) and "/" not in name and parent == keyword_at


def prove(
    report: DiffReport, old_dir: Path | str, new_dir: Path | str, budget: Budget = DEFAULT_BUDGET, expect_version_pins: bool = False
) -> DiffReport:
    """Each finding that claims or may hide a break, with a witness checked against both folders as published,
    or downgraded to a warning that says none was found; then the breaks no finding names, found by walking
    each schema file (``DOCUMENT_REJECTED``). Version pins are their own rule; ``expect_version_pins`` makes
    them expected (info)."""
    with _fewer_collections():
        return _prove(report, read_folder(old_dir), read_folder(new_dir), budget, expect_version_pins)


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """The witness search allocates many small objects that live until it ends (candidates, remembered lookups,
    compiled schemas): with the collector's default first threshold (700) it scans them again and again, up to a third of the
    search's time on the corpus. A larger first generation while it runs, restored after."""
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], _SEARCH_GEN0), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


_SEARCH_GEN0 = 100_000  # objects allocated between collections of the youngest generation during the search


def _prove(report: DiffReport, old: Folder, new: Folder, budget: Budget, expect_version_pins: bool) -> DiffReport:
    out: list[Finding] = []
    for finding in report.findings:
        if not _needs_proof(finding):
            out.append(finding)
            continue
        accepts, rejects = (new, old) if finding.direction == "consumers" else (old, new)
        try:
            witness = find_witness(accepts, rejects, finding.location, budget.per_finding)
        except RecursionError:  # a schema nested beyond the stack: no witness, so not proven (never a crash)
            witness = None
        if witness is not None:
            level = "breaking"
            bump = "major"
            message = finding.message
            if finding.rule == "PROPERTY_ADDED_OPTIONAL":
                message += "; the object accepted any property before, and documents holding this one otherwise become invalid"
            out.append(replace(finding, level=level, bump=bump, message=message, witness=witness))
        elif finding.rule == "TYPE_DEFINITION_REMOVED":
            # its uses are compared where they are (a rename or a move into $defs compares their content there)
            why = _UNUSED if not used(old, finding.location) else _USES_COMPARED
            out.append(replace(finding, level="info", direction="none", bump="minor", message=finding.message + why))
        elif finding.level == "breaking" or finding.rule == "RULE_CHANGED":
            out.append(replace(finding, level="warning", bump="minor", message=finding.message + _NO_WITNESS))
        else:
            out.append(finding)
    try:  # identical folders accept the same documents: nothing to walk
        walked = explore(old, new, budget.explore) if old.files != new.files else []
    except RecursionError:  # as above: nothing proven by the walk
        walked = []
    for where, witness in walked:
        named = [i for i, f in enumerate(out) if f.level != "info" and _names_place(f, where)]
        for i in named:
            if out[i].witness is None and out[i].message.endswith(_NO_WITNESS):  # the walk proved what the search missed
                out[i] = replace(out[i], level="breaking", bump="major", message=out[i].message[: -len(_NO_WITNESS)], witness=witness)
        if named:
            continue  # a finding names this place already
        out.append(
            Finding(
                "DOCUMENT_REJECTED",
                "breaking",
                "producers",
                where,
                f"a document valid before is rejected here now ({where.rsplit('/', 1)[-1]})",
                "major",
                witness,
            )
        )
    if expect_version_pins:
        out = [
            replace(f, level="info", bump="patch", message=f.message + " (expected: version pins are treated as expected)")
            if f.rule == "VERSION_PIN_CHANGED"
            else f
            for f in out
        ]
    return DiffReport(tuple(out))


def diff_sets(
    old: SchemaSet,
    new: SchemaSet,
    today: _dt.date | None = None,
    budget: Budget = DEFAULT_BUDGET,
    expect_version_pins: bool = False,
    folders: tuple[Path | str, Path | str] | None = None,
) -> DiffReport:
    """The classified, proven diff; ``folders`` are the folders as published when the sets were read from copies."""
    old_dir, new_dir = folders or (old.root, new.root)
    report = prove(diff_irs(build(old), build(new), today), old_dir, new_dir, budget, expect_version_pins)
    return accept(report, old, new)


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
    message = finding.message.removesuffix(_NO_WITNESS)  # the annotation, not the missing witness, classifies it
    contradiction = (
        f"; contradicted by a witness: {finding.witness.short()} is valid before and invalid now" if finding.witness is not None else ""
    )
    return Finding(
        finding.rule,
        "info",
        finding.direction,
        finding.location,
        f"{message} (classified {annotation['bump']} by x-compatibility at {file}#{where}: {annotation['reason']}{contradiction})",
        annotation["bump"],
        finding.witness,
    )


def diff(
    old: Path | str, new: Path | str, today: _dt.date | None = None, budget: Budget = DEFAULT_BUDGET, expect_version_pins: bool = False
) -> DiffReport:
    """Compare two schema folders (raises ``SchemaError`` on unusable input)."""
    return diff_sets(load_folder(old), load_folder(new), today, budget, expect_version_pins, folders=(old, new))
