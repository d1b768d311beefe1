import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { TOPOLOGY_APP_OUTPUT_KEPT_CHARS, TOPOLOGY_APP_OUTPUT_SHOWN_CHARS, TOPOLOGY_APP_START_TIMEOUT_MS, TOPOLOGY_READY_POLL_MS } from '@pay/kernel';
import { newPortFile, waitUntilServing } from './port-file';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * `TOPOLOGY_NODE_ARGS`: extra Node options for every app, space-separated, e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof` (a V8 profile per process, written when it stops; read it with
 * tools/bench/profile-summary.ts). NODE_OPTIONS cannot carry --cpu-prof.
 */
const nodeArgs = (): string[] => (process.env['TOPOLOGY_NODE_ARGS'] ?? '').split(/\s+/).filter(Boolean);

/**
 * `TOPOLOGY_APPS=built`: every app runs from the build under dist/ (`npm run build`, which CI runs
 * before the distributed tests), not from its sources through the workspace loader (tools/run.js), which
 * transpiles them and loads TypeScript and swc first. An app's start is mostly its modules loading: a
 * built app starts with about a third less CPU, and a rolling restart waits on every instance's start.
 * The build must be of the sources being tested: nothing here checks that it is.
 */
export function appCommand(entry: string, built = process.env['TOPOLOGY_APPS'] === 'built'): string[] {
  if (!built) return [join(ROOT, 'tools', 'run.js'), join(ROOT, entry)];
  const main = join(ROOT, 'dist', entry.replace(/\.ts$/, '.js'));
  if (!existsSync(main)) throw new Error(`TOPOLOGY_APPS=built, but ${main} does not exist: run \`npm run build\` first`);
  return ['-r', join(ROOT, 'tools', 'dist-register.js'), main];
}

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

/**
 * One app as its own Node process (`node tools/run.js apps/<app>/src/main.ts`, or its build: appCommand), started once /ready
 * answers 200: it serves and reaches PostgreSQL and Kafka, so the next app (the gateway last) finds it
 * able to answer, not only listening.
 */
export class AppProcess {
  private child: ChildProcess | undefined;
  private exitPromise: Promise<Exit> = Promise.resolve({ code: 0, signal: null });
  private log = '';
  url = '';

  constructor(
    readonly name: string,
    private readonly entry: string,
    private readonly env: Record<string, string>,
    private readonly echo: boolean,
    /** How long a start may take until /ready answers 200. */
    private readonly startTimeoutMs: number = TOPOLOGY_APP_START_TIMEOUT_MS,
  ) {
    if (!Number.isInteger(startTimeoutMs) || startTimeoutMs <= TOPOLOGY_READY_POLL_MS) throw new RangeError(`startTimeoutMs must be an integer above ${TOPOLOGY_READY_POLL_MS}, got ${startTimeoutMs}`);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  output(): string {
    return this.log;
  }

  get exited(): Promise<Exit> {
    return this.exitPromise;
  }

  /**
   * Starts (or starts again) the process, and waits until it serves. The first start listens on the
   * port of its environment (PORT), or on one the system picks; a start again on the same one, so that
   * the URL stays. The process writes the port it listens on to a file (PORT_FILE) once it listens, and
   * /ready is asked only then: whatever else answers on that port (a process of another test given the
   * same port a moment before, say) is never taken for this app, whose own start then fails on the
   * port in use and says so.
   */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    const portFile = newPortFile(this.name);
    const child = spawn(process.execPath, [...nodeArgs(), ...appCommand(this.entry)], {
      cwd: ROOT,
      env: { ...process.env, HOST: '127.0.0.1', ...this.env, PORT: this.env['PORT'] ?? '0', PORT_FILE: portFile },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own: a Ctrl-C in the terminal reaches the launcher alone, which stops the
      // apps in order, then the broker and the database, so that no app loses them while it drains.
      detached: true,
    });
    this.child = child;
    this.exitPromise = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    const keep = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (this.echo) process.stdout.write(text.replace(/^(?=.)/gm, `[${this.name}] `));
      this.log = (this.log + text).slice(-TOPOLOGY_APP_OUTPUT_KEPT_CHARS);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    try {
      const port = await waitUntilServing({ portFile, path: '/ready', timeoutMs: this.startTimeoutMs, pollMs: TOPOLOGY_READY_POLL_MS, child });
      this.env['PORT'] = port;
      this.url = `http://127.0.0.1:${port}`;
    } catch (error) {
      child.kill('SIGKILL');
      throw new Error(`${this.name} ${(error as Error).message}:\n${this.log.slice(-TOPOLOGY_APP_OUTPUT_SHOWN_CHARS)}`);
    }
  }

  /** Sends a signal and waits for the exit (SIGKILL: a crash; SIGTERM: a graceful stop). */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
    if (!this.running) return this.exitPromise;
    this.child!.kill(signal);
    return this.exitPromise;
  }
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
