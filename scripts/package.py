"""Build every distributable into ``dist/``: what a release publishes.

    python scripts/package.py [--out dist] [--no-zips]

- the runtime distribution ``evalschema`` and the generator ``evalschema-codegen``, each as sdist and wheel, by
  the standard build (``python -m build``: the wheel is built from the sdist, which proves the sdist complete).
  Nothing is staged by hand: ``pyproject.toml`` puts the schemas, the bundled single-file schemas and every
  published release inside the package;
- ``evalschema-schemas-<version>.zip`` per release: the release folder (schemas and manifest) and, under
  ``bundled/``, its single-file schemas and catalog, byte-reproducible (fixed timestamps and modes, sorted
  entries).

``--no-isolation`` builds with the backend of the current environment (``hatchling``, pinned in the lock file),
so no network is needed once the environment exists. The npm tarball is ``npm pack`` in ``js/`` (see the
``packages`` nox session).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from codegen.catalog import load_config  # noqa: E402
from codegen.ir import build  # noqa: E402
from codegen.load import load  # noqa: E402
from codegen.policy import releases, verify_release  # noqa: E402
from codegen.targets import bundle  # noqa: E402

PROJECTS = (REPO, REPO / "codegen")


def build_python(out: Path) -> list[Path]:
    """sdist and wheel of each distribution, with the standard build front end."""
    out.mkdir(parents=True, exist_ok=True)
    before = set(out.iterdir())
    for project in PROJECTS:
        subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out.resolve()), str(project)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return sorted(set(out.iterdir()) - before)


def _bundled(folder: Path) -> dict[str, bytes]:
    """The single-file schemas and catalog of one schema folder, as ``generate`` writes them."""
    with tempfile.TemporaryDirectory() as tmp:  # a release folder also holds its manifest, which is no schema
        for path in folder.glob("*.json"):
            if path.name != "manifest.json":
                (Path(tmp) / path.name).write_bytes(path.read_bytes())
        schemas = load(tmp)
        return bundle.render(build(schemas), schemas, load_config(REPO / "pyproject.toml").get("options", {}).get("schemas", {}))


def build_zips(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for release in releases(REPO / "spec" / "releases"):
        problems = verify_release(release)
        if problems:
            raise SystemExit("\n".join(str(p) for p in problems))
        target = out / f"evalschema-schemas-{release.version}.zip"
        prefix = f"evalschema-schemas-{release.version}"
        entries = {path.name: path.read_bytes() for path in release.path.iterdir()}
        entries |= {f"bundled/{name}": content for name, content in _bundled(release.path).items()}
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name in sorted(entries):
                info = zipfile.ZipInfo(f"{prefix}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, entries[name])
        made.append(target)
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=REPO / "dist")
    parser.add_argument("--no-zips", action="store_true")
    args = parser.parse_args(argv)
    made = build_python(args.out)
    if not args.no_zips:
        made += build_zips(args.out)
    for path in made:
        print(path)
    print(f"{len(made)} artifact(s) in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
