"""The yardstick of the generated models: the official JSON-Schema-Test-Suite (draft 2020-12) run through codegen.

Each test group's schema is written as the only file of a schema folder and generated (the Python target alone);
every test instance of the group then goes through the root model's ``model_validate`` and its verdict (accepted,
or ``pydantic.ValidationError``) is compared with the suite's ``valid`` flag; a valid instance must also dump back
(``model_dump(mode="json")``) to itself by JSON equality, or it is a "round trip" disagreement. A group that codegen refuses counts
its tests as "no model"; any other exception is a "crash". Both are disagreements.

The suite comes from the source distribution of the pinned python-jsonschema, unpacked by ``noxw`` into
``.venv/json-schema-test-suite`` (``JSON_SCHEMA_TEST_SUITE`` names another copy); nothing is fetched here.

The TypeScript target is run the same way (``run_all_ts``): every group's generated module written to one folder,
compiled by one ``tsc --strict`` run (the ``typescript`` of ``js/node_modules``, which also gives Ajv), then every
instance goes through the root type's guard ``isX`` and, so that both agree, ``validateX`` (one ``node`` run).

The Go target is run the same way (``run_all_go``): every group's package in one module, one ``go build``, every
instance decoded into the root type by ``encoding/json`` (a refusal is a reject) then checked by its ``Validate()``.

``python tests/codegen/official_tests.py`` prints the agreement by keyword (the ``models_official_tests`` nox session).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SUITE = Path(os.environ.get("JSON_SCHEMA_TEST_SUITE", REPO / ".venv" / "json-schema-test-suite"))

# the keywords a model generator meets (issue 41), each the name of a file of tests/draft2020-12
KEYWORDS = (
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "const",
    "items",
    "prefixItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "allOf",
    "anyOf",
    "oneOf",
    "ref",
    "defs",
    "default",
    "minItems",
    "maxItems",
    "multipleOf",
    "uniqueItems",
    "patternProperties",
    "boolean_schema",
)


# each draft's folder of the suite -> its meta-schema URI (given to a test schema without "$schema": the suite's
# schemas of the older drafts mostly omit it, and codegen reads a file without it as 2020-12)
DRAFTS = {
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft7": "http://json-schema.org/draft-07/schema#",
    "draft6": "http://json-schema.org/draft-06/schema#",
    "draft4": "http://json-schema.org/draft-04/schema#",
}
# a keyword's file in the drafts before 2019-09
OLDER_NAMES = {"defs": "definitions"}


@dataclass(frozen=True)
class Case:
    keyword: str
    group: str
    test: str
    valid: bool


@dataclass
class Outcome:
    """Every test of one keyword file, by how the model's verdict compares with the suite's."""

    agree: list[Case] = field(default_factory=list)
    false_accept: list[Case] = field(default_factory=list)
    false_reject: list[Case] = field(default_factory=list)
    no_model: list[tuple[Case, str]] = field(default_factory=list)
    crash: list[tuple[Case, str]] = field(default_factory=list)
    # accepted as the suite says, but the dump is not the document (by JSON equality: 1 = 1.0, 0 != false)
    rewritten: list[tuple[Case, str]] = field(default_factory=list)

    @property
    def total(self) -> int:
        lists = (self.agree, self.false_accept, self.false_reject, self.no_model, self.crash, self.rewritten)
        return sum(len(x) for x in lists)

    def disagreements(self) -> Iterator[tuple[str, Case]]:
        yield from (("false accept", c) for c in self.false_accept)
        yield from (("false reject", c) for c in self.false_reject)
        yield from (("no model", c) for c, _ in self.no_model)
        yield from (("crash", c) for c, _ in self.crash)
        yield from (("round trip", c) for c, _ in self.rewritten)


def json_equal(a: Any, b: Any) -> bool:
    """JSON's equality: numbers by value (1 = 1.0), never a boolean for a number (0 != false)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and bool(a == b)


def _ident(keyword: str) -> str:
    """A keyword file's name as a part of a package name (``optional/format/date-time`` → ``optional_format_date_time``)."""
    return "".join(c if c.isalnum() else "_" for c in keyword)


def suite_folder(draft: str = "draft2020-12") -> Path:
    folder = SUITE / "tests" / draft
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is missing: ./noxw --list unpacks the JSON-Schema-Test-Suite there")
    return folder


def keyword_file(keyword: str, draft: str = "draft2020-12") -> Path:
    name = OLDER_NAMES.get(keyword, keyword) if draft in ("draft7", "draft6", "draft4") else keyword
    return suite_folder(draft) / f"{name}.json"


def groups(keyword: str, draft: str = "draft2020-12") -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(keyword_file(keyword, draft).read_text(encoding="utf-8"))
    for group in data:
        if isinstance(group["schema"], dict) and "$schema" not in group["schema"]:
            group["schema"] = {"$schema": DRAFTS[draft], **group["schema"]}
    return data


def _generate(schema: Any, work: Path, package: str) -> type[Any]:
    """The root model of ``schema`` generated as the package ``package`` under ``work`` (on ``sys.path``)."""
    from codegen.ir import build
    from codegen.load import load
    from codegen.targets import python

    folder = work / f"{package}_schemas"
    folder.mkdir()
    (folder / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    schemas = load(folder)
    files = python.render(build(schemas), schemas)
    (work / package).mkdir()
    for name, content in files.items():
        (work / package / name).write_bytes(content)
    # the model of schema.json's root (the export from the module "schema"), not the first export: a meta-schema the
    # schema references is a module of the package too
    package_module = importlib.import_module(package)
    exports = [name for name, where in package_module._EXPORTS.items() if where.partition(":")[0] == "schema"]
    if len(exports) != 1:
        raise LookupError(f"{package} exports {len(exports)} root models of schema.json")
    root: type[Any] = getattr(package_module, exports[0])
    return root


def run(keyword: str, work: Path, draft: str = "draft2020-12") -> Outcome:
    from pydantic import ValidationError

    from codegen.load import SchemaError

    outcome = Outcome()
    for index, group in enumerate(groups(keyword, draft)):
        cases = [Case(keyword, group["description"], test["description"], bool(test["valid"])) for test in group["tests"]]
        try:
            model = _generate(group["schema"], work, f"suite_{draft.replace('-', '_')}_{_ident(keyword)}_{index}")
        except SchemaError as exc:
            outcome.no_model.extend((case, str(exc)) for case in cases)
            continue
        except Exception as exc:  # generated but unusable (e.g. fails at import): recorded, never hidden
            outcome.crash.extend((case, f"{type(exc).__name__}: {exc}") for case in cases)
            continue
        for case, test in zip(cases, group["tests"]):
            try:
                dumped = model.model_validate(test["data"]).model_dump(mode="json")
                accepted = True
            except ValidationError:
                accepted = False
            except Exception as exc:  # a crash is a disagreement of its own, recorded with its message
                outcome.crash.append((case, f"{type(exc).__name__}: {exc}"))
                continue
            if accepted and case.valid and not json_equal(dumped, test["data"]):
                outcome.rewritten.append((case, f"dumped as {json.dumps(dumped)}"))
            elif accepted == case.valid:
                outcome.agree.append(case)
            elif accepted:
                outcome.false_accept.append(case)
            else:
                outcome.false_reject.append(case)
    return outcome


def run_all(keywords: tuple[str, ...] = KEYWORDS, draft: str = "draft2020-12") -> dict[str, Outcome]:
    """Every keyword of ``keywords`` that ``draft`` has."""
    with tempfile.TemporaryDirectory(prefix="codegen-suite-") as tmp:
        sys.path.insert(0, tmp)
        try:
            return {keyword: run(keyword, Path(tmp), draft) for keyword in keywords if keyword_file(keyword, draft).is_file()}
        finally:
            sys.path.remove(tmp)


JS = REPO / "js"
# imports every group's compiled module and prints, per test, "accept", "reject" or "crash: <message>" as JSON
_TS_RUNNER = """
import { readFileSync } from "node:fs";
const cases = JSON.parse(readFileSync(process.argv[2], "utf-8"));
const verdicts = [];
for (const group of cases) {
  let module;
  try {
    module = await import(new URL(`./dist/${group.dir}/${group.stem}.js`, import.meta.url).href);
  } catch (error) {
    verdicts.push(group.tests.map(() => `crash: ${error}`));
    continue;
  }
  verdicts.push(group.tests.map((data) => {
    try {
      const accepted = module[`is${group.root}`](data);
      const found = module[`validate${group.root}`](data);
      if (accepted !== (found.length === 0)) return `crash: is${group.root} and validate${group.root} disagree`;
      return accepted ? "accept" : "reject";
    } catch (error) {
      return `crash: ${error}`;
    }
  }));
}
process.stdout.write(JSON.stringify(verdicts));
"""
_TS_CONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "lib": ["ES2022"],
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "strict": True,
        "noUncheckedIndexedAccess": True,
        "rootDir": "src",
        "outDir": "dist",
        "types": ["node"],
        "skipLibCheck": True,
    },
    "include": ["src/**/*.ts"],
}


def run_all_ts(keywords: tuple[str, ...] = KEYWORDS, draft: str = "draft2020-12") -> dict[str, Outcome]:
    """Every keyword of ``keywords`` that ``draft`` has, through the generated TypeScript guards."""
    from codegen.ir import build
    from codegen.load import SchemaError, load
    from codegen.targets import typescript

    tsc = JS / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        raise FileNotFoundError(f"{tsc} is missing: npm ci --prefix js installs it")
    outcomes: dict[str, Outcome] = {}
    with tempfile.TemporaryDirectory(prefix="codegen-suite-ts-") as tmp:
        work = Path(tmp)
        (work / "node_modules").symlink_to(JS / "node_modules", target_is_directory=True)
        (work / "tsconfig.json").write_text(json.dumps(_TS_CONFIG), encoding="utf-8")
        (work / "package.json").write_text('{"type": "module"}', encoding="utf-8")
        (work / "runner.mjs").write_text(_TS_RUNNER, encoding="utf-8")
        compiled: list[tuple[list[Case], dict[str, Any]]] = []
        for keyword in keywords:
            if not keyword_file(keyword, draft).is_file():
                continue
            outcome = outcomes[keyword] = Outcome()
            for index, group in enumerate(groups(keyword, draft)):
                cases = [Case(keyword, group["description"], t["description"], bool(t["valid"])) for t in group["tests"]]
                folder = work / "schemas" / f"{_ident(keyword)}_{index}"
                folder.mkdir(parents=True)
                (folder / "schema.json").write_text(json.dumps(group["schema"]), encoding="utf-8")
                try:
                    schemas = load(folder)
                    ir = build(schemas)
                    files = typescript.render(ir, schemas)
                except SchemaError as exc:
                    outcome.no_model.extend((case, str(exc)) for case in cases)
                    continue
                module = ir.modules[0]
                if module.root is None:
                    outcome.no_model.extend((case, "no root type") for case in cases)
                    continue
                out = work / "src" / f"{_ident(keyword)}_{index}"
                out.mkdir(parents=True)
                for name, content in files.items():
                    (out / name).write_bytes(content)
                compiled.append(
                    (cases, {"dir": out.name, "stem": module.stem, "root": module.root, "tests": [t["data"] for t in group["tests"]]})
                )
        built = subprocess.run([str(tsc), "-p", str(work)], capture_output=True, text=True, check=False)
        if built.returncode != 0:
            raise RuntimeError(f"the generated TypeScript does not compile:\n{built.stdout}{built.stderr}")
        (work / "cases.json").write_text(json.dumps([c for _, c in compiled]), encoding="utf-8")
        ran = subprocess.run(["node", str(work / "runner.mjs"), str(work / "cases.json")], capture_output=True, text=True, check=False)
        if ran.returncode != 0:
            raise RuntimeError(f"the guards' runner failed:\n{ran.stderr}")
        for (cases, _), verdicts in zip(compiled, json.loads(ran.stdout), strict=True):
            for case, verdict in zip(cases, verdicts, strict=True):
                outcome = outcomes[case.keyword]
                if verdict.startswith("crash"):
                    outcome.crash.append((case, verdict))
                elif (verdict == "accept") == case.valid:
                    outcome.agree.append(case)
                elif verdict == "accept":
                    outcome.false_accept.append(case)
                else:
                    outcome.false_reject.append(case)
    return outcomes


_GO_MAIN_HEAD = """package main

import (
	"encoding/json"
	"fmt"
	"os"
%s)

// verdict runs one test: "accept", "reject" (the decoding or Validate refused it) or "crash: ..." (a panic).
func verdict(check func([]byte) error, data []byte) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("crash: %%v", r)
		}
	}()
	if check(data) != nil {
		return "reject"
	}
	return "accept"
}

func main() {
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var groups [][]json.RawMessage
	if err := json.Unmarshal(raw, &groups); err != nil {
		panic(err)
	}
	checks := []func([]byte) error{
"""
_GO_MAIN_TAIL = """	}
	verdicts := make([][]string, len(groups))
	for i, tests := range groups {
		for _, data := range tests {
			verdicts[i] = append(verdicts[i], verdict(checks[i], data))
		}
	}
	out, _ := json.Marshal(verdicts)
	os.Stdout.Write(out)
}
"""


def run_all_go(keywords: tuple[str, ...] = KEYWORDS, draft: str = "draft2020-12") -> dict[str, Outcome]:
    """Every keyword of ``keywords`` that ``draft`` has, through the generated Go types: each test decoded into the
    root type with ``encoding/json`` (a refusal is a reject), then its ``Validate()`` (``Validate<Name>`` for an
    alias). Every group is one package of one module, built and run once, offline."""
    import re

    from codegen.ir import build
    from codegen.load import SchemaError, load
    from codegen.targets import go

    outcomes: dict[str, Outcome] = {}
    with tempfile.TemporaryDirectory(prefix="codegen-suite-go-") as tmp:
        work = Path(tmp)
        (work / "go.mod").write_text(f"module suite\n\ngo {go.GO_VERSION}\n", encoding="utf-8")
        compiled: list[tuple[list[Case], str, list[Any]]] = []
        for keyword in keywords:
            if not keyword_file(keyword, draft).is_file():
                continue
            outcome = outcomes[keyword] = Outcome()
            for index, group in enumerate(groups(keyword, draft)):
                cases = [Case(keyword, group["description"], t["description"], bool(t["valid"])) for t in group["tests"]]
                package = f"g_{_ident(keyword).lower()}_{index}"
                folder = work / "schemas" / package
                folder.mkdir(parents=True)
                (folder / "schema.json").write_text(json.dumps(group["schema"]), encoding="utf-8")
                try:
                    schemas = load(folder)
                    files = go.render(build(schemas), schemas, {"package": package})
                except SchemaError as exc:
                    outcome.no_model.extend((case, str(exc)) for case in cases)
                    continue
                found = re.search(r"return new\((\w+)\)", files["roundtrip_test.go"].decode())
                if found is None:
                    outcome.no_model.extend((case, "no root type") for case in cases)
                    continue
                root = found.group(1)
                out = work / package
                out.mkdir()
                for name, content in files.items():
                    if name.endswith(".gen.go"):
                        (out / name).write_bytes(content)
                alias = any(f"func Validate{root}(v {root}) error".encode() in c for c in files.values())
                check = f"{package}.Validate{root}(v)" if alias else "v.Validate()"
                compiled.append(
                    (
                        cases,
                        f"\t\tfunc(data []byte) error {{\n\t\t\tvar v {package}.{root}\n"
                        f"\t\t\tif err := json.Unmarshal(data, &v); err != nil {{\n\t\t\t\treturn err\n\t\t\t}}\n"
                        f"\t\t\treturn {check}\n\t\t}},\n",
                        [t["data"] for t in group["tests"]],
                    )
                )
        imports = "".join(f'\t"suite/{p}"\n' for p in sorted({c[1].split("var v ")[1].split(".")[0] for c in compiled}))
        main = _GO_MAIN_HEAD % imports + "".join(c[1] for c in compiled) + _GO_MAIN_TAIL
        (work / "main.go").write_text(main, encoding="utf-8")
        (work / "cases.json").write_text(json.dumps([c[2] for c in compiled]), encoding="utf-8")
        env = {**os.environ, "GOWORK": "off", "GOPROXY": "off", "GOFLAGS": "", "GOTOOLCHAIN": "local"}
        built = subprocess.run(["go", "build", "-o", "suite", "."], cwd=work, env=env, capture_output=True, text=True, check=False)
        if built.returncode != 0:
            raise RuntimeError(f"the generated Go does not compile:\n{built.stdout}{built.stderr[-6000:]}")
        ran = subprocess.run([str(work / "suite"), str(work / "cases.json")], capture_output=True, text=True, check=False)
        if ran.returncode != 0:
            raise RuntimeError(f"the Go runner failed:\n{ran.stderr[-4000:]}")
        for (cases, _, _), verdicts in zip(compiled, json.loads(ran.stdout), strict=True):
            for case, verdict in zip(cases, verdicts, strict=True):
                outcome = outcomes[case.keyword]
                if verdict.startswith("crash"):
                    outcome.crash.append((case, verdict))
                elif (verdict == "accept") == case.valid:
                    outcome.agree.append(case)
                elif verdict == "accept":
                    outcome.false_accept.append(case)
                else:
                    outcome.false_reject.append(case)
    return outcomes


def table(outcomes: dict[str, Outcome]) -> str:
    head = ("keyword", "tests", "agree", "false accept", "false reject", "no model", "crash", "round trip")
    rows: list[tuple[str, ...]] = [head]
    for keyword, o in outcomes.items():
        kinds = (o.false_accept, o.false_reject, o.no_model, o.crash, o.rewritten)
        rows.append((keyword, str(o.total), str(len(o.agree)), *(str(len(x)) for x in kinds)))
    total = [sum(int(row[i]) for row in rows[1:]) for i in range(1, len(head))]
    rows.append(("all", *(str(n) for n in total)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))) for row in rows)


def _print(title: str, outcomes: dict[str, Outcome]) -> None:
    """One table of agreement by keyword, then each disagreement."""
    print(title)
    print(table(outcomes))
    for outcome in outcomes.values():
        for kind, case in outcome.disagreements():
            print(f"  {kind}: {case.keyword}: {case.group} / {case.test}")
    print()


def main(argv: list[str]) -> int:
    keywords = tuple(argv) or KEYWORDS
    for runner, what in (
        (run_all, "Python models (model_validate)"),
        (run_all_go, "Go types (encoding/json, then Validate)"),
        (run_all_ts, "TypeScript guards (isX)"),
    ):
        for draft in DRAFTS:
            _print(f"JSON-Schema-Test-Suite {draft}, {what} against the suite's verdicts:", runner(keywords, draft))
    if not argv:
        formats = tuple(f"optional/format/{path.stem}" for path in sorted((suite_folder() / "optional" / "format").glob("*.json")))
        for language, runner in (("Python models", run_all), ("Go types", run_all_go), ("TypeScript guards", run_all_ts)):
            _print(f"JSON-Schema-Test-Suite draft2020-12 optional/format (format asserted), {language}:", runner(formats))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise SystemExit(main(sys.argv[1:]))
