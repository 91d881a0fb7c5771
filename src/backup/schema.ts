import type pg from 'pg';
import { currentMigrationName } from '../db/migrate.ts';

/** Kysely's own bookkeeping: the restore recreates it by running the migrations. */
const migrationTables = new Set(['kysely_migration', 'kysely_migration_lock']);

export interface TableShape {
  name: string;
  /** The columns COPY reads and writes, in the table's order (generated columns are left out: COPY cannot load them). */
  columns: string[];
}

/** A Postgres identifier, quoted: names come from the catalog or from a backup file, never into SQL bare. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The migrations applied to this database, in order; undefined when it has no Blockyard schema. */
export async function appliedMigrations(client: pg.ClientBase): Promise<string[] | undefined> {
  const { rows } = await client.query<{ present: string | null }>(
    "select to_regclass(quote_ident(current_schema()) || '.kysely_migration')::text as present",
  );
  if (!rows[0]?.present) return undefined;
  const applied = await client.query<{ name: string }>('select name from kysely_migration order by name');
  return applied.rows.map((row) => currentMigrationName(row.name)).sort();
}

/**
 * The ordinary tables of the current schema but Kysely's, parents before the tables whose foreign
 * keys point at them (so each COPY FROM finds the rows it refers to), each with its columns.
 */
export async function blockyardTables(client: pg.ClientBase): Promise<TableShape[]> {
  const { rows: columns } = await client.query<{ table_name: string; column_name: string }>(
    `select c.relname as table_name, a.attname as column_name
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid
      where n.nspname = current_schema() and c.relkind in ('r', 'p') and a.attnum > 0
        and not a.attisdropped and a.attgenerated = ''
      order by c.relname, a.attnum`,
  );
  const { rows: references } = await client.query<{ child: string; parent: string }>(
    `select child.relname as child, parent.relname as parent
       from pg_constraint k
       join pg_class child on child.oid = k.conrelid
       join pg_class parent on parent.oid = k.confrelid
       join pg_namespace n on n.oid = child.relnamespace
      where k.contype = 'f' and n.nspname = current_schema()`,
  );
  const byTable = new Map<string, string[]>();
  for (const row of columns) {
    if (migrationTables.has(row.table_name)) continue;
    const list = byTable.get(row.table_name) ?? [];
    list.push(row.column_name);
    byTable.set(row.table_name, list);
  }
  return orderByReferences([...byTable.keys()].sort(), references).map((name) => ({ name, columns: byTable.get(name)! }));
}

/** Parents first (a depth-first walk; a table referring to itself, or a cycle, keeps the name order). */
export function orderByReferences(tables: string[], references: { child: string; parent: string }[]): string[] {
  const parents = new Map<string, string[]>();
  for (const { child, parent } of references) {
    if (child !== parent) parents.set(child, [...(parents.get(child) ?? []), parent]);
  }
  const known = new Set(tables);
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const ordered: string[] = [];
  const place = (table: string) => {
    if (placed.has(table) || visiting.has(table) || !known.has(table)) return;
    visiting.add(table);
    for (const parent of (parents.get(table) ?? []).sort()) place(parent);
    visiting.delete(table);
    placed.add(table);
    ordered.push(table);
  };
  for (const table of tables) place(table);
  return ordered;
}

/** The sequences of the current schema and where each stands (read after the snapshot began: never behind its rows). */
export async function sequenceStates(client: pg.ClientBase): Promise<{ name: string; lastValue: string; isCalled: boolean }[]> {
  const { rows } = await client.query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'S' and n.nspname = current_schema() order by c.relname`,
  );
  const states = [];
  for (const { name } of rows) {
    const state = await client.query<{ last_value: string; is_called: boolean }>(
      `select last_value::text as last_value, is_called from ${quoteIdent(name)}`,
    );
    states.push({ name, lastValue: state.rows[0]!.last_value, isCalled: state.rows[0]!.is_called });
  }
  return states;
}

/** Tables of the current schema (but Kysely's) that hold at least one row. */
export async function tablesWithRows(client: pg.ClientBase): Promise<string[]> {
  const filled: string[] = [];
  for (const table of await blockyardTables(client)) {
    const { rows } = await client.query<{ filled: boolean }>(`select exists (select 1 from ${quoteIdent(table.name)}) as filled`);
    if (rows[0]?.filled) filled.push(table.name);
  }
  return filled;
}
