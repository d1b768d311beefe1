import { createReadStream, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { LedgerExportVerifier } from '@pay/sdk';
import { UsageError } from './settings';

interface LedgerIo {
  out(line: string): void;
  err(line: string): void;
  cwd: string;
}

/**
 * `payments ledger verify FILE [--public-key PEM_FILE]`: checks a chain export offline, with nothing
 * but the file (and the public key finance kept apart, when given). 0 when every hash and the head's
 * signature hold; 1 naming the first sequence that does not.
 */
export async function ledger(args: string[], flags: { 'public-key'?: string }, io: LedgerIo): Promise<number> {
  const [what, file, ...extra] = args;
  if (what !== 'verify' || file === undefined || extra.length > 0) throw new UsageError('ledger takes: verify FILE [--public-key PEM_FILE]');
  let publicKey: string | undefined;
  if (flags['public-key'] !== undefined) {
    try {
      publicKey = readFileSync(resolve(io.cwd, flags['public-key']), 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read the public key ${flags['public-key']}: ${(error as Error).message}`);
    }
  }
  const verifier = new LedgerExportVerifier(publicKey);
  const input = createReadStream(resolve(io.cwd, file), { encoding: 'utf8' });
  const opened = new Promise<void>((ok, fail) => input.once('open', () => ok()).once('error', fail));
  try {
    await opened;
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  for await (const line of createInterface({ input, crlfDelay: Infinity })) verifier.line(line);
  const result = verifier.finish();
  if (result.valid) {
    io.out(`verified ${result.entries} entries`);
    io.err(`The head's signature holds (key ${result.keyId}${publicKey === undefined ? ', the key the export carries: pass --public-key to check it against a key you keep' : ', the public key given'}).`);
    return 0;
  }
  io.out(`broken at sequence ${result.sequence}: ${result.reason}`);
  return 1;
}
