import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { httpClient, type Client } from './harness';

const ROOT = join(__dirname, '..', '..', '..', '..');
const START_TIMEOUT_MS = 60_000;

export interface ServiceProcess {
  url: string;
  http: Client;
  child: ChildProcess;
  /** Everything the process printed, for failure messages. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm start` as a real process (node tools/run.js apps/all-in-one/src/main.ts), ready once /health answers. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'tools', 'run.js'), join(ROOT, 'apps', 'all-in-one', 'src', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the service exited during start:\n${output}`);
    try {
      if ((await fetch(`${url}/health`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not answer /health within ${START_TIMEOUT_MS} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, http: httpClient(url), child, output: () => output, exited };
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
