import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * How whoever starts an app learns its port: the app is given PORT_FILE (and PORT=0 for a port the
 * system picks), and writes there the port it listens on once it listens (see the runtime's host).
 */

/** A fresh PORT_FILE path for one start of the process `name`. */
export const newPortFile = (name: string): string => join(tmpdir(), `pay-${name}-${process.pid}-${randomBytes(6).toString('hex')}.port`);

/** The port written to `file`; undefined while the process does not listen yet. */
const portWritten = async (file: string): Promise<string | undefined> => (await readFile(file, 'utf8').catch(() => '')).trim() || undefined;

export interface ServingWait {
  /** The PORT_FILE the process was given (removed once the wait is over). */
  portFile: string;
  /** Asked on the process's port once it is written, until it answers 200: `/ready`, `/health`. */
  path: string;
  timeoutMs: number;
  pollMs: number;
  /** The process: once it has exited, the wait fails at once. */
  child: ChildProcess;
}

/**
 * The port of a process just started with `portFile`, once it has written it there and answers `path`
 * 200 on it (on 127.0.0.1). Only then: whatever else answers on that port is never taken for the
 * process. Rejects with what it was waiting for ("exited during start", "was not listening (PORT_FILE)
 * within …"); the caller kills the process and adds its output.
 */
export async function waitUntilServing({ portFile, path, timeoutMs, pollMs, child }: ServingWait): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let port: string | undefined;
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error('exited during start');
      port ??= await portWritten(portFile);
      // Not 200 yet (a 503 until its dependencies answer, or no answer): asked again.
      if (port !== undefined && (await fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.status, () => 0)) === 200) return port;
      if (Date.now() > deadline) throw new Error(`was not ${port === undefined ? 'listening (PORT_FILE)' : `serving (GET ${path} 200)`} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  } finally {
    await rm(portFile, { force: true });
  }
}
