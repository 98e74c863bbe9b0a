// Times validateFile(path, {streamRows: true}) on one file and prints JSON: wall time, throughput, and the
// process's peak resident memory (process.resourceUsage().maxRSS, reported by Node in KiB).
// usage: node benchmarks/ts_stream_bench.mjs FILE [stream|whole]   (whole: streamRows false, for comparison)
import { statSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { validateFile } from "../js/dist/index.js";

const [path, mode = "stream"] = process.argv.slice(2);
if (path === undefined || (mode !== "stream" && mode !== "whole")) {
  process.stderr.write("usage: node benchmarks/ts_stream_bench.mjs FILE [stream|whole]\n");
  process.exit(2);
}
const bytes = statSync(path).size;
const start = performance.now();
const report = validateFile(path, { streamRows: mode === "stream" });
const seconds = (performance.now() - start) / 1000;
const maxRssKiB = process.resourceUsage().maxRSS;
console.log(
  JSON.stringify({
    path,
    mode,
    bytes,
    seconds: Number(seconds.toFixed(3)),
    mib_per_second: Number((bytes / 2 ** 20 / seconds).toFixed(1)),
    max_rss_mib: Number((maxRssKiB / 1024).toFixed(1)),
    valid: report.valid,
    errors: report.errors.length,
    warnings: report.warnings.length,
  }),
);
