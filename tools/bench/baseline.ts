import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool, type PoolClient } from 'pg';
import { cpuDelta, type CpuDelta, type CpuSnapshot } from './cpu';
import { REPO_ROOT } from './service';

const LEDGER_MIGRATIONS = join(REPO_ROOT, 'libs/ledger/feature/migrations');
const FEE_ACCOUNT = 'platform:fees:DZD';
const MERCHANT_ACCOUNT = 'conn_baseline_merchant';

export interface BaselineResult {
  durationS: number;
  transfers: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Where the CPU went while the workers ran, when asked for. */
  cpu: CpuDelta | undefined;
}

/**
 * The ceiling the service is compared with: the ledger's own transaction for one payment, issued
 * straight from `pg` with nothing around it (no HTTP, no event store, no bus). Same tables (the ledger's
 * migrations, applied to a database of its own), same statements, same lock order, same hot rows
 * (one merchant account, the fee account, debits spread over `customerCount` customers), same pool size.
 */
export async function runBaseline(
  databaseUrl: string,
  options: { poolSize: number; workers: number; durationS: number; customerCount: number; amount: number; cpu?: () => CpuSnapshot },
): Promise<BaselineResult> {
  const pool = new Pool({ connectionString: databaseUrl, max: options.poolSize, application_name: 'bench-baseline' });
  // pool.end() resolves once it has asked its connections to close, not once they have: wait for each
  // one's 'end', or PostgreSQL, stopped right after, kills them and their 'error' crashes the process.
  const closed: Promise<unknown>[] = [];
  pool.on('connect', (client) => {
    closed.push(new Promise((done) => client.once('end', done)));
    client.on('error', (error) => process.stderr.write(`baseline connection: ${error.message}\n`));
  });
  try {
    await createTables(pool);
    const customers = Array.from({ length: options.customerCount }, (_, i) => `cus_baseline_${String(i).padStart(4, '0')}`);
    await pool.query(
      `INSERT INTO ledger_accounts (id, kind, currency, balance, created_at)
       SELECT id, kind, 'DZD', balance, now() FROM unnest($1::text[], $2::text[], $3::bigint[]) AS a (id, kind, balance)`,
      [[MERCHANT_ACCOUNT, ...customers], ['connection', ...customers.map(() => 'customer')], [0, ...customers.map(() => 1e12)]],
    );

    const latencies: number[] = [];
    const deadline = performance.now() + options.durationS * 1000;
    const started = performance.now();
    const cpuBefore = options.cpu?.();
    let failed = false;
    const worker = async (w: number) => {
      for (let i = 0; !failed && performance.now() < deadline; i++) {
        const t0 = performance.now();
        try {
          await transfer(pool, customers[(w * 7919 + i) % customers.length]!, options.amount);
        } catch (error) {
          failed = true; // the others stop at their next transfer, before the pool is ended
          throw error;
        }
        latencies.push(performance.now() - t0);
      }
    };
    const outcomes = await Promise.allSettled(Array.from({ length: options.workers }, (_, w) => worker(w)));
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failure) throw new Error(`baseline transfer failed: ${failure.reason instanceof Error ? failure.reason.message : String(failure.reason)}`);
    const durationS = (performance.now() - started) / 1000;
    // Before the pool ends: PostgreSQL's backends for it are gone after, and their time with them.
    const cpuAfter = options.cpu?.();
    latencies.sort((a, b) => a - b);
    const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)] ?? Number.NaN;
    return { durationS, transfers: latencies.length, perSecond: latencies.length / durationS, p50Ms: at(0.5), p99Ms: at(0.99), cpu: cpuBefore && cpuAfter && cpuDelta(cpuBefore, cpuAfter) };
  } finally {
    await pool.end();
    await Promise.race([Promise.all(closed), new Promise((done) => setTimeout(done, 5_000).unref())]);
  }
}

/** The up-migrations of the ledger, as they are in the repository, so that the shape cannot drift. */
async function createTables(pool: Pool): Promise<void> {
  const files = readdirSync(LEDGER_MIGRATIONS).filter((f) => f.endsWith('.sql')).sort();
  for (const file of files) {
    const sql = readFileSync(join(LEDGER_MIGRATIONS, file), 'utf8');
    await pool.query(sql.split('-- Down Migration')[0]!);
  }
}

/**
 * One payment's transfer, as LedgerService.transfer does it (fee deducted from the merchant's share):
 * claim the operation id, lock the three accounts in id order, check the debit, then entry + three
 * postings + three balances + the operation's outcome in one statement, commit. The lock is the
 * ledger's FOR NO KEY UPDATE (FOR UPDATE would serialize the same way here: every transfer locks the
 * same merchant and fee rows).
 */
async function transfer(pool: Pool, customer: string, amount: number): Promise<void> {
  const operationId = `op_${randomUUID()}`;
  const fee = Math.max(1, Math.floor(amount / 100));
  const client: PoolClient = await pool.connect();
  try {
    await client.query('BEGIN');
    const hash = createHash('sha256').update(JSON.stringify(['transfer', operationId, customer, amount])).digest('hex');
    const claimed = await client.query({
      name: 'claim',
      text: 'INSERT INTO ledger_operations (operation_id, request_hash, created_at) VALUES ($1, $2, now()) ON CONFLICT (operation_id) DO NOTHING',
      values: [operationId, hash],
    });
    if (claimed.rowCount !== 1) throw new Error(`operation ${operationId} already claimed`);
    const { rows } = await client.query<{ id: string; balance: number }>({
      name: 'lock',
      text: 'SELECT id, balance FROM ledger_accounts WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE',
      values: [[customer, MERCHANT_ACCOUNT, FEE_ACCOUNT]],
    });
    const payer = rows.find((r) => r.id === customer);
    if (rows.length !== 3 || !payer) throw new Error('baseline accounts missing');
    if (Number(payer.balance) < amount) throw new Error(`baseline customer ${customer} ran out of money`);
    const { rows: written } = await client.query<{ n: number }>({
      name: 'write',
      text: `
        WITH entry AS (
          INSERT INTO ledger_entries (id, operation_id, reference, kind, created_at) VALUES ($1, $2, $3, 'payment', now()) RETURNING position
        ), postings AS (
          -- As the ledger writes them: each posting a balance transaction with its id and the balance after it.
          INSERT INTO ledger_postings (entry_id, seq, account_id, direction, amount, currency, txn_id, balance_after, entry_position, created_at)
          SELECT $1, p.seq, p.account_id, p.direction, p.amount, 'DZD', 'txn_' || substr(md5($1 || ':' || p.seq), 1, 24), p.balance_after, (SELECT position FROM entry), now()
          FROM unnest($4::text[], $5::text[], $6::bigint[], $9::bigint[]) WITH ORDINALITY AS p (account_id, direction, amount, balance_after, seq)
        ), operation AS (
          UPDATE ledger_operations SET outcome = $7 WHERE operation_id = $2
        ), balances AS (
          UPDATE ledger_accounts AS a SET balance = a.balance + d.delta
          FROM unnest($4::text[], $8::bigint[]) AS d (id, delta) WHERE a.id = d.id
          RETURNING a.id
        )
        SELECT count(*)::int AS n FROM balances`,
      values: [
        `je_${randomUUID()}`,
        operationId,
        `pay_${randomUUID()}`,
        [customer, MERCHANT_ACCOUNT, FEE_ACCOUNT],
        ['debit', 'credit', 'credit'],
        [amount, amount - fee, fee],
        { status: 'completed', feeAmount: fee, netAmount: amount - fee },
        [-amount, amount - fee, fee],
        [customer, MERCHANT_ACCOUNT, FEE_ACCOUNT].map((id, i) => Number(rows.find((r) => r.id === id)!.balance) + [-amount, amount - fee, fee][i]!),
      ],
    });
    if (written[0]?.n !== 3) throw new Error('baseline transfer updated fewer than three balances');
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
