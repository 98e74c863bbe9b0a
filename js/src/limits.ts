// The reader modules (loader, stream, positions, yaml) import this by its old name: it lives in core/limits.
export * from "./core/limits.js";
