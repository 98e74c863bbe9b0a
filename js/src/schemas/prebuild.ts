/**
 * What scripts/prebuild.mjs writes at build time (see prebuilt.ts): one file of fast validators per kind, and the
 * index naming the schemas they come from. Never imported at run time.
 */

import { prebuiltSource } from "./compile.js";
import type { PrebuiltIndex } from "./prebuilt.js";
import { current, fastTreeOf, KINDS, partName } from "./schemas.js";
import { isObject } from "../core/json.js";
import { ROWS_STAND_ALONE } from "../generated/_rows.js";

/** The prebuilt files by name (`<kind>.cjs`, then `index.json`) and their contents. */
export function prebuildFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const kind of KINDS) {
    const fast = fastTreeOf(kind);
    const trees = new Map<string, unknown>([[kind, fast]]);
    // the row arrays validated in batches (generated/_rows.ts), each from its place in the kind's fast tree
    for (const [array, standsAlone] of Object.entries(ROWS_STAND_ALONE[`${kind}.json`] ?? {})) {
      const properties = isObject(fast) ? fast["properties"] : undefined;
      const part = isObject(properties) ? properties[array] : undefined;
      if (standsAlone && part !== undefined) trees.set(partName(kind, array), part);
    }
    files.set(`${kind}.cjs`, prebuiltSource(trees));
  }
  const index: PrebuiltIndex = { digest: current().digest, kinds: [...KINDS] };
  files.set("index.json", `${JSON.stringify(index, null, 2)}\n`);
  return files;
}
