import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { Logger } from '@nestjs/common';
import { InProcessBus, KafkaBus, type MessageBus } from '@pay/bus';
import { SUBSCRIBING_APPS, type AppName } from '@pay/contracts';
import { EVENT_STORE_MIGRATIONS, EventStoreDBEventStore, PostgresEventStore, type EventStore } from '@pay/event-store';
import { ASYNC_COMMIT_POOL_MAX, OperatorError, SERVICE_CLOCK_REFRESH_MS, SERVICE_CLOCK_REFRESH_MS_SANDBOX, STATEMENT_TIMEOUT_MS, type OffsetClock } from '@pay/kernel';
import { createPool, endPool, PersistentOffsetClock, PLATFORM_MIGRATIONS, runMigrations, startEmbeddedPostgres, type MigrationSet, type RunningDatabase } from '@pay/platform';
import { databaseUrlOf, type HostConfig } from './host-config';

/** What the apps of one process share: PostgreSQL pools, the service clock, the bus, the event store. */
export interface Infrastructure {
  databaseUrl: string;
  pool: Pool;
  asyncCommitPool: Pool;
  clock: OffsetClock;
  bus: MessageBus;
  store: EventStore;
  /** Seconds since the process started (process.uptime()) when startInfrastructure was called (its modules loaded) and when it returned. */
  startedAt: { calledS: number; readyS: number };
  /** Closes the bus, the event store and the pools, then stops an embedded PostgreSQL. */
  stop(): Promise<void>;
}

export interface InfrastructureOptions {
  /** Names the process on the bus (consumer groups); 'all-in-one' always uses the in-process bus. */
  app: AppName | 'all-in-one';
  /** The apps' own schemas; the platform's (and the event store's, for the apps that keep streams) come first. */
  migrations: readonly MigrationSet[];
}

/**
 * The schemas of a process's database, in order: the platform's (the service clock: every app keeps
 * its own), the event store's where an app keeps streams, checkpoints or parked events (the
 * subscribing apps; all-in-one runs them), then the app's own. The gateway, the ledger and the
 * webhooks app keep no streams: no es_* table in their databases.
 */
export function migrationSetsOf(app: AppName | 'all-in-one', own: readonly MigrationSet[]): MigrationSet[] {
  const keepsStreams = app === 'all-in-one' || (SUBSCRIBING_APPS as readonly string[]).includes(app);
  return [PLATFORM_MIGRATIONS, ...(keepsStreams ? [EVENT_STORE_MIGRATIONS] : []), ...own];
}

export async function startInfrastructure(config: HostConfig, options: InfrastructureOptions): Promise<Infrastructure> {
  const calledS = process.uptime();
  // A database per service: `<APP>_DATABASE_URL`, else DATABASE_URL, else the embedded one.
  const given = databaseUrlOf(config, options.app);
  const database: RunningDatabase = given.url ? { url: given.url, stop: async () => undefined } : await startEmbeddedPostgres(config.dataDir, undefined, { supervise: true });
  const opened: { close(): Promise<void> }[] = [];
  try {
    // The event store's schema also holds the subscriptions' checkpoints: needed with EventStoreDB too.
    await runMigrations(database.url, migrationSetsOf(options.app, options.migrations)).catch((error: unknown) => {
      throw unreachable(error, given.url, given.variable) ?? error;
    });
    const pool = createPool(database.url, { max: config.dbPoolMax, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    opened.push({ close: () => endPool(pool) });
    const asyncCommitPool = createPool(database.url, { max: ASYNC_COMMIT_POOL_MAX, statementTimeoutMs: STATEMENT_TIMEOUT_MS, asynchronousCommit: true });
    opened.push({ close: () => endPool(asyncCommitPool) });
    const logger = new Logger('service-clock');
    const clock = new PersistentOffsetClock(pool, (message) => logger.warn(message));
    await clock.start(config.sandbox ? SERVICE_CLOCK_REFRESH_MS_SANDBOX : SERVICE_CLOCK_REFRESH_MS);
    opened.push({ close: () => clock.stop() });
    const store: EventStore = !config.eventStoreUrl ? new PostgresEventStore(pool) : EventStoreDBEventStore.fromConnectionString(config.eventStoreUrl!);
    opened.push(store);
    const bus: MessageBus =
      options.app !== 'all-in-one' && config.kafkaBrokers
        ? // The instance index leads the client ids (`payments-1-…`): which instance said what, in Kafka's logs.
          new KafkaBus({
            brokers: config.kafkaBrokers,
            app: options.app,
            instanceId: `${config.instanceIndex}-${randomUUID().slice(0, 8)}`,
            consumerMaxWaitMs: config.kafkaFetchMaxWaitMs,
            topicPrefix: config.kafkaTopicPrefix,
          })
        : new InProcessBus();
    opened.push(bus);
    return {
      databaseUrl: database.url,
      pool,
      asyncCommitPool,
      clock,
      bus,
      store,
      startedAt: { calledS, readyS: process.uptime() },
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
function unreachable(error: unknown, databaseUrl: string | undefined, variable: string): OperatorError | undefined {
  const code = (error as { code?: string }).code;
  if (!databaseUrl || !code || !['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', '28P01', '3D000'].includes(code)) return undefined;
  let where = variable;
  try {
    const url = new URL(databaseUrl);
    where = `${variable} (${url.hostname}:${url.port || 5432}${url.pathname})`;
  } catch {
    /* not a URL: the variable's name is enough */
  }
  return new OperatorError(`cannot use the PostgreSQL of ${where}: ${code} ${(error as Error).message.replace(/postgres(ql)?:\/\/[^@\s]*@/g, 'postgres://…@')}. Check that it runs and the URL is right, or unset ${variable} to use ${variable === 'DATABASE_URL' ? 'the embedded one' : 'DATABASE_URL'}.`);
}
