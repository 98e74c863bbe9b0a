// The TypeScript SDK's library paths for tests/test_agreement.py, one process per batch of files:
//   node js/scripts/paths.mjs OPTIONS_JSON PATH...
// OPTIONS_JSON: {"kind", "strict", "allowUnknown", "suitePath"}. Prints {"validate": [...], "validateFile.whole": [...],
// "validateFile.stream": [...]}: one {unreadable, kind, valid, errors, warnings} per path, in order.
import { readFileSync } from "node:fs";
import { buildReport, loadPath, validate } from "../dist/index.js";
import { checkFile } from "../dist/pipeline.js";

const [optionsText, ...paths] = process.argv.slice(2);
const given = JSON.parse(optionsText);
const options = {
  kind: given.kind ?? null,
  strict: Boolean(given.strict),
  allowUnknown: Boolean(given.allowUnknown),
  suite: given.suitePath ? JSON.parse(readFileSync(given.suitePath, "utf8")) : undefined,
};
const entry = (report, unreadable) => ({ unreadable, ...report });
const out = { validate: [], "validateFile.whole": [], "validateFile.stream": [] };
for (const path of paths) {
  const loaded = loadPath(path);
  out.validate.push(
    loaded.problem !== undefined ? entry(buildReport(options.kind, [loaded.problem], false), true) : entry(validate(loaded.document, options), false),
  );
  for (const [name, streamRows] of [["validateFile.whole", false], ["validateFile.stream", true]]) {
    const { report, unreadable } = checkFile(path, { ...options, streamRows });
    out[name].push(entry(report, unreadable));
  }
}
process.stdout.write(JSON.stringify(out));
