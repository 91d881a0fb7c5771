/**
 * A Postgres array literal of `values`, for a `$n::text[]` (or `int8[]`, `numeric[]`, …) parameter of
 * many rows. node-postgres builds the same literal from a JavaScript array but quotes and escapes every
 * element with two regular expressions; the hashes, addresses and numbers of an indexed block need
 * neither, and a backfill sends millions of them.
 */
export function arrayLiteral(values: readonly (string | number | bigint | null | undefined)[]): string {
  let literal = '{';
  for (let index = 0; index < values.length; index++) {
    if (index > 0) literal += ',';
    const value = values[index];
    if (value === null || value === undefined) {
      literal += 'NULL';
      continue;
    }
    const text = typeof value === 'string' ? value : String(value);
    literal += isPlain(text) ? text : quoted(text);
  }
  return `${literal}}`;
}

/** Letters, digits and `_ . : + -`: no braces, commas, quotes, backslashes or blanks. */
const plainCharacters = /^[0-9A-Za-z_.:+-]+$/;

/** Whether Postgres reads `text` the same unquoted: plain characters only, and not the word NULL. */
function isPlain(text: string): boolean {
  return plainCharacters.test(text) && !(text.length === 4 && text.toUpperCase() === 'NULL');
}

function quoted(text: string): string {
  return `"${text.replace(/[\\"]/g, '\\$&')}"`;
}
