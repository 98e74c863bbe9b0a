"""Build the wheel, install it into a fresh virtual environment, and validate offline against a pinned older
release and the current one.

How the environment is made offline, and why: the wheel itself is installed with ``pip install --no-index
--no-deps`` (no index, nothing fetched). Its dependencies (jsonschema, referencing, pydantic, ...) cannot be
downloaded at test time — no network is guaranteed — and building a wheelhouse from pip's cache is not
guaranteed offline either. So the fresh venv (``--without-pip``, no system site-packages) gets one ``.pth``
line pointing at the site-packages of the environment running the tests: the dependencies resolve from there,
*after* the venv's own site-packages. That directory's own ``.pth`` files are not processed (it is not a site
directory of the new venv), so the editable install of the checkout stays invisible: the test asserts that
``evalschema`` is imported from the installed wheel. The check script runs with ``-I`` (no ``PYTHONPATH``, no
user site, script directory not on ``sys.path``) from a temporary directory, with every socket operation made to
raise, so any attempt to fetch a schema fails the test.
"""

from __future__ import annotations

import json
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

CHECK = r'''
import json, socket, sys

def _refuse(*args, **kwargs):
    raise OSError("network access attempted during an offline test")

socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.create_connection = _refuse
socket.getaddrinfo = _refuse

import evalschema
from evalschema import releases, validate
from evalschema.diffcmd import add_parser
import argparse, contextlib, io

def resultset(version, violations):
    row = {"test_case_id": "t1", "grader_results": [{"grader_id": "g", "type": "contains", "score": 1, "passed": True}], "passed": True}
    if violations:
        row["constraint_violations"] = [{"id": "rbac_scope", "invalidates_result": False}]
    return {"version": version, "suite_id": "s", "run_id": "r1", "started_at": "2026-10-15T09:00:00Z", "results": [row]}

def codes(findings):
    return [[f.code, f.pointer] for f in findings]

parser = argparse.ArgumentParser()
add_parser(parser.add_subparsers(dest="command"))
args = parser.parse_args(["diff", "1.0.0", "1.1.0", "--format", "json", "--today", "2026-11-30"])
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = args.handler(args)

current = validate(resultset(evalschema.spec_version(), True))
print(json.dumps({
    "file": evalschema.__file__,
    "version": evalschema.__version__,
    "spec_version": evalschema.spec_version(),
    "available": releases.available(),
    "old_plain": codes(validate(resultset("1.0.0", False), spec_version="1.0.0").errors),
    "old_with_violations": codes(validate(resultset("1.0.0", True), spec_version="1.0.0").errors),
    "new_with_violations": codes(validate(resultset("1.1.0", True), spec_version="1.1.0").errors),
    "sdk_current_valid": current.valid,
    "sdk_current_codes": [f.code for f in current.errors],
    "diff_status": status,
    "diff_rules": sorted({f["rule"] for f in json.loads(out.getvalue())["findings"]}),
}))
'''


def _site_packages() -> list[str]:
    paths = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *site.getsitepackages()]
    return list(dict.fromkeys(p for p in paths if Path(p).is_dir()))


@pytest.mark.slow
def test_wheel_installs_and_validates_offline(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, str(REPO / "scripts" / "package.py"), "--wheel-only", "--out", str(dist)], check=True, capture_output=True)
    (wheel,) = dist.glob("evalschema-*.whl")

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-index", "--no-deps",
         "--disable-pip-version-check", str(wheel)],
        check=True, capture_output=True,
    )
    purelib = subprocess.run([str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    (Path(purelib) / "_offline_dependencies.pth").write_text("\n".join(_site_packages()) + "\n", encoding="utf-8")

    work = tmp_path / "work"
    work.mkdir()
    (work / "check.py").write_text(CHECK, encoding="utf-8")
    run = subprocess.run([str(python), "-I", str(work / "check.py")], cwd=work, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)

    assert result["file"].startswith(purelib), "evalschema was not imported from the installed wheel"
    assert result["version"] == result["spec_version"]
    assert result["available"][:2] == ["1.0.0", "1.1.0"]
    # pinned older release: no constraint_violations yet
    assert result["old_plain"] == []
    assert result["old_with_violations"] == [["UNKNOWN_FIELD", "/results/0/constraint_violations"]]
    # the current release and the SDK's working schemas accept it
    assert result["new_with_violations"] == []
    assert result["sdk_current_valid"] is True, result["sdk_current_codes"]
    # the diff command works from the installed package (bundled releases, codegen's meta-schema)
    assert result["diff_status"] == 0
    assert {"PROPERTY_ADDED_OPTIONAL", "RULE_ADDED", "DEPRECATION_ADDED"} <= set(result["diff_rules"])
