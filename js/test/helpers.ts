import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file runs from js/dist/test/). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const JS = join(ROOT, "js");

export function jsonFiles(dir: string): [string, unknown][] {
  return readdirSync(dir)
    .filter((n) => n.endsWith(".json"))
    .sort()
    .map((n) => [n, JSON.parse(readFileSync(join(dir, n), "utf-8"))]);
}

export function pairs(findings: readonly { code: string; pointer: string }[]): string[] {
  return [...new Set(findings.map((f) => JSON.stringify([f.code, f.pointer])))].sort();
}

/** A deterministic generator of numbers in [0, 1) (mulberry32), so that a failing seed can be replayed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
