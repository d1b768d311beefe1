import { DEFAULT_FEE_SCHEDULE } from '@pay/ledger-domain';
import { newId, systemClock } from '@pay/kernel';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase, paymentTransfer as payment } from '@pay/testing';
import { Pool } from 'pg';
import { LEDGER_MIGRATIONS, LedgerService } from './index';

/**
 * A transfer finds its operation by id, whatever the size the table had when the connection first ran
 * the statement. PostgreSQL plans a named statement once for all its executions after five of them
 * (a generic plan): planned while ledger_operations was small, it scans the whole table at each
 * execution as the table grows, until the next analyze, which is minutes away on a busy ledger.
 */
let url: string;
let admin: Pool;
let ledgerPool: Pool;
let ledger: LedgerService;

beforeAll(async () => {
  url = await createTestDatabase('ledger_plans');
  await runMigrations(url, [LEDGER_MIGRATIONS]);
  admin = new Pool({ connectionString: url, max: 1 });
  // One connection: every statement of the ledger runs on the backend whose statistics are read below.
  ledgerPool = createPool(url, { max: 1, statementTimeoutMs: 10_000 });
  ledger = new LedgerService(ledgerPool, systemClock, DEFAULT_FEE_SCHEDULE);
});

afterAll(async () => {
  await ledgerPool.end();
  await admin.end();
});

/** Sequential scans of ledger_operations so far, the ledger's connection's counts flushed first. */
const operationScans = async (): Promise<number> => {
  await ledgerPool.query('SELECT pg_stat_force_next_flush()');
  // A backend flushes its statistics when it goes idle: wait for the counter to stop moving.
  let last = -1;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { rows } = await admin.query<{ seq_scan: string }>(`SELECT seq_scan FROM pg_stat_user_tables WHERE relname = 'ledger_operations'`);
    const scans = Number(rows[0]?.seq_scan);
    if (scans === last) return scans;
    last = scans;
  }
};

describe('the ledger on a table that grew since it was analyzed', () => {
  it('finds its operations by their index, not by scanning the table', async () => {
    const [payer, merchant] = [newId('customer'), newId('connection')];
    await ledger.openAccount({ owner: payer, kind: 'customer', currency: 'DZD' });
    await ledger.openAccount({ owner: merchant, kind: 'connection', currency: 'DZD' });
    await ledger.topup({ topupId: newId('topup'), owner: payer, amount: 1_000_000, currency: 'DZD' });
    await admin.query('ANALYZE ledger_operations');
    // More than five executions of each statement on the one connection, while the table is small.
    for (let i = 0; i < 8; i++) await ledger.transfer(payment(payer, merchant, 100));
    // The table grows (other connections' work), without an analyze.
    await admin.query(
      `INSERT INTO ledger_operations (operation_id, request_hash, created_at, outcome)
       SELECT 'grown_' || g, md5(g::text), now(), '{}'::jsonb FROM generate_series(1, 20000) g`,
    );
    const before = await operationScans();
    for (let i = 0; i < 3; i++) await ledger.transfer(payment(payer, merchant, 100));
    expect((await operationScans()) - before).toBe(0);
    expect((await ledger.getBalance({ owner: payer })).available).toBe(1_000_000 - 11 * 100);
  });
});
