import 'reflect-metadata';
import { Global, Logger, Module, type DynamicModule, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Pool } from 'pg';
import { InProcessBus, MESSAGE_BUS } from '@pay/bus';
import { EVENT_STORE_MIGRATIONS, PostgresEventStore } from '@pay/event-store';
import { configureHttp, fastifyOptions, GATEWAY_MIGRATIONS, GatewayModule } from '@pay/gateway-feature';
import { OffsetClock } from '@pay/kernel';
import { FEE_SCHEDULE, LEDGER_MIGRATIONS, LedgerModule } from '@pay/ledger-feature';
import { PAYMENTS_MIGRATIONS, PaymentsModule } from '@pay/payments-feature';
import { WEBHOOKS_MIGRATIONS, WebhooksModule } from '@pay/webhooks-feature';
import {
  CLOCK,
  createPool,
  EVENT_STORE,
  PG_POOL,
  PG_POOL_ASYNC_COMMIT,
  PLATFORM_MIGRATIONS,
  runMigrations,
  ServiceClockStore,
  startEmbeddedPostgres,
  type RunningDatabase,
} from '@pay/platform';
import { resolveAdminApiKey, type ServiceConfig } from './config';

export interface RunningService {
  /** The listening origin, e.g. http://127.0.0.1:3000 */
  url: string;
  adminApiKey: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

export const ALL_MIGRATIONS = [PLATFORM_MIGRATIONS, EVENT_STORE_MIGRATIONS, LEDGER_MIGRATIONS, GATEWAY_MIGRATIONS, PAYMENTS_MIGRATIONS, WEBHOOKS_MIGRATIONS];

const STATEMENT_TIMEOUT_MS = 15_000;
const ASYNC_COMMIT_POOL_MAX = 10;

/**
 * The embedded default: every app in one process over the in-process bus, on one PostgreSQL (embedded
 * under DATA_DIR unless DATABASE_URL names one). Apps stay separate modules that meet only on the bus.
 */
export async function startService(config: ServiceConfig, options: { logLevels?: LogLevel[] } = {}): Promise<RunningService> {
  const logger = new Logger('service');
  const adminApiKey = resolveAdminApiKey(config, (line) => process.stdout.write(`${line}\n`));
  const database: RunningDatabase = config.databaseUrl
    ? { url: config.databaseUrl, stop: async () => undefined }
    : await startEmbeddedPostgres(config.dataDir);
  let pool: Pool | undefined;
  let asyncCommitPool: Pool | undefined;
  try {
    await runMigrations(database.url, ALL_MIGRATIONS);
    pool = createPool(database.url, { max: config.dbPoolMax, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    asyncCommitPool = createPool(database.url, { max: ASYNC_COMMIT_POOL_MAX, statementTimeoutMs: STATEMENT_TIMEOUT_MS, asynchronousCommit: true });
    const clock = new OffsetClock();
    await new ServiceClockStore(pool).load(clock);
    const bus = new InProcessBus();
    const store = new PostgresEventStore(pool);

    const app = await NestFactory.create<NestFastifyApplication>(
      AllInOneModule.compose(config, adminApiKey, { pool, asyncCommitPool, clock, bus, store }),
      new FastifyAdapter(fastifyOptions),
      { logger: options.logLevels ?? ['log', 'warn', 'error'], abortOnError: false, bodyParser: false },
    );
    configureHttp(app);
    await app.listen(config.port, config.host);
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    logger.log(`listening on ${url}${config.sandbox ? ' (sandbox: test helpers on, clock movable)' : ''}`);

    const livePools = [pool, asyncCommitPool];
    return {
      url,
      adminApiKey,
      databaseUrl: database.url,
      stop: async () => {
        await app.close(); // stops accepting requests, lets those in flight finish, then shuts the apps down
        await bus.close();
        await store.close();
        for (const livePool of livePools) await livePool.end();
        await database.stop();
      },
    };
  } catch (error) {
    await pool?.end().catch(() => undefined);
    await asyncCommitPool?.end().catch(() => undefined);
    await database.stop().catch(() => undefined);
    throw error;
  }
}

interface Infrastructure {
  pool: Pool;
  asyncCommitPool: Pool;
  clock: OffsetClock;
  bus: InProcessBus;
  store: PostgresEventStore;
}

@Global()
@Module({})
class InfrastructureModule {
  static with(config: ServiceConfig, infrastructure: Infrastructure): DynamicModule {
    const providers = [
      { provide: PG_POOL, useValue: infrastructure.pool },
      { provide: PG_POOL_ASYNC_COMMIT, useValue: infrastructure.asyncCommitPool },
      { provide: CLOCK, useValue: infrastructure.clock },
      { provide: MESSAGE_BUS, useValue: infrastructure.bus },
      { provide: EVENT_STORE, useValue: infrastructure.store },
      { provide: FEE_SCHEDULE, useValue: config.feeSchedule },
    ];
    return { module: InfrastructureModule, providers, exports: providers.map((p) => p.provide) };
  }
}

@Module({})
class AllInOneModule {
  static compose(config: ServiceConfig, adminApiKey: string, infrastructure: Infrastructure): DynamicModule {
    return {
      module: AllInOneModule,
      imports: [
        InfrastructureModule.with(config, infrastructure),
        LedgerModule,
        WebhooksModule.forRoot({ sandbox: config.sandbox }),
        PaymentsModule.forRoot({
          publicBaseUrl: config.publicBaseUrl,
          authorizationTtlMs: config.paymentAuthorizationTtlMs,
          ledgerTimeoutMs: 10_000,
        }),
        GatewayModule.forRoot({
          sandbox: config.sandbox,
          adminApiKey,
          rateLimitPerSecond: config.rateLimitPerSecond,
          publicBaseUrl: config.publicBaseUrl,
        }),
      ],
    };
  }
}
