// The TypeScript SDK's import graph at folder level, checked against its layers (issue 17, item 6).
//
//   node scripts/import-graph.mjs            (after `npm run build`: it reads dist/)
//
// Prints each layer's folder-level arrows, then exits 1 if any module imports a higher layer, or if madge finds an
// import cycle. Layers, lowest first:
//   generated < core < io < schemas < engine < rules < summary < pipeline < features (compare) < report < cli < entry
// madge reads the compiled ES modules: TypeScript 7 has no JavaScript compiler API for its TypeScript detective
// (package.json overrides it with the ES module one), and dist/ mirrors src/ file for file. Type-only imports are
// erased by then: they are the compiler's business, not the run time's.
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

export const LAYERS = ["generated", "core", "io", "schemas", "engine", "rules", "summary", "pipeline", "features", "report", "cli", "entry"];

/** Files at the top of src/ and the layer each belongs to: the public entries and the pipeline. */
const TOP = {
  "index.js": "entry",
  "cli.js": "entry",
  "pipeline.js": "pipeline",
};
const FOLDERS = { compare: "features" };

/** The layer of a module (a path relative to dist/), or null if it has none. */
export function layerOf(module) {
  const slash = module.indexOf("/");
  if (slash < 0) return TOP[module] ?? null;
  const folder = module.slice(0, slash);
  const layer = FOLDERS[folder] ?? folder;
  return LAYERS.includes(layer) ? layer : null;
}

/** The unit a module is drawn as: its folder, or the file itself at the top. */
export function unitOf(module) {
  const slash = module.indexOf("/");
  return slash < 0 ? module.replace(/\.js$/, "") : module.slice(0, slash) + "/";
}

/**
 * What is wrong with a module graph ({module: [modules it imports]}, paths relative to dist/), and its folder-level
 * arrows: an upward arrow (a module importing a higher layer), a module with no layer, or an import cycle
 * (`cycles`, as madge reports them).
 */
export function check(graph, cycles = []) {
  const problems = [];
  const arrows = new Map();
  for (const [from, deps] of Object.entries(graph)) {
    const here = layerOf(from);
    if (here === null) problems.push(`${from}: in no layer`);
    for (const to of deps) {
      if (to === from) continue; // madge resolves the bare "yaml" package to yaml.js itself: not an import of ours
      const there = layerOf(to);
      if (there === null) {
        problems.push(`${to}: in no layer`);
        continue;
      }
      const key = `${unitOf(from)} -> ${unitOf(to)}`;
      if (unitOf(from) !== unitOf(to)) arrows.set(key, { from: here, to: there });
      if (here !== null && LAYERS.indexOf(there) > LAYERS.indexOf(here)) problems.push(`upward: ${from} (${here}) imports ${to} (${there})`);
    }
  }
  for (const cycle of cycles) if (cycle.length > 1) problems.push(`cycle: ${cycle.join(" -> ")}`);
  return { problems: [...new Set(problems)], arrows: [...arrows.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0)) };

  function rank(arrow) {
    return LAYERS.indexOf(arrows.get(arrow).from);
  }
}

async function main() {
  const { default: madge } = await import("madge");
  const dist = join(dirname(dirname(fileURLToPath(import.meta.url))), "dist");
  const result = await madge(dist, { fileExtensions: ["js"], excludeRegExp: [/^test\//] });
  const graph = result.obj();
  const { problems, arrows } = check(graph, result.circular());
  console.log(`import graph of js/dist (${Object.keys(graph).length} modules), folder level, layers lowest first:`);
  for (const arrow of arrows) console.log(`  ${arrow}`);
  if (problems.length) {
    for (const problem of problems) console.error(`import-graph: ${problem}`);
    process.exit(1);
  }
  console.log("no cycle, no upward arrow");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
