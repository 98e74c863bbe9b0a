/**
 * A parsed condition (conditions.ts), or the check of an object's names, written as code inside a validator Ajv
 * generates: called from the code of compile.ts's keywords, while Ajv compiles (so Ajv is loaded by then; this
 * module only `require`s its helpers).
 *
 * The code computes whether the value holds into a variable: loop-free conditions as one expression, the others as
 * statements that stop as soon as the answer is known (`&&` / `||` order, a loop's `break`), and that read a member
 * only where the value is an object and an item only where it is an array, as the keywords' semantics say.
 */

import { createRequire } from "node:module";
import type { KeywordCxt } from "ajv/dist/2020.js";
import type * as Codegen from "ajv/dist/compile/codegen/index.js";
import type { Code, Name } from "ajv/dist/compile/codegen/index.js";
import type { Condition, TypeName } from "./conditions.js";

const require = createRequire(import.meta.url);

interface Helpers {
  codegen: typeof Codegen;
  /** A `RegExp` of a pattern in the generated function's scope, as Ajv's `pattern` keyword makes it. */
  usePattern: (cxt: KeywordCxt, pattern: string) => Code;
  /** A function in the generated function's scope (standalone code `require`s it). */
  useFunc: (gen: KeywordCxt["gen"], f: unknown) => Code;
  /** Ajv's deep equality of JSON values (its `const` and `enum` keywords' own). */
  equal: unknown;
}

let helpers: Helpers | undefined;

function load(): Helpers {
  return (helpers ??= {
    codegen: require("ajv/dist/compile/codegen") as typeof Codegen,
    usePattern: (require("ajv/dist/vocabularies/code") as { usePattern: Helpers["usePattern"] }).usePattern,
    useFunc: (require("ajv/dist/compile/util") as { useFunc: Helpers["useFunc"] }).useFunc,
    equal: (require("ajv/dist/runtime/equal") as { default: unknown }).default,
  });
}

function isObjectCode(data: Code): Code {
  const { _ } = load().codegen;
  return _`(${data} !== null && typeof ${data} == "object" && !Array.isArray(${data}))`;
}

function typeCode(name: TypeName, data: Code): Code {
  const { _ } = load().codegen;
  switch (name) {
    case "null":
      return _`${data} === null`;
    case "boolean":
      return _`typeof ${data} == "boolean"`;
    case "string":
      return _`typeof ${data} == "string"`;
    case "number":
      return _`Number.isFinite(${data})`; // Ajv's strictNumbers: a number is finite
    case "integer":
      return _`Number.isInteger(${data})`;
    case "array":
      return _`Array.isArray(${data})`;
    case "object":
      return isObjectCode(data);
  }
}

/** Whether checking `condition` takes a loop (an `items` or `contains` anywhere in it). */
function loops(condition: Condition): boolean {
  switch (condition.kind) {
    case "items":
    case "contains":
      return true;
    case "not":
      return loops(condition.inner);
    case "allOf":
    case "anyOf":
      return condition.branches.some(loops);
    case "properties":
      return condition.members.some(([, inner]) => loops(inner));
    default:
      return false;
  }
}

/** Whether `data` holds `condition`, a condition that takes no loop, as one expression. */
function expression(cxt: KeywordCxt, condition: Condition, data: Code): Code {
  const { codegen, usePattern, useFunc, equal } = load();
  const { _, and, or, not, stringify, getProperty } = codegen;
  switch (condition.kind) {
    case "always":
      return condition.holds ? _`true` : _`false`;
    case "type":
      return or(...condition.names.map((name) => typeCode(name, data)));
    case "equal":
      // `===` for a string, number, boolean or null (JSON numbers are equal by value); Ajv's `equal` for the rest
      return or(
        ...condition.values.map((value) =>
          typeof value === "object" && value !== null ? _`${useFunc(cxt.gen, equal)}(${data}, ${stringify(value)})` : _`${data} === ${stringify(value)}`,
        ),
      );
    case "required":
      // `!== undefined`, as Ajv's generated code tests presence
      return or(not(isObjectCode(data)), and(...condition.names.map((name) => _`${data}${getProperty(name)} !== undefined`)));
    case "pattern":
      // as Ajv's `pattern`: a string only, the RegExp Ajv makes of it (unicode), `test`
      return _`(typeof ${data} != "string" || ${usePattern(cxt, condition.source)}.test(${data}))`;
    case "not":
      return not(expression(cxt, condition.inner, data));
    case "allOf":
    case "anyOf": {
      const branches = condition.branches.map((branch) => expression(cxt, branch, data));
      return condition.kind === "allOf" ? and(...branches) : or(...branches);
    }
    case "properties": {
      const members = condition.members.map(([name, inner]) => {
        const item = _`${data}${getProperty(name)}`;
        return or(_`${item} === undefined`, expression(cxt, inner, item));
      });
      return or(not(isObjectCode(data)), and(...members));
    }
    case "items":
    case "contains":
      throw new Error(`a ${condition.kind} condition takes a loop`);
  }
}

/** Code that sets `out` to whether `data` holds `condition`. */
function assign(cxt: KeywordCxt, condition: Condition, data: Code, out: Name): void {
  const { gen } = cxt;
  const { _, not, getProperty } = load().codegen;
  if (!loops(condition)) {
    gen.assign(out, expression(cxt, condition, data));
    return;
  }
  switch (condition.kind) {
    case "not":
      assign(cxt, condition.inner, data, out);
      gen.assign(out, not(out));
      return;
    case "allOf":
    case "anyOf":
      // each branch only while the answer is open: true so far for allOf, false so far for anyOf
      condition.branches.forEach((branch, i) => {
        if (i === 0) assign(cxt, branch, data, out);
        else gen.if(condition.kind === "allOf" ? out : not(out), () => assign(cxt, branch, data, out));
      });
      return;
    case "properties":
      gen.assign(out, true);
      gen.if(isObjectCode(data), () => {
        condition.members.forEach(([name, inner], i) => {
          const member = (): void => {
            const item = gen.const("item", _`${data}${getProperty(name)}`);
            gen.if(_`${item} !== undefined`, () => assign(cxt, inner, item, out));
          };
          if (i === 0) member();
          else gen.if(out, member);
        });
      });
      return;
    case "items":
    case "contains": {
      // items: true unless an item fails; contains: true when an item holds (either: true of a non-array)
      const items = condition.kind === "items";
      gen.assign(out, true);
      gen.if(_`Array.isArray(${data})`, () => {
        if (!items) gen.assign(out, false);
        const length = gen.const("length", _`${data}.length`);
        gen.forRange("i", 0, length, (i) => {
          const item = gen.const("item", _`${data}[${i}]`);
          assign(cxt, condition.inner, item, out);
          gen.if(items ? not(out) : out, () => gen.break());
        });
      });
      return;
    }
    default:
      throw new Error(`a ${condition.kind} condition takes no loop`);
  }
}

/** Code that computes whether `data` holds `condition`: the name of the variable holding the answer. */
export function conditionCode(cxt: KeywordCxt, condition: Condition, data: Code): Name {
  if (!loops(condition)) return cxt.gen.let("holds", expression(cxt, condition, data));
  const out = cxt.gen.let("holds", true);
  assign(cxt, condition, data, out);
  return out;
}

/** Code that computes whether every key of the object `data` holds `condition` (`propertyNames`). */
export function everyNameCode(cxt: KeywordCxt, condition: Condition, data: Code): Name {
  const { gen } = cxt;
  const { not } = load().codegen;
  const out = gen.let("holds", true);
  gen.forIn("name", data, (name) => {
    assign(cxt, condition, name, out);
    gen.if(not(out), () => gen.break());
  });
  return out;
}

/** Up to this many names, a key is compared with each; past it, looked up in a Set. */
const NAMES_COMPARED = 32;

/**
 * Code that computes whether every key of the object `data` is one of `names` or matches one of `patterns` (the
 * RegExps Ajv makes of them), as `additionalProperties: false` beside `properties` and `patternProperties`.
 */
export function knownNamesCode(cxt: KeywordCxt, names: readonly string[], patterns: readonly string[], data: Code): Name {
  const { gen } = cxt;
  const { _, or, not, stringify } = load().codegen;
  // a key from `for in` is an interned string: comparing it with a name is comparing two pointers, and a few dozen
  // of them cost less than a lookup; past that, a Set
  const set = names.length > NAMES_COMPARED ? gen.scopeValue("obj", { ref: new Set(names), code: _`new Set(${stringify(names)})` }) : null;
  const out = gen.let("known", true);
  gen.forIn("key", data, (key) => {
    const named = set !== null ? [_`${set}.has(${key})`] : names.map((name) => _`${key} === ${name}`);
    const tests = [...named, ...patterns.map((pattern) => _`${load().usePattern(cxt, pattern)}.test(${key})`)];
    const known = tests.length === 0 ? _`false` : or(...tests);
    gen.if(not(known), () => {
      gen.assign(out, false);
      gen.break();
    });
  });
  return out;
}
