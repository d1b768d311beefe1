import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A secret kept in a file (mode 0600), made by `make` when the file does not exist yet. The new secret
 * is written to a file of its own and then linked into place: of processes starting together on one
 * directory (several instances of an app, or apps sharing a DATA_DIR), one link wins and every one of
 * them reads the winner's. `created` is true in the process whose secret won, and only there. When
 * `make` throws, nothing is written.
 */
export function readOrCreateSecretFile(file: string, make: () => string): { secret: string; created: boolean } {
  try {
    return { secret: readFileSync(file, 'utf8'), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(file), { recursive: true });
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, make(), { mode: 0o600 });
  let created = true;
  try {
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false;
  } finally {
    unlinkSync(draft);
  }
  return { secret: readFileSync(file, 'utf8'), created };
}
