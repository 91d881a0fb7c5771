import type { JSONSchema } from 'json-schema-to-ts';

// Small builders for the settings schema's plain JSON Schema objects. `const` type parameters keep
// their literal types, so json-schema-to-ts still derives each setting's type from them.

/** An object that takes only the properties listed (a YAML section, an entry of a list). */
export function closedObject<const P extends Record<string, JSONSchema>>(
  properties: P,
): { readonly type: 'object'; readonly properties: P; readonly additionalProperties: false };
export function closedObject<const P extends Record<string, JSONSchema>, const R extends readonly (keyof P & string)[]>(
  properties: P,
  required: R,
): { readonly type: 'object'; readonly properties: P; readonly required: R; readonly additionalProperties: false };
export function closedObject(properties: Record<string, JSONSchema>, required?: readonly string[]): JSONSchema {
  return required
    ? { type: 'object', properties, required, additionalProperties: false }
    : { type: 'object', properties, additionalProperties: false };
}

/** A whole number from `minimum` to `maximum`. */
export function integerIn<const Min extends number, const Max extends number>(minimum: Min, maximum: Max) {
  return { type: 'integer', minimum, maximum } as const;
}

/** An EVM address, in any case. */
export const addressSchema = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' } as const satisfies JSONSchema;

/** A chain or network name as it stands in a path (`ethereum`, `devnet`). */
export const identifierSchema = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' } as const satisfies JSONSchema;

/** A wei amount or other uint256, as a decimal string (YAML numbers lose precision past 2^53). */
export const uint256StringSchema = { type: 'string', pattern: '^[0-9]{1,78}$' } as const satisfies JSONSchema;

/** An http(s) URL. */
export const httpUrlSchema = { type: 'string', pattern: '^https?://' } as const satisfies JSONSchema;
