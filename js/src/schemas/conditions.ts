/**
 * `if` conditions as plain predicates, for the fast validator (see `fastTree` in compile.ts).
 *
 * Why: Ajv evaluates an `if` subschema as a composite rule, and a composite rule that fails allocates an error
 * object (and often an array) even when nobody reads it. Our conditions fail on almost every row ("this row has
 * an `error`", "every grader result is unscored"), so a 100k-row result set allocated over 100 MB of such
 * garbage, and the scavenges it triggered copied the freshly parsed document: the single largest cost of
 * validation. The conditions use a handful of keywords, so they are evaluated here instead, allocation-free.
 *
 * Only the keywords below are supported, each with Ajv's semantics; any other keyword makes `compileCondition`
 * return null and the condition stays an ordinary Ajv `if`. This never decides findings: the fast validator
 * only says whether a document is valid, and the findings of an invalid one come from the all-errors validator
 * over the original schema.
 */

import { isObject, type JsonObject } from "../core/json.js";

export type Predicate = (value: unknown) => boolean;

/** Keywords with no effect on validation. */
const ANNOTATIONS = new Set(["$comment", "description", "title", "examples", "x-rule"]);

/** JSON Schema equality of JSON values (`const`, `enum`): numbers by value, arrays in order, objects by key. */
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => equal(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equal(a[k], b[k]));
  }
  return false;
}

function typeCheck(name: unknown): Predicate | null {
  switch (name) {
    case "null":
      return (v) => v === null;
    case "boolean":
      return (v) => typeof v === "boolean";
    case "string":
      return (v) => typeof v === "string";
    case "number":
      return (v) => Number.isFinite(v); // Ajv's strictNumbers: a number is finite
    case "integer":
      return (v) => Number.isInteger(v);
    case "array":
      return (v) => Array.isArray(v);
    case "object":
      return isObject;
    default:
      return null;
  }
}

/** Whether every predicate holds (plain loops: these run once or more per row and must not allocate). */
function all(checks: readonly Predicate[], v: unknown): boolean {
  for (let i = 0; i < checks.length; i++) if (!checks[i]!(v)) return false;
  return true;
}

function any(checks: readonly Predicate[], v: unknown): boolean {
  for (let i = 0; i < checks.length; i++) if (checks[i]!(v)) return true;
  return false;
}

/** Every check at once, with no layer of calls for one or two (these run for every row and grader result). */
function allOf(checks: readonly Predicate[]): Predicate {
  if (checks.length === 0) return () => true;
  if (checks.length === 1) return checks[0]!;
  if (checks.length === 2) {
    const [a, b] = checks as [Predicate, Predicate];
    return (v) => a(v) && b(v);
  }
  return (v) => all(checks, v);
}

function anyOf(checks: readonly Predicate[]): Predicate {
  if (checks.length === 1) return checks[0]!;
  if (checks.length === 2) {
    const [a, b] = checks as [Predicate, Predicate];
    return (v) => a(v) || b(v);
  }
  return (v) => any(checks, v);
}

/** `equal` to one JSON value: `===` for a string, number, boolean or null (JSON numbers are equal by value). */
function equalTo(item: unknown): Predicate {
  return typeof item === "object" && item !== null ? (v) => equal(v, item) : (v) => v === item;
}

/** One keyword of a condition as a predicate, or null when it is not supported. */
function keywordCheck(keyword: string, value: unknown): Predicate | null {
  switch (keyword) {
    case "const":
      return equalTo(value);
    case "enum": {
      if (!Array.isArray(value) || value.length === 0) return null;
      return anyOf(value.map(equalTo));
    }
    case "type": {
      const names = typeof value === "string" ? [value] : Array.isArray(value) ? value : null;
      const checks = names?.map(typeCheck);
      if (!checks || checks.length === 0 || checks.some((c) => c === null)) return null;
      return anyOf(checks as Predicate[]);
    }
    case "not": {
      const inner = compileCondition(value);
      return inner && ((v) => !inner(v));
    }
    case "required": {
      if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) return null;
      const names = value as string[];
      // `!== undefined`, as Ajv's generated code tests presence
      if (names.length === 1) {
        const name = names[0]!;
        return (v) => !isObject(v) || v[name] !== undefined;
      }
      return (v) => {
        if (!isObject(v)) return true;
        for (let i = 0; i < names.length; i++) if (v[names[i]!] === undefined) return false;
        return true;
      };
    }
    case "properties": {
      if (!isObject(value)) return null;
      const names = Object.keys(value);
      const checks: Predicate[] = [];
      for (const name of names) {
        const check = compileCondition(value[name]);
        if (check === null) return null;
        checks.push(check);
      }
      if (names.length === 1) {
        const [name, check] = [names[0]!, checks[0]!];
        return (v) => {
          if (!isObject(v)) return true;
          const item = v[name];
          return item === undefined || check(item);
        };
      }
      return (v) => {
        if (!isObject(v)) return true;
        for (let i = 0; i < names.length; i++) {
          const item = v[names[i]!];
          if (item !== undefined && !checks[i]!(item)) return false;
        }
        return true;
      };
    }
    case "items": {
      const each = compileCondition(value);
      return (
        each &&
        ((v) => {
          if (!Array.isArray(v)) return true;
          for (let i = 0; i < v.length; i++) if (!each(v[i])) return false;
          return true;
        })
      );
    }
    case "contains": {
      const some = compileCondition(value);
      return (
        some &&
        ((v) => {
          if (!Array.isArray(v)) return true;
          for (let i = 0; i < v.length; i++) if (some(v[i])) return true;
          return false;
        })
      );
    }
    case "pattern": {
      // as Ajv's `pattern` (unicodeRegExp): a string only, `new RegExp(pattern, "u")`, `test` (no global flag)
      if (typeof value !== "string") return null;
      const re = new RegExp(value, "u");
      return (v) => typeof v !== "string" || re.test(v);
    }
    case "allOf":
    case "anyOf": {
      if (!Array.isArray(value) || value.length === 0) return null;
      const branches: Predicate[] = [];
      for (const branch of value) {
        const check = compileCondition(branch);
        if (check === null) return null;
        branches.push(check);
      }
      return keyword === "allOf" ? allOf(branches) : anyOf(branches);
    }
    default:
      return ANNOTATIONS.has(keyword) ? () => true : null;
  }
}

/** A condition subschema as a plain predicate, or null when it uses a keyword not supported here. */
export function compileCondition(schema: unknown): Predicate | null {
  if (typeof schema === "boolean") return () => schema;
  if (!isObject(schema)) return null;
  const checks: Predicate[] = [];
  for (const [keyword, value] of Object.entries(schema as JsonObject)) {
    if (ANNOTATIONS.has(keyword)) continue; // no effect: no check
    const check = keywordCheck(keyword, value);
    if (check === null) return null;
    checks.push(check);
  }
  return allOf(checks);
}

/** Whether every key of an object satisfies `holds` (the fast tree's `propertyNames`; a plain loop, no allocation). */
export function everyName(holds: Predicate): (value: Record<string, unknown>) => boolean {
  return (value) => {
    for (const name in value) if (!holds(name)) return false;
    return true;
  };
}
