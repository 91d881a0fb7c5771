import { type RawBuilder, sql } from 'kysely';

/**
 * `column = any($1)`: a list of any length as one array parameter. `in (...)` takes one parameter per
 * value, and a statement may have at most 65,535 (past that the driver's count wraps and the
 * statement fails), so every list whose length a chain or a client decides goes through here.
 */
export function anyOf(column: string, values: readonly string[], type: 'text' | 'int8' = 'text'): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} = any(${values}::${sql.raw(type)}[])`;
}
