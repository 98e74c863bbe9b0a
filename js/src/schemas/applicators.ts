/** Where JSON Schema keywords hold subschemas: what a walk over a schema tree descends into. */

/** Keywords whose value is a subschema. */
export const SCHEMA_VALUED: ReadonlySet<string> = new Set(["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"]);
/** Keywords whose value maps names to subschemas. */
export const SCHEMA_MAPS: ReadonlySet<string> = new Set(["properties", "patternProperties", "dependentSchemas"]);
/** Keywords whose value is a list of subschemas. */
export const SCHEMA_LISTS: ReadonlySet<string> = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
