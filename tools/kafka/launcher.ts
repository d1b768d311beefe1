import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { kafkaTopicConfig, kafkaTopicSettingsFor } from '@pay/contracts';
import { startKafkaMock } from '@pay/kafka-mock';

/**
 * tools/kafka: Apache Kafka itself for the distributed topology's local runs and tests. pom.xml pins the
 * version; its jars are copied from Maven Central once (`mvn dependency:copy-dependencies`) into
 * tools/kafka/.cache/<version>/lib, and each start runs one to three KRaft nodes (broker and controller
 * in one JVM) on free ports in a temporary directory. Without Java 17+ or Maven (and no cache yet),
 * startLocalKafka falls back to librdkafka's mock cluster (tools/kafka-mock) and says why in one line.
 */
const TOOL_DIR = __dirname;
const POM = join(TOOL_DIR, 'pom.xml');
/** Where the jars of each version are kept (gitignored): copied once, reused by every start. */
export const KAFKA_CACHE_DIR = join(TOOL_DIR, '.cache');
const MAIN_CLASS = 'kafka.Kafka';
const STORAGE_TOOL_CLASS = 'kafka.tools.StorageTool';
const JAVA_MAJOR_MIN = 17;
const BROKERS_MAX = 5;
/** The copy downloads ~45 MB on a cold ~/.m2. */
const MAVEN_TIMEOUT_MS = 10 * 60_000;
const FORMAT_TIMEOUT_MS = 60_000;
/** From spawn to a metadata answer naming every broker; one node takes 3 to 5 s on an idle machine. */
const START_TIMEOUT_MS = 120_000;
/** A clean exit that writes the class-data archive (~50 MB) as it ends. */
const ARCHIVE_DUMP_GRACE_MS = 60_000;
const PROBE_EVERY_MS = 200;
/** Small, as the tests and a laptop want; KAFKA_HEAP_OPTS replaces it. */
const DEFAULT_HEAP_OPTS = '-Xms64m -Xmx384m';
/**
 * One GC thread and no concurrent collector, and the client compiler only: two cores are shared with
 * seven Node processes and PostgreSQL, and C2's compilations made a start cost 5.9 s of CPU against
 * 3.6 s without them. KAFKA_JVM_OPTS replaces it (the bench drops TieredStopAtLevel for a long run).
 */
const DEFAULT_JVM_OPTS = '-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError -XX:-UsePerfData -Djava.awt.headless=true';

export interface KafkaTopicSpec {
  name: string;
  partitions: number;
}

export interface LocalKafkaOptions {
  /** KRaft nodes, each broker and controller (default 1). With 3 or more: replication 3, min.insync.replicas 2. */
  brokers?: number;
  /** Created once every broker is up, before the start resolves (the bus never creates topics). */
  topics: readonly KafkaTopicSpec[];
}

/** The fault controls a local cluster offers (the real one and the mock alike). */
export interface BrokerControls {
  /** Real Kafka: SIGKILL of that node's JVM. The mock: the broker drops its connections (no failover). */
  setBrokerDown(id: number): Promise<void>;
  /** Real Kafka: the node starts again on its data and is back in the cluster. The mock: it accepts connections again. */
  setBrokerUp(id: number): Promise<void>;
}

export interface KafkaCluster extends BrokerControls {
  kind: 'kafka';
  /** host:port,host:port… */
  bootstrapServers: string;
  version: string;
  brokers: number;
  /** Each node's JVM, by node id (1..brokers); undefined while down. */
  pid(id: number): number | undefined;
  /** The node's log file (the broker's log4j output). */
  logFile(id: number): string;
  stop(): Promise<void>;
}

export interface LocalKafka extends BrokerControls {
  kind: 'kafka' | 'mock';
  bootstrapServers: string;
  stop(): Promise<void>;
}

/** The version pom.xml pins. */
export function kafkaVersion(): string {
  const match = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(POM, 'utf8'));
  if (!match) throw new Error(`${POM} names no <kafka.version>`);
  return match[1]!.trim();
}

const libDir = (version: string) => join(KAFKA_CACHE_DIR, version, 'lib');

/** Java's major version from `java -version` (stderr), or undefined when there is no Java. */
function javaMajor(java: string): number | undefined {
  const result = spawnSync(java, ['-version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
  if (result.error || result.status !== 0) return undefined;
  return parseJavaMajor(`${result.stderr}${result.stdout}`);
}

/** `openjdk version "17.0.15"` -> 17; `java version "1.8.0_392"` -> 8. */
export function parseJavaMajor(text: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(text);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] ? Number(match[2]) : first;
}

const javaBinary = (): string => (process.env['JAVA_HOME'] ? join(process.env['JAVA_HOME'], 'bin', 'java') : 'java');

function hasMaven(): boolean {
  try {
    execFileSync('mvn', ['-v'], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

let availability: { ok: true } | { ok: false; reason: string } | undefined;

/**
 * Whether Apache Kafka can run here: Java 17+ and either the jars cached or Maven to fetch them.
 * KAFKA_LOCAL=mock asks for the mock cluster whatever is installed (KAFKA_LOCAL=kafka: see startLocalKafka).
 */
export function kafkaAvailability(): { ok: true } | { ok: false; reason: string } {
  if (process.env['KAFKA_LOCAL'] === 'mock') return { ok: false, reason: 'KAFKA_LOCAL=mock' };
  if (availability) return availability;
  const major = javaMajor(javaBinary());
  if (major === undefined) availability = { ok: false, reason: `no Java found (${javaBinary()}); Apache Kafka ${kafkaVersion()} needs Java ${JAVA_MAJOR_MIN}+` };
  else if (major < JAVA_MAJOR_MIN) availability = { ok: false, reason: `Java ${major} found; Apache Kafka ${kafkaVersion()} needs Java ${JAVA_MAJOR_MIN}+` };
  else if (!existsSync(join(KAFKA_CACHE_DIR, kafkaVersion(), 'complete')) && !hasMaven()) {
    availability = { ok: false, reason: `no Maven (mvn) found to fetch Apache Kafka ${kafkaVersion()} from Maven Central` };
  } else availability = { ok: true };
  return availability;
}

let fetching: Promise<string> | undefined;

/**
 * The directory of the pinned version's jars: copied by Maven into a fresh directory, renamed into
 * place when complete, so a run cut short leaves nothing half there; reused while present.
 */
export function ensureKafkaJars(): Promise<string> {
  const version = kafkaVersion();
  const dir = libDir(version);
  const marker = join(KAFKA_CACHE_DIR, version, 'complete');
  if (existsSync(marker)) return Promise.resolve(dir);
  fetching ??= (async () => {
    const staging = join(KAFKA_CACHE_DIR, version, `lib.${process.pid}.${Date.now()}`);
    await mkdir(staging, { recursive: true });
    try {
      await run('mvn', ['-q', '-B', '-f', POM, 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${staging}`], MAVEN_TIMEOUT_MS, 'mvn dependency:copy-dependencies');
      if (existsSync(marker)) return dir; // another process finished first
      await rm(dir, { recursive: true, force: true });
      await rename(staging, dir);
      await writeFile(marker, `${new Date().toISOString()}\n`);
      return dir;
    } finally {
      await rm(staging, { recursive: true, force: true });
      fetching = undefined;
    }
  })();
  return fetching;
}

/**
 * Apache Kafka when it can run here (kafkaAvailability), else librdkafka's mock cluster, with one line
 * on `say` saying so and why. The topics are created either way.
 */
export async function startLocalKafka(options: LocalKafkaOptions & { say?: (line: string) => void }): Promise<LocalKafka> {
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const available = kafkaAvailability();
  if (available.ok) return startKafka(options);
  // CI asks for Apache Kafka: a machine without Java fails there rather than passing on the mock.
  if (process.env['KAFKA_LOCAL'] === 'kafka') throw new Error(`KAFKA_LOCAL=kafka, but Apache Kafka cannot run here: ${available.reason}`);
  say(`Kafka: librdkafka's mock cluster, not Apache Kafka (${available.reason})`);
  const mock = await startKafkaMock({ brokers: options.brokers ?? 1, topics: options.topics });
  return { kind: 'mock', bootstrapServers: mock.bootstrapServers, setBrokerDown: mock.setBrokerDown, setBrokerUp: mock.setBrokerUp, stop: mock.stop };
}

interface Node {
  id: number;
  port: number;
  controllerPort: number;
  config: string;
  log: string;
  child: ChildProcess | undefined;
  /** Its JVM writes the class-data archive when it exits cleanly. */
  dumping: boolean;
  exited: Promise<void>;
}

/** Starts Apache Kafka (KRaft, combined nodes) with the topics created; throws with the log's tail when it cannot. */
export async function startKafka(options: LocalKafkaOptions): Promise<KafkaCluster> {
  const count = options.brokers ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > BROKERS_MAX) throw new Error(`brokers must be 1..${BROKERS_MAX}, got ${count}`);
  for (const topic of options.topics) checkTopic(topic);
  const version = kafkaVersion();
  const classPath = `${await ensureKafkaJars()}/*`;
  const dir = await mkdtemp(join(tmpdir(), 'pay-kafka-'));
  const ports = await freePorts(2 * count);
  const nodes: Node[] = Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    port: ports[2 * i]!,
    controllerPort: ports[2 * i + 1]!,
    config: join(dir, `node-${i + 1}`, 'server.properties'),
    log: join(dir, `node-${i + 1}`, 'server.log'),
    child: undefined,
    dumping: false,
    exited: Promise.resolve(),
  }));
  const voters = nodes.map((node) => `${node.id}@127.0.0.1:${node.controllerPort}`).join(',');
  const bootstrapServers = nodes.map((node) => `127.0.0.1:${node.port}`).join(',');
  // The declared topic settings (libs/contracts), for this many nodes; the internal topics alike.
  const settings = kafkaTopicSettingsFor(count);
  const replication = settings.replicationFactor;
  const minInsync = settings.minInsyncReplicas;
  const java = javaBinary();
  const jvmOptions = [...(process.env['KAFKA_HEAP_OPTS'] ?? DEFAULT_HEAP_OPTS).split(/\s+/), ...(process.env['KAFKA_JVM_OPTS'] ?? DEFAULT_JVM_OPTS).split(/\s+/)].filter(Boolean);
  const archive = classArchive(version, java, jvmOptions);

  const launch = (node: Node): void => {
    // The class-data archive of the first start that stops cleanly (written by the JVM at its exit),
    // then read by every start: 3.6 s of CPU to start a node without it, 2.1 s with it.
    const cds = existsSync(archive) ? [`-XX:SharedArchiveFile=${archive}`] : [`-XX:ArchiveClassesAtExit=${archive}.${process.pid}.${node.id}.tmp`];
    const args = [...jvmOptions, ...cds, `-Dlog4j2.configurationFile=${join(dir, `node-${node.id}`, 'log4j2.properties')}`, '-cp', classPath, MAIN_CLASS, node.config];
    // A process group of its own: a terminal's Ctrl-C reaches the launcher, which stops the apps first and
    // then this node, rather than the broker going away under apps still draining (the watchdog covers a
    // launcher that dies).
    const child = spawn(java, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
    node.child = child;
    node.dumping = cds[0]!.startsWith('-XX:ArchiveClassesAtExit=');
    node.exited = new Promise((resolveExit) => {
      child.once('exit', (code, signal) => {
        if (node.child === child) node.child = undefined;
        if (stderr.trim()) void writeFile(`${node.log}.stderr`, stderr).catch(() => undefined);
        const dumped = cds[0]!.startsWith('-XX:ArchiveClassesAtExit=') ? cds[0]!.slice('-XX:ArchiveClassesAtExit='.length) : undefined;
        if (!dumped) return resolveExit();
        // Kept only when complete: a JVM killed while dumping leaves a partial file.
        const keep = signal === null && code !== null && !existsSync(archive) && existsSync(dumped) ? rename(dumped, archive) : rm(dumped, { force: true });
        void keep.catch(() => undefined).finally(resolveExit);
      });
      child.once('error', () => resolveExit());
    });
    if (child.pid !== undefined) watchParent(child.pid);
  };

  const killAll = async (signal: NodeJS.Signals) => {
    for (const node of nodes) node.child?.kill(signal);
    await Promise.all(nodes.map((node) => node.exited));
  };
  const onExit = () => nodes.forEach((node) => node.child?.kill('SIGKILL'));
  process.once('exit', onExit);
  let admin: Admin | undefined;

  /**
   * The data goes with the directory, so nothing needs a clean shutdown: SIGKILL, at once. Except a
   * node writing the class-data archive at its exit: SIGTERM, and time to write it.
   */
  const stop = async () => {
    process.removeListener('exit', onExit);
    await admin?.disconnect().catch(() => undefined);
    const dumping = nodes.filter((node) => node.child && node.dumping);
    for (const node of nodes) if (!dumping.includes(node)) node.child?.kill('SIGKILL');
    if (dumping.length > 0) {
      for (const node of dumping) node.child?.kill('SIGTERM');
      await Promise.race([Promise.all(dumping.map((node) => node.exited)), sleep(ARCHIVE_DUMP_GRACE_MS)]);
    }
    await killAll('SIGKILL');
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };

  try {
    const template = await formattedStorage(version, count, java, jvmOptions, classPath);
    await Promise.all(
      nodes.map(async (node) => {
        await mkdir(join(dir, `node-${node.id}`), { recursive: true });
        await writeFile(node.config, serverProperties({ node, voters, dataDir: join(dir, `node-${node.id}`, 'data'), replication, minInsync }));
        await writeFile(join(dir, `node-${node.id}`, 'log4j2.properties'), log4jProperties(node.log));
        await cp(join(template, `node-${node.id}`), join(dir, `node-${node.id}`, 'data'), { recursive: true });
      }),
    );
    for (const node of nodes) launch(node);
    admin = new Kafka({ clientId: 'pay-kafka-launcher', brokers: bootstrapServers.split(','), logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
    await waitForBrokers(admin, nodes, START_TIMEOUT_MS);
    await createTopicsWith(admin, options.topics, count);
    await waitForGroupCoordinator(admin, count, START_TIMEOUT_MS);
  } catch (error) {
    const tail = await logTail(nodes);
    await stop();
    throw new Error(`Apache Kafka ${version} did not start: ${(error as Error).message}${tail}`);
  }

  const node = (id: number): Node => {
    const found = nodes.find((candidate) => candidate.id === id);
    if (!found) throw new RangeError(`no Kafka node ${id} (nodes 1..${count})`);
    return found;
  };
  return {
    kind: 'kafka',
    bootstrapServers,
    version,
    brokers: count,
    pid: (id) => node(id).child?.pid,
    logFile: (id) => node(id).log,
    setBrokerDown: async (id) => {
      const target = node(id);
      target.child?.kill('SIGKILL');
      await target.exited;
    },
    setBrokerUp: async (id) => {
      const target = node(id);
      if (target.child) return;
      launch(target);
      await waitForBrokers(admin!, nodes, START_TIMEOUT_MS);
    },
    stop,
  };
}

/** Creates the topics with the declared settings for a cluster of `brokers` nodes, and waits for their leaders. */
async function createTopicsWith(admin: Admin, topics: readonly KafkaTopicSpec[], brokers: number): Promise<void> {
  if (topics.length === 0) return;
  const settings = kafkaTopicSettingsFor(brokers);
  const configEntries = Object.entries(kafkaTopicConfig(settings)).map(([name, value]) => ({ name, value }));
  await admin.createTopics({
    waitForLeaders: false,
    topics: topics.map((topic) => ({ topic: topic.name, numPartitions: topic.partitions, replicationFactor: settings.replicationFactor, configEntries })),
  });
  await waitForLeaders(admin, topics.map((topic) => topic.name), START_TIMEOUT_MS);
}

/**
 * Until every partition of the topics has a leader. kafkajs' own wait (createTopics' waitForLeaders)
 * gives up on UNKNOWN_TOPIC_OR_PARTITION, which a broker answers until the new topic reaches its
 * metadata cache.
 */
async function waitForLeaders(admin: Admin, topics: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'not asked yet';
  for (;;) {
    try {
      const metadata = await admin.fetchTopicMetadata({ topics });
      const leaderless = metadata.topics.filter((topic) => topic.partitions.length === 0 || topic.partitions.some((partition) => partition.leader < 0));
      if (metadata.topics.length === topics.length && leaderless.length === 0) return;
      last = `${leaderless.map((topic) => topic.name).join(', ') || 'some topics'} without leaders`;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`topics without leaders after ${timeoutMs} ms (${last})`);
    await sleep(PROBE_EVERY_MS);
  }
}

const adminOf = (bootstrapServers: string): Admin =>
  new Kafka({ clientId: 'pay-kafka-launcher', brokers: bootstrapServers.split(','), logLevel: logLevel.NOTHING, retry: { retries: 5 } }).admin();

/**
 * Topics of one topology on a cluster others use too (a test run's shared broker): created with the
 * declared settings for its `brokers` nodes, every name checked to start with `prefix`. The answer
 * removes them and the consumer groups under the same prefix (a group a killed member still holds is
 * left to expire).
 */
export async function createPrefixedTopics(bootstrapServers: string, brokers: number, prefix: string, topics: readonly KafkaTopicSpec[]): Promise<() => Promise<void>> {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(prefix)) throw new Error(`invalid topic prefix '${prefix}'`);
  for (const topic of topics) {
    checkTopic(topic);
    if (!topic.name.startsWith(prefix)) throw new Error(`topic ${topic.name} is not under the prefix ${prefix}`);
  }
  const admin = adminOf(bootstrapServers);
  await admin.connect();
  try {
    await createTopicsWith(admin, topics, brokers);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  return async () => {
    const remover = adminOf(bootstrapServers);
    try {
      await remover.connect();
      const { groups } = await remover.listGroups();
      const ours = groups.map((group) => group.groupId).filter((id) => id.startsWith(prefix));
      if (ours.length > 0) await remover.deleteGroups(ours).catch(() => undefined);
      await remover.deleteTopics({ topics: topics.map((topic) => topic.name) });
    } finally {
      await remover.disconnect().catch(() => undefined);
    }
  };
}

/**
 * Storage formatted once per version and node count (`kafka-storage format`, a JVM per node), kept in
 * the cache and copied for each start: what it holds (cluster id, node id, metadata version) is the
 * same for every local cluster, whatever its ports and directory.
 */
async function formattedStorage(version: string, count: number, java: string, jvmOptions: string[], classPath: string): Promise<string> {
  const template = join(KAFKA_CACHE_DIR, version, `storage-${count}`);
  if (existsSync(join(template, 'complete'))) return template;
  const staging = `${template}.${process.pid}.${Date.now()}`;
  const clusterId = randomBytes(16).toString('base64url');
  const voters = Array.from({ length: count }, (_, i) => `${i + 1}@127.0.0.1:${9093 + i}`).join(',');
  try {
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const id = i + 1;
        const config = join(staging, `node-${id}.properties`);
        await mkdir(join(staging, `node-${id}`), { recursive: true });
        // Ports are not stored: any will do for the format.
        const node = { id, port: 9092 + 2 * count + i, controllerPort: 9093 + i } as Node;
        await writeFile(config, serverProperties({ node, voters, dataDir: join(staging, `node-${id}`), replication: kafkaTopicSettingsFor(count).replicationFactor, minInsync: 1 }));
        await run(java, [...jvmOptions, '-Dlog4j2.configurationFile=none', '-cp', classPath, STORAGE_TOOL_CLASS, 'format', '-t', clusterId, '-c', config], FORMAT_TIMEOUT_MS, `kafka-storage format (node ${id})`);
        await rm(config);
      }),
    );
    await writeFile(join(staging, 'complete'), `${clusterId}\n`);
    if (!existsSync(join(template, 'complete'))) {
      await rm(template, { recursive: true, force: true });
      await rename(staging, template);
    }
    return template;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** The class-data archive's path for this Java and these options (an archive is valid for one JVM build and flag set). */
function classArchive(version: string, java: string, jvmOptions: string[]): string {
  const build = spawnSync(java, ['-version'], { encoding: 'utf8' });
  const key = createHash('sha256').update(`${build.stderr}${build.stdout}${jvmOptions.filter((option) => option.startsWith('-XX:')).join(' ')}`).digest('hex').slice(0, 12);
  return join(KAFKA_CACHE_DIR, version, `classes-${key}.jsa`);
}

/** Until a metadata request answers with every running node among the brokers (or a node exits). */
async function waitForBrokers(admin: Admin, nodes: readonly Node[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    const down = nodes.find((node) => node.child === undefined || node.child.exitCode !== null);
    const expected = nodes.filter((node) => node.child).map((node) => node.id);
    if (down && nodes.every((node) => node.child === undefined)) throw new Error(`every node exited (node ${down.id} last)`);
    try {
      await admin.connect();
      const { brokers } = await admin.describeCluster();
      const ids = new Set(brokers.map((broker) => broker.nodeId));
      if (expected.every((id) => ids.has(id))) return;
      last = `brokers ${[...ids].join(',') || 'none'} of ${expected.join(',')} registered`;
    } catch (error) {
      last = (error as Error).message;
      await admin.disconnect().catch(() => undefined);
    }
    if (Date.now() > deadline) throw new Error(`no metadata answer naming every broker within ${timeoutMs} ms (${last})`);
    await sleep(PROBE_EVERY_MS);
  }
}

/**
 * Until groups have a coordinator. A new cluster creates its offsets topic on the first FindCoordinator
 * and answers COORDINATOR_NOT_AVAILABLE until its partitions have leaders: kafkajs gives up on that
 * within its retries and crashes the consumer (KafkaJSGroupCoordinatorNotFound, not retried), so every
 * app's first join failed. Created and led here, before any app starts.
 */
async function waitForGroupCoordinator(admin: Admin, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'not asked yet';
  for (let probe = 0; ; probe += 1) {
    try {
      await admin.describeGroups([`pay-launcher-probe-${probe}`]);
      const metadata = await admin.fetchTopicMetadata({ topics: [OFFSETS_TOPIC] });
      const partitions = metadata.topics[0]?.partitions ?? [];
      if (partitions.length > 0 && partitions.every((partition) => partition.leader >= 0 && partition.isr.length >= Math.min(count, 2))) return;
      last = `${OFFSETS_TOPIC}: ${partitions.filter((partition) => partition.leader >= 0).length} of ${partitions.length} partitions led`;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`no group coordinator within ${timeoutMs} ms (${last})`);
    await sleep(PROBE_EVERY_MS);
  }
}

const OFFSETS_TOPIC = '__consumer_offsets';

/**
 * A node's settings: KRaft combined mode on loopback, no topic created by a client, internal topics
 * sized for a test cluster, and no initial rebalance delay (a new group's first join would wait 3 s).
 */
function serverProperties({ node, voters, dataDir, replication, minInsync }: { node: Node; voters: string; dataDir: string; replication: number; minInsync: number }): string {
  const settings: Record<string, string | number> = {
    'process.roles': 'broker,controller',
    'node.id': node.id,
    'controller.quorum.voters': voters,
    listeners: `PLAINTEXT://127.0.0.1:${node.port},CONTROLLER://127.0.0.1:${node.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${node.port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'log.dirs': dataDir,
    'auto.create.topics.enable': 'false',
    'default.replication.factor': replication,
    'min.insync.replicas': minInsync,
    'offsets.topic.replication.factor': replication,
    'offsets.topic.num.partitions': 8,
    'transaction.state.log.replication.factor': replication,
    'transaction.state.log.min.isr': minInsync,
    'share.coordinator.state.topic.replication.factor': replication,
    'share.coordinator.state.topic.min.isr': minInsync,
    'group.initial.rebalance.delay.ms': 0,
    'num.network.threads': 2,
    'num.io.threads': 4,
    'num.recovery.threads.per.data.dir': 1,
    'background.threads': 2,
    'log.cleaner.threads': 1,
    'unclean.leader.election.enable': 'false',
  };
  return `${Object.entries(settings)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n')}\n`;
}

/** The broker's log to its own file (INFO), nothing on the console. */
function log4jProperties(file: string): string {
  return [
    'status = error',
    'appender.file.type = File',
    'appender.file.name = file',
    `appender.file.fileName = ${file}`,
    'appender.file.layout.type = PatternLayout',
    'appender.file.layout.pattern = [%d] %p %m (%c)%n',
    'rootLogger.level = info',
    'rootLogger.appenderRef.file.ref = file',
    'logger.kafka.name = org.apache.kafka',
    'logger.kafka.level = info',
    '',
  ].join('\n');
}

async function logTail(nodes: readonly Node[]): Promise<string> {
  const parts: string[] = [];
  for (const node of nodes) {
    for (const file of [`${node.log}.stderr`, node.log]) {
      const text = await readFile(file, 'utf8').catch(() => '');
      const lines = text
        .split('\n')
        .filter((line) => /ERROR|FATAL|Exception|Error:/.test(line))
        .slice(-5);
      if (lines.length > 0) parts.push(`node ${node.id} (${file}):\n${lines.join('\n')}`);
    }
  }
  return parts.length > 0 ? `\n${parts.join('\n')}` : '';
}

/**
 * Kills the JVM with SIGKILL once this process is gone (a test run or a launcher killed without its
 * exit handlers): a small shell that looks every second. It ends by itself when the JVM does.
 */
function watchParent(pid: number): void {
  const script = 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; kill -9 "$2" 2>/dev/null; exit 0';
  const watchdog = spawn('sh', ['-c', script, 'kafka-watchdog', String(process.pid), String(pid)], { detached: true, stdio: 'ignore' });
  watchdog.unref();
}

function checkTopic({ name, partitions }: KafkaTopicSpec): void {
  if (!/^[A-Za-z0-9._-]{1,249}$/.test(name)) throw new Error(`invalid topic name '${name}'`);
  if (!Number.isInteger(partitions) || partitions < 1) throw new Error(`topic ${name}: partitions must be a positive integer, got ${partitions}`);
}

/** Ports free now on loopback (the system's picks), released for the broker to take. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolveServer, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolveServer(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolveClose) => server.close(resolveClose))));
  return ports;
}

/** Runs a command to its end; throws with its stderr's tail on failure or time-out. */
function run(command: string, args: string[], timeoutMs: number, what: string): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${what}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolveRun();
      else reject(new Error(`${what} failed (${signal ?? `exit ${code}`}): ${output.trim().split('\n').slice(-10).join('\n')}`));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((resolveSleep) => setTimeout(resolveSleep, ms));
