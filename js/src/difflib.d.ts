/** The part of the `difflib` package (a port of Python's difflib) that evalschema uses. */
declare module "difflib" {
  export function getCloseMatches(word: string, possibilities: readonly string[], n?: number, cutoff?: number): string[];
  const difflib: { getCloseMatches: typeof getCloseMatches };
  export default difflib;
}
