"""Published releases of a schema folder, and the version policy that links them.

A releases folder holds one sub-folder per published version (``<releases>/<version>/``): the schema files of
that version, byte for byte, and a ``manifest.json`` ``{"version", "date", "files": {"<name>.json": "<sha256>"}}``.
A release never changes once written.

The version of a schema folder is the SemVer segment of its files' ``$id`` path (``.../<version>/<name>.json``);
every file must carry the same one.

Policy (:func:`check`):

- every release matches its manifest exactly (the files present, their hashes, its version and ``$id``s);
- each release, and the working folder, carries exactly the version that the classified diff against the
  previous release requires (:mod:`codegen.diff`): next major, minor or patch; the working folder may carry
  the latest release's version only while byte-identical to it (a pre-release of the required version, e.g.
  ``2.0.0-rc.1``, is accepted too);
- every deprecation carries ``since``, ``removal`` and ``date`` (``x-deprecation``); ``removal`` is a major
  version after ``since``;
- a deprecated element is removed only in a major version, not before its ``removal`` version, and not before
  its window (``date`` + 12 months) has run out — judged at ``today`` for the working folder and at the release
  date for a release.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import itertools
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .diff import BUMPS, MANIFEST, DiffReport, accept, diff_irs, load_folder, prove
from .ir import DEPRECATION_WINDOW_MONTHS, IR, Deprecation, add_months, build
from .load import SchemaError, SchemaSet

SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+[0-9a-zA-Z.-]+)?$"
)
_ID_VERSION = re.compile(r"/(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)/[^/]*$")


@dataclass(frozen=True)
class PolicyFinding:
    code: str
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.code} {self.location}: {self.message}"


# ----------------------------------------------------------------------------------------------- versions


def parse(version: str) -> tuple[int, int, int, str | None]:
    m = SEMVER.match(version)
    if m is None:
        raise ValueError(f"not a SemVer version: {version!r}")
    return int(m[1]), int(m[2]), int(m[3]), m[4]


def sort_key(version: str) -> tuple[int, int, int, int, tuple[tuple[int, int | str], ...]]:
    major, minor, patch, pre = parse(version)
    ids = tuple((0, int(p)) if p.isdigit() else (1, p) for p in (pre or "").split(".") if p)
    return major, minor, patch, 0 if pre else 1, ids


def next_version(version: str, bump: str) -> str:
    major, minor, patch, pre = parse(version)
    if pre:  # the release of a pre-release's version is its next step
        return f"{major}.{minor}.{patch}"
    if bump == "major":
        return f"{major + 1}.0.0"
    if bump == "minor":
        return f"{major}.{minor + 1}.0"
    if bump == "patch":
        return f"{major}.{minor}.{patch + 1}"
    return version


def folder_version(schemas: SchemaSet) -> tuple[str | None, list[PolicyFinding]]:
    """The version named by the ``$id`` of every file (they must agree)."""
    found: dict[str, str] = {}
    problems: list[PolicyFinding] = []
    for f in schemas.files:
        m = _ID_VERSION.search(str(f.contents.get("$id", "")))
        if m is None:
            problems.append(
                PolicyFinding("VERSION_MISSING", f"{f.name}#/$id", "the $id carries no version segment (.../<version>/<name>.json)")
            )
        else:
            found[f.name] = m[1]
    versions = sorted(set(found.values()))
    if len(versions) > 1:
        problems.append(
            PolicyFinding(
                "VERSION_INCONSISTENT",
                str(schemas.root),
                "files carry different versions: " + ", ".join(f"{n} {v}" for n, v in found.items()),
            )
        )
        return None, problems
    return (versions[0] if versions else None), problems


# ----------------------------------------------------------------------------------------------- releases


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def schema_files(folder: Path) -> list[Path]:
    return sorted((p for p in folder.glob("*.json") if p.is_file() and p.name != MANIFEST), key=lambda p: p.name)


@dataclass(frozen=True)
class Release:
    version: str
    date: str
    path: Path


def read_manifest(folder: Path) -> dict[str, Any]:
    data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{folder / MANIFEST}: not a JSON object")
    return data


def releases(folder: Path | str) -> list[Release]:
    """The published releases, oldest first (a sub-folder counts when its name is a SemVer version)."""
    out = []
    root = Path(folder)
    for sub in sorted(root.iterdir()) if root.is_dir() else []:
        if sub.is_dir() and SEMVER.match(sub.name):
            date = ""
            if (sub / MANIFEST).is_file():
                date = str(read_manifest(sub).get("date", ""))
            out.append(Release(sub.name, date, sub))
    return sorted(out, key=lambda r: sort_key(r.version))


def verify_release(release: Release) -> list[PolicyFinding]:
    folder, where = release.path, str(release.path)
    if not (folder / MANIFEST).is_file():
        return [PolicyFinding("MANIFEST_MISSING", where, f"a release needs a {MANIFEST}")]
    try:
        manifest = read_manifest(folder)
    except ValueError as exc:
        return [PolicyFinding("MANIFEST_INVALID", where, str(exc))]
    problems = []
    if manifest.get("version") != release.version:
        problems.append(
            PolicyFinding(
                "MANIFEST_INVALID", where, f"manifest version {manifest.get('version')!r} is not the folder's {release.version!r}"
            )
        )
    try:
        _dt.date.fromisoformat(str(manifest.get("date")))
    except ValueError:
        problems.append(PolicyFinding("MANIFEST_INVALID", where, f"manifest date {manifest.get('date')!r} is not YYYY-MM-DD"))
    listed = manifest.get("files")
    listed = listed if isinstance(listed, dict) else {}
    present = {p.name: p for p in folder.iterdir() if p.name != MANIFEST}
    for name in sorted(set(present) - set(listed)):
        problems.append(PolicyFinding("RELEASE_FILE_UNLISTED", f"{where}/{name}", "file is not in the manifest"))
    for name in sorted(set(listed) - set(present)):
        problems.append(PolicyFinding("RELEASE_FILE_MISSING", f"{where}/{name}", "file listed in the manifest is missing"))
    for name in sorted(set(listed) & set(present)):
        if not present[name].is_file() or sha256(present[name]) != listed[name]:
            problems.append(
                PolicyFinding(
                    "RELEASE_MODIFIED", f"{where}/{name}", "file differs from its manifest hash: a published release never changes"
                )
            )
    return problems


def manifest_for(folder: Path, version: str, date: str) -> str:
    files = {p.name: sha256(p) for p in schema_files(folder)}
    return json.dumps({"version": version, "date": date, "files": files}, indent=2) + "\n"


def cut_release(schemas: Path, releases_dir: Path, date: str) -> Path:
    """Copy the schema folder into ``<releases_dir>/<version>/`` with a manifest; never overwrites."""
    loaded = load_folder(schemas)
    version, problems = folder_version(loaded)
    if version is None or problems:
        raise SchemaError(str(schemas), "", "; ".join(str(p) for p in problems) or "no version in $id")
    _dt.date.fromisoformat(date)
    target = releases_dir / version
    if target.exists():
        raise FileExistsError(f"{target} already exists: a published release never changes")
    releases_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=releases_dir))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(staging, 0o777 & ~umask)  # mkdtemp makes it private
        for path in schema_files(schemas):
            shutil.copyfile(path, staging / path.name)
        (staging / MANIFEST).write_text(manifest_for(staging, version, date), encoding="utf-8")
        os.rename(staging, target)  # fails if the target appeared meanwhile
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


# ----------------------------------------------------------------------------------------------- policy


# Annotations that restate, for implementations, rules the specification already states (each binds a rule id of
# the ledger): adding or changing them changes no document's validity and the classified diff never sees them.
RULE_ANNOTATIONS = ("x-unique", "x-references")


def _without_rule_annotations(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without_rule_annotations(v) for k, v in node.items() if k not in RULE_ANNOTATIONS}
    if isinstance(node, list):
        return [_without_rule_annotations(v) for v in node]
    return node


def same_release_text(released: Path, working: Path) -> bool:
    """Whether a working schema file is its released file: the same bytes, or the same bytes once the rule
    annotations (:data:`RULE_ANNOTATIONS`) are taken out — the same members in the same order, same values."""
    old, new = released.read_bytes(), working.read_bytes()
    if old == new:
        return True
    strip = _without_rule_annotations
    try:
        return json.dumps(json.loads(old), ensure_ascii=False) == json.dumps(strip(json.loads(new)), ensure_ascii=False)
    except ValueError:
        return False


def _identical(a: Path, b: Path) -> bool:
    fa, fb = schema_files(a), schema_files(b)
    return [p.name for p in fa] == [p.name for p in fb] and all(same_release_text(x, y) for x, y in zip(fa, fb))


def _deprecations(ir: IR, version: str) -> list[PolicyFinding]:
    problems = []
    for loc, dep in ir.deprecations:
        if dep.since is None or dep.removal is None or dep.date is None:
            problems.append(
                PolicyFinding("DEPRECATION_INCOMPLETE", str(loc), "a deprecation must carry x-deprecation with since, removal and date")
            )
            continue
        try:
            since, removal = parse(dep.since), parse(dep.removal)
        except ValueError as exc:
            problems.append(PolicyFinding("DEPRECATION_INCOMPLETE", str(loc), str(exc)))
            continue
        if removal[1:3] != (0, 0) or removal[0] <= since[0]:
            problems.append(
                PolicyFinding(
                    "DEPRECATION_INVALID", str(loc), f"removal {dep.removal} must be a later major version than since {dep.since}"
                )
            )
        if sort_key(dep.since) > sort_key(version):
            problems.append(
                PolicyFinding("DEPRECATION_INVALID", str(loc), f"deprecated since {dep.since}, later than this version {version}")
            )
    return problems


def _removed_deprecated(old: IR, new: IR) -> list[tuple[str, Deprecation]]:
    """Deprecated types and properties of ``old`` that ``new`` no longer has."""
    new_types = {(t.file, t.name): t for m in new.modules for t in m.types}
    out = []
    for m in old.modules:
        for t in m.types:
            nt = new_types.get((t.file, t.name))
            if nt is None:
                if t.deprecation is not None:
                    out.append((str(t.location), t.deprecation))
                continue
            kept = {f.name for f in nt.fields}
            out.extend((str(f.location), f.deprecation) for f in t.fields if f.deprecation is not None and f.name not in kept)
    return out


class _Cache:
    """Each folder is loaded and built once per policy run."""

    def __init__(self) -> None:
        self.sets: dict[Path, SchemaSet] = {}
        self.irs: dict[Path, IR] = {}

    def load(self, folder: Path) -> SchemaSet:
        key = folder.resolve()
        if key not in self.sets:
            self.sets[key] = load_folder(folder)
        return self.sets[key]

    def ir(self, folder: Path) -> IR:
        key = folder.resolve()
        if key not in self.irs:
            self.irs[key] = build(self.load(folder))
        return self.irs[key]


def check_step(
    old_dir: Path, old_version: str, new_dir: Path, today: _dt.date, label: str, cache: _Cache | None = None
) -> tuple[list[PolicyFinding], DiffReport | None]:
    """The version, deprecation and removal rules for ``new_dir`` following the release ``old_dir``."""
    cache = cache or _Cache()
    try:
        new_set = cache.load(new_dir)
        old_ir, new_ir = cache.ir(old_dir), cache.ir(new_dir)
    except SchemaError as exc:
        return [PolicyFinding("SCHEMA_ERROR", f"{exc.file}#{exc.pointer}", exc.message)], None
    version, problems = folder_version(new_set)
    if version is None:
        return problems, None
    report = accept(prove(diff_irs(old_ir, new_ir, today), old_dir, new_dir), cache.load(old_dir), new_set)
    problems += _deprecations(new_ir, version)
    if version == old_version:
        if not _identical(old_dir, new_dir):
            problems.append(
                PolicyFinding(
                    "VERSION_NOT_BUMPED",
                    label,
                    f"differs from release {old_version} but carries its version; it needs {next_version(old_version, max(report.bump, 'patch', key=BUMPS.index))}",
                )
            )
        return problems, report
    if sort_key(version) < sort_key(old_version):
        problems.append(PolicyFinding("VERSION_NOT_INCREASING", label, f"version {version} is lower than release {old_version}"))
        return problems, report
    required = report.bump if report.bump != "none" else "patch"  # the files differ (at least their $id)
    expected = next_version(old_version, required)
    if parse(version)[:3] != parse(expected)[:3]:
        reasons = [f for f in report.findings if f.bump == required][:5]
        problems.append(
            PolicyFinding(
                "VERSION_MISMATCH",
                label,
                f"the changes since {old_version} require a {required} version: expected {expected}, found {version}"
                + "".join(f"\n  - {f.rule} {f.location}: {f.message}" for f in reasons),
            )
        )
    for where, dep in _removed_deprecated(old_ir, new_ir):
        major = parse(version)[0]
        if major <= parse(old_version)[0]:
            problems.append(
                PolicyFinding(
                    "REMOVAL_NOT_IN_MAJOR", where, f"a deprecated element is removed only in a major version; {version} is not one"
                )
            )
        if dep.removal is not None and sort_key(version) < sort_key(dep.removal):
            problems.append(PolicyFinding("REMOVAL_TOO_EARLY", where, f"removal is planned for {dep.removal}, not {version}"))
        if dep.date is not None:
            not_before = add_months(_dt.date.fromisoformat(dep.date), DEPRECATION_WINDOW_MONTHS)
            if today < not_before:
                problems.append(
                    PolicyFinding(
                        "REMOVAL_BEFORE_WINDOW",
                        where,
                        f"deprecated on {dep.date}: may not be removed before {not_before.isoformat()} (today is {today.isoformat()})",
                    )
                )
    return problems, report


def check(releases_dir: Path, schemas: Path | None, today: _dt.date | None = None) -> list[PolicyFinding]:
    """Every rule of the module docstring; an empty list means the policy holds."""
    today = today or _dt.date.today()
    cache = _Cache()
    problems: list[PolicyFinding] = []
    published = releases(releases_dir)
    for rel in published:
        problems += verify_release(rel)
        try:
            version, found = folder_version(cache.load(rel.path))
        except SchemaError as exc:
            problems.append(PolicyFinding("SCHEMA_ERROR", f"{rel.path}/{exc.file}#{exc.pointer}", exc.message))
            continue
        problems += found
        if version is not None and version != rel.version:
            problems.append(
                PolicyFinding("VERSION_MISMATCH", str(rel.path), f"the $id version {version} is not the folder's {rel.version}")
            )
    for prev, cur in itertools.pairwise(published):
        try:
            when = _dt.date.fromisoformat(cur.date)
        except ValueError:
            continue  # reported by verify_release
        found, _ = check_step(prev.path, prev.version, cur.path, when, f"release {cur.version}", cache)
        problems += found
    if schemas is not None:
        if not published:
            try:
                working = cache.load(schemas)
            except SchemaError as exc:
                return [*problems, PolicyFinding("SCHEMA_ERROR", f"{exc.file}#{exc.pointer}", exc.message)]
            version, found = folder_version(working)
            return problems + found + (_deprecations(cache.ir(schemas), version) if version else [])
        found, _ = check_step(published[-1].path, published[-1].version, schemas, today, f"{schemas} (working)", cache)
        problems += found
    return problems
