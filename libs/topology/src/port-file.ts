import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * How whoever starts an app learns its port: the app is given PORT_FILE (and PORT=0 for a port the
 * system picks), and writes there the port it listens on once it listens (see the runtime's host).
 */

/** A fresh PORT_FILE path for one start of the process `name`. */
export const newPortFile = (name: string): string => join(tmpdir(), `pay-${name}-${process.pid}-${randomBytes(6).toString('hex')}.port`);

/** The port written to `file`; undefined while the process does not listen yet. */
export const portWritten = async (file: string): Promise<string | undefined> => (await readFile(file, 'utf8').catch(() => '')).trim() || undefined;
