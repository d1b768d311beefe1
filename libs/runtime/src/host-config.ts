import { resolve } from 'node:path';
import type { EnvReader } from '@pay/kernel';

/** What every process reads from its environment, whichever apps it runs. */
export interface HostConfig {
  port: number;
  host: string;
  dataDir: string;
  /** An external PostgreSQL; when absent, embedded PostgreSQL runs under dataDir. */
  databaseUrl: string | undefined;
  sandbox: boolean;
  publicBaseUrl: string;
  dbPoolMax: number;
  /** Kafka bootstrap servers: the apps of a distributed topology meet there. */
  kafkaBrokers: string[] | undefined;
  /** EventStoreDB for the aggregates' streams instead of PostgreSQL. */
  eventStoreUrl: string | undefined;
}

export function readHostConfig(read: EnvReader): HostConfig {
  const port = read.int('PORT', 3000, { min: 0, max: 65_535 });
  const brokers = read.string('KAFKA_BROKERS');
  const kafkaBrokers = brokers?.split(',').map((b) => b.trim()).filter(Boolean);
  if (kafkaBrokers && kafkaBrokers.some((b) => !/^[A-Za-z0-9.\-_[\]:]+:\d{1,5}$/.test(b))) {
    read.problems.push(`KAFKA_BROKERS must be host:port[,host:port...], got "${brokers}"`);
  }
  return {
    port,
    host: read.string('HOST', '127.0.0.1'),
    dataDir: resolve(read.string('DATA_DIR', './.data')),
    databaseUrl: read.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']),
    sandbox: read.bool('SANDBOX', false),
    publicBaseUrl: read.url('PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:'])!,
    dbPoolMax: read.int('DB_POOL_MAX', 20, { min: 2, max: 200 }),
    kafkaBrokers,
    eventStoreUrl: read.url('EVENTSTORE_URL', undefined, ['esdb:', 'esdb+discover:']),
  };
}
