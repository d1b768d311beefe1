import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { newPortFile, waitUntilServing } from '@pay/topology';

export const REPO_ROOT = resolve(__dirname, '..', '..');

const HEALTH_TIMEOUT_MS = 90_000;
const HEALTH_POLL_MS = 200;
const STOP_TIMEOUT_MS = 10_000;
const OUTPUT_LINES_KEPT = 40;

export interface ServiceProcess {
  url: string;
  pid: number;
  adminKey: string;
  /** The child's last lines of output, for error messages. */
  recentOutput(): string;
  /** SIGTERM (graceful shutdown), then SIGKILL if it does not exit in time. Safe to call twice. */
  stop(): Promise<void>;
}

/** 32 characters of [A-Za-z0-9_], as ADMIN_API_KEY requires. */
export const randomAdminKey = (): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_';
  return [...randomBytes(32)].map((byte) => alphabet[byte % alphabet.length]).join('');
};

/**
 * The all-in-one service as a real child process, started the way `npm start` starts it, so that what
 * is measured includes the loader, Nest and Fastify exactly as deployed; resolves once /health is 200.
 */
export interface SpawnOptions {
  databaseUrl: string;
  dataDir: string;
  /** Added to the service's environment, overriding the bench's own (LOG_LEVEL, OTEL_EXPORTER_OTLP_ENDPOINT, …). */
  env?: Record<string, string>;
  /** Another checkout to run the service from (the chain phase's tree without the chain); default this one. */
  cwd?: string;
  /** How long it may take to listen (default 90 s). */
  startTimeoutMs?: number;
}

/**
 * `BENCH_SERVICE_NODE_ARGS`: extra Node options for the service, space-separated, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` (a V8 profile written when it stops; read it with
 * tools/bench/profile-summary.ts). NODE_OPTIONS cannot carry --cpu-prof.
 */
const serviceNodeArgs = (): string[] => (process.env['BENCH_SERVICE_NODE_ARGS'] ?? '').split(/\s+/).filter(Boolean);

export async function spawnService(options: SpawnOptions): Promise<ServiceProcess> {
  // The service picks its port and says which (no port reserved ahead, which another process may take meanwhile).
  const portFile = newPortFile('bench-service');
  const adminKey = randomAdminKey();
  const child = spawn(process.execPath, [...serviceNodeArgs(), 'tools/run.js', 'apps/all-in-one/src/main.ts'], {
    cwd: options.cwd ?? REPO_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      PORT: '0',
      PORT_FILE: portFile,
      HOST: '127.0.0.1',
      SANDBOX: 'true',
      RATE_LIMIT_PER_SECOND: '0',
      ADMIN_API_KEY: adminKey,
      DATA_DIR: options.dataDir,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const recent: string[] = [];
  const remember = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      recent.push(line);
      if (recent.length > OUTPUT_LINES_KEPT) recent.shift();
    }
  };
  child.stdout?.on('data', remember);
  child.stderr?.on('data', remember);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));

  const stop = () => stopChild(child, exited);
  const recentOutput = () => recent.join('\n');
  let url: string;
  try {
    url = `http://127.0.0.1:${await waitUntilServing({ portFile, path: '/health', timeoutMs: options.startTimeoutMs ?? HEALTH_TIMEOUT_MS, pollMs: HEALTH_POLL_MS, child })}`;
  } catch (error) {
    await stop();
    throw new Error(`the service (pid ${child.pid}) ${(error as Error).message}\n--- service output ---\n${recentOutput()}`);
  }
  return { url, pid: child.pid ?? -1, adminKey, recentOutput, stop };
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
