// Copies the build inputs that live outside js/: the generated typings and the schemas.
// Both copies are git-ignored; the sources of truth are ../generated/typescript and ../schemas.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
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
console.log(`prepare: ${typings} generated typing(s) -> src/generated/, ${schemas} schema(s) -> schemas/`);
