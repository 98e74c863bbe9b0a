// Reading a result set in pieces gives the report reading it whole gives (mirrors tests/test_stream.py).
//
// stream.ts reads the root object's members one by one and `results` in batches; streaming.ts validates the
// batches as they come. For every document here, the streamed report must equal the whole-file report exactly:
// codes, pointers, severities, messages, lines and columns. The reader's sizes are shrunk (chunks of a few
// bytes, batches of two rows) so that every boundary — a chunk ending inside a key, a character, a number, a
// batch ending on the last row — is crossed many times in small documents.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { validateFile, type Kind, type Report } from "evalschema";
import { JS, ROOT, seeded as random } from "./helpers.js";

interface Sizes {
  chunkBytes: number;
  batchItems: number;
  batchBytes: number;
  firstWindow?: number;
}
interface ReadStats {
  largestBuffer: number;
  leaps: number;
  leapRows: number;
  values: number;
}
interface Tuning {
  sizes?: Sizes;
  stats?: ReadStats;
}
interface Options {
  kind?: Kind | null;
  strict?: boolean;
  allowUnknown?: boolean;
  suite?: unknown;
  streamRows?: boolean | null;
}
interface Streaming {
  validateStream: (fd: number, options?: Options, tuning?: Tuning) => Report | null;
  checkFile: (path: string, options?: Options, tuning?: Tuning) => { report: Report; unreadable: boolean };
  summarizeFile: (path: string, options?: { streamRows?: boolean | null }, tuning?: Tuning) => { summary: unknown; fields: unknown } | { code: string };
}
interface Stream {
  DEFAULT_SIZES: Sizes;
  newStats: () => ReadStats;
}

// internal modules, not part of the package's API: loaded from the build by path
const streaming = (await import(pathToFileURL(join(JS, "dist", "pipeline.js")).href)) as Streaming;
const stream = (await import(pathToFileURL(join(JS, "dist", "io", "stream.js")).href)) as Stream;

const dir = mkdtempSync(join(tmpdir(), "evalschema-stream-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let written = 0;
function file(data: string | Buffer): string {
  const path = join(dir, `doc-${written++}.json`);
  writeFileSync(path, data);
  return path;
}

/**
 * Reader sizes: 7-byte chunks, 200-byte batches and 8-byte first windows read rows one by one, each found by
 * doubling windows; 3000-byte batches leap a few rows at a time; the defaults leap over small documents whole.
 */
const SIZES: [string, Sizes][] = [
  ["row-by-row", { chunkBytes: 7, batchItems: 2, batchBytes: 200, firstWindow: 8 }],
  ["small-leaps", { chunkBytes: 64, batchItems: 3, batchBytes: 3000 }],
  ["default", stream.DEFAULT_SIZES],
];

/** The streamed report of a file (which must really be streamed), with these sizes. */
function streamed(path: string, options: Options = {}, tuning: Tuning = {}): Report | null {
  const fd = openSync(path, "r");
  try {
    return streaming.validateStream(fd, options, tuning);
  } finally {
    closeSync(fd);
  }
}

function whole(path: string, options: Options = {}): Report {
  return streaming.checkFile(path, { ...options, streamRows: false }).report;
}

function assertSame(path: string, options: Options, sizes: Sizes, label: string): Report {
  const fromStream = streamed(path, options, { sizes });
  assert.ok(fromStream !== null, `${label}: a result set with a results array is streamed`);
  assert.deepEqual(fromStream, whole(path, options), label);
  return fromStream;
}

// --- writing a document the ways producers write it ---------------------------------------------------------

interface Style {
  indent?: number;
  item?: string;
  key?: string;
  ascii?: boolean;
}

function dumpString(text: string, ascii: boolean): string {
  const out = JSON.stringify(text);
  return ascii ? out.replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")) : out;
}

/** JSON text with Python's `json.dumps` options: an indent, or item and key separators; ASCII only. */
function dump(value: unknown, style: Style, level = 0): string {
  if (typeof value === "string") return dumpString(value, style.ascii ?? false);
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const entries: [string | null, unknown][] = Array.isArray(value) ? value.map((v) => [null, v]) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) return open + close;
  const keySep = style.key ?? (style.indent !== undefined ? ": " : ", ".length ? ": " : ":");
  const parts = entries.map(([k, v]) => (k === null ? "" : dumpString(k, style.ascii ?? false) + keySep) + dump(v, style, level + 1));
  if (style.indent !== undefined) {
    const pad = "\n" + " ".repeat(style.indent * (level + 1));
    return open + pad + parts.join("," + pad) + "\n" + " ".repeat(style.indent * level) + close;
  }
  return open + parts.join(style.item ?? ", ") + close;
}

type Json = Record<string, unknown>;

/** The same document written the ways producers write it. */
function styles(document: Json): [string, string][] {
  const out: [string, string][] = [
    ["compact", dump(document, { item: ",", key: ":", ascii: true })],
    ["indented", dump(document, { indent: 2 })],
    ["spaced", dump(document, { item: " ,\r\n\t", key: " :  " })],
  ];
  if ("results" in document) {
    // rows first, the claimed summary after them
    const reordered: Json = { results: document["results"] };
    for (const [k, v] of Object.entries(document)) if (k !== "results") reordered[k] = v;
    out.push(["results-first", dump(reordered, { indent: 1 })]);
  }
  return out;
}

// --- seeded synthetic result sets (benchmarks/synthetic.py's shape) --------------------------------------------

const GRADERS: [string, string][] = [
  ["exact", "exact_match"],
  ["judge", "llm_judge"],
  ["sim", "semantic_similarity"],
  ["has-date", "regex"],
  ["contains-id", "contains"],
  ["schema", "json_schema"],
  ["path", "json_path"],
];
const WORDS = "the model answered with a grounded summary of the incident and cited the retry storm logs at 03:14 UTC".split(" ");

function row(r: () => number, index: number, attempts: number): Json {
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const out: Json = { test_case_id: `tc-${String(Math.floor(index / attempts)).padStart(6, "0")}` };
  if (attempts > 1) out["attempt"] = (index % attempts) + 1;
  const roll = r();
  if (roll < 0.03) {
    Object.assign(out, { grader_results: [], passed: false, error: { type: "provider_error", message: "HTTP 529 overloaded", code: 529, retryable: true } });
    return out;
  }
  const graders = [...GRADERS].sort(() => r() - 0.5).slice(0, int(3, 7));
  const graderResults = graders.map(([id, type]) => {
    const score = r() < 0.04 ? null : Math.round(r() * 10000) / 10000;
    return { grader_id: id, type, score, passed: score !== null && score >= 0.5, reason: "threshold 0.5", metadata: { latency_ms: int(5, 900) } };
  });
  out["actual_output"] = Array.from({ length: 34 }, () => WORDS[int(0, WORDS.length - 1)]).join(" ").slice(0, 200);
  out["grader_results"] = graderResults;
  let passed = graderResults.every((g) => g.score === null || g.passed) && graderResults.some((g) => g.score !== null);
  if (roll < 0.08) {
    const invalidates = r() < 0.5;
    out["constraint_violations"] = [
      { id: "rbac_scope", type: "authorization", detail: "read outside the granted scope", grader_id: graderResults[0]!.grader_id, invalidates_result: invalidates },
    ];
    passed = passed && !invalidates;
  }
  out["passed"] = passed;
  out["duration_ms"] = int(100, 30000);
  out["completed_at"] = `2026-11-30T09:${String(int(0, 59)).padStart(2, "0")}:${String(int(0, 59)).padStart(2, "0")}Z`;
  out["metadata"] = { "com.example.cost": { input_tokens: int(100, 4000), output_tokens: int(20, 800) }, seed: int(0, 2 ** 31) };
  return out;
}

function header(run: string): Json {
  return {
    $schema: "https://evalschema.org/schema/1.1.0/resultset.json",
    version: "1.1.0",
    suite_id: "bench-suite",
    run_id: run,
    started_at: "2026-11-30T09:00:00Z",
    runner: { name: "bench", version: "1" },
    isolation: "fresh",
  };
}

function resultset(count: number, seed = 20261130, attempts = 3): Json {
  const r = random(seed);
  return { ...header(`bench-${count}`), results: Array.from({ length: count }, (_, i) => row(r, i, attempts)) };
}

/** A result set with a few rows broken the ways producers break them. */
function mutated(r: () => number, document: Json): Json {
  const out = structuredClone(document);
  const rows = out["results"] as Json[];
  const pick = <T>(items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
  for (let n = 1 + Math.floor(r() * 6); n > 0; n--) {
    const target = pick(rows);
    const choice = Math.floor(r() * 7);
    if (choice === 0) target["passed"] = !target["passed"];
    else if (choice === 1) delete target[pick(Object.keys(target).sort())];
    else if (choice === 2) target["unexpected"] = 1;
    else if (choice === 3 && Array.isArray(target["grader_results"]) && target["grader_results"].length > 0) (target["grader_results"][0] as Json)["score"] = null;
    else if (choice === 4) rows.push(structuredClone(target)); // a duplicate (test_case_id, attempt)
    else if (choice === 5) target["constraint_violations"] = [{ id: "c", type: "t", detail: "d", grader_id: "nope", invalidates_result: true }];
    else target["attempt"] = "two";
  }
  if (r() < 0.5) out["summary"] = { total: rows.length + 1, passed: 0, failed: 0, skipped: 0, pass_rate: 0.5, avg_score: null, by_grader: {} };
  if (r() < 0.3) out["group"] = { group_id: "g", parent_group_id: "g" };
  return out;
}

/** Write a result set of `count` rows, compact, row by row. */
function writeResultset(count: number, seed = 20261130): string {
  const r = random(seed);
  const head = JSON.stringify(header(`bench-${count}`));
  const parts = [head.slice(0, -1) + ',"results":['];
  for (let i = 0; i < count; i++) parts.push((i ? "," : "") + JSON.stringify(row(r, i, 3)));
  parts.push("]}");
  return file(parts.join(""));
}

// --- the tests -----------------------------------------------------------------------------------------------

test("the V8 message the reader relies on: where a value ends, in UTF-16 code units", () => {
  // the reader tells "the value ended" from "the window ended" by JSON.parse's message: pin it, so that a
  // Node upgrade that changes it fails here (the reader would still be right, only slower: every value strict)
  assert.throws(() => JSON.parse('{"\u00e9":1} ,'), (error: Error) => /^Unexpected non-whitespace character after JSON at position 8/.test(error.message));
  assert.throws(() => JSON.parse('{"a":[1,2'), (error: Error) => /at position 9|Unexpected end of JSON input/.test(error.message));
});

const examples = readdirSync(join(ROOT, "spec", "examples"))
  .filter((n) => n.startsWith("resultset-") && n.endsWith(".json"))
  .sort();

test("there are result set examples", () => assert.ok(examples.length >= 3));

for (const name of examples) {
  test(`example ${name}: streamed like whole, every style and size`, () => {
    const document = JSON.parse(readFileSync(join(ROOT, "spec", "examples", name), "utf-8")) as Json;
    for (const [style, text] of styles(document)) {
      const path = file(text);
      for (const [label, sizes] of SIZES) assertSame(path, {}, sizes, `${style}, ${label}`);
    }
  });
}

interface Fixture {
  kind: Kind | null;
  document: unknown;
  suite?: unknown;
  options?: { strict?: boolean; allow_unknown?: boolean };
  expect: { valid: boolean };
}

const fixtures = readdirSync(join(ROOT, "spec", "conformance"))
  .filter((n) => n.endsWith(".json"))
  .sort()
  .map((n): [string, Fixture] => [n, JSON.parse(readFileSync(join(ROOT, "spec", "conformance", n), "utf-8")) as Fixture])
  .filter(([, f]) => f.kind === "resultset" && typeof f.document === "object" && f.document !== null && !Array.isArray(f.document));

test("there are result set conformance fixtures", () => assert.ok(fixtures.length >= 50, `only ${fixtures.length}`));

test("conformance fixtures of result sets: streamed like whole, every style and size", () => {
  for (const [name, fixture] of fixtures) {
    const options: Options = {
      kind: "resultset",
      strict: fixture.options?.strict ?? false,
      allowUnknown: fixture.options?.allow_unknown ?? false,
      suite: fixture.suite,
    };
    for (const [style, text] of styles(fixture.document as Json)) {
      const path = file(text);
      for (const [label, sizes] of SIZES) {
        const report = assertSame(path, options, sizes, `${name}, ${style}, ${label}`);
        // and the fixture's own expectation holds on the streamed path
        assert.equal(report.valid, fixture.expect.valid, `${name}, ${style}, ${label}`);
      }
    }
  }
});

test("generated and mutated result sets: streamed like whole, with options", () => {
  const suite = { id: "bench-suite", version: "1.1.0", test_cases: Array.from({ length: 8 }, (_, i) => ({ id: `tc-${String(i).padStart(6, "0")}`, input: "q" })) };
  for (let seed = 0; seed < 12; seed++) {
    const r = random(seed + 1);
    const document = mutated(r, resultset(1 + Math.floor(r() * 40), seed, r() < 0.5 ? 1 : 3));
    for (const [style, text] of styles(document)) {
      const path = file(text);
      for (const [label, sizes] of SIZES) {
        for (const options of [{}, { strict: true }, { suite }] as Options[]) assertSame(path, options, sizes, `seed ${seed}, ${style}, ${label}, ${JSON.stringify(options).slice(0, 20)}`);
      }
    }
  }
});

test("strings that hold JSON, keys and strings that start with a colon, escapes: read fast and exactly", () => {
  const document = resultset(20, 7);
  const rows = document["results"] as Json[];
  rows[2]!["actual_output"] = '{"answer": "42", "nested": {"x":1}}';
  rows[3]!["actual_output"] = ":starts with a colon";
  (rows[4]!["metadata"] as Json)[":odd key"] = '":"';
  (rows[5]!["metadata"] as Json)["tab\there"] = "\u00e9\u20ac\ud83d\ude00 \\ \" / \n";
  (rows[6]!["metadata"] as Json)["deep"] = JSON.parse("[".repeat(300) + "]".repeat(300));
  (rows[7]!["metadata"] as Json)[" :spaced key"] = 'say " : and ":" and "  :';
  rows[8]!["actual_output"] = "  : starts with spaces and a colon";
  // values shaped like the reader's own records are values
  (rows[9]!["metadata"] as Json)["problem"] = { type: "raw", code: "INVALID_JSON", message: "m", offset: 1 };
  document["metadata"] = { type: "raw", code: "INVALID_JSON", message: "m", offset: 1 };
  for (const [style, text] of styles(document)) {
    const path = file(text);
    for (const [label, sizes] of SIZES) assertSame(path, {}, sizes, `${style}, ${label}`);
  }
});

// --- broken text: the same finding, with the same line and column ------------------------------------------------

const BROKEN: [string, string | Buffer, string][] = [
  ["a repeated key inside a row", '{"version":"1.1.0","results":[{"x":1},{"x":1,"x":2}]}', "DUPLICATE_KEY"],
  ["a repeated key at the root, found as it closes", '{"version":"1.1.0","version":"1.1.0","results":[{"x":NaN}]}', "INVALID_JSON"],
  ["a repeated key at the root", '{"version":"1.1.0","version":"1.1.0","results":[]}', "DUPLICATE_KEY"],
  ["a missing comma between rows", '{"results":[{"a":1} {"b":2}]}', "INVALID_JSON"],
  ["a trailing comma", '{"results":[{"a":1},]}', "INVALID_JSON"],
  ["two commas after the first row (read alone), before rows that start alike", '{"results":[{"test_case_id":"a"},,{"test_case_id":"b"}]}', "INVALID_JSON"],
  ["two commas between rows that start alike", '{"results":[{"test_case_id":"a"},{"test_case_id":"b"},,{"test_case_id":"c"},{"test_case_id":"d"}]}', "INVALID_JSON"],
  ["invalid UTF-8 in a row", Buffer.concat([Buffer.from('{"results":[{"a":"'), Buffer.from([0xff]), Buffer.from('"}]}')]), "FILE_UNREADABLE"],
  ["a syntax error, then a bad byte: the bad byte wins", Buffer.concat([Buffer.from('{"results":[{"a":1}, x], "b": "\u00e9'), Buffer.from([0xff]), Buffer.from('"}')]), "FILE_UNREADABLE"],
  ["a character cut short at the end", Buffer.concat([Buffer.from('{"results":[]} '), Buffer.from([0xe2, 0x82])]), "FILE_UNREADABLE"],
  ["NaN", '{"results":[{"a":NaN}]}', "INVALID_JSON"],
  ["1e400", '{"results":[{"a":1e400}]}', "INVALID_JSON"],
  ["nesting past the limit, counted from the root", '{"results":[' + "[".repeat(999) + "]".repeat(999) + "]}", "INVALID_JSON"],
  ["nesting just within the limit: read, and validated", '{"results":[' + "[".repeat(998) + "]".repeat(998) + "]}", "TYPE_MISMATCH"],
  ["nesting past the limit in a member", '{"results":[], "metadata": ' + "[".repeat(1000) + "]".repeat(1000) + "}", "INVALID_JSON"],
  ["text after the root", '{"results":[{"a":1}]} {}', "INVALID_JSON"],
  ["cut short", '{"results":[{"a":1}', "INVALID_JSON"],
  ["cut short in a string", '{"results":[{"a":"abc', "INVALID_JSON"],
  ["cut short after a key", '{"results":[], "a":', "INVALID_JSON"],
  ["a byte-order mark", "\ufeff{}", "INVALID_JSON"],
  ["a key without a colon", '{"a" 1}', "INVALID_JSON"],
  ["an open brace", "{", "INVALID_JSON"],
  ["a 5000-digit number in a member, cut by every window", '{"weight": ' + "9".repeat(5000) + ', "results": []}', "INVALID_JSON"],
  ["a 4200-digit number in a row (too large for a double)", '{"results":[{"a":' + "9".repeat(4200) + "}]}", "INVALID_JSON"],
  ["a 300-digit number in a row (a double)", '{"results":[{"a":' + "9".repeat(300) + "}]}", "UNKNOWN_FIELD"],
  ["a lone surrogate", '{"results":[{"a":"\\ud800"}]}', "UNKNOWN_FIELD"],
  ["a control character in a string", '{"results":[{"a":"\t"}]}', "INVALID_JSON"],
  ["a bad escape", '{"results":[{"a":"\\x"}]}', "INVALID_JSON"],
  ["a number with a leading zero", '{"results":[{"a":01}]}', "INVALID_JSON"],
  ["a repeated key, with spaces before colons", '{"results" : [{"x" : 1, "y" : "\\" :", "x" : 2}]}', "DUPLICATE_KEY"],
  ["a repeated key, and strings that look like keys", '{"results":[{"a":":x", "b":"\\":", "c" :" :", "a":1}]}', "DUPLICATE_KEY"],
  ["a repeated key, with a space written as an escape", '{"results":[{"a":"\\"\\u0020:", "a" :1}]}', "DUPLICATE_KEY"],
  ["a key written with \\u escapes, repeated", '{"results":[{"\\u0061":1,"a":2}]}', "DUPLICATE_KEY"],
  ["a repeated key on a later line", '{\n  "results": [\n    {"test_case_id": "x"},\n    {"test_case_id": "\u00e9", "passed": true, "passed": false}\n  ]\n}', "DUPLICATE_KEY"],
];

test("broken texts give the whole path's single finding, with its line and column", () => {
  for (const [what, text, code] of BROKEN) {
    const path = file(text);
    const expected = whole(path);
    for (const [chunkBytes, firstWindow] of [[3, 8], [7, 4096], [1 << 22, 4096]] as const) {
      const report = streamed(path, {}, { sizes: { chunkBytes, batchItems: 2, batchBytes: 64, firstWindow } });
      assert.ok(report !== null, `${what}: streamed`);
      assert.deepEqual(report, expected, `${what}, ${chunkBytes}-byte chunks`);
      assert.ok(report.errors.some((f) => f.code === code), what);
      // every finding is placed, by either path: a document that cannot be read, and findings of the validation
      assert.ok(report.errors.every((f) => f.line !== undefined && f.column !== undefined), `${what}: placed`);
    }
  }
});

test("broken texts inside a long file (every read ends before the problem, or after it): the whole path's report", () => {
  const padding = "x".repeat(20000);
  for (const [what, text] of BROKEN) {
    const body = Buffer.isBuffer(text) ? text : Buffer.from(text);
    const variants = [
      Buffer.concat([body, Buffer.from(" ".repeat(20000))]),
      body[0] === 0x7b ? Buffer.concat([Buffer.from(`{"pad": "${padding}", `), body.subarray(1)]) : body,
      body[0] === 0x7b ? Buffer.concat([Buffer.from(`{\n "pad": [\n  "${padding}"\n ],\n `), body.subarray(1), Buffer.from("\n".repeat(5000))]) : body,
    ];
    for (const variant of variants) {
      const path = file(variant);
      const expected = whole(path);
      for (const [chunkBytes, firstWindow] of [[7, 8], [7, 4096], [4096, 32]] as const) {
        const report = streamed(path, {}, { sizes: { chunkBytes, batchItems: 2, batchBytes: 64, firstWindow } });
        if (report !== null) assert.deepEqual(report, expected, `${what} (padded), ${chunkBytes}-byte chunks`);
      }
    }
  }
});

test("a problem just after a value that ends near the end of what was read: placed like whole", () => {
  // the value's window is read in; the bytes after the value, where the problem is, are read only then
  for (let length = 4000; length < 4110; length++) {
    for (const broken of [" x", ' "b": 1', ",}", "]", ""]) {
      const path = file(`{"results": [], "a": "${"y".repeat(length)}"${broken}` + " ".repeat(100));
      const report = streamed(path, {}, { sizes: { chunkBytes: 7, batchItems: 2, batchBytes: 64 } });
      assert.deepEqual(report, whole(path), `${length}, ${JSON.stringify(broken)}`);
    }
  }
});

test("keys and strings made of quotes, colons and spaces, repeated keys, any spacing: the whole path's report", () => {
  // the fast path must never take a text with a repeated key: it counts the quote-then-colon marks of the text
  const r = random(Number(process.env["EVALSCHEMA_FUZZ_SEED"] ?? 7));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
  const pieces = ['\\"', ":", " ", "a", "b", "\\\\", "\\u0020", "\\u003a", "\\t", "\u00e9"];
  const word = (): string => Array.from({ length: Math.floor(r() * 4) }, () => pick(pieces)).join("");
  const colon = (): string => pick([":", " :", ": ", "\n:\t", " : "]);
  let repeated = 0;
  for (let round = 0; round < 1.6 * Number(process.env["EVALSCHEMA_FUZZ_ROUNDS"] ?? 250); round++) {
    const rows: string[] = [];
    for (let n = 1 + Math.floor(r() * 4); n > 0; n--) {
      const keys = Array.from({ length: 1 + Math.floor(r() * 3) }, word);
      if (r() < 0.3) keys.push(pick(keys));
      rows.push("{" + keys.map((k) => `"${k}"${colon()}"${word()}"`).join(pick([",", " , ", ",\n"])) + "}");
    }
    const path = file(`{"results"${colon()}[${rows.join(",")}]}`);
    const expected = whole(path);
    if (expected.errors[0]?.code === "DUPLICATE_KEY") repeated++;
    for (const sizes of [{ chunkBytes: 5, batchItems: 2, batchBytes: 60, firstWindow: 8 }, stream.DEFAULT_SIZES]) {
      assert.deepEqual(streamed(path, {}, { sizes }), expected, `round ${round}: ${readFileSync(path, "utf-8")}`);
    }
  }
  assert.ok(repeated > 50, `only ${repeated} texts with a repeated key`);
});

test("randomly broken texts give the whole path's report", () => {
  const base = dump(resultset(6, 20261130, 3), { indent: 1 }).replace(/answered/g, "r\u00e9pondu");
  const inserts: Buffer[] = [
    "{", "}", "[", "]", '"', ":", ",", "\\", Buffer.from([0xff]), Buffer.from([0xc3]), "\ufeff", "NaN", "1e400", "9".repeat(30),
    "\\ud800", '"a":1,', "[".repeat(1001), " ", "\n", "x", '"run_id": "again",', '"passed": true,', "\u20ac",
  ].map((i) => (typeof i === "string" ? Buffer.from(i) : i));
  const r = random(Number(process.env["EVALSCHEMA_FUZZ_SEED"] ?? 42));
  const data = Buffer.from(base);
  let compared = 0;
  for (let round = 0; round < Number(process.env["EVALSCHEMA_FUZZ_ROUNDS"] ?? 250); round++) {
    let text = data;
    for (let edits = 1 + Math.floor(r() * 3); edits > 0; edits--) {
      const at = Math.floor(r() * (text.length + 1));
      const remove = Math.floor(r() * 4);
      const insert = inserts[Math.floor(r() * inserts.length)]!;
      text = Buffer.concat([text.subarray(0, at), insert, text.subarray(Math.min(text.length, at + remove))]);
    }
    const path = file(text);
    const expected = whole(path);
    for (const [chunkBytes, firstWindow] of [[5, 8], [13, 64], [64, 4096], [1 << 22, 4096]] as const) {
      const report = streamed(path, {}, { sizes: { chunkBytes, batchItems: 2, batchBytes: 1 << 21, firstWindow } });
      if (report === null) continue; // not an object with a results array: read whole
      assert.deepEqual(report, expected, `round ${round}, ${chunkBytes}-byte chunks: ${text.toString("latin1").slice(0, 200)}`);
      compared++;
    }
  }
  assert.ok(compared > 500, `only ${compared} compared`);
});

test("what cannot be streamed is read whole, with the same report", () => {
  const cases: Record<string, string> = {
    array: "[1, 2]",
    "no results": '{"run_id": "r"}',
    "results not an array": '{"results": 3}',
    "a pack with results": JSON.stringify({ prompts: {}, results: [] }),
    empty: "",
    "a suite by its $schema": JSON.stringify({ $schema: "https://evalschema.org/schema/1.1.0/suite.json", results: [] }),
  };
  for (const [name, text] of Object.entries(cases)) {
    const path = file(text);
    let declined: boolean;
    try {
      declined = streamed(path) === null;
    } catch {
      declined = false;
    }
    assert.ok(declined, name);
    assert.deepEqual(validateFile(path, { streamRows: true }), validateFile(path, { streamRows: false }), name);
  }
  // a kind other than a result set is never streamed
  const path = file(JSON.stringify(resultset(3)));
  assert.equal(streamed(path, { kind: "suite" }), null);
  assert.deepEqual(validateFile(path, { kind: "suite", streamRows: true }), validateFile(path, { kind: "suite", streamRows: false }));
});

test("memory is bounded by a batch, not the file", () => {
  const path = writeResultset(6000);
  const size = statSync(path).size;
  assert.ok(size > 5_000_000, `only ${size} bytes`);
  const stats = stream.newStats();
  const report = streamed(path, {}, { sizes: { chunkBytes: 16 << 10, batchItems: 1000, batchBytes: 64 << 10 }, stats });
  assert.ok(report !== null && report.valid, JSON.stringify(report?.errors.slice(0, 3)));
  assert.ok(stats.largestBuffer < 256 << 10, `the buffer grew to ${stats.largestBuffer} bytes for a ${size}-byte file`);
  assert.deepEqual(report, whole(path));
});

test("batches are found in one step when rows start alike", () => {
  const path = writeResultset(3000);
  const size = statSync(path).size;
  const stats = stream.newStats();
  const report = streamed(path, {}, { sizes: { ...stream.DEFAULT_SIZES, batchBytes: 64 << 10 }, stats });
  assert.ok(report !== null && report.valid);
  assert.ok(stats.leaps >= Math.floor(size / (64 << 10)) - 1, `${stats.leaps} leaps for ${size} bytes`);
  assert.ok(stats.leapRows >= 2990, `only ${stats.leapRows} rows leapt over`);
  // the root's keys and members, the first row, the last
  assert.ok(stats.values < 40, `${stats.values} values read one by one`);
});

test("summarizeFile: the same summary streamed or whole", () => {
  const document = mutated(random(3), resultset(200, 5));
  for (const [style, text] of styles(document)) {
    const path = file(text);
    for (const [label, sizes] of SIZES) {
      const one = streaming.summarizeFile(path, { streamRows: true }, { sizes });
      assert.deepEqual(one, streaming.summarizeFile(path, { streamRows: false }), `${style}, ${label}`);
    }
  }
  const cut = file('{"results":[{"a":1}');
  assert.deepEqual(streaming.summarizeFile(cut, { streamRows: true }), streaming.summarizeFile(cut, { streamRows: false }));
  const notArray = file('{"results": 3, "run_id": "x"}');
  assert.deepEqual(streaming.summarizeFile(notArray, { streamRows: true }), streaming.summarizeFile(notArray, { streamRows: false }));
});

test("the command line: --stream always and never give the same output and exit status", () => {
  const CLI = join(JS, "dist", "cli.js");
  const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf-8" });
  const document = JSON.parse(readFileSync(join(ROOT, "spec", "examples", "resultset-multi-attempt.json"), "utf-8")) as Json;
  const rows = document["results"] as Json[];
  const many: Json[] = [];
  for (let i = 0; i < 300; i++) for (const r of rows) many.push({ ...r, test_case_id: `${String(r["test_case_id"])}-${i}` });
  many[7]!["passed"] = "yes";
  many[many.length - 1]!["attempt"] = 0;
  many.push(many[3]!); // a duplicate (test_case_id, attempt)
  document["results"] = many;
  document["summary"] = { total: 1, passed: 1, failed: 0, skipped: 0, pass_rate: 1.0, avg_score: 1.0, by_grader: {} };
  const text = JSON.stringify(document, null, 2);
  const big = file(text);
  const cut = file(text.slice(0, text.length >> 1));
  for (const [path, status] of [[big, 1], [cut, 2]] as const) {
    const always = run("validate", "--format", "json", "--stream", "always", path);
    const never = run("validate", "--format", "json", "--stream=never", path);
    assert.equal(always.status, status, always.stderr);
    assert.equal(never.status, status, never.stderr);
    assert.equal(always.stdout, never.stdout);
    assert.ok(JSON.parse(always.stdout).files[0].errors.length > 0);
  }
  // the result set is invalid: summarize refuses it unless forced (exit status 1 either way)
  const summaries = ["always", "never"].map((mode) => run("summarize", "--force", "--format", "json", "--stream", mode, big));
  assert.equal(summaries[0]!.status, 1, summaries[0]!.stderr);
  assert.equal(summaries[0]!.stdout, summaries[1]!.stdout);
  assert.equal(JSON.parse(summaries[0]!.stdout)[0].summary.total, many.length);
  const cutSummaries = ["always", "never"].map((mode) => run("summarize", "--stream", mode, cut));
  assert.equal(cutSummaries[0]!.status, 2);
  assert.equal(cutSummaries[0]!.stderr, cutSummaries[1]!.stderr);
  assert.equal(run("validate", "--stream", "sometimes", big).status, 2);
});
