import type { ColumnType } from 'kysely';

/** A timestamptz column: read as a Date, written as a Date or an ISO string. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** int8 and numeric(78,0) columns read back as decimal strings (both drivers); numbers or bigints go in. */
export type BigNumeric = ColumnType<string, string | number | bigint, string | number | bigint>;

/** A jsonb column: read parsed, written as JSON text. */
export type Json<T> = ColumnType<T, string, string>;

export type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;
