import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { AUDIT_INTENT_SETTLE_AFTER_MS, AUDIT_SWEEP_INTERVAL_MS, SECOND_MS } from '@pay/kernel';
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

/**
 * What `read` finds once the audit sweeper has settled the intents a crash left: the service clock moved
 * past the bound an intent waits for its request (an integrator's test helper, `apiKey`), then `read`
 * every half second until it finds something, for six sweeps at most.
 */
export async function afterAuditSweep<T>(running: ServiceProcess, apiKey: string, read: () => Promise<T[]>): Promise<T[]> {
  const advance = await running.http('POST', '/v1/test_helpers/clock/advance', { key: apiKey, body: { seconds: Math.ceil((AUDIT_INTENT_SETTLE_AFTER_MS + 10 * SECOND_MS) / SECOND_MS) } });
  if (advance.status !== 200) throw new Error(`the service clock did not advance: ${advance.status} ${JSON.stringify(advance.body)}`);
  let found: T[] = [];
  const deadline = Date.now() + 6 * AUDIT_SWEEP_INTERVAL_MS;
  while (found.length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    found = await read();
  }
  return found;
}
