import type { Pool } from 'pg';
import { InProcessBus, KafkaBus, type MessageBus } from '@pay/bus';
import type { AppName } from '@pay/contracts';
import { EVENT_STORE_MIGRATIONS, EventStoreDBEventStore, PostgresEventStore, type EventStore } from '@pay/event-store';
import { ASYNC_COMMIT_POOL_MAX, OffsetClock, OperatorError, STATEMENT_TIMEOUT_MS } from '@pay/kernel';
import { createPool, PLATFORM_MIGRATIONS, runMigrations, ServiceClockStore, startEmbeddedPostgres, type MigrationSet, type RunningDatabase } from '@pay/platform';
import type { HostConfig } from './host-config';

/** What the apps of one process share: PostgreSQL pools, the service clock, the bus, the event store. */
export interface Infrastructure {
  databaseUrl: string;
  pool: Pool;
  asyncCommitPool: Pool;
  clock: OffsetClock;
  bus: MessageBus;
  store: EventStore;
  /** Closes the bus, the event store and the pools, then stops an embedded PostgreSQL. */
  stop(): Promise<void>;
}

export interface InfrastructureOptions {
  /** Names the process on the bus (consumer groups); 'all-in-one' always uses the in-process bus. */
  app: AppName | 'all-in-one';
  /** The apps' own schemas; the platform's (and the event store's, on PostgreSQL) come first. */
  migrations: readonly MigrationSet[];
}

export async function startInfrastructure(config: HostConfig, options: InfrastructureOptions): Promise<Infrastructure> {
  const database: RunningDatabase = config.databaseUrl
    ? { url: config.databaseUrl, stop: async () => undefined }
    : await startEmbeddedPostgres(config.dataDir);
  const opened: { close(): Promise<void> }[] = [];
  try {
    // The event store's schema also holds the subscriptions' checkpoints: needed with EventStoreDB too.
    await runMigrations(database.url, [PLATFORM_MIGRATIONS, EVENT_STORE_MIGRATIONS, ...options.migrations]).catch((error: unknown) => {
      throw unreachable(error, config.databaseUrl) ?? error;
    });
    const pool = createPool(database.url, { max: config.dbPoolMax, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    opened.push({ close: () => pool.end() });
    const asyncCommitPool = createPool(database.url, { max: ASYNC_COMMIT_POOL_MAX, statementTimeoutMs: STATEMENT_TIMEOUT_MS, asynchronousCommit: true });
    opened.push({ close: () => asyncCommitPool.end() });
    const clock = new OffsetClock();
    await new ServiceClockStore(pool).load(clock);
    const store: EventStore = !config.eventStoreUrl ? new PostgresEventStore(pool) : EventStoreDBEventStore.fromConnectionString(config.eventStoreUrl!);
    opened.push(store);
    const bus: MessageBus =
      options.app !== 'all-in-one' && config.kafkaBrokers ? new KafkaBus({ brokers: config.kafkaBrokers, app: options.app }) : new InProcessBus();
    opened.push(bus);
    return {
      databaseUrl: database.url,
      pool,
      asyncCommitPool,
      clock,
      bus,
      store,
      stop: async () => {
        // The bus first (no new work arrives, in-flight work finishes), the pools last.
        for (const resource of opened.reverse()) await resource.close();
        await database.stop();
      },
    };
  } catch (error) {
    for (const resource of opened.reverse()) await resource.close().catch(() => undefined);
    await database.stop().catch(() => undefined);
    throw error;
  }
}

/** A database that cannot be reached, said as an operator needs it: which variable, where, why; no password. */
function unreachable(error: unknown, databaseUrl: string | undefined): OperatorError | undefined {
  const code = (error as { code?: string }).code;
  if (!databaseUrl || !code || !['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', '28P01', '3D000'].includes(code)) return undefined;
  let where = 'DATABASE_URL';
  try {
    const url = new URL(databaseUrl);
    where = `DATABASE_URL (${url.hostname}:${url.port || 5432}${url.pathname})`;
  } catch {
    /* not a URL: the variable's name is enough */
  }
  return new OperatorError(`cannot use the PostgreSQL of ${where}: ${code} ${(error as Error).message.replace(/postgres(ql)?:\/\/[^@\s]*@/g, 'postgres://…@')}. Check that it runs and the URL is right, or unset DATABASE_URL to use the embedded one.`);
}
