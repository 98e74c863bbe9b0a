// Times the TypeScript SDK against JSON.parse on the same bytes, in one process: prints JSON with ratios.
// usage: node benchmarks/ts_bench.mjs FILE [REPEATS]
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { validate } from "../js/dist/index.js";

const [file, repeats = "5"] = process.argv.slice(2);
const text = readFileSync(file, "utf8");
const median = (f) => {
  const times = [];
  for (let i = 0; i < Number(repeats); i++) {
    const start = performance.now();
    f();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
};
validate(JSON.parse(text)); // compile the schemas once, outside the timings
const parse = median(() => JSON.parse(text));
const full = median(() => validate(JSON.parse(text)));
console.log(JSON.stringify({ bytes: text.length, json_parse_ms: parse, validate_ms: full, ratio: full / parse }));
