/**
 * `npm run ledger:reconcile`: asks a running service to reconcile its ledger with its objects' histories,
 * prints the report, and exits 1 when they differ (0 when balanced, 2 when it cannot ask).
 *
 * The service: RECONCILE_URL, or http://HOST:PORT (defaults 127.0.0.1:3000). The admin key:
 * ADMIN_API_KEY, or the one generated under DATA_DIR (default ./.data/admin-api-key).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Report {
  status: 'balanced' | 'differences';
  checked_objects: number;
  differences: ({ reference: string; kind: string; account: string; expected: number; found: number; message: string } | { kind: 'broken_chain'; sequence: number; message: string })[];
}

async function main(): Promise<number> {
  const base = process.env['RECONCILE_URL'] ?? `http://${process.env['HOST'] ?? '127.0.0.1'}:${process.env['PORT'] ?? '3000'}`;
  const keyFile = join(process.env['DATA_DIR'] ?? '.data', 'admin-api-key');
  let key = process.env['ADMIN_API_KEY'];
  if (!key) {
    try {
      key = readFileSync(keyFile, 'utf8').trim();
    } catch {
      console.error(`No admin key: set ADMIN_API_KEY, or DATA_DIR to the service's data directory (looked for ${keyFile}).`);
      return 2;
    }
  }
  let response: Response;
  try {
    response = await fetch(`${base}/admin/v1/ledger/reconciliations`, { method: 'POST', headers: { Authorization: `Bearer ${key}` } });
  } catch (error) {
    console.error(`Cannot reach the service at ${base} (${(error as Error).message}): is it running? Set RECONCILE_URL or PORT.`);
    return 2;
  }
  if (!response.ok) {
    console.error(`The service answered ${response.status}: ${await response.text()}`);
    return 2;
  }
  const report = (await response.json()) as Report;
  console.log(`${report.checked_objects} objects checked against the ledger: ${report.status}`);
  for (const d of report.differences) {
    if (d.kind === 'broken_chain' && 'sequence' in d) console.log(`  ${d.kind.padEnd(16)} sequence ${d.sequence}\n    ${d.message}`);
    else if ('reference' in d) console.log(`  ${d.kind.padEnd(16)} ${d.reference}  ${d.account}  expected ${d.expected}, found ${d.found}\n    ${d.message}`);
  }
  return report.status === 'balanced' ? 0 : 1;
}

void main().then((code) => process.exit(code));
