import { Type } from 'typebox';
import { errorStatus } from '../core/errors.ts';

/** A string enum as plain JSON Schema `enum` (clearer validation messages than a union of literals). */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** The REST error object of spec section 7. */
export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      code: Type.Unsafe<string>({ type: 'string', enum: Object.keys(errorStatus) }),
      message: Type.String(),
      status: Type.Integer(),
    }),
  },
  { $id: undefined, description: 'Error' },
);

/** Error responses a route can give, for its schema. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [status, ErrorResponse]));
}
