"""The ``$schema`` URI regexes are written once (``spec/constants.json``, ECMA-262 syntax, ``"regex": true``) and
generated in each language's form (Python's named groups ``(?P<name>…)``). Both SDKs compile the generated
constants, matched against the whole URI; no SDK source writes one of these patterns by hand; and the two
languages match alike."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from evalschema.schemas import identify
from evalschema_models import constants

ROOT = Path(__file__).resolve().parents[1]
# generated constant -> the pattern of identify.py that uses it
PAIRS = {"SCHEMA_URI": "OURS", "EVALPORT_SCHEMA_URI": "EVALPORT", "PROMPTPACK_SCHEMA_URI": "PROMPTPACK"}
TS_IDENTIFY = ROOT / "js" / "src" / "schemas" / "identify.ts"
# the hosts as a hand-written pattern would escape them
HAND_WRITTEN = ("evalschema\\.org", "evalport\\.org", "promptpack\\.org")
URIS = [
    "https://evalschema.org/schema/1.2.0/suite.json",
    "https://evalschema.org/schema/1.2.0-rc.1/resultset.json",
    "https://evalschema.org/schema/1.2.0/Suite.json",
    "https://evalschema.org/schema/1.2.0/suite.json\n",
    "https://evalschema.org/schema/suite.json",
    "http://evalschema.org/schema/1.2.0/suite.json",
    "https://evalport.org/schema/v1.0/grader.json",
    "https://evalport.org/schema/resultset.json",
    "https://evalport.org/schema/x1/suite.json",
    "https://evalport.org/schema/1.0/pack.json",
    "https://promptpack.org/schema/v1/promptpack.schema.json",
    "https://promptpack.org/schema/promptpack.schema.json",
]


def test_python_compiles_the_generated_patterns_and_matches_whole_uris() -> None:
    for name, compiled in PAIRS.items():
        held = getattr(identify, "_" + compiled)  # compiled, or its text, compiled on first use
        assert (held if isinstance(held, str) else held.pattern) == getattr(constants, name), name
    assert identify.schema_uri_kind("https://evalschema.org/schema/1.2.0/suite.json") == "suite"
    assert identify.schema_uri_kind("https://evalschema.org/schema/1.2.0/suite.json\n") is None  # whole string
    assert identify.schema_uri_kind("https://evalport.org/schema/v1.0/grader.json") == "grader"
    assert identify.schema_uri_kind("https://promptpack.org/schema/v1/promptpack.schema.json") == "pack"


def test_no_sdk_source_writes_a_schema_uri_pattern() -> None:
    sources = [ROOT / "evalschema" / "schemas" / "identify.py", ROOT / "evalschema" / "schemas" / "registry.py"]
    sources += sorted((ROOT / "js" / "src" / "schemas").glob("*.ts"))
    for source in sources:
        text = source.read_text(encoding="utf-8")
        assert not [host for host in HAND_WRITTEN if host in text], source


_NODE = """
import { readFileSync } from "node:fs";
const constants = await import(process.argv[2] + "/generated/constants.js");
const source = readFileSync(process.argv[3], "utf-8");
const [pairs, uris] = JSON.parse(process.argv[4]);
const out = {};
for (const name of Object.keys(pairs)) {
  // as identify.ts compiles it: the generated constant, matched against the whole string
  const generated = new RegExp(`^(?:${constants[name]})$`);
  out[name] = {
    used: source.includes(`whole(${name})`),
    matches: uris.map((uri) => { const m = generated.exec(uri); return m ? { ...(m.groups ?? {}) } : null; }),
  };
}
process.stdout.write(JSON.stringify(out));
"""


def test_typescript_compiles_the_generated_patterns_and_matches_as_python_does(built_js: Path, tmp_path: Path) -> None:
    script = tmp_path / "uris.mjs"
    script.write_text(_NODE, encoding="utf-8")
    args = [built_js.parent.as_uri(), str(TS_IDENTIFY), json.dumps([PAIRS, URIS])]
    run = subprocess.run(["node", str(script), *args], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    answers = json.loads(run.stdout)
    for name in PAIRS:
        assert answers[name]["used"], name
        python = [m.groupdict() if (m := re.fullmatch(getattr(constants, name), uri)) else None for uri in URIS]
        assert answers[name]["matches"] == python, name
    assert any(answers["SCHEMA_URI"]["matches"]) and any(answers["EVALPORT_SCHEMA_URI"]["matches"])
