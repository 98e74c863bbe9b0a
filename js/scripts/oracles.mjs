// Independent JSON Schema 2020-12 validators ("oracles") for tests/test_oracles.py: none of them is the SDK's.
//
// node js/scripts/oracles.mjs SCHEMA_DIR CORPUS.jsonl
// CORPUS.jsonl holds one {"kind": ..., "text": <the document as JSON text>} per line; the documents are parsed
// here with JSON.parse. Prints one JSON object: {"versions": {...}, "verdicts": {oracle: [true|false|"error: ..."]}}.
// Formats are asserted by every oracle (each with its own format implementation).
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const [schemaDir, corpusPath] = process.argv.slice(2);
const schemas = readdirSync(schemaDir)
  .filter((name) => name.endsWith(".json"))
  .sort()
  .map((name) => JSON.parse(readFileSync(join(schemaDir, name), "utf8")));
const corpus = readFileSync(corpusPath, "utf8")
  .split("\n")
  .filter((line) => line.length > 0)
  .map((line) => JSON.parse(line));
const kindUri = (kind) => schemas.find((s) => s.$id.endsWith(`/${kind}.json`)).$id;
const version = (name) => JSON.parse(readFileSync(join(import.meta.dirname, "..", "node_modules", name, "package.json"), "utf8")).version;

const oracles = {};

// Ajv 8 with ajv-formats (full mode)
{
  const Ajv2020 = require("ajv/dist/2020").default;
  const addFormats = require("ajv-formats");
  const ajv = new Ajv2020({ strict: false, validateFormats: true, allErrors: false });
  addFormats(ajv, { mode: "full" });
  for (const schema of schemas) ajv.addSchema(schema);
  oracles.ajv = { version: `ajv ${version("ajv")} + ajv-formats ${version("ajv-formats")}`, check: (kind) => { const v = ajv.getSchema(kindUri(kind)); return (doc) => v(doc); } };
}

// @cfworker/json-schema
{
  const { Validator } = await import(require.resolve("@cfworker/json-schema"));
  const cache = new Map();
  oracles.cfworker = {
    version: `@cfworker/json-schema ${version("@cfworker/json-schema")}`,
    check: (kind) => {
      if (!cache.has(kind)) {
        const v = new Validator(schemas.find((s) => s.$id === kindUri(kind)), "2020-12", false);
        for (const schema of schemas) v.addSchema(schema);
        cache.set(kind, v);
      }
      const v = cache.get(kind);
      return (doc) => v.validate(doc).valid;
    },
  };
}

// @exodus/schemasafe
{
  const { validator } = require("@exodus/schemasafe");
  const cache = new Map();
  const byId = Object.fromEntries(schemas.map((s) => [s.$id, s]));
  oracles.schemasafe = {
    version: `@exodus/schemasafe ${version("@exodus/schemasafe")}`,
    check: (kind) => {
      if (!cache.has(kind)) {
        cache.set(kind, validator(byId[kindUri(kind)], { schemas: byId, mode: "default", formatAssertion: true, allowUnusedKeywords: true, includeErrors: false }));
      }
      return cache.get(kind);
    },
  };
}

// @hyperjump/json-schema, with its format vocabulary asserting
{
  const hyperjump = await import(require.resolve("@hyperjump/json-schema/draft-2020-12"));
  await import(require.resolve("@hyperjump/json-schema/formats"));
  const core = await import(require.resolve("@hyperjump/json-schema"));
  core.setShouldValidateFormat(true);
  for (const schema of schemas) hyperjump.registerSchema(schema);
  const cache = new Map();
  oracles.hyperjump = {
    version: `@hyperjump/json-schema ${version("@hyperjump/json-schema")}`,
    async prepare(kind) {
      if (!cache.has(kind)) cache.set(kind, await hyperjump.validate(kindUri(kind)));
    },
    check: (kind) => (doc) => cache.get(kind)(doc).valid,
  };
}

// not an oracle: the TypeScript SDK's own schema path, which must give the oracles' verdict
{
  const { check } = await import(new URL("../dist/engine/schemaPath.js", import.meta.url).href);
  const { ruleMessages } = await import(new URL("../dist/engine/stage.js", import.meta.url).href);
  const messages = ruleMessages();
  oracles["evalschema-ts"] = { version: "this repository", check: (kind) => (doc) => check(doc, kind, messages).findings.length === 0 };
}

const verdicts = {};
const versions = {};
for (const [name, oracle] of Object.entries(oracles)) {
  versions[name] = oracle.version;
  const out = [];
  for (const { kind, text } of corpus) {
    try {
      if (oracle.prepare) await oracle.prepare(kind);
      out.push(Boolean(oracle.check(kind)(JSON.parse(text))));
    } catch (error) {
      out.push(`error: ${String(error && error.message ? error.message : error).slice(0, 300)}`);
    }
  }
  verdicts[name] = out;
}
process.stdout.write(JSON.stringify({ versions, verdicts }));
