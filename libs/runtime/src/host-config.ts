import { mkdirSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, resolve } from 'node:path';
import { APP_NAMES, type AppName } from '@pay/contracts';
import { KAFKA_CONSUMER_MAX_WAIT_MS, KAFKA_CONSUMER_MAX_WAIT_MS_MAX, KAFKA_REPLY_PARTITIONS, CONFIGURED_SECRET_LENGTH_MAX, CONFIGURED_SECRET_LENGTH_MIN, DB_POOL_SIZE_DEFAULT, DB_POOL_SIZE_MAX, DB_POOL_SIZE_MIN, type EnvReader } from '@pay/kernel';
import { DEFAULT_LOG_LEVEL, isLogLevel, LOG_LEVELS, readTracingConfig, type LogLevelName, type TracingConfig } from '@pay/observability';

/** What every process reads from its environment, whichever apps it runs. */
export interface HostConfig {
  /** 0: a port the system picks (see portFile). */
  port: number;
  host: string;
  /**
   * Where the process writes the port it listens on, once it listens (PORT_FILE): how whoever started
   * it with PORT=0 learns the port, and knows that this process, not another, is the one on it.
   */
  portFile: string | undefined;
  dataDir: string;
  /** An external PostgreSQL; when absent, embedded PostgreSQL runs under dataDir. */
  databaseUrl: string | undefined;
  /**
   * A database per service: `<APP>_DATABASE_URL` (e.g. PAYMENTS_DATABASE_URL, SUPPLIER_PAYMENTS_DATABASE_URL)
   * for the app of that name, DATABASE_URL for the apps without one. See databaseUrlOf.
   */
  databaseUrls: Partial<Record<AppName, string>>;
  /**
   * Which instance of its app this process is (INSTANCE_INDEX, 0 when unset), from 0 to
   * KAFKA_REPLY_PARTITIONS - 1: each instance of a caller app reads its own partition of every reply
   * topic, so an app runs at most KAFKA_REPLY_PARTITIONS instances. Names the instance in Kafka client ids.
   */
  instanceIndex: number;
  sandbox: boolean;
  publicBaseUrl: string;
  dbPoolMax: number;
  /** Kafka bootstrap servers: the apps of a distributed topology meet there. */
  kafkaBrokers: string[] | undefined;
  /** Before every Kafka topic and consumer group name (KAFKA_TOPIC_PREFIX): topologies sharing one cluster. */
  kafkaTopicPrefix: string | undefined;
  /** How long a Kafka fetch waits on empty partitions (KAFKA_FETCH_MAX_WAIT_MS; the mock cluster wants it short). */
  kafkaFetchMaxWaitMs: number;
  /** EventStoreDB for the aggregates' streams instead of PostgreSQL. */
  eventStoreUrl: string | undefined;
  /** The least severe level written to the log (LOG_LEVEL). */
  logLevel: LogLevelName;
  /** When set, GET /metrics wants `Authorization: Bearer <METRICS_TOKEN>`; open otherwise (see docs/operations.md). */
  metricsToken: string | undefined;
  /** Traces exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set; undefined: tracing off (see docs/operations.md). */
  tracing: TracingConfig | undefined;
  /**
   * The load balancers and reverse proxies in front of the service (TRUSTED_PROXIES: addresses and CIDRs):
   * a request from one of them is from the client its X-Forwarded-For names (the sign-in limits per
   * address); from anywhere else, X-Forwarded-For is ignored. Empty: the TCP peer is the client.
   */
  trustedProxies: string[];
}

export function readHostConfig(read: EnvReader): HostConfig {
  const port = read.int('PORT', 3000, { min: 0, max: 65_535 });
  const brokers = read.string('KAFKA_BROKERS');
  const kafkaBrokers = brokers?.split(',').map((b) => b.trim()).filter(Boolean);
  if (kafkaBrokers && kafkaBrokers.some((b) => !/^[A-Za-z0-9.\-_[\]:]+:\d{1,5}$/.test(b))) {
    read.problems.push(`KAFKA_BROKERS must be host:port[,host:port...], got "${brokers}"`);
  }
  const kafkaTopicPrefix = read.string('KAFKA_TOPIC_PREFIX');
  // Kafka's legal name characters; the names built on it stay well under its 249.
  if (kafkaTopicPrefix !== undefined && !/^[A-Za-z0-9._-]{1,100}$/.test(kafkaTopicPrefix)) {
    read.problems.push(`KAFKA_TOPIC_PREFIX must be 1 to 100 of A-Z a-z 0-9 . _ -, got "${kafkaTopicPrefix.slice(0, 120)}"`);
  }
  return {
    port,
    host: read.string('HOST', '127.0.0.1'),
    portFile: readPortFile(read),
    dataDir: readDataDir(read),
    databaseUrl: read.url('DATABASE_URL', undefined, ['postgres:', 'postgresql:']),
    databaseUrls: readDatabaseUrls(read),
    instanceIndex: readInstanceIndex(read),
    sandbox: read.bool('SANDBOX', false),
    publicBaseUrl: read.url('PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:'])!,
    dbPoolMax: read.int('DB_POOL_MAX', DB_POOL_SIZE_DEFAULT, { min: DB_POOL_SIZE_MIN, max: DB_POOL_SIZE_MAX }),
    kafkaBrokers,
    kafkaTopicPrefix,
    kafkaFetchMaxWaitMs: read.int('KAFKA_FETCH_MAX_WAIT_MS', KAFKA_CONSUMER_MAX_WAIT_MS, { min: 1, max: KAFKA_CONSUMER_MAX_WAIT_MS_MAX }),
    eventStoreUrl: read.url('EVENTSTORE_URL', undefined, ['esdb:', 'esdb+discover:']),
    logLevel: readLogLevel(read),
    metricsToken: readMetricsToken(read),
    tracing: readTracingConfig(read),
    trustedProxies: readTrustedProxies(read),
  };
}

/** TRUSTED_PROXIES: `10.0.0.0/8, 192.168.1.7, fd00::/8`; every entry an IP address or a CIDR block. */
export function readTrustedProxies(read: EnvReader): string[] {
  const raw = read.string('TRUSTED_PROXIES');
  if (raw === undefined) return [];
  const entries = raw.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isAddressOrCidr(entry));
  if (bad.length > 0) {
    read.problems.push(`TRUSTED_PROXIES must be IP addresses or CIDR blocks separated by commas (10.0.0.0/8, 192.168.1.7), got ${bad.map((b) => JSON.stringify(b.slice(0, 60))).join(', ')}`);
    return [];
  }
  return entries;
}

const isAddressOrCidr = (entry: string): boolean => {
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address ?? '');
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
};

/** `supplier-payments` -> `SUPPLIER_PAYMENTS_DATABASE_URL`. */
export const databaseUrlVariable = (app: AppName): string => `${app.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`;

function readDatabaseUrls(read: EnvReader): Partial<Record<AppName, string>> {
  const urls: Partial<Record<AppName, string>> = {};
  // Every app may run alone: each has its `<APP>_DATABASE_URL` variable.
  for (const app of APP_NAMES) {
    const url = read.url(databaseUrlVariable(app), undefined, ['postgres:', 'postgresql:']);
    if (url) urls[app] = url;
  }
  return urls;
}

/** The database of `app`: its own `<APP>_DATABASE_URL`, else DATABASE_URL (else the embedded one: undefined). */
export function databaseUrlOf(config: Pick<HostConfig, 'databaseUrl' | 'databaseUrls'>, app: AppName | 'all-in-one'): { url: string | undefined; variable: string } {
  const own = app === 'all-in-one' ? undefined : config.databaseUrls[app];
  if (own) return { url: own, variable: databaseUrlVariable(app as AppName) };
  return { url: config.databaseUrl, variable: 'DATABASE_URL' };
}

/** Whether `app` runs the embedded PostgreSQL under DATA_DIR (no database URL for it), and so locks DATA_DIR. */
export const embedsDatabase = (config: Pick<HostConfig, 'databaseUrl' | 'databaseUrls'>, app: AppName | 'all-in-one'): boolean => databaseUrlOf(config, app).url === undefined;

function readInstanceIndex(read: EnvReader): number {
  const raw = read.string('INSTANCE_INDEX');
  const index = read.int('INSTANCE_INDEX', 0, { min: 0, max: KAFKA_REPLY_PARTITIONS - 1 });
  if (raw !== undefined && read.problems.some((p) => p.startsWith('INSTANCE_INDEX'))) {
    // Said in the operator's terms: why the bound, and what to change.
    read.problems.push(
      `INSTANCE_INDEX: an app runs at most ${KAFKA_REPLY_PARTITIONS} instances (one partition of each reply topic per instance, KAFKA_REPLY_PARTITIONS); create the reply topics with more partitions to run more`,
    );
  }
  return index;
}

function readLogLevel(read: EnvReader): LogLevelName {
  const level = read.string('LOG_LEVEL', DEFAULT_LOG_LEVEL);
  if (isLogLevel(level)) return level;
  read.problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  return DEFAULT_LOG_LEVEL;
}

const METRICS_TOKEN = new RegExp(`^[A-Za-z0-9_-]{${CONFIGURED_SECRET_LENGTH_MIN},${CONFIGURED_SECRET_LENGTH_MAX}}$`);

function readMetricsToken(read: EnvReader): string | undefined {
  const token = read.string('METRICS_TOKEN');
  // The value itself is never echoed: it is a credential.
  if (token !== undefined && !METRICS_TOKEN.test(token)) {
    read.problems.push(`METRICS_TOKEN must be ${CONFIGURED_SECRET_LENGTH_MIN} to ${CONFIGURED_SECRET_LENGTH_MAX} characters of letters, digits, _ and -`);
  }
  return token;
}

/** PORT_FILE, as an absolute path (a relative one is resolved against the working directory). */
function readPortFile(read: EnvReader): string | undefined {
  const file = read.string('PORT_FILE');
  return file === undefined || file === '' ? undefined : resolve(file);
}

/**
 * DATA_DIR, made a directory now (level by level: Node's recursive mkdir never returns under /proc), so
 * that one that cannot be is a configuration problem named plainly, not a stack or a hang later.
 */
function readDataDir(read: EnvReader): string {
  const given = read.string('DATA_DIR', './.data')!;
  const dataDir = resolve(given);
  const problem = makeDirectory(dataDir);
  if (problem !== undefined) read.problems.push(`DATA_DIR ${given} cannot be used: ${problem}`);
  return dataDir;
}

/** Creates `dir` and its missing parents; what prevents it, if anything. */
function makeDirectory(dir: string): string | undefined {
  const missing: string[] = [];
  let existing = dir;
  for (;;) {
    try {
      if (!statSync(existing).isDirectory()) return `${existing} is not a directory`;
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return `${existing}: ${code ?? String(error)}`;
      if (dirname(existing) === existing) return `${existing} does not exist`;
      missing.unshift(existing);
      existing = dirname(existing);
    }
  }
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') return `${level} cannot be created (${code ?? String(error)})`;
    }
  }
  return undefined;
}
