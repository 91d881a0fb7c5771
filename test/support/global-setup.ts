import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory that tests copy instead of creating a database each (PGlite runs only). */
    pgliteTemplate: string | undefined;
  }
}

/**
 * Creating a PGlite database runs initdb (seconds, and hundreds of MB); copying a migrated one and
 * opening the copy is several times faster. Made once per test run.
 */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('pgliteTemplate', undefined);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'blockyard-pglite-template-'));
  const database = await openDatabase({ pgliteDir: join(dir, 'data') });
  await migrateToLatest(database.db);
  await database.close();
  project.provide('pgliteTemplate', join(dir, 'data'));
  return () => rmSync(dir, { recursive: true, force: true });
}
