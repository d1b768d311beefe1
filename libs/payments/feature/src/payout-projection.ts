import type { Pool } from 'pg';
import type { BankAccountResource, BankStatementImportResource, ListObjects, ListResource, PayoutBatchResource, PayoutResource } from '@pay/contracts';
import { projectForward } from '@pay/event-store';
import type { Currency } from '@pay/kernel';
import { columns, jsonElement, jsonbElements, listPage, statesAfter } from '@pay/platform';
import {
  expectedPayoutMovements,
  isPayoutStepPending,
  payoutBatchDecider,
  payoutDecider,
  publicStatusOf,
  toBankAccountResource,
  toPayoutBatchResource,
  toPayoutResource,
  type BankAccount,
  type ExistingPayout,
  type Payout,
  type PayoutBatch,
  type PayoutBatchEvent,
  type PayoutEvent,
} from '@pay/payments-domain';

export const PAYOUT_EVENT_PREFIX = 'Payout';
export const PAYOUT_BATCH_EVENT_PREFIX = 'BankBatch';

/** Listed once its debit has answered, unless it was refused (then it never was a payout). */
const isListed = (state: Payout): boolean => state.status !== 'requested' && state.status !== 'rejected';

/** Projects payout events into payout_views, in the subscription's transaction. */
export const projectPayoutEvents = projectForward<PayoutEvent, Payout, 'PayoutRequested'>({
  name: 'payout',
  table: 'payout_views',
  idColumn: 'payout_id',
  decider: payoutDecider,
  idOf: (event) => event.payoutId,
  createdBy: 'PayoutRequested',
  insert: async (tx, rows) => {
    await tx.query({
      name: 'payout-views-insert',
      text: `INSERT INTO payout_views (payout_id, integrator_id, connection, currency, status, listed, step_pending, created_at, state, revision)
             SELECT r.payout_id, r.integrator_id, r.connection, r.currency, r.status, r.listed, r.step_pending, r.created_at, r.state, r.revision
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::boolean[], $8::timestamptz[], ${jsonbElements(9)}, $10::bigint[])
                  WITH ORDINALITY AS r (payout_id, integrator_id, connection, currency, status, listed, step_pending, created_at, state, revision, n)
             ORDER BY r.n
             ON CONFLICT (payout_id) DO NOTHING`,
      values: columns(rows, ({ event, state, revision }) => [
        event.payoutId,
        event.integratorId,
        event.connection,
        event.currency,
        publicStatusOf(state.status),
        isListed(state),
        isPayoutStepPending(state.status),
        event.createdAt,
        jsonElement(state),
        revision,
      ]),
    });
  },
  updateFromStateOnly: true,
  update: async (tx, rows) => {
    await tx.query({
      name: 'payout-views-update',
      text: `UPDATE payout_views v SET state = r.state, revision = r.revision, status = r.status, listed = r.listed, step_pending = r.step_pending, updated_at = now()
             FROM unnest($1::text[], ${jsonbElements(2)}, $3::bigint[], $4::text[], $5::boolean[], $6::boolean[]) AS r (payout_id, state, revision, status, listed, step_pending)
             WHERE v.payout_id = ANY ($1::text[]) AND v.payout_id = r.payout_id AND v.revision < r.revision`,
      values: columns(rows, ({ event, state, revision }) => [
        event.payoutId,
        jsonElement(state),
        revision,
        publicStatusOf(state.status),
        isListed(state),
        isPayoutStepPending(state.status),
      ]),
    });
  },
});

/** Projects batch events into payout_batch_views. */
export const projectPayoutBatchEvents = projectForward<PayoutBatchEvent, PayoutBatch, 'BankBatchOpened'>({
  name: 'payout batch',
  table: 'payout_batch_views',
  idColumn: 'batch_id',
  decider: payoutBatchDecider,
  idOf: (event) => event.batchId,
  createdBy: 'BankBatchOpened',
  insert: async (tx, rows) => {
    await tx.query({
      name: 'payout-batch-views-insert',
      text: `INSERT INTO payout_batch_views (batch_id, status, state, revision)
             SELECT r.batch_id, r.status, r.state, r.revision
             FROM unnest($1::text[], $2::text[], ${jsonbElements(3)}, $4::bigint[]) WITH ORDINALITY AS r (batch_id, status, state, revision, n)
             ORDER BY r.n
             ON CONFLICT (batch_id) DO NOTHING`,
      values: columns(rows, ({ event, state, revision }) => [event.batchId, state.status, jsonElement(state), revision]),
    });
  },
  updateFromStateOnly: true,
  update: async (tx, rows) => {
    await tx.query({
      name: 'payout-batch-views-update',
      text: `UPDATE payout_batch_views v SET state = r.state, revision = r.revision, status = r.status, updated_at = now()
             FROM unnest($1::text[], ${jsonbElements(2)}, $3::bigint[], $4::text[]) AS r (batch_id, state, revision, status)
             WHERE v.batch_id = ANY ($1::text[]) AND v.batch_id = r.batch_id AND v.revision < r.revision`,
      values: columns(rows, ({ event, state, revision }) => [event.batchId, jsonElement(state), revision, state.status]),
    });
  },
});

/** The integrator's payouts, newest first, with the filters of the list (the caller catches the projection up). */
export async function listPayouts(pool: Pool, query: ListObjects<'connection' | 'status'>): Promise<ListResource<PayoutResource>> {
  const { states, hasMore } = await listPage<Exclude<ExistingPayout, { status: 'rejected' }>>(pool, {
    ...query,
    table: 'payout_views',
    idColumn: 'payout_id',
    equals: { listed: 'true', connection: query.filters.connection },
    changing: { status: query.filters.status },
  });
  return { object: 'list', data: states.map(toPayoutResource), has_more: hasMore };
}

/** A page of every payout's expected ledger movements (reconciliation), in the view's order. */
export async function payoutExpectedMovements(pool: Pool, afterSeq: string | null, limit: number) {
  const { states, nextAfterSeq } = await statesAfter<ExistingPayout>(pool, 'payout_views', afterSeq, limit);
  return { items: states.map(expectedPayoutMovements), nextAfterSeq };
}

/** The oldest pending payouts of a currency (what a batch takes), at most `limit`. */
export async function pendingPayouts(pool: Pool, currency: Currency, limit: number): Promise<string[]> {
  const { rows } = await pool.query<{ payout_id: string }>({
    name: 'payout-views-pending',
    text: `SELECT payout_id FROM payout_views WHERE status = 'pending' AND currency = $1 ORDER BY seq LIMIT $2`,
    values: [currency, limit],
  });
  return rows.map((r) => r.payout_id);
}

/** Payouts whose ledger step started at least `olderThanMs` ago without an answer, and batches left open. */
export async function stalledPayoutWork(pool: Pool, olderThanMs: number, limit: number): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>({
    name: 'payout-views-stalled',
    text: `(SELECT payout_id AS id, updated_at FROM payout_views WHERE step_pending AND updated_at <= now() - make_interval(secs => $1))
           UNION ALL
           (SELECT batch_id AS id, updated_at FROM payout_batch_views WHERE status = 'open' AND updated_at <= now() - make_interval(secs => $1))
           ORDER BY updated_at LIMIT $2`,
    values: [olderThanMs / 1000, limit],
  });
  return rows.map((r) => r.id);
}

// ---- bank accounts (a table of their own: they never change once created) ----

interface BankAccountRow {
  bank_account_id: string;
  integrator_id: string;
  connection: string;
  account_holder: string;
  iban: string;
  country: string;
  currency: Currency;
  created_at: Date;
}

const toBankAccount = (row: BankAccountRow): BankAccount => ({
  bankAccountId: row.bank_account_id,
  integratorId: row.integrator_id,
  connection: row.connection,
  accountHolder: row.account_holder,
  iban: row.iban,
  country: row.country,
  currency: row.currency,
  createdAt: row.created_at.toISOString(),
});

/** Inserts the account unless its id exists (a retried create); answers the stored one. */
export async function insertBankAccount(pool: Pool, account: BankAccount): Promise<BankAccount> {
  const { rows } = await pool.query<BankAccountRow>(
    `WITH inserted AS (
       INSERT INTO bank_accounts (bank_account_id, integrator_id, connection, account_holder, iban, country, currency, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (bank_account_id) DO NOTHING RETURNING *)
     SELECT * FROM inserted UNION ALL SELECT * FROM bank_accounts WHERE bank_account_id = $1 AND NOT EXISTS (SELECT 1 FROM inserted)`,
    [account.bankAccountId, account.integratorId, account.connection, account.accountHolder, account.iban, account.country, account.currency, account.createdAt],
  );
  return toBankAccount(rows[0]!);
}

export async function findBankAccount(pool: Pool, bankAccountId: string): Promise<BankAccount | undefined> {
  const { rows } = await pool.query<BankAccountRow>({ name: 'bank-accounts-find', text: 'SELECT * FROM bank_accounts WHERE bank_account_id = $1', values: [bankAccountId] });
  return rows[0] && toBankAccount(rows[0]);
}

export async function findBankAccounts(pool: Pool, ids: string[]): Promise<Map<string, BankAccount>> {
  const { rows } = await pool.query<BankAccountRow>('SELECT * FROM bank_accounts WHERE bank_account_id = ANY ($1::text[])', [ids]);
  return new Map(rows.map((row) => [row.bank_account_id, toBankAccount(row)]));
}

export async function listBankAccounts(pool: Pool, query: ListObjects<'connection'>): Promise<ListResource<BankAccountResource>> {
  const { states, hasMore } = await listPage<BankAccountRow>(pool, {
    ...query,
    table: 'bank_accounts',
    idColumn: 'bank_account_id',
    valueColumn: 'to_jsonb(bank_accounts)',
    equals: { connection: query.filters.connection },
  });
  return { object: 'list', data: states.map((row) => toBankAccountResource(toBankAccount({ ...row, created_at: new Date(row.created_at) }))), has_more: hasMore };
}

/** Closed batches, the newest first (an open one is still taking its payouts). */
export async function listPayoutBatches(pool: Pool, limit: number): Promise<PayoutBatchResource[]> {
  const { rows } = await pool.query<{ state: Extract<PayoutBatch, { status: 'closed' }> }>({
    name: 'payout-batch-views-list',
    text: "SELECT state FROM payout_batch_views WHERE status = 'closed' ORDER BY seq DESC LIMIT $1",
    values: [limit],
  });
  return rows.map((r) => toPayoutBatchResource(r.state));
}

/** Statement imports that finished, the newest first, with when each was imported. */
export async function listStatementImports(pool: Pool, limit: number): Promise<(BankStatementImportResource & { created_at: string })[]> {
  const { rows } = await pool.query<{ result: BankStatementImportResource; created_at: Date }>({
    name: 'bank-statement-imports-list',
    text: 'SELECT result, created_at FROM bank_statement_imports WHERE result IS NOT NULL ORDER BY created_at DESC, statement_id LIMIT $1',
    values: [limit],
  });
  return rows.map((r) => ({ ...r.result, created_at: r.created_at.toISOString() }));
}
