import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * tools/kafka-mock: a librdkafka mock cluster as a process (built from C on first use), and this, its
 * launcher. `npm run start:distributed` starts one when KAFKA_BROKERS is unset (@pay/topology), and the
 * Kafka tests through @pay/testing. It belongs to no project and imports only Node's built-ins, so
 * neither importer depends on the other (the launcher in either library would close a project circle:
 * bus's tests -> testing -> topology -> bus).
 */
const TOOL_DIR = __dirname;
export const KAFKA_MOCK_BINARY = join(TOOL_DIR, 'kafka-mock');
const START_TIMEOUT_MS = 10_000;
const COMMAND_TIMEOUT_MS = 5_000;
const STOP_TIMEOUT_MS = 5_000;
const BROKERS_MAX = 32;

export interface KafkaMockTopic {
  name: string;
  partitions: number;
}

export interface KafkaMockOptions {
  /** Brokers of the cluster, ids 1..brokers (default 1). */
  brokers?: number;
  /** Created before the bootstrap servers are printed (clients may not create topics on the mock). */
  topics: readonly KafkaMockTopic[];
}

export interface KafkaMock {
  /** host:port,host:port… */
  bootstrapServers: string;
  /** The broker drops its connections and refuses new ones; its partitions keep it as leader (no failover). */
  setBrokerDown(id: number): Promise<void>;
  setBrokerUp(id: number): Promise<void>;
  createTopic(name: string, partitions: number): Promise<void>;
  /** The next request of that Kafka API (from any client) is answered with that error code. */
  failNextRequest(apiKey: number, errorCode: number): Promise<void>;
  /** Ends the process (EOF on its stdin, then SIGTERM, then SIGKILL). */
  stop(): Promise<void>;
}

let built = false;

/** Builds the binary once per process when missing or stale; throws with the build script's message. */
export function buildKafkaMock(): string {
  if (built) return KAFKA_MOCK_BINARY;
  try {
    execFileSync('sh', [join(TOOL_DIR, 'build.sh')], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`cannot build the Kafka mock cluster (${KAFKA_MOCK_BINARY}): ${stderr || (error as Error).message}`);
  }
  if (!existsSync(KAFKA_MOCK_BINARY)) throw new Error(`tools/kafka-mock/build.sh did not produce ${KAFKA_MOCK_BINARY}`);
  built = true;
  return KAFKA_MOCK_BINARY;
}

/** Starts a mock Kafka cluster with the topics created; for jest tests and Node scripts alike. */
export async function startKafkaMock(options: KafkaMockOptions): Promise<KafkaMock> {
  const brokers = options.brokers ?? 1;
  if (!Number.isInteger(brokers) || brokers < 1 || brokers > BROKERS_MAX) throw new Error(`brokers must be 1..${BROKERS_MAX}, got ${brokers}`);
  const topicArgs = options.topics.map(topicSpec);
  // Its own process group: a Ctrl-C in the terminal must not stop it under apps still draining.
  const child = spawn(buildKafkaMock(), ['--brokers', String(brokers), ...topicArgs], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const mock = new MockProcess(child);
  try {
    const bootstrapServers = await mock.firstLine(START_TIMEOUT_MS);
    return {
      bootstrapServers,
      setBrokerDown: (id) => mock.command(`down ${id}`),
      setBrokerUp: (id) => mock.command(`up ${id}`),
      createTopic: (name, partitions) => mock.command(`topic ${topicSpec({ name, partitions })}`),
      failNextRequest: (apiKey, errorCode) => mock.command(`fail ${apiKey}:${errorCode}`),
      stop: () => mock.stop(),
    };
  } catch (error) {
    await mock.stop();
    throw error;
  }
}

const topicSpec = ({ name, partitions }: KafkaMockTopic): string => {
  if (!/^[A-Za-z0-9._-]{1,249}$/.test(name)) throw new Error(`invalid topic name '${name}'`);
  if (!Number.isInteger(partitions) || partitions < 1) throw new Error(`topic ${name}: partitions must be a positive integer, got ${partitions}`);
  return `${name}:${partitions}`;
};

/** The child process and its line protocol: one command, one answer line, in order. */
class MockProcess {
  private readonly lines: string[] = [];
  private readonly waiters: ((line: string | undefined) => void)[] = [];
  private stderr = '';
  private exited = false;
  private readonly exit: Promise<void>;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly killOnExit = () => this.child.kill('SIGKILL');

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.exit = new Promise((resolveExit) => {
      const finish = () => {
        if (this.exited) return;
        this.exited = true;
        process.removeListener('exit', this.killOnExit);
        for (const waiter of this.waiters.splice(0)) waiter(undefined);
        resolveExit();
      };
      child.once('exit', finish);
      child.once('error', (error) => {
        this.stderr += `${error.message}\n`;
        if (child.exitCode !== null || child.pid === undefined) finish(); // failed to spawn: no 'exit' follows
      });
    });
    // A test run or a script that ends without stop() does not leave the cluster behind.
    process.once('exit', this.killOnExit);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-4_000)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    });
  }

  firstLine(timeoutMs: number): Promise<string> {
    return this.nextLine(timeoutMs, 'start').then((line) => {
      if (!/^[^\s,]+:\d+(,[^\s,]+:\d+)*$/.test(line)) throw new Error(`kafka-mock printed '${line}' instead of its bootstrap servers`);
      return line;
    });
  }

  /** Commands run one at a time: answers come back in order. */
  command(line: string): Promise<void> {
    const run = this.queue.then(async () => {
      if (this.exited) throw new Error(`kafka-mock has exited; cannot run '${line}'`);
      this.child.stdin.write(`${line}\n`);
      const answer = await this.nextLine(COMMAND_TIMEOUT_MS, line);
      if (answer !== 'ok') throw new Error(`kafka-mock '${line}': ${answer}`);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  async stop(): Promise<void> {
    if (!this.exited) {
      this.child.stdin.end();
      if (!(await this.exitWithin(STOP_TIMEOUT_MS))) {
        this.child.kill('SIGTERM');
        if (!(await this.exitWithin(STOP_TIMEOUT_MS))) this.child.kill('SIGKILL');
      }
    }
    await this.exit;
  }

  private nextLine(timeoutMs: number, what: string): Promise<string> {
    const buffered = this.lines.shift();
    if (buffered !== undefined) return Promise.resolve(buffered);
    return new Promise((resolveLine, reject) => {
      const fail = (reason: string) => reject(new Error(`kafka-mock (${what}): ${reason}${this.stderr ? `; stderr: ${this.stderr.trim()}` : ''}`));
      if (this.exited) return fail('the process has exited');
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        fail(`no answer within ${timeoutMs} ms`);
      }, timeoutMs);
      const waiter = (line: string | undefined) => {
        clearTimeout(timer);
        if (line === undefined) fail(`the process exited (code ${this.child.exitCode})`);
        else resolveLine(line);
      };
      this.waiters.push(waiter);
    });
  }

  private exitWithin(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      this.exit.then(() => true),
      new Promise<boolean>((resolveTimeout) => (timer = setTimeout(() => resolveTimeout(false), timeoutMs))),
    ]).finally(() => clearTimeout(timer));
  }
}
