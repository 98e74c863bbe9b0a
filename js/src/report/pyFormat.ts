/**
 * Python's number formatting and `json.dumps`, for the outputs the TypeScript command must write byte for byte as
 * the Python command does (`compare`'s text, Markdown and JSON): `format(x, "g")`, `format(x, ".2g")`, a float's
 * `repr` (`1.0`, `1e-05`), and `json.dumps(value, indent=2, ensure_ascii=False)` where a JSON Schema tells which
 * numbers Python holds as floats.
 */

import { fixed } from "../core/display.js";

/** Python's `format(x, f".{precision}g")` (and `format(x, "g")`: precision 6). */
export function general(x: number, precision = 6): string {
  if (!Number.isFinite(x)) return x !== x ? "nan" : x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const exponent = Number(x.toExponential(Math.max(0, precision - 1)).split("e")[1]);
  const trim = (s: string): string => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
  if (exponent >= -4 && exponent < precision) return trim(fixed(x, precision - 1 - exponent));
  const [mantissa, power] = x.toExponential(Math.max(0, precision - 1)).split("e") as [string, string];
  const sign = power.startsWith("-") ? "-" : "+";
  return `${trim(mantissa)}e${sign}${power.replace(/^[+-]/, "").padStart(2, "0")}`;
}

/** Python's `f"{x:+.{digits}f}"` (a negative zero keeps its sign, as in Python). */
export function plusFixed(x: number, digits: number): string {
  const text = fixed(x, digits);
  if (text.startsWith("-")) return text;
  return (Object.is(x, -0) ? "-" : "+") + text;
}

/** Python's `repr` of a float: the shortest round-trip digits, `1.0` for a whole number, `1e-05` / `1e+16` past
 * its fixed-notation range. */
export function floatRepr(x: number): string {
  if (!Number.isFinite(x)) return x !== x ? "nan" : x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, power] = x.toExponential().split("e") as [string, string];
  const exponent = Number(power);
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = x < 0 ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
    const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
    const fraction = digits.slice(exponent + 1);
    return `${sign}${whole}.${fraction || "0"}`;
  }
  const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${body}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
}

type Schema = Record<string, unknown>;

function isRecord(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The schema files a reference into another file (`resultset.json#/$defs/…`) is followed into, by file name. */
let siblings: ReadonlyMap<string, unknown> = new Map();

/** A schema node with its `$ref` (`#/$defs/…`, or `#/$defs/…` in a sibling schema file, as `resultset.json` is to the comparison) followed; `undefined` for
 * a reference it cannot follow. (A sibling's definition is read with its own members only: none of the ones
 * followed into, the comparison's `TestCaseSummary`, has references of its own.) */
function resolved(node: unknown, root: Schema): Schema | undefined {
  let here = node;
  for (let depth = 0; isRecord(here) && typeof here["$ref"] === "string" && depth < 32; depth++) {
    const [file, pointer] = here["$ref"].split("#", 2) as [string, string | undefined];
    if (pointer === undefined || !pointer.startsWith("/$defs/")) return undefined;
    const owner = file === "" ? root : siblings.get(file);
    const defs = isRecord(owner) ? owner["$defs"] : undefined;
    here = isRecord(defs) ? defs[pointer.slice("/$defs/".length)] : undefined;
  }
  return isRecord(here) ? here : undefined;
}

function types(node: Schema | undefined): string[] {
  const type = node?.["type"];
  return typeof type === "string" ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
}

function child(node: Schema | undefined, key: string, root: Schema): Schema | undefined {
  if (node === undefined) return undefined;
  const properties = node["properties"];
  if (isRecord(properties) && Object.prototype.hasOwnProperty.call(properties, key)) return resolved(properties[key], root);
  const extra = node["additionalProperties"];
  return isRecord(extra) ? resolved(extra, root) : undefined;
}

/**
 * `json.dumps(value, indent=2, ensure_ascii=False)` of a document Python built: a number the schema types
 * `number` is a float there (`1.0`), one it types `integer` an int; elsewhere (values copied from an input) a
 * whole number is written as an int.
 */
export function pythonJson(value: unknown, schema: Schema, others: ReadonlyMap<string, unknown> = new Map()): string {
  siblings = others;
  const write = (v: unknown, node: Schema | undefined, indent: string): string => {
    if (v === null || v === undefined) return "null";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "string") return JSON.stringify(v);
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return "null";
      const kinds = types(node);
      const float = kinds.includes("number") || (!kinds.includes("integer") && !Number.isInteger(v));
      return float ? floatRepr(v) : String(v);
    }
    const inner = indent + "  ";
    if (Array.isArray(v)) {
      if (!v.length) return "[]";
      const items = node === undefined ? undefined : resolved(node["items"], schema);
      return "[\n" + v.map((item) => inner + write(item, items, inner)).join(",\n") + "\n" + indent + "]";
    }
    if (isRecord(v)) {
      const keys = Object.keys(v);
      if (!keys.length) return "{}";
      return "{\n" + keys.map((k) => `${inner}${JSON.stringify(k)}: ${write(v[k], child(node, k, schema), inner)}`).join(",\n") + "\n" + indent + "}";
    }
    return "null";
  };
  return write(value, schema, "");
}

/** `json.dumps(value, ensure_ascii=False, sort_keys=True)`: one line, `", "` and `": "` between members. */
export function pythonDumpsSorted(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return !Number.isFinite(value) ? (value !== value ? "NaN" : value > 0 ? "Infinity" : "-Infinity") : Number.isInteger(value) ? String(value) : floatRepr(value);
  if (Array.isArray(value)) return "[" + value.map(pythonDumpsSorted).join(", ") + "]";
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return "{" + keys.map((k) => `${JSON.stringify(k)}: ${pythonDumpsSorted(value[k])}`).join(", ") + "}";
  }
  return "null";
}
