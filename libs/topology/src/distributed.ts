import { randomBytes } from 'node:crypto';
import { kafkaTopicsFor } from '@pay/bus';
import { REQUEST_TOPICS, type AppName } from '@pay/contracts';
import { KAFKA_MOCK_CONSUMER_MAX_WAIT_MS, KAFKA_REPLY_PARTITIONS, TOPOLOGY_APP_START_TIMEOUT_MS, TOPOLOGY_SCALED_OUT_APP_START_TIMEOUT_MS } from '@pay/kernel';
import { ensureDatabase, ensureServiceDatabase, startEmbeddedPostgres, type RunningDatabase } from '@pay/platform';
import { AppProcess, type Exit } from './app-process';
import { createPrefixedTopics, startLocalKafka, type BrokerControls } from '@pay/kafka';

/** The serving apps first, the gateway (the only one the outside calls) last. */
/**
 * The apps start in waves, each wave's apps together: an app may call the apps of earlier waves while it
 * starts (a sweep finishing what a crash left half done), and a request to an app whose consumer group
 * has never joined is not read (a new group starts at the end of its topics); no app calls another of
 * its own wave. Together, their group joins (3 s each on a new group) overlap.
 */
export const START_WAVES: readonly (readonly AppName[])[] = [
  ['ledger', 'webhooks'],
  ['payments', 'cash', 'supplier-payments'],
  ['collections', 'gateway'],
];
export const START_ORDER: readonly AppName[] = START_WAVES.flat();

/**
 * Each process's pool when apps run several instances and DB_POOL_MAX is not given: fourteen processes
 * at the default (20, plus 10 for asynchronous commits) would be past what one PostgreSQL serves.
 */
const DB_POOL_MAX_SCALED_OUT = '10';

export type InstanceCounts = Record<AppName, number>;

export interface DistributedTopology {
  /** The first gateway's origin. */
  url: string;
  /** Every gateway's origin, in instance order: a client (or a load balancer) spreads its requests over them. */
  gatewayUrls: string[];
  /** The server's database given or started (with a database per service: the one the others were created beside). */
  databaseUrl: string;
  /** Each app's database: all the same URL unless databasePerService. */
  databaseUrls: Record<AppName, string>;
  kafkaBrokers: string;
  /** Before each of its topics' and consumer groups' names, on a cluster shared with other topologies; '' otherwise. */
  topicPrefix: string;
  /** The first instance of each app. */
  apps: Record<AppName, AppProcess>;
  /** Every instance of each app, by INSTANCE_INDEX. */
  instances: Record<AppName, AppProcess[]>;
  /**
   * Replaces one instance as a rolling restart does: SIGTERM, wait for its exit (it drains first), then
   * a new process with the same environment (INSTANCE_INDEX, port) until it is ready. Answers the old exit.
   */
  replace(app: AppName, index: number): Promise<Exit>;
  /**
   * The local cluster's fault controls, when the topology started one: on Apache Kafka, down is a
   * SIGKILL of that node and up its restart; on the mock, the broker refuses connections, then accepts them.
   */
  kafka: (BrokerControls & { kind: 'kafka' | 'mock' }) | undefined;
  stop(): Promise<void>;
}

export interface DistributedOptions {
  /**
   * The environment every app gets (SANDBOX, ADMIN_API_KEY, PUBLIC_BASE_URL, …). PORT is the first
   * gateway's (unset or 0: a port the system picks); the other apps listen on ports the system picks.
   */
  env: Record<string, string>;
  /** Embedded PostgreSQL's directory when env has no DATABASE_URL. */
  dataDir: string;
  /**
   * Nodes of the local cluster started when env has no KAFKA_BROKERS (default KAFKA_BROKERS_COUNT of
   * this process's environment, else 1). With 3: topics replicated 3 times, min.insync.replicas 2.
   */
  localBrokers?: number;
  /**
   * A local cluster this topology shares with others (its topics and groups then under a prefix of its
   * own) when env has no KAFKA_BROKERS. Default: TOPOLOGY_SHARED_KAFKA, as the distributed tests' global
   * set-up gives it, when it has localBrokers nodes.
   */
  sharedKafka?: { bootstrapServers: string; nodes: number };
  /** Prefix and echo each app's output (the launcher does; tests keep it for failure messages). */
  echo?: boolean;
  /**
   * Instances per app: a count for every app, or some apps' counts (the others one), from 1 to
   * KAFKA_REPLY_PARTITIONS. Default: TOPOLOGY_INSTANCES of this process's environment (as
   * parseInstances reads it: `2`, or `payments=2,ledger=3`), else 1.
   */
  instances?: number | Partial<InstanceCounts>;
  /**
   * A database per app (`<base>_<app>`, each with its own role that may connect to it alone) on the
   * one server, each app given its `<APP>_DATABASE_URL` and no DATABASE_URL. Default:
   * TOPOLOGY_DATABASE_PER_SERVICE=true in this process's environment.
   */
  databasePerService?: boolean;
}

/**
 * `2` (every app), or `payments=2,ledger=2` (those apps; the others 1). Throws on anything else, and on
 * a count outside 1..KAFKA_REPLY_PARTITIONS: each instance of an app reads its own reply partition.
 */
export function parseInstances(spec: string): InstanceCounts {
  const counts = Object.fromEntries(START_ORDER.map((app) => [app, 1])) as InstanceCounts;
  const count = (text: string, what: string): number => {
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < 1 || n > KAFKA_REPLY_PARTITIONS) {
      throw new RangeError(`${what}: instances must be an integer from 1 to ${KAFKA_REPLY_PARTITIONS} (one reply partition per instance, KAFKA_REPLY_PARTITIONS), got "${text}"`);
    }
    return n;
  };
  const trimmed = spec.trim();
  if (/^\d+$/.test(trimmed)) {
    const n = count(trimmed, 'every app');
    for (const app of START_ORDER) counts[app] = n;
    return counts;
  }
  for (const part of trimmed.split(',')) {
    const [app, n] = part.split('=').map((s) => s.trim());
    if (!app || n === undefined || !(START_ORDER as readonly string[]).includes(app)) {
      throw new RangeError(`--instances wants N or app=N[,app=N…] with apps among ${START_ORDER.join(', ')}, got "${spec}"`);
    }
    counts[app as AppName] = count(n, app);
  }
  return counts;
}

function instanceCounts(given: DistributedOptions['instances']): InstanceCounts {
  if (given === undefined) return parseInstances(process.env['TOPOLOGY_INSTANCES'] || '1');
  if (typeof given === 'number') return parseInstances(String(given));
  return parseInstances(Object.entries(given).map(([app, n]) => `${app}=${n}`).join(',') || '1');
}

/**
 * Every app in its own process over Kafka, on one PostgreSQL server: `npm run start:distributed`, and
 * the distributed end-to-end tests. Without KAFKA_BROKERS a local Apache Kafka (tools/kafka; where
 * Java or Maven is missing, librdkafka's mock cluster) is started with the topics created ahead;
 * without DATABASE_URL an embedded PostgreSQL. Each app may run
 * several instances (INSTANCE_INDEX 0, 1, …) and may have its own database.
 */
export async function startDistributedTopology(options: DistributedOptions): Promise<DistributedTopology> {
  const shared = { ...withPublicBaseUrl(options.env) };
  const counts = instanceCounts(options.instances);
  const perService = options.databasePerService ?? process.env['TOPOLOGY_DATABASE_PER_SERVICE'] === 'true';
  const scaledOut = START_ORDER.some((app) => counts[app] > 1);
  const cleanups: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    let databaseUrl = shared['DATABASE_URL'];
    if (!databaseUrl) {
      const database: RunningDatabase = await startEmbeddedPostgres(options.dataDir);
      cleanups.push(() => database.stop());
      databaseUrl = database.url;
    }
    await ensureDatabase(databaseUrl);
    const databaseUrls = {} as Record<AppName, string>;
    for (const app of START_ORDER) databaseUrls[app] = perService ? await ensureServiceDatabase(databaseUrl, app) : databaseUrl;

    let kafkaBrokers = shared['KAFKA_BROKERS'];
    let kafka: DistributedTopology['kafka'];
    const sharedKafka = kafkaBrokers ? undefined : (options.sharedKafka ?? sharedLocalKafka(options.localBrokers ?? localBrokerCount()));
    if (sharedKafka) {
      // A cluster the test run shares: this topology's topics and groups under a prefix of its own, so
      // no message or committed offset of another suite reaches its apps. No fault controls: a suite
      // that kills brokers starts its own cluster (another node count).
      const prefix = `t${randomBytes(4).toString('hex')}.`;
      const topics = kafkaTopicsFor(REQUEST_TOPICS, KAFKA_REPLY_PARTITIONS).map((topic) => ({ ...topic, name: `${prefix}${topic.name}` }));
      cleanups.push(await createPrefixedTopics(sharedKafka.bootstrapServers, sharedKafka.nodes, prefix, topics));
      kafkaBrokers = sharedKafka.bootstrapServers;
      shared['KAFKA_TOPIC_PREFIX'] = prefix;
    } else if (!kafkaBrokers) {
      const local = await startLocalKafka({ brokers: options.localBrokers ?? localBrokerCount(), topics: kafkaTopicsFor(REQUEST_TOPICS, KAFKA_REPLY_PARTITIONS) });
      cleanups.push(() => local.stop());
      kafkaBrokers = local.bootstrapServers;
      kafka = local;
      // The mock cluster holds every fetch for its whole wait: short waits there (see the limit).
      if (local.kind === 'mock' && !shared['KAFKA_FETCH_MAX_WAIT_MS']) shared['KAFKA_FETCH_MAX_WAIT_MS'] = String(KAFKA_MOCK_CONSUMER_MAX_WAIT_MS);
    }

    const instances = {} as Record<AppName, AppProcess[]>;
    for (const name of START_ORDER) {
      instances[name] = Array.from({ length: counts[name] }, (_, index) => {
        const env = appEnv(shared, name, index, { databaseUrl: databaseUrls[name], perService, kafkaBrokers: kafkaBrokers!, scaledOut });
        const startTimeoutMs = scaledOut ? TOPOLOGY_SCALED_OUT_APP_START_TIMEOUT_MS : TOPOLOGY_APP_START_TIMEOUT_MS;
        return new AppProcess(counts[name] > 1 ? `${name}-${index}` : name, `apps/${name}/src/main.ts`, env, options.echo ?? false, startTimeoutMs);
      });
    }
    cleanups.push(async () => {
      for (const name of [...START_ORDER].reverse()) await Promise.all(instances[name].map((instance) => instance.kill('SIGTERM')));
    });
    // The apps run their own migrations (those sharing a database wait for each other on the migration
    // lock). The instances of one app start together too: they join their consumer groups in one
    // rebalance instead of one each.
    for (const wave of START_WAVES) await Promise.all(wave.flatMap((name) => instances[name].map((instance) => instance.start())));
    const apps = Object.fromEntries(START_ORDER.map((name) => [name, instances[name][0]!])) as Record<AppName, AppProcess>;
    const replace = async (app: AppName, index: number): Promise<Exit> => {
      const instance = instances[app][index];
      if (!instance) throw new RangeError(`${app} has no instance ${index}`);
      const exit = await instance.kill('SIGTERM');
      await instance.start();
      return exit;
    };
    return {
      url: apps.gateway.url,
      gatewayUrls: instances.gateway.map((gateway) => gateway.url),
      databaseUrl,
      databaseUrls,
      kafkaBrokers,
      topicPrefix: shared['KAFKA_TOPIC_PREFIX'] ?? '',
      apps,
      instances,
      replace,
      kafka,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * The cluster a test run started for every suite (TOPOLOGY_SHARED_KAFKA: its bootstrap servers;
 * TOPOLOGY_SHARED_KAFKA_NODES: its node count), when it has the nodes this topology wants.
 */
function sharedLocalKafka(nodes: number): { bootstrapServers: string; nodes: number } | undefined {
  const bootstrapServers = process.env['TOPOLOGY_SHARED_KAFKA'];
  const sharedNodes = Number(process.env['TOPOLOGY_SHARED_KAFKA_NODES'] || '1');
  return bootstrapServers && sharedNodes === nodes ? { bootstrapServers, nodes } : undefined;
}

/** KAFKA_BROKERS_COUNT: nodes of the local cluster (1 or 3 in practice). */
function localBrokerCount(): number {
  const text = process.env['KAFKA_BROKERS_COUNT'];
  if (text === undefined || text === '') return 1;
  if (!/^[1-5]$/.test(text)) throw new RangeError(`KAFKA_BROKERS_COUNT must be 1 to 5, got "${text}"`);
  return Number(text);
}

/**
 * Every app builds hosted pages' URLs (a payment's `authorization_url` comes from payments), and they
 * are served by the gateway: without PUBLIC_BASE_URL, each app would default to its own port, as
 * `npm start` defaults to its PORT. So the first gateway's PORT makes everyone's default.
 */
export function withPublicBaseUrl(env: Record<string, string>): Record<string, string> {
  const port = env['PORT'];
  if (env['PUBLIC_BASE_URL'] || !port || port === '0') return env;
  return { ...env, PUBLIC_BASE_URL: `http://localhost:${port}` };
}

/** One instance's environment: its database, the brokers, its INSTANCE_INDEX; a port only for the first gateway. */
function appEnv(
  base: Record<string, string>,
  app: AppName,
  index: number,
  { databaseUrl, perService, kafkaBrokers, scaledOut }: { databaseUrl: string; perService: boolean; kafkaBrokers: string; scaledOut: boolean },
): Record<string, string> {
  const env: Record<string, string> = { ...base, KAFKA_BROKERS: kafkaBrokers, INSTANCE_INDEX: String(index) };
  if (perService) {
    // Its own database only: no DATABASE_URL to fall back on (empty reads as unset, and hides the
    // launcher's own), so a table read elsewhere fails loudly.
    env['DATABASE_URL'] = '';
    env[`${app.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`] = databaseUrl;
  } else {
    env['DATABASE_URL'] = databaseUrl;
  }
  if (app !== 'gateway' || index > 0) delete env['PORT'];
  if (scaledOut && !base['DB_POOL_MAX']) env['DB_POOL_MAX'] = DB_POOL_MAX_SCALED_OUT;
  return env;
}
