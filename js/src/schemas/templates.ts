/**
 * The package's own page templates (`templates/`, copied by scripts/prepare.mjs from the repository's
 * templates/, as the schemas are; Python reads the same files through `evalschema.schemas.data.package_data`).
 * Read by name, like the schemas: they are part of the package, never an input.
 */

import { readFileSync } from "node:fs";

/** The text of template `name` (e.g. `report.html`). */
export function packageTemplate(name: string): string {
  return readFileSync(new URL(`../../templates/${name}`, import.meta.url), "utf-8");
}
