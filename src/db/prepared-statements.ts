import { createHash } from 'node:crypto';
import type { PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import type { GuardablePool } from './stall-guard.ts';

/**
 * Statements on a hot path whose planning costs more than their run (the bundler's mempool write:
 * 0.3 ms of its 0.6) are prepared once per connection: their SQL starts with `preparedComment(name)`,
 * and the pool below sends those under a statement name, so Postgres parses them once and can reuse
 * the plan. Only marked statements are prepared, and at most `maxTextsPerName` texts of one mark (a
 * query built from a request's filters has one text per shape): a connection holds a bounded set,
 * whatever shapes requests ask for. Later texts of a full mark run unnamed, as unmarked ones do.
 */
export function preparedComment(name: string): string {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`prepared statement names are snake_case: ${name}`);
  return `/* prepared ${name} */ `;
}

const markedStart = '/* prepared ';
const marked = /^\/\* prepared ([a-z][a-z0-9_]*) \*\/ /;
/** Distinct texts prepared under one mark, per pool (each connection prepares those it runs). */
export const maxTextsPerName = 64;

/** The statement name a SQL text is prepared under (its text's hash included: one name, one text), or undefined. */
export function statementNameOf(text: string): string | undefined {
  const found = marked.exec(text);
  if (!found) return undefined;
  return `${found[1]}_${createHash('sha1').update(text).digest('hex').slice(0, 12)}`;
}

/** The pool Kysely's Postgres dialect is given: pg's own, with marked statements sent by name. */
export function preparingPool(pool: pg.Pool): GuardablePool {
  /** The marked texts prepared and their statement names: at most `maxTextsPerName` per mark. */
  const names = new Map<string, string>();
  const textsPerMark = new Map<string, number>();
  const nameOf = (text: string) => {
    if (!text.startsWith(markedStart)) return undefined;
    const known = names.get(text);
    if (known !== undefined) return known;
    const mark = marked.exec(text)?.[1];
    const count = mark === undefined ? 0 : (textsPerMark.get(mark) ?? 0);
    if (mark === undefined || count >= maxTextsPerName) return undefined;
    const name = statementNameOf(text)!;
    textsPerMark.set(mark, count + 1);
    names.set(text, name);
    return name;
  };
  return {
    async connect() {
      const client = await pool.connect();
      const plain = client as unknown as PostgresPoolClient;
      const query = (text: unknown, values?: readonly unknown[]) => {
        const name = typeof text === 'string' ? nameOf(text) : undefined;
        if (name !== undefined) return client.query({ name, text: text as string, values: values as unknown[] });
        return values === undefined ? plain.query(text as never) : plain.query(text as string, values);
      };
      return { query: query as PostgresPoolClient['query'], release: (discard?: Error) => client.release(discard) };
    },
    end: () => pool.end(),
  };
}
