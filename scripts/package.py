"""Build the Python packages and the per-release schema bundles into ``dist/``, keeping the repository clean.

    python scripts/package.py [--out dist] [--wheel-only] [--no-zips]

Python: the package sources are copied into a temporary staging tree, the schemas are added there as package
data — the working ``schemas/*.json`` as ``evalschema/_schemas/*.json`` and every published release as
``evalschema/_schemas/releases/<version>/`` (schema files and manifest) — and ``python -m build
--no-isolation`` builds the sdist and, from it, the wheel (so the sdist is proven self-contained). Nothing is
written into the repository; no network is needed (the build backend comes from the current environment).

Zips: ``dist/evalschema-schemas-<version>.zip`` per release, holding ``evalschema-schemas-<version>/<file>``
for each file of ``spec/releases/<version>/`` (manifest included), byte-reproducible (fixed timestamps and
modes, sorted entries).

Versions come from one place: the ``$id`` of the working schemas (``https://evalschema.org/schema/<version>/``).
``pyproject.toml``, ``evalschema.__version__`` and ``js/package.json`` restate it; this script refuses to
build when any of them disagrees (``tests/test_releases.py`` checks the same), and every release must match its
manifest.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from codegen.policy import releases, verify_release  # noqa: E402

# what the build needs from the repository (pyproject's packages and package-dir)
SOURCES = ("pyproject.toml", "README.md", "evalschema", "codegen", "generated/python/evalschema_models")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "_schemas", "*.egg-info")
_ID = re.compile(r"/schema/([^/]+)/[^/]+\.json$")


def versions() -> dict[str, str]:
    """Every place a version is written, by name."""
    found = {
        "pyproject.toml": tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"],
        "js/package.json": json.loads((REPO / "js" / "package.json").read_text(encoding="utf-8"))["version"],
    }
    init = (REPO / "evalschema" / "__init__.py").read_text(encoding="utf-8")
    m = re.search(r'^__version__ = "([^"]+)"$', init, re.M)
    found["evalschema.__version__"] = m[1] if m else "?"
    for path in sorted((REPO / "schemas").glob("*.json")):
        idm = _ID.search(json.loads(path.read_text(encoding="utf-8")).get("$id", ""))
        found[f"schemas/{path.name} $id"] = idm[1] if idm else "?"
    return found


def check_versions() -> str:
    found = versions()
    if len(set(found.values())) != 1:
        raise SystemExit("version mismatch: " + ", ".join(f"{k}={v}" for k, v in found.items()))
    return next(iter(found.values()))


def stage(target: Path) -> None:
    for rel in SOURCES:
        src = REPO / rel
        if src.is_dir():
            shutil.copytree(src, target / rel, ignore=_IGNORE)
        else:
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target / rel)
    data = target / "evalschema" / "_schemas"
    data.mkdir()
    for path in sorted((REPO / "schemas").glob("*.json")):
        shutil.copyfile(path, data / path.name)
    for release in releases(REPO / "spec" / "releases"):
        problems = verify_release(release)
        if problems:
            raise SystemExit("\n".join(str(p) for p in problems))
        shutil.copytree(release.path, data / "releases" / release.version)


def build_python(out: Path, wheel_only: bool = False) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    before = set(out.iterdir())
    with tempfile.TemporaryDirectory(prefix="evalschema-stage-") as tmp:
        staging = Path(tmp) / "src"
        stage(staging)
        kinds = ["--wheel"] if wheel_only else []
        subprocess.run([sys.executable, "-m", "build", "--no-isolation", *kinds, "--outdir", str(out.resolve()), str(staging)],
                       check=True, stdout=subprocess.DEVNULL if wheel_only else None)
    return sorted(set(out.iterdir()) - before)


def build_zips(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for release in releases(REPO / "spec" / "releases"):
        problems = verify_release(release)
        if problems:
            raise SystemExit("\n".join(str(p) for p in problems))
        target = out / f"evalschema-schemas-{release.version}.zip"
        prefix = f"evalschema-schemas-{release.version}"
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for path in sorted(release.path.iterdir()):
                info = zipfile.ZipInfo(f"{prefix}/{path.name}", date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, path.read_bytes())
        made.append(target)
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=REPO / "dist")
    parser.add_argument("--wheel-only", action="store_true", help="only the wheel (no sdist, no zips)")
    parser.add_argument("--no-zips", action="store_true")
    args = parser.parse_args(argv)
    version = check_versions()
    made = build_python(args.out, args.wheel_only)
    if not (args.wheel_only or args.no_zips):
        made += build_zips(args.out)
    for path in made:
        print(path)
    print(f"evalschema {version}: {len(made)} artifact(s) in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
