import { runner } from 'node-pg-migrate';
import { join } from 'node:path';
import { MIGRATION_LOCK_RETRY_MS, MIGRATION_LOCK_WAIT_MS_MAX } from '@pay/kernel';

/** One app's schema: its own migration files and its own bookkeeping table, so apps deploy alone. */
export interface MigrationSet {
  name: string;
  dir: string;
}

/** Apps started together share one database: one migrates while the others wait their turn. */
export async function runMigrations(databaseUrl: string, sets: readonly MigrationSet[]): Promise<void> {
  for (const set of sets) {
    const deadline = Date.now() + MIGRATION_LOCK_WAIT_MS_MAX;
    for (;;) {
      try {
        await runSet(databaseUrl, set);
        break;
      } catch (error) {
        const locked = String((error as Error).message).includes('Another migration is already running');
        if (!locked || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_RETRY_MS));
      }
    }
  }
}

const runSet = (databaseUrl: string, set: MigrationSet) =>
  runner({
    databaseUrl,
    dir: set.dir,
    migrationsTable: `pgmigrations_${set.name.replace(/[^a-z0-9_]/gi, '_')}`,
    direction: 'up',
    count: Infinity,
    checkOrder: true,
    log: () => undefined,
  });

/** The platform's own tables (the service clock). */
export const PLATFORM_MIGRATIONS: MigrationSet = { name: 'platform', dir: join(__dirname, '..', 'migrations') };
