/**
 * The generic rules the schemas declare (`x-unique`, `x-references`): one interpreter for the generated table
 * `ANNOTATED` (written by codegen), mirroring Python's annotated rules.
 *
 * A rule applies at each instance of its `scope` pattern and names paths relative to it: `*` is every item of an
 * array (in order), `~*` every value of an object used as a map (keys in UTF-16 code-unit order); a name is an
 * object member. A value of another type matches nothing, so a schema-invalid document never throws.
 *
 * - `x-unique`: among the items at `items`, those whose `key` members all have the declared type (`string`;
 *   `integer`: a number with no fraction) are keyed by them; each later item with a key already seen is a finding
 *   at its last key member, with the key's message parameters and `first` (the first item's last key member).
 * - `x-references`: each string at `source` (not `""` when `skip_empty`) that equals no string at `target` is a
 *   finding at its own location, its value in parameter `param`.
 *
 * Findings come rule by rule in the table's order. A document with rows (a result set's `results`, streamed in
 * batches) is judged by `AnnotatedRows` — `envelope`, `rows(batch, start)`, `finish` — row by row, with compact
 * state across rows: the first index of each key of a rule whose items are the rows.
 */

import { type Finding, finding, pointer, type Severity } from "../core/findings.js";
import { ANNOTATED, type AnnotatedRule, type KeyMember, type ReferencesRule, type UniqueRule } from "../generated/_annotated.js";
import { RULES } from "../generated/rules.js";
import { get, has, isInt, isObject, type JsonObject } from "../core/json.js";
import { ordered, render } from "../core/messages.js";

export const ARRAY_ITEM = "*";
export const MAP_VALUE = "~*";

type Path = readonly (string | number)[];
type Key = readonly (string | number)[];

/** Every value at the pattern `tokens` below `value` (at `where`), with its path. */
export function* match(value: unknown, tokens: readonly string[], where: Path = [], from = 0): Generator<[Path, unknown]> {
  if (from === tokens.length) {
    yield [where, value];
    return;
  }
  const head = tokens[from]!;
  if (head === ARRAY_ITEM) {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) yield* match(value[i] as unknown, tokens, [...where, i], from + 1);
    }
  } else if (head === MAP_VALUE) {
    if (isObject(value)) {
      for (const name of Object.keys(value).sort()) yield* match(value[name], tokens, [...where, name], from + 1);
    }
  } else if (isObject(value) && has(value, head)) {
    yield* match(value[head], tokens, [...where, head], from + 1);
  }
}

/**
 * `fn` for every value at the pattern `tokens` (from token `from`) below `value`, with its path: `path` itself,
 * extended in place while `fn` runs (copy it to keep it). `match` without a generator or a path per value: the
 * rows' rules run it for every row.
 */
function visit(value: unknown, tokens: readonly string[], from: number, path: (string | number)[], fn: (path: Path, value: unknown) => void): void {
  if (from === tokens.length) {
    fn(path, value);
    return;
  }
  const head = tokens[from]!;
  if (head === ARRAY_ITEM) {
    if (!Array.isArray(value)) return;
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      visit(value[i] as unknown, tokens, from + 1, path, fn);
      path.pop();
    }
  } else if (head === MAP_VALUE) {
    if (!isObject(value)) return;
    for (const name of Object.keys(value).sort()) {
      path.push(name);
      visit(value[name], tokens, from + 1, path, fn);
      path.pop();
    }
  } else if (isObject(value) && has(value, head)) {
    path.push(head);
    visit(value[head], tokens, from + 1, path, fn);
    path.pop();
  }
}

/** `keyText(keyOf(item, key))` without the key's array: null when a key member is missing or of another type. */
function keyTextOf(item: JsonObject, key: readonly KeyMember[]): string | null {
  let out = "";
  for (let i = 0; i < key.length; i++) {
    const m = key[i]!;
    const value = get(item, m.member);
    if (m.type === "string") {
      if (typeof value !== "string") return null;
      out += `s${value.length.toString(16)}:${value}`;
    } else {
      if (!isInt(value)) return null;
      out += `i${value.toString(16)};`;
    }
  }
  return out;
}

/** More rows than this with one first key member: the rest of their keys are looked up by key text. */
const SCAN_LIMIT = 16;

/** No earlier entry with the same first key member (the end of a chain in `FirstRows.earlier`). */
const NONE = -1;

/** A typed array twice as long, its first `used` items copied. */
function grown<T extends Float64Array | Int32Array>(array: T, used: number): T {
  const out = new (array.constructor as new (length: number) => T)(array.length * 2);
  out.set(array.subarray(0, used));
  return out;
}

/**
 * The first row of each key, for a rule whose items are the rows: `firstOf` is called for every row of a result
 * set, so it allocates nothing per row. A key's first row is an entry: its row index and the values of its other
 * key members, in columns (typed arrays for integer members and the index, a list for string members). Entries
 * are found by their first member's value: `byHead` holds the newest entry of each such value, `earlier` chains
 * it to the one before (the few attempts at one test case, say, are scanned); past SCAN_LIMIT entries a value's
 * keys are looked up in a map by key text instead. Equal keys as `keyText` says: strings by value, integers by
 * value. (A list per first member's value, as before, allocated 6 MB more over 100k rows of 33k test cases.)
 */
class FirstRows {
  /** The first member's value → its newest entry, or past SCAN_LIMIT entries a map from key text to row index. */
  private readonly byHead = new Map<unknown, number | Map<string, number>>();
  private size = 0;
  private rowOf = new Float64Array(1024);
  private earlier = new Int32Array(1024);
  /** The other key members' values by entry: `numbers[i]` for an integer member, `texts[i]` for a string one. */
  private readonly numbers: (Float64Array | null)[];
  private readonly texts: (unknown[] | null)[];
  /** The key members of the row `firstOf` is looking at, each read once. */
  private readonly values: unknown[];

  constructor(private readonly key: readonly KeyMember[]) {
    this.numbers = key.map((m, i) => (i > 0 && m.type !== "string" ? new Float64Array(1024) : null));
    this.texts = key.map((m, i) => (i > 0 && m.type === "string" ? [] : null));
    this.values = key.map(() => null);
  }

  /** Whether the row has every key member, of its type (then in `values`). */
  private members(row: JsonObject): boolean {
    for (let i = 0; i < this.key.length; i++) {
      const m = this.key[i]!;
      const value = get(row, m.member);
      if (m.type === "string" ? typeof value !== "string" : !isInt(value)) return false;
      this.values[i] = value;
    }
    return true;
  }

  /** Whether entry `at` has the row's members after the first. */
  private matches(at: number): boolean {
    for (let i = 1; i < this.key.length; i++) {
      const value = this.values[i];
      const numbers = this.numbers[i];
      if (numbers != null ? numbers[at] !== value : this.texts[i]![at] !== value) return false;
    }
    return true;
  }

  /** A new entry for the row, chained to `before`; its number. */
  private add(index: number, before: number): number {
    const at = this.size++;
    if (at === this.rowOf.length) {
      this.rowOf = grown(this.rowOf, at);
      this.earlier = grown(this.earlier, at);
      for (let i = 1; i < this.key.length; i++) if (this.numbers[i] != null) this.numbers[i] = grown(this.numbers[i]!, at);
    }
    this.rowOf[at] = index;
    this.earlier[at] = before;
    for (let i = 1; i < this.key.length; i++) {
      const value = this.values[i];
      const numbers = this.numbers[i];
      if (numbers != null) numbers[at] = value as number;
      else this.texts[i]!.push(value);
    }
    return at;
  }

  /** The first row with this row's key (null: the row has no key; undefined: it is the first, now recorded). */
  firstOf(row: JsonObject, index: number): number | undefined | null {
    if (!this.members(row)) return null;
    const head: unknown = this.values[0];
    const known = this.byHead.get(head);
    if (known === undefined) {
      this.byHead.set(head, this.key.length === 1 ? index : this.add(index, NONE));
      return undefined;
    }
    if (this.key.length === 1) return known as number;
    if (known instanceof Map) {
      const text = keyTextOf(row, this.key)!;
      const first = known.get(text);
      if (first === undefined) known.set(text, index);
      return first;
    }
    let count = 0; // a chain holds at most SCAN_LIMIT entries
    for (let at = known; at !== NONE && count < SCAN_LIMIT; at = this.earlier[at]!, count++) if (this.matches(at)) return this.rowOf[at]!;
    if (count < SCAN_LIMIT) {
      this.byHead.set(head, this.add(index, known));
      return undefined;
    }
    // past the limit: this first member's keys by key text from now on (its entries stay, unreachable)
    const byText = new Map<string, number>();
    for (let at = known, n = 0; at !== NONE && n < SCAN_LIMIT; at = this.earlier[at]!, n++) byText.set(this.keyTextAt(head, at), this.rowOf[at]!);
    byText.set(keyTextOf(row, this.key)!, index);
    this.byHead.set(head, byText);
    return undefined;
  }

  /** The key text of entry `at`, whose first member is `head`. */
  private keyTextAt(head: unknown, at: number): string {
    const key: unknown[] = [head];
    for (let i = 1; i < this.key.length; i++) key.push(this.numbers[i] != null ? this.numbers[i]![at] : this.texts[i]![at]);
    return keyText(key as Key);
  }
}

/** The item's key, or null when it is not an object or a key member is missing or of another type. */
function keyOf(item: unknown, key: readonly KeyMember[]): Key | null {
  if (!isObject(item)) return null;
  const out: (string | number)[] = [];
  for (const m of key) {
    const value = get(item, m.member);
    if (m.type === "string" ? typeof value !== "string" : !isInt(value)) return null;
    out.push(value as string | number);
  }
  return out;
}

/** A key as one string: integers in hex, strings length-prefixed (no separator ambiguity). */
function keyText(key: Key): string {
  let out = "";
  for (const part of key) out += typeof part === "number" ? `i${part.toString(16)};` : `s${part.length.toString(16)}:${part}`;
  return out;
}

function severityOf(rule: string): Severity {
  return (RULES as Readonly<Record<string, { severity: Severity }>>)[rule]!.severity;
}

function duplicate(rule: UniqueRule, path: Path, key: Key, first: string): Finding {
  const params: Record<string, unknown> = { first };
  rule.key.forEach((m, i) => (params[m.param] = key[i]));
  const at = rule.key[rule.key.length - 1]!.member;
  return finding(pointer(...path, at), rule.rule, severityOf(rule.rule), render(rule.rule, params, rule.variant));
}

function* unique(rule: UniqueRule, items: Iterable<[Path, unknown]>): Generator<Finding> {
  const seen = new Map<string, Path>();
  const at = rule.key[rule.key.length - 1]!.member;
  for (const [path, item] of items) {
    const key = keyOf(item, rule.key);
    if (key === null) continue;
    const text = keyText(key);
    const first = seen.get(text);
    if (first === undefined) seen.set(text, path);
    else yield duplicate(rule, path, key, pointer(...first, at));
  }
}

/** Comparisons `allFound` may still make before it gives up (it is reset for each instance of a rule's scope). */
let budget = 0;
const BUDGET = 4096;

/** Whether some string at the pattern `tokens` (from token `from`) below `value` is `wanted`; false also when
 * the budget runs out. */
function anyIs(value: unknown, tokens: readonly string[], from: number, wanted: string): boolean {
  if (from === tokens.length) return budget-- > 0 && value === wanted;
  const head = tokens[from]!;
  if (head === ARRAY_ITEM) {
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) if (anyIs(value[i], tokens, from + 1, wanted)) return true;
  } else if (head === MAP_VALUE) {
    if (isObject(value)) for (const name in value) if (has(value, name) && anyIs(value[name], tokens, from + 1, wanted)) return true;
  } else if (isObject(value) && has(value, head)) return anyIs(value[head], tokens, from + 1, wanted);
  return false;
}

/** Whether each string at the pattern `tokens` (from token `from`) below `value` is found at `rule.target` below
 * `scope`; false when one is not, or when that was too long to decide (the budget ran out). */
function sourcesFound(rule: ReferencesRule, scope: unknown, value: unknown, tokens: readonly string[], from: number): boolean {
  if (from === tokens.length) return typeof value !== "string" || (rule.skip_empty && value === "") || anyIs(scope, rule.target, 0, value);
  const head = tokens[from]!;
  if (head === ARRAY_ITEM) {
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) if (!sourcesFound(rule, scope, value[i], tokens, from + 1)) return false;
  } else if (head === MAP_VALUE) {
    if (isObject(value)) for (const name in value) if (has(value, name) && !sourcesFound(rule, scope, value[name], tokens, from + 1)) return false;
  } else if (isObject(value) && has(value, head)) return sourcesFound(rule, scope, value[head], tokens, from + 1);
  return true;
}

/**
 * Whether an `x-references` rule certainly finds nothing in one instance of its scope: every reference scanned for
 * among the targets, allocating nothing (a few constraint violations against a few grader results, in most rows
 * that have any). A large instance runs out of the budget and is left to `references`' sets.
 */
function allFound(rule: ReferencesRule, value: unknown): boolean {
  budget = BUDGET;
  return sourcesFound(rule, value, value, rule.source, 0);
}

/** The findings of an `x-references` rule in one instance of its scope (`value` at `where`), added to `out`. */
function references(rule: ReferencesRule, value: unknown, where: Path, out: Finding[]): Finding[] {
  if (allFound(rule, value)) return out;
  let targets: Set<string> | null = null; // gathered once a reference is met
  visit(value, rule.source, 0, [...where], (path, ref) => {
    if (typeof ref !== "string" || (rule.skip_empty && ref === "")) return;
    if (targets === null) {
      const found = new Set<string>();
      visit(value, rule.target, 0, [], (_, v) => {
        if (typeof v === "string") found.add(v);
      });
      targets = found;
    }
    if (!targets.has(ref)) out.push(finding(pointer(...path), rule.rule, severityOf(rule.rule), render(rule.rule, { [rule.param]: ref, defined: ordered(targets) }, rule.variant)));
  });
  return out;
}

/** The findings of one rule in one instance of its scope (`value` at `where`). */
export function* ruleFindings(rule: AnnotatedRule, value: unknown, where: Path): Generator<Finding> {
  if (rule.keyword === "x-unique") yield* unique(rule, match(value, rule.items, where));
  else yield* references(rule, value, where, []);
}

/**
 * The findings of a rule whose scope is a row, in one row (at `where`), added to `out`. A function of its own: a
 * closure in `AnnotatedRows.rows`' loop would have it allocate a context for every row, used or not.
 */
function inRow(rule: AnnotatedRule, row: JsonObject, rest: readonly string[], array: string, index: number, out: Finding[]): void {
  if (rule.keyword === "x-references") {
    if (rest.length === 0 && allFound(rule, row)) return; // the row is the scope: no path needed to say so
    visit(row, rest, 0, [array, index], (path, value) => references(rule, value, path, out));
  } else for (const [path, value] of match(row, rest, [array, index])) for (const f of ruleFindings(rule, value, path)) out.push(f);
}

/** The generic rules of a document kind, in reporting order. */
export function rulesOf(kind: string): readonly AnnotatedRule[] {
  return (ANNOTATED as Readonly<Record<string, readonly AnnotatedRule[] | undefined>>)[`${kind}.json`] ?? [];
}

/**
 * Every finding of the generic rules of a whole document; `rows`: the member holding its rows, judged row by row
 * as `AnnotatedRows` does (the same order as a stream).
 */
export function* annotatedRules(kind: string, document: unknown, rows: string | null = null): Generator<Finding> {
  if (rows !== null && isObject(document)) {
    const checker = new AnnotatedRows(kind, rows);
    yield* checker.envelope(document);
    const batch = get(document, rows);
    if (Array.isArray(batch)) yield* checker.rows(batch);
    yield* checker.finish();
    return;
  }
  for (const rule of rulesOf(kind)) {
    for (const [where, value] of match(document, rule.scope)) yield* ruleFindings(rule, value, where);
  }
}

interface RowRule {
  readonly rule: AnnotatedRule;
  readonly rest: readonly string[]; // the pattern inside a row
  readonly seen: FirstRows | null; // a rule over the rows themselves: the first row of each key
  // the member a row must hold for the rule to find anything (and whether it must be non-empty), if any
  readonly guard: readonly [string, boolean] | null;
}

/**
 * The member a row must hold (non-empty when the path goes deeper) for the rule to find anything in it; none when
 * the rows themselves are a rule's items (`FirstRows.firstOf` checks every key member itself).
 */
function guardOf(rule: AnnotatedRule, rest: readonly string[], spans: boolean): readonly [string, boolean] | null {
  const inner: readonly string[] = spans ? rest : [...rest, ...(rule.keyword === "x-unique" ? rule.items : rule.source)];
  const head = inner[0];
  return head !== undefined && head !== ARRAY_ITEM && head !== MAP_VALUE ? [head, inner.length > 1] : null;
}

function empty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.keys(value).length === 0;
  return !value; // as Python's truth: null, false, 0, ""
}

/**
 * The generic rules of a document whose member `array` holds rows fed in batches (mirrors Python's
 * `AnnotatedRows`): `envelope` with the document's other members, `rows` with each batch (`start`: the index of
 * its first row), `finish`. A rule whose scope is a row is applied to each row; a root `x-unique` whose items are
 * the rows keeps the first index of each key across batches; any other rule sees the envelope.
 */
export class AnnotatedRows {
  private readonly envelopeRules: AnnotatedRule[] = [];
  private readonly rowRules: RowRule[] = [];
  private readonly firstPaths = new Map<AnnotatedRule, Map<string, Path>>();

  /** `rules`: only these of the kind's rules (the rules of a suite that look across its test cases, for the cases
   * of its `test_cases_file`), as Python's `AnnotatedRows(rules=…)`. */
  constructor(
    kind: string,
    private readonly array: string,
    rules: readonly AnnotatedRule[] = rulesOf(kind),
  ) {
    for (const rule of rules) {
      const paths = [rule.scope, ...(rule.keyword === "x-unique" ? [rule.items] : [rule.source, rule.target])];
      if (!paths.some((p) => p[0] === array)) this.envelopeRules.push(rule);
      else if (rule.scope[0] === array && rule.scope[1] === ARRAY_ITEM) {
        const rest = rule.scope.slice(2);
        this.rowRules.push({ rule, rest, seen: null, guard: guardOf(rule, rest, false) });
      } else if (rule.keyword === "x-unique" && rule.scope.length === 0 && rule.items[0] === array && rule.items[1] === ARRAY_ITEM) {
        const rest = rule.items.slice(2);
        this.rowRules.push({ rule, rest, seen: new FirstRows(rule.key), guard: guardOf(rule, rest, true) });
      } else throw new Error(`${rule.rule}: a rule over ${JSON.stringify(array)} that cannot be judged row by row`);
    }
  }

  *envelope(members: unknown): Generator<Finding> {
    for (const rule of this.envelopeRules) {
      for (const [where, value] of match(members, rule.scope)) yield* ruleFindings(rule, value, where);
    }
  }

  /** The findings of a batch of rows (`start`: the index of its first row), in row order, then rule order. */
  rows(batch: readonly unknown[], start = 0): Finding[] {
    const out: Finding[] = [];
    const array = this.array;
    const rules = this.rowRules;
    for (let k = 0; k < batch.length; k++) {
      const row: unknown = batch[k];
      if (!isObject(row)) continue;
      const index = start + k;
      for (let r = 0; r < rules.length; r++) {
        const { rule, rest, seen, guard } = rules[r]!;
        if (guard !== null && (!has(row, guard[0]) || (guard[1] && empty(row[guard[0]])))) continue;
        if (seen === null || rule.keyword !== "x-unique") {
          inRow(rule, row, rest, array, index, out);
          continue;
        }
        const at = rule.key[rule.key.length - 1]!.member;
        if (rest.length === 0) {
          // the rows themselves are the items: the first row index of each key
          const first = seen.firstOf(row, index);
          if (first !== undefined && first !== null) out.push(duplicate(rule, [array, index], keyOf(row, rule.key)!, pointer(array, first, at)));
          continue;
        }
        // items below each row: the first path of each key
        let paths = this.firstPaths.get(rule);
        if (paths === undefined) this.firstPaths.set(rule, (paths = new Map()));
        const firsts = paths;
        visit(row, rest, 0, [array, index], (path, item) => {
          if (!isObject(item)) return;
          const text = keyTextOf(item, rule.key);
          if (text === null) return;
          const first = firsts.get(text);
          if (first === undefined) firsts.set(text, [...path]);
          else out.push(duplicate(rule, path, keyOf(item, rule.key)!, pointer(...first, at)));
        });
      }
    }
    return out;
  }

  *finish(): Generator<Finding> {}
}
