// The reader modules (loader, stream, positions, yaml) import this by its old name: it lives in io/expand.
export * from "./io/expand.js";
