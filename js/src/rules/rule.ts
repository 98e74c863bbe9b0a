/**
 * Code rules as units bound to their ledger ids (issue 17, item 3; mirrors Python's `Rule`).
 *
 * A `Unit` is an implementation: a stage of the pipeline for one document (or no stage, for codes the reader,
 * identification, the engine or comparison report). A `Rule` binds one ledger id to the unit that reports it; its
 * kinds are the ledger's. A unit may report several ids (a family: one generated from a table of schema
 * annotations, or the per-kind document passes that report several codes). The bindings are the ledger's: it names
 * each code rule's unit, and `bindUnits` (registry.ts) registers the generated table of the rules of each unit
 * against one function per unit name; js/test/registry.test.ts holds the registry to the ledger.
 */

import type { Stage } from "../core/stage.js";
import { RULES } from "../generated/rules.js";
import type { JsonObject } from "../core/json.js";
import type { Kind } from "../schemas/schemas.js";

/**
 * Where a unit runs:
 * - `reader`: read-time codes, reported by the readers (io) for a file that cannot be read or parsed;
 * - `identity`: codes of identifying a document (kind, `$schema`, version), decided before any stage runs;
 * - `engine`: codes the schema engine's stage reports (deprecated locations found while validating);
 * - `document`, `rows`, `crossdoc`, `summary`: stages over a document's members and rows;
 * - `comparison`: codes of comparing result sets (compare/), not of validating one.
 */
export type Family = "reader" | "identity" | "engine" | "document" | "rows" | "crossdoc" | "summary" | "comparison";

/** What a stage may need besides the pieces: the document's kind and the suite given for cross-document rules. */
export interface StageContext {
  readonly kind: Kind;
  readonly suite: JsonObject | null;
  /** The member whose items come as batches of rows (null: the kind has none). */
  readonly rows: string | null;
}

export interface Unit {
  /** The function or family it wraps. */
  readonly name: string;
  readonly family: Family;
  /** The kinds of document it runs on. */
  readonly kinds: readonly Kind[];
  /** A fresh stage for one document, or null when this document needs none (no suite given, say). Absent for a
   * unit that is not a stage. */
  readonly stage?: (context: StageContext) => Stage | null;
}

export interface Rule {
  /** A ledger id. */
  readonly id: string;
  /** The kinds the ledger gives it. */
  readonly kinds: readonly string[];
  readonly unit: Unit;
}

/** Rules bound to units, in the order they were registered. */
export class Registry {
  private readonly bound: Rule[] = [];
  private readonly byKind = new Map<Kind, Unit[]>();

  /** Bind ledger id `id` to `unit`; an id the ledger does not have is refused. */
  register(id: string, unit: Unit): this {
    const entry = (RULES as Readonly<Record<string, { kinds: readonly string[] }>>)[id];
    if (entry === undefined) throw new Error(`${id}: no rule of that id in the ledger`);
    this.bound.push({ id, kinds: entry.kinds, unit });
    this.byKind.clear();
    return this;
  }

  /** Every binding registered here and in `others`, in order. */
  with(...others: Registry[]): Registry {
    const out = new Registry();
    for (const registry of [this, ...others]) out.bound.push(...registry.bound);
    return out;
  }

  rules(): readonly Rule[] {
    return this.bound;
  }

  /** The distinct units, in the order of their first binding. */
  units(): Unit[] {
    return [...new Set(this.bound.map((rule) => rule.unit))];
  }

  /** The units that run as stages on a document of this kind. */
  stageUnits(kind: Kind): Unit[] {
    let units = this.byKind.get(kind);
    if (units === undefined) this.byKind.set(kind, (units = this.units().filter((unit) => unit.stage !== undefined && unit.kinds.includes(kind))));
    return units;
  }
}
