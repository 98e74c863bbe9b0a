// Times the TypeScript SDK against JSON.parse on the same bytes, in one process: prints JSON with the ratio of
// the medians. The two measurements alternate, so a garbage collection of the previous big document lands on
// both alike. usage: node benchmarks/ts_bench.mjs FILE [REPEATS]
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { validate } from "../js/dist/index.js";

const [file, repeats = "5"] = process.argv.slice(2);
const text = readFileSync(file, "utf8");
const time = (f) => {
  const start = performance.now();
  f();
  return performance.now() - start;
};
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
validate(JSON.parse(text)); // compile the schemas once, outside the timings
const parse = [];
const full = [];
for (let i = 0; i < Number(repeats); i++) {
  parse.push(time(() => JSON.parse(text)));
  full.push(time(() => validate(JSON.parse(text))));
}
const paired = median(full.map((ms, i) => ms / parse[i])); // each run over the parse just before it
const [parseMs, fullMs] = [median([...parse]), median([...full])];
console.log(JSON.stringify({ bytes: text.length, json_parse_ms: parseMs, validate_ms: fullMs, ratio: fullMs / parseMs, paired_ratio: paired }));
