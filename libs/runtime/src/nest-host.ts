import 'reflect-metadata';
import { rename, writeFile } from 'node:fs/promises';
import { Global, Logger, Module, type DynamicModule, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { MESSAGE_BUS } from '@pay/bus';
import { createProcessLogger, enableProcessMetrics, startTracing, stopTracing, useAsHostLogger, type LogDestination } from '@pay/observability';
import { CLOCK, EVENT_STORE, PG_POOL, PG_POOL_ASYNC_COMMIT } from '@pay/platform';
import { HealthModule } from './health';
import { configureHttp, fastifyOptions } from './http-setup';
import type { HostConfig } from './host-config';
import type { Infrastructure } from './infrastructure';
import { MetricsModule } from './metrics-endpoint';
import { nestLoggerOver } from './nest-logger';

export interface NestHostOptions {
  name: string;
  infrastructure: Infrastructure;
  /** The apps this process runs, as Nest modules. */
  modules: DynamicModule[];
  /** Further global providers (e.g. the ledger's fee schedule). */
  providers?: Provider[];
  /** Where to listen, LOG_LEVEL (the e2e tests pass `error`), METRICS_TOKEN and the OTLP endpoint, as readHostConfig read them. */
  config: Pick<HostConfig, 'port' | 'host' | 'logLevel' | 'metricsToken'> & Partial<Pick<HostConfig, 'tracing' | 'portFile' | 'trustedProxies'>>;
  /** Tests keep the log lines here; stdout otherwise. */
  logDestination?: LogDestination;
}

export interface RunningHost {
  url: string;
  stop(): Promise<void>;
}

/**
 * One process: the given app modules over the shared infrastructure, behind one Fastify server (the
 * gateway's API, or only /health, /ready and /metrics for the other apps). Logs are JSON lines through
 * pino. The bus starts serving once every module has registered its handlers, and the server listens
 * after that.
 */
export async function startNestHost(options: NestHostOptions): Promise<RunningHost> {
  const { infrastructure } = options;
  const logger = createProcessLogger({ app: options.name, level: options.config.logLevel, ...(options.logDestination ? { destination: options.logDestination } : {}) });
  useAsHostLogger(logger);
  enableProcessMetrics();
  // Once per process, named after it (`gateway`, …, `all-in-one`); nothing is loaded or registered without an endpoint.
  if (options.config.tracing) startTracing(options.name, options.config.tracing);
  const app = await NestFactory.create<NestFastifyApplication>(
    HostModule.compose(infrastructure, options.modules, options.providers ?? [], options.config.metricsToken),
    // request.ip: the client X-Forwarded-For names only on a request from a trusted proxy.
    new FastifyAdapter({ ...fastifyOptions, trustProxy: options.config.trustedProxies?.length ? options.config.trustedProxies : false }),
    { logger: nestLoggerOver(logger), abortOnError: false, bodyParser: false },
  );
  configureHttp(app, logger);
  await app.init();
  const initS = process.uptime();
  await infrastructure.bus.start();
  const busS = process.uptime();
  const { port: listenPort, host } = options.config;
  await app.listen(listenPort, host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : listenPort;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const { calledS, readyS } = infrastructure.startedAt;
  const s = (seconds: number) => `${seconds.toFixed(1)} s`;
  // Where a start's time went, for whoever waits on it (a rolling restart waits on every instance's).
  new Logger(options.name).log(
    `listening on ${url}, ${s(process.uptime())} after the process started: modules loaded ${s(calledS)}, ` +
      `database and migrations ${s(readyS - calledS)}, Nest ${s(initS - readyS)}, Kafka groups joined ${s(busS - initS)}, listen ${s(process.uptime() - busS)}`,
  );
  if (options.config.portFile) await writePortFile(options.config.portFile, port);
  return {
    url,
    stop: async () => {
      await app.close(); // stops accepting requests, lets those in flight finish, shuts the apps down
      await infrastructure.stop();
      await stopTracing(); // the spans of the last requests, exported before the process exits
    },
  };
}

@Global()
@Module({})
class InfrastructureModule {
  static with(infrastructure: Infrastructure, extra: Provider[]): DynamicModule {
    const providers: Provider[] = [
      { provide: PG_POOL, useValue: infrastructure.pool },
      { provide: PG_POOL_ASYNC_COMMIT, useValue: infrastructure.asyncCommitPool },
      { provide: CLOCK, useValue: infrastructure.clock },
      { provide: MESSAGE_BUS, useValue: infrastructure.bus },
      { provide: EVENT_STORE, useValue: infrastructure.store },
      ...extra,
    ];
    return { module: InfrastructureModule, providers, exports: providers.map((p) => (typeof p === 'function' ? p : p.provide)) };
  }
}

@Module({})
class HostModule {
  static compose(infrastructure: Infrastructure, modules: DynamicModule[], providers: Provider[], metricsToken: string | undefined): DynamicModule {
    return { module: HostModule, imports: [InfrastructureModule.with(infrastructure, providers), HealthModule.forHost(), MetricsModule.forRoot(metricsToken), ...modules] };
  }
}

/** The port, written whole or not at all (a reader polling the file never sees half of it). */
async function writePortFile(file: string, port: number): Promise<void> {
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, `${port}\n`);
  await rename(partial, file);
}
