import type { MigrationSet } from '@pay/platform';
import { join } from 'node:path';

/** es_streams, es_events and es_checkpoints, with their own bookkeeping table. */
export const EVENT_STORE_MIGRATIONS: MigrationSet = { name: 'event_store', dir: join(__dirname, '..', 'migrations') };
