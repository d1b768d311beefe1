import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

export interface GroupRun {
  /** Everything printed so far, stdout and stderr. */
  output(): string;
  /** Resolves once the output matches, rejects when the process exits first or the time is up. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** SIGINT to the whole process group, as a terminal's Ctrl-C sends it. */
  ctrlC(): void;
  running(): boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `node tools/run.js <entry>` as a terminal runs it: the leader of a process group of its own, so that a
 * signal to the group reaches it and whatever it started in that group.
 */
export function runInOwnGroup(entry: string, env: Record<string, string>): GroupRun {
  const child = spawn(process.execPath, [join(ROOT, 'tools', 'run.js'), join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const changed: (() => void)[] = [];
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const notify of changed.splice(0)) notify();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      for (const notify of changed.splice(0)) notify();
    }),
  );
  const waitFor = (pattern: RegExp, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`not seen within ${timeoutMs} ms: ${pattern}\n${output}`)), timeoutMs);
      const check = () => {
        if (pattern.test(output)) return clearTimeout(deadline), resolve();
        if (child.exitCode !== null || child.signalCode !== null) return clearTimeout(deadline), reject(new Error(`exited before ${pattern}:\n${output}`));
        changed.push(check);
      };
      check();
    });
  const running = () => child.exitCode === null && child.signalCode === null;
  return { output: () => output, waitFor, ctrlC: () => process.kill(-child.pid!, 'SIGINT'), running, exited };
}

/**
 * A test file's runs in groups of their own, on a DATA_DIR of its own (`prefix` names it): the directory
 * made before the tests, and after them a run still going stopped by Ctrl-C and the directory removed.
 */
export function groupRunsIn(prefix: string): { dataDir: () => string; start: (entry: string, env: Record<string, string>) => GroupRun } {
  let dataDir = '';
  let run: GroupRun | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (run?.running()) {
      run.ctrlC();
      await run.exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  return { dataDir: () => dataDir, start: (entry, env) => (run = runInOwnGroup(entry, env)) };
}

/** Lines that a person reading the terminal would take for trouble: a log line at warn or above, or a word saying so. */
export const troubleLines = (output: string): string[] =>
  output.split('\n').filter((line) => /"level":"(warn|error|fatal)"/.test(line) || /\b(warn|warning|error|fatal|ERR_\w+|ECONNREFUSED|deprecat\w*)\b/i.test(line));
