// Copies the build inputs that live outside js/: the generated typings, the schemas and the published releases.
// The copies are git-ignored; the sources of truth are ../generated/typescript, ../schemas and ../spec/releases.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const repo = dirname(here);

function copyAll(from, to, suffix) {
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  const names = readdirSync(from).filter((name) => name.endsWith(suffix)).sort();
  if (names.length === 0) throw new Error(`no *${suffix} files in ${from}`);
  for (const name of names) copyFileSync(join(from, name), join(to, name));
  return names.length;
}

const typings = copyAll(join(repo, "generated", "typescript"), join(here, "src", "generated"), ".ts");
const schemas = copyAll(join(repo, "schemas"), join(here, "schemas"), ".json");
// the single-file schemas and their catalog, for Ajv, editors and other validators
const bundled = copyAll(join(repo, "generated", "schemas"), join(here, "schemas", "bundled"), ".json");
// the HTML reports' one page, shared with the Python package (its templates/report.html)
const templates = copyAll(join(repo, "templates"), join(here, "templates"), ".html");
// every published release, for --spec-version / `specVersion` (read from these files: nothing is fetched)
const releases = readdirSync(join(repo, "spec", "releases"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
for (const release of releases) copyAll(join(repo, "spec", "releases", release), join(here, "schemas", "releases", release), ".json");

// The one version is the working schemas' `$id` (https://evalschema.org/schema/<version>/…). package.json must
// restate it (npm reads no other place): refuse to build when it does not.
const id = JSON.parse(readFileSync(join(repo, "schemas", "common.json"), "utf-8")).$id;
const version = /\/schema\/([^/]+)\//.exec(id)?.[1];
if (version === undefined) throw new Error(`schemas/common.json: $id ${id} carries no version`);
const declared = JSON.parse(readFileSync(join(here, "package.json"), "utf-8")).version;
if (declared !== version) throw new Error(`js/package.json says version ${declared}, the schemas' $id says ${version}`);
writeFileSync(
  join(here, "src", "generated", "version.ts"),
  `// written by scripts/prepare.mjs from the schemas' $id; do not edit\n/** The package's version: the specification version of its schemas. */\nexport const VERSION = ${JSON.stringify(version)};\n`,
);
console.log(`prepare: ${typings} generated typing(s) -> src/generated/, ${schemas} schema(s) -> schemas/, ${bundled} bundled -> schemas/bundled/, ${releases.length} release(s) -> schemas/releases/, ${templates} template(s) -> templates/, version ${version}`);
