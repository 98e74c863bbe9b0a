// Writes dist/schemas/prebuilt/: the fast validators of the working schemas as code, one file per kind, and
// index.json (see src/schemas/prebuilt.ts). The folder is replaced whole: written beside it, then renamed into place.
//
//   node scripts/prebuild.mjs            (part of `npm run build`, after `tsc -p .`)
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { prebuildFiles } from "../dist/schemas/prebuild.js";

const target = fileURLToPath(new URL("../dist/schemas/prebuilt", import.meta.url));
const staging = `${target}.tmp`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging);
let bytes = 0;
const files = prebuildFiles();
for (const [name, text] of files) {
  writeFileSync(join(staging, name), text);
  bytes += text.length;
}
rmSync(target, { recursive: true, force: true });
renameSync(staging, target);
console.log(`prebuild: ${files.size} files, ${(bytes / 1024).toFixed(0)} KiB of validators -> dist/schemas/prebuilt/`);
