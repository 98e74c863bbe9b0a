/** Small JSON helpers shared by the rule modules (Python's isinstance checks, on JSON values). */

export type JsonObject = { [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function has(value: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(value, key);
}

export function get(value: JsonObject, key: string): unknown {
  return has(value, key) ? value[key] : undefined;
}

/** Set `key` of an object used as a map of names from a document: defined, never assigned, so that a name such
 * as `__proto__` is an own key like any other (an assignment would replace the object's prototype instead). */
export function define<T>(target: { [key: string]: T }, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The object items of a list, with their index; anything else yields nothing. */
export function* objects(value: unknown): Generator<[number, JsonObject]> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (isObject(item)) yield [i, item];
    }
  }
}

/** The JSON type name of a value, as the schema path names it. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return "boolean";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  if (typeof value === "number") return "number";
  return typeof value === "string" ? "string" : "unknown";
}

/** Python's ``isinstance(x, int) and not isinstance(x, bool)`` on a parsed JSON number. */
export function isInt(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value);
}
