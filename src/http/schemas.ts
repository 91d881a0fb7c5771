import { Type } from 'typebox';
import { errorStatus } from '../core/errors.ts';

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
