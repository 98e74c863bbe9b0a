/**
 * The comparison page (Python's `evalschema.report.comparehtml`): the comparison document drawn by the shared
 * report template (./page.ts), with the verdict and power lines the text output gives (Python's `verdict_line`
 * and `power_line`; the caller passes the TypeScript text's own).
 */

import { specVersion } from "../schemas/schemas.js";
import { generatedAt, renderPage } from "./page.js";

export interface CompareLines {
  /** The one-line answer the text output starts with (Python's `verdict_line`). */
  verdict: string;
  /** What the comparison could show at all (Python's `power_line`). */
  power: string;
}

export function compareData(document: unknown, lines: CompareLines, stamp?: string): Record<string, unknown> {
  return { page: "compare", version: specVersion(), generated_at: stamp ?? generatedAt(), verdict: lines.verdict, power: lines.power, comparison: document };
}

/** One self-contained page, byte for byte the page Python's `render_compare_html` writes for the same document. */
export function renderCompareHtml(document: unknown, lines: CompareLines, stamp?: string): string {
  return renderPage(compareData(document, lines, stamp));
}
