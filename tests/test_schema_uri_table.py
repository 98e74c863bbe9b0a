"""The ``$schema`` URI regexes are written once (``spec/constants.json``, ECMA-262 syntax, ``"regex": true``) and
generated in each language's form (Python's named groups ``(?P<name>…)``): ``evalschema/schemas/identify.py`` and
``js/src/schemas/identify.ts`` compile their patterns from the generated constants, and these match alike in both
languages."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from evalschema.schemas import identify
from evalschema_models import constants

ROOT = Path(__file__).resolve().parents[1]
# generated constant -> the pattern of identify.py / identify.ts compiled from it
PAIRS = {"SCHEMA_URI": "OURS", "EVALPORT_SCHEMA_URI": "EVALPORT", "PROMPTPACK_SCHEMA_URI": "PROMPTPACK"}
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


def test_python_patterns_are_the_generated_ones() -> None:
    for name, compiled in PAIRS.items():
        assert getattr(identify, "_" + compiled).pattern == getattr(constants, name), name


_NODE = """
import { readFileSync } from "node:fs";
const constants = await import(process.argv[2] + "/generated/constants.js");
const source = readFileSync(process.argv[3], "utf-8");
const [pairs, uris] = JSON.parse(process.argv[4]);
const out = {};
for (const [name, hand] of Object.entries(pairs)) {
  const generated = new RegExp(`^${constants[name]}$`);
  out[name] = {
    same: source.includes(`const ${hand} = whole(${name});`),
    matches: uris.map((uri) => { const m = generated.exec(uri); return m ? { ...(m.groups ?? {}) } : null; }),
  };
}
process.stdout.write(JSON.stringify(out));
"""


def test_typescript_patterns_are_the_generated_ones_and_match_as_python_does(built_js: Path, tmp_path: Path) -> None:
    script = tmp_path / "uris.mjs"
    script.write_text(_NODE, encoding="utf-8")
    args = [built_js.parent.as_uri(), str(ROOT / "js" / "src" / "schemas" / "identify.ts"), json.dumps([PAIRS, URIS])]
    run = subprocess.run(["node", str(script), *args], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    answers = json.loads(run.stdout)
    for name in PAIRS:
        assert answers[name]["same"], name
        python = [m.groupdict() if (m := re.fullmatch(getattr(constants, name), uri)) else None for uri in URIS]
        assert answers[name]["matches"] == python, name
    assert any(answers["SCHEMA_URI"]["matches"]) and any(answers["EVALPORT_SCHEMA_URI"]["matches"])
