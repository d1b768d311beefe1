import { type MigrationSet } from '@pay/platform';
import { join } from 'node:path';

/** The ledger's own tables (all prefixed `ledger_`), applied with `runMigrations(url, [LEDGER_MIGRATIONS])`. */
export const LEDGER_MIGRATIONS: MigrationSet = { name: 'ledger', dir: join(__dirname, '..', 'migrations') };
