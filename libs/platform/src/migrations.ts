import { runner } from 'node-pg-migrate';
import { join } from 'node:path';

/** One app's schema: its own migration files and its own bookkeeping table, so apps deploy alone. */
export interface MigrationSet {
  name: string;
  dir: string;
}

export async function runMigrations(databaseUrl: string, sets: readonly MigrationSet[]): Promise<void> {
  for (const set of sets) {
    await runner({
      databaseUrl,
      dir: set.dir,
      migrationsTable: `pgmigrations_${set.name.replace(/[^a-z0-9_]/gi, '_')}`,
      direction: 'up',
      count: Infinity,
      checkOrder: true,
      log: () => undefined,
    });
  }
}

/** The platform's own tables (the service clock). */
export const PLATFORM_MIGRATIONS: MigrationSet = { name: 'platform', dir: join(__dirname, '..', 'migrations') };
