import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { newPortFile, waitUntilServing } from '@pay/topology';
import { httpClient, type Client } from './harness';

const ROOT = join(__dirname, '..', '..', '..', '..');
const START_TIMEOUT_MS = 60_000;
const POLL_MS = 200;

/**
 * A crash test starts the service twice (killed by its failpoint, then restarted on the same DATA_DIR),
 * each start a migration and a recovery: on a busy two-core machine that outlasts jest's default bound.
 */
export const CRASH_TEST_TIMEOUT_MS = 240_000;

export interface ServiceProcess {
  url: string;
  http: Client;
  child: ChildProcess;
  /** Everything the process printed, for failure messages. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `npm start` as a real process (node tools/run.js apps/all-in-one/src/main.ts) on a port the system
 * picks, which the process writes to a file once it listens (PORT_FILE): ready once that port answers
 * /health. No other process can be the one answering there, as it could on a port found free first.
 */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const portFile = newPortFile('service');
  const child = spawn(process.execPath, [join(ROOT, 'tools', 'run.js'), join(ROOT, 'apps', 'all-in-one', 'src', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env, PORT_FILE: portFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let url: string;
  try {
    url = `http://127.0.0.1:${await waitUntilServing({ portFile, path: '/health', timeoutMs: START_TIMEOUT_MS, pollMs: POLL_MS, child })}`;
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`the service ${(error as Error).message}:\n${output}`);
  }
  return { url, http: httpClient(url), child, output: () => output, exited };
}
