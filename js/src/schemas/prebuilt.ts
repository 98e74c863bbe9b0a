/**
 * The fast validators of the working schemas, generated at build time: `npm run build` writes Ajv's standalone code
 * for every kind, with the row arrays it validates in batches, to dist/schemas/prebuilt/<kind>.cjs, and
 * dist/schemas/prebuilt/index.json naming the schemas they come from (scripts/prebuild.mjs, `prebuiltSource` in
 * compile.ts). Loading one kind's file costs a few milliseconds; loading Ajv and compiling cost about 0.3 s of every
 * process's start.
 *
 * A kind's file is loaded the first time a document of that kind is validated. Without the files (`tsc` alone), or
 * when the index's digest is not the schemas' (they changed after the build), every validator is compiled at run
 * time instead: the same answers, later.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { FORMATS } from "./formats.js";

/** The folder of the prebuilt files, beside this module in dist/. */
const PREBUILT_DIR = new URL("./prebuilt/", import.meta.url);

/** What index.json says: the schemas' digest (`SchemaSet.digest`) and the kinds with a file. */
export interface PrebuiltIndex {
  digest: string;
  kinds: string[];
}

/** A prebuilt file's export: given the formats its code refers to, the validator of each tree it holds by name. */
type PrebuiltFile = (formats: unknown) => Readonly<Record<string, (value: unknown) => boolean>>;

const require = createRequire(import.meta.url);
let index: PrebuiltIndex | null | undefined;
const loaded = new Map<string, Readonly<Record<string, (value: unknown) => boolean>>>();

function readIndex(): PrebuiltIndex | null {
  try {
    return JSON.parse(readFileSync(new URL("index.json", PREBUILT_DIR), "utf-8")) as PrebuiltIndex;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null; // built by `tsc` alone: compile at run time
    throw error;
  }
}

/**
 * The prebuilt fast validator of tree `name` (a kind, or one of its row arrays: `partName`) of kind `kind`, if the
 * working schemas, whose digest is `digest`, are the ones it was generated from; else undefined.
 */
export function prebuiltValidator(digest: string, kind: string, name: string): ((value: unknown) => boolean) | undefined {
  if (index === undefined) index = readIndex();
  if (index === null || index.digest !== digest || !index.kinds.includes(kind)) return undefined;
  let validators = loaded.get(kind);
  if (validators === undefined) {
    const file = fileURLToPath(new URL(`${kind}.cjs`, PREBUILT_DIR));
    validators = (require(file) as PrebuiltFile)(FORMATS);
    loaded.set(kind, validators);
  }
  return validators[name];
}
