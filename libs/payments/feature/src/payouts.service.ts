import type { Pool } from 'pg';
import type { MessageBus } from '@pay/bus';
import {
  notFound,
  paidOutAccount,
  payoutsInTransitAccount,
  ServiceError,
  type BankAccountResource,
  type BankStatementImportResource,
  type CreateBankAccount,
  type CreatePayout,
  type ImportBankStatement,
  type PayoutBatchResource,
  type PayoutRef,
  type PayoutResource,
  type StatementEntry,
  type TransferOutcome,
  type UnmatchedStatementEntry,
} from '@pay/contracts';
import { LedgerTransferStep, type AggregateRepository, type Existing, type Loaded } from '@pay/event-store';
import {
  CONTENDED_COMMAND_RETRIES_MAX,
  hasPrefix,
  PAYOUT_BATCH_MAX,
  PAYOUT_STEPS_CONCURRENCY,
  STATEMENT_BOOKING_AHEAD_MAX_MS,
  STATEMENT_CLAIM_ATTEMPTS_MAX,
  STATEMENT_IMPORT_POLL_MS,
  STATEMENT_IMPORT_WAIT_MS,
  type Clock,
  type Currency,
} from '@pay/kernel';
import { inTransaction } from '@pay/platform';
import {
  checkIban,
  isPayoutStepPending,
  payoutOperationId,
  payoutPaidOperationId,
  payoutReversalOperationId,
  toBankAccountResource,
  toPayoutBatchResource,
  toPayoutResource,
  type ExistingPayout,
  type Payout,
  type PayoutBatch,
  type PayoutBatchCommand,
  type PayoutBatchEvent,
  type PayoutBatchItem,
  type PayoutCommand,
  type PayoutEvent,
} from '@pay/payments-domain';
import { buildCreditTransferFile } from './pain001';
import { findBankAccount, findBankAccounts, insertBankAccount, pendingPayouts } from './payout-projection';

export type Payouts = AggregateRepository<PayoutCommand, PayoutEvent, Payout>;
export type PayoutBatches = AggregateRepository<PayoutBatchCommand, PayoutBatchEvent, PayoutBatch>;

/** A batch and a cancel may race on one payout: the loser decides again on a fresh read. */
const CONTENDED = { retriesMax: CONTENDED_COMMAND_RETRIES_MAX };

/** The platform as the debtor of its credit-transfer files; the bank knows its account per currency by this id. */
const DEBTOR_NAME = 'Payments platform payouts';
const debtorAccount = (currency: Currency): string => `PAYOUTS-${currency}`;

type Visible = Exclude<ExistingPayout, { status: 'rejected' }>;
type EntryOutcome = { applied: 'paid' | 'failed' } | { unmatched: string };

/** `work` on each item, at most `limit` at once; the results in the items' order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Payouts: bank accounts, payouts and their ledger steps, batches and their files, bank statements.
 * Every ledger step is an intent in the payout's stream, the transfer (idempotent by its operation id),
 * then the outcome: whoever finds an intent without its outcome (the request, a read, the sweeper
 * after a crash) runs the rest, and money never moves twice.
 */
export class PayoutsService {
  private readonly ledger: LedgerTransferStep;

  constructor(
    private readonly payouts: Payouts,
    private readonly batches: PayoutBatches,
    bus: MessageBus,
    private readonly pool: Pool,
    private readonly clock: Clock,
    ledgerTimeoutMs: number,
    /** Catches the payout views up (read your writes before a batch selects pending payouts). */
    private readonly caughtUp: () => Promise<void>,
  ) {
    this.ledger = new LedgerTransferStep(bus, ledgerTimeoutMs);
  }

  // ---- bank accounts ----

  async createBankAccount(request: CreateBankAccount): Promise<BankAccountResource> {
    const { iban, country } = checkIban(request.iban, request.connectionCurrency);
    const account = await insertBankAccount(this.pool, {
      bankAccountId: request.bankAccountId,
      integratorId: request.integratorId,
      connection: request.connection,
      accountHolder: request.accountHolder,
      iban,
      country,
      currency: request.connectionCurrency,
      createdAt: this.clock.now().toISOString(),
    });
    // The one answer that carries the full IBAN.
    return { ...toBankAccountResource(account), iban: account.iban };
  }

  async retrieveBankAccount(integratorId: string, id: string): Promise<BankAccountResource> {
    const account = await findBankAccount(this.pool, id);
    if (!account || account.integratorId !== integratorId) throw notFound('bank account', id);
    return toBankAccountResource(account);
  }

  // ---- payouts ----

  async create(request: CreatePayout): Promise<PayoutResource> {
    const { payoutId } = request;
    const existing = await this.payouts.load(payoutId);
    if (existing.state.status !== 'none') {
      // A retried create (the same id from the idempotency key): the payout, never a second debit.
      this.payouts.visible(existing.state, payoutId, request.integratorId);
      return this.answerCreate(await this.finish(payoutId, existing));
    }
    const account = await findBankAccount(this.pool, request.bankAccount);
    if (!account || account.integratorId !== request.integratorId) throw notFound('bank account', request.bankAccount);
    if (account.connection !== request.connection) {
      throw new ServiceError('invalid_request', `bank account ${account.bankAccountId} is registered for another connection`, 'bank_account');
    }
    if (request.currency !== account.currency) {
      throw new ServiceError('currency_mismatch', `connection ${request.connection} holds ${account.currency}, not ${request.currency}`, 'currency');
    }
    const requested = await this.payouts.execute(
      payoutId,
      {
        type: 'RequestPayout',
        terms: {
          payoutId,
          integratorId: request.integratorId,
          connection: request.connection,
          bankAccountId: account.bankAccountId,
          amount: request.amount,
          currency: request.currency,
          description: request.description,
          createdAt: this.clock.now().toISOString(),
        },
      },
      { expectNew: true },
    );
    return this.answerCreate(await this.finish(payoutId, requested));
  }

  async retrieve({ integratorId, payoutId }: PayoutRef): Promise<PayoutResource> {
    const loaded = await this.payouts.loadVisible(payoutId, integratorId);
    return toPayoutResource(this.shown(await this.finish(payoutId, loaded), payoutId));
  }

  async cancel({ integratorId, payoutId }: PayoutRef): Promise<PayoutResource> {
    const loaded = await this.payouts.loadVisible(payoutId, integratorId);
    const current = await this.finish(payoutId, loaded);
    this.shown(current, payoutId);
    const canceling = await this.payouts.execute(payoutId, { type: 'CancelPayout', payoutId, now: this.clock.now() }, CONTENDED);
    return toPayoutResource(this.shown(await this.finish(payoutId, canceling), payoutId));
  }

  /** The remaining steps of a payout or of a batch (the sweeper's resume, by the id's prefix). */
  async resume(id: string): Promise<{ status: string }> {
    if (hasPrefix(id, 'payoutBatch')) {
      await this.closeBatch(id, await this.batches.loadExisting(id));
      return { status: 'closed' };
    }
    return this.finish(id, await this.payouts.loadExisting(id));
  }

  /** Runs each ledger step the payout's state asks for (an intent without its outcome), until none does. */
  private async finish(payoutId: string, current: Loaded<Payout>): Promise<Existing<Payout>> {
    let state = this.payouts.visible(current.state, payoutId, null);
    let loaded = current;
    while (isPayoutStepPending(state.status)) {
      const after = await this.ledger.finish(this.payouts, payoutId, loaded, (s) => this.pendingTransfer(s), 'payouts.after-ledger-transfer');
      if (after.status === state.status || !isPayoutStepPending(after.status)) return after;
      // Another step was taken meanwhile (a concurrent request): read where the stream is now.
      state = after;
      loaded = await this.payouts.load(payoutId);
      state = this.payouts.visible(loaded.state, payoutId, null);
    }
    return state;
  }

  private pendingTransfer(state: Existing<Payout>) {
    const { terms } = state;
    const transfer = (operationId: string, useCase: 'payout' | 'payout_reversal' | 'payout_paid', debitOwner: string, creditOwner: string) => ({
      operationId,
      reference: terms.payoutId,
      useCase,
      feeMode: 'none' as const,
      debitOwner,
      creditOwner,
      amount: terms.amount,
      currency: terms.currency,
    });
    const inTransit = payoutsInTransitAccount(terms.currency);
    const complete = (outcome: TransferOutcome): PayoutCommand => {
      if (outcome.status !== 'completed') throw new Error(`payout ${terms.payoutId}: the ledger refused a ${state.status} transfer from the payouts in transit`);
      return { type: 'CompleteTransfer', payoutId: terms.payoutId, entryId: outcome.entryId, now: this.clock.now() };
    };
    switch (state.status) {
      case 'requested':
        return {
          transfer: transfer(payoutOperationId(terms.payoutId), 'payout', terms.connection, inTransit),
          complete: (outcome: TransferOutcome): PayoutCommand => ({
            type: 'CompleteDebit',
            payoutId: terms.payoutId,
            outcome: outcome.status === 'completed' ? { status: 'completed', entryId: outcome.entryId } : outcome,
            now: this.clock.now(),
          }),
        };
      case 'canceling':
      case 'returning':
        return { transfer: transfer(payoutReversalOperationId(terms.payoutId), 'payout_reversal', inTransit, terms.connection), complete };
      case 'paying':
        return { transfer: transfer(payoutPaidOperationId(terms.payoutId), 'payout_paid', inTransit, paidOutAccount(terms.currency)), complete };
      default:
        return null;
    }
  }

  private answerCreate(state: Existing<Payout>): PayoutResource {
    if (state.status === 'rejected') {
      throw new ServiceError('insufficient_balance', `the available balance of ${state.terms.connection} does not cover ${state.terms.amount}: nothing moved`, 'amount');
    }
    return toPayoutResource(state);
  }

  /** A payout the balance did not cover was never one: not found, as if it did not exist. */
  private shown(state: Existing<Payout>, payoutId: string): Visible {
    if (state.status === 'rejected') throw notFound('payout', payoutId);
    return state;
  }

  // ---- batches ----

  async createBatch({ batchId, currency }: { batchId: string; currency: Currency }): Promise<PayoutBatchResource> {
    let batch: Loaded<PayoutBatch> = await this.batches.load(batchId);
    if (batch.state.status === 'none') {
      await this.caughtUp();
      const candidates = await pendingPayouts(this.pool, currency, PAYOUT_BATCH_MAX);
      batch = await this.batches.execute(batchId, { type: 'OpenBatch', batchId, currency, candidates, now: this.clock.now() }, { expectNew: true });
    }
    return this.closeBatch(batchId, batch);
  }

  /** Moves each candidate in transit in this batch (those no longer pending stay out), then closes the batch with those it holds. */
  private async closeBatch(batchId: string, loaded: Loaded<PayoutBatch>): Promise<PayoutBatchResource> {
    const batch = this.batches.visible(loaded.state, batchId, null);
    if (batch.status === 'closed') return toPayoutBatchResource(batch);
    // Each payout is its own stream: moved a few at a time, the batch keeps the candidates' order.
    const moved = await mapConcurrently(batch.candidates, PAYOUT_STEPS_CONCURRENCY, async (payoutId): Promise<PayoutBatchItem | null> => {
      const { state } = await this.payouts.execute(payoutId, { type: 'AddToBatch', payoutId, batchId, now: this.clock.now() }, CONTENDED);
      return state.status !== 'none' && 'batchId' in state && state.batchId === batchId ? { payoutId, amount: state.terms.amount } : null;
    });
    const held = moved.filter((item): item is PayoutBatchItem => item !== null);
    const { state } = await this.batches.execute(batchId, { type: 'CloseBatch', batchId, payouts: held, now: this.clock.now() }, { from: loaded });
    if (state.status !== 'closed') throw new Error(`payout batch ${batchId} did not close`);
    return toPayoutBatchResource(state);
  }

  async batchFile(batchId: string): Promise<{ xml: string }> {
    const loaded = await this.batches.loadExisting(batchId);
    await this.closeBatch(batchId, loaded);
    const batch = this.batches.visible((await this.batches.load(batchId)).state, batchId, null);
    if (batch.status !== 'closed') throw new Error(`payout batch ${batchId} is not closed`);
    if (batch.payouts.length === 0) throw new ServiceError('invalid_status', `payout batch ${batchId} holds no payout: there is no file to send`);
    const payouts = await Promise.all(batch.payouts.map(async ({ payoutId }) => this.payouts.visible((await this.payouts.load(payoutId)).state, payoutId, null)));
    const accounts = await findBankAccounts(this.pool, [...new Set(payouts.map((p) => p.terms.bankAccountId))]);
    const xml = buildCreditTransferFile({
      messageId: batchId,
      createdAt: batch.openedAt,
      executionDate: batch.openedAt.slice(0, 10),
      currency: batch.currency,
      debtorName: DEBTOR_NAME,
      debtorAccount: debtorAccount(batch.currency),
      transfers: payouts.map(({ terms }) => {
        const account = accounts.get(terms.bankAccountId);
        if (!account) throw new Error(`payout ${terms.payoutId}: bank account ${terms.bankAccountId} not found`);
        return { endToEndId: terms.payoutId, amount: terms.amount, creditorName: account.accountHolder, creditorIban: account.iban, remittance: terms.description };
      }),
    });
    return { xml };
  }

  // ---- bank statements ----

  /**
   * Applies a camt.053 statement's entries: a booked debit of a payout in transit pays it, a return
   * fails it (its amount back to the connection); anything else is listed as unmatched. A statement
   * already imported applies nothing (`duplicate`); so does an entry already applied by another one.
   * A statement whose import stopped half way (a crash) is applied again: each payout's commands are
   * idempotent by the entry, so what it had applied is counted, not applied twice.
   */
  /** A payout batch opened, or a bank statement import claimed, under this id (a read: nothing is closed or resumed). */
  async createdObjectExists({ object, id }: { object: 'payout_batch' | 'bank_statement_import'; id: string }): Promise<{ exists: boolean }> {
    if (object === 'payout_batch') return { exists: (await this.batches.load(id)).state.status !== 'none' };
    const { rows } = await this.pool.query('SELECT 1 FROM bank_statement_imports WHERE import_id = $1', [id]);
    return { exists: rows.length > 0 };
  }

  async importStatement(request: ImportBankStatement): Promise<BankStatementImportResource> {
    const { statementId } = request;
    const waitUntil = Date.now() + STATEMENT_IMPORT_WAIT_MS;
    for (;;) {
      const { import_id: importId, result } = await this.claimStatement(statementId, request.importId);
      if (result) return { ...result, duplicate: true };
      // The import's row stays locked while it applies (a crash releases it with its connection): a
      // concurrent import of the statement waits for its result, without holding a connection, and
      // answers it as a duplicate; one that finds the row unlocked without a result resumes it.
      const answer = await inTransaction(this.pool, async (client): Promise<BankStatementImportResource | undefined> => {
        const locked = await client.query<{ result: BankStatementImportResource | null }>('SELECT result FROM bank_statement_imports WHERE statement_id = $1 FOR UPDATE SKIP LOCKED', [statementId]);
        const row = locked.rows[0];
        // Locked by the import applying it: wait for its result.
        if (!row) return undefined;
        if (row.result) return { ...row.result, duplicate: true };
        const resource = await this.applyStatement(request, importId);
        await client.query('UPDATE bank_statement_imports SET result = $2 WHERE statement_id = $1', [statementId, JSON.stringify(resource)]);
        return resource;
      });
      if (answer) return answer;
      if (Date.now() >= waitUntil) throw new ServiceError('invalid_status', `statement ${statementId} is being imported: retry to get its result`);
      await new Promise((resolve) => setTimeout(resolve, STATEMENT_IMPORT_POLL_MS));
    }
  }

  /** Applies a claimed statement's entries and answers the import (not yet stored). */
  private async applyStatement(request: ImportBankStatement, importId: string): Promise<BankStatementImportResource> {
    const { statementId } = request;
    // An entry repeated within the statement is applied once, at its first place.
    const firstOf = new Map<string, number>();
    request.entries.forEach((entry, index) => firstOf.has(entry.entryRef) || firstOf.set(entry.entryRef, index));
    // Entries of one payout in statement order; distinct payouts a few at a time.
    const byPayout = new Map<string, number[]>();
    request.entries.forEach((entry, index) => {
      if (firstOf.get(entry.entryRef) !== index) return;
      const key = entry.endToEndId ?? `#${index}`;
      byPayout.set(key, [...(byPayout.get(key) ?? []), index]);
    });
    const outcomes: EntryOutcome[] = request.entries.map(() => ({ unmatched: 'duplicate_entry' }));
    await mapConcurrently([...byPayout.values()], PAYOUT_STEPS_CONCURRENCY, async (indexes) => {
      for (const index of indexes) outcomes[index] = await this.applyEntry(statementId, request.entries[index]!);
    });
    const unmatched: UnmatchedStatementEntry[] = [];
    let paid = 0;
    let failed = 0;
    outcomes.forEach((outcome, index) => {
      const entry = request.entries[index]!;
      if ('unmatched' in outcome) unmatched.push({ end_to_end_id: entry.endToEndId, amount: entry.amount, currency: entry.currency, reason: outcome.unmatched });
      else if (outcome.applied === 'paid') paid += 1;
      else failed += 1;
    });
    return {
      object: 'bank_statement_import',
      id: importId,
      statement_id: statementId,
      entries: request.entries.length,
      paid,
      failed,
      unmatched,
      duplicate: false,
    };
  }

  /**
   * The statement's import row, inserted under `importId` unless another import has it. The statement
   * sees no row when the conflicting one was committed by another transaction after its snapshot was
   * taken (READ COMMITTED): run again, with a new snapshot, it sees that row.
   */
  private async claimStatement(statementId: string, importId: string): Promise<{ import_id: string; result: BankStatementImportResource | null }> {
    for (let attempt = 0; ; attempt++) {
      const claimed = await this.pool.query<{ import_id: string; result: BankStatementImportResource | null }>(
        `WITH claimed AS (INSERT INTO bank_statement_imports (statement_id, import_id) VALUES ($1, $2) ON CONFLICT (statement_id) DO NOTHING RETURNING import_id, result)
         SELECT import_id, result FROM claimed UNION ALL SELECT import_id, result FROM bank_statement_imports WHERE statement_id = $1 AND NOT EXISTS (SELECT 1 FROM claimed)`,
        [statementId, importId],
      );
      const row = claimed.rows[0];
      if (row) return row;
      if (attempt + 1 >= STATEMENT_CLAIM_ATTEMPTS_MAX) throw new Error(`bank statement ${statementId}: its import row is neither inserted nor found after ${attempt + 1} attempts`);
    }
  }

  private async applyEntry(statementId: string, entry: StatementEntry): Promise<EntryOutcome> {
    const recorded = await this.pool.query<{ statement_id: string; outcome: 'paid' | 'failed' }>('SELECT statement_id, outcome FROM bank_statement_entries WHERE entry_ref = $1', [entry.entryRef]);
    const before = recorded.rows[0];
    if (before) return before.statement_id === statementId ? { applied: before.outcome } : { unmatched: 'duplicate_entry' };
    const payoutId = entry.endToEndId;
    if (payoutId === null || !hasPrefix(payoutId, 'payout')) return { unmatched: 'unknown_payout' };
    const loaded = await this.payouts.load(payoutId);
    if (loaded.state.status === 'none' || loaded.state.status === 'rejected') return { unmatched: 'unknown_payout' };
    const { terms } = loaded.state;
    if (entry.currency !== terms.currency) return { unmatched: 'currency_mismatch' };
    if (entry.amount !== terms.amount) return { unmatched: 'amount_mismatch' };
    let command: PayoutCommand;
    let applied: 'paid' | 'failed';
    // Only a booked entry moves money: a pending (PDNG) return, as a pending debit, changes nothing yet.
    if (entry.creditDebit === 'CRDT' && entry.isReturn && entry.status === 'BOOK') {
      if (entry.returnCode === null || entry.returnCode.trim() === '') return { unmatched: 'return_without_reason' };
      command = { type: 'ReturnPayout', payoutId, code: entry.returnCode, entryRef: entry.entryRef, now: this.clock.now() };
      applied = 'failed';
    } else if (entry.creditDebit === 'DBIT' && entry.status === 'BOOK' && !entry.isReturn) {
      if (entry.bookingDate === null) return { unmatched: 'no_booking_date' };
      if (Date.parse(entry.bookingDate) > this.clock.now().getTime() + STATEMENT_BOOKING_AHEAD_MAX_MS) return { unmatched: 'booking_date_in_future' };
      command = { type: 'BookPayment', payoutId, paidAt: entry.bookingDate, entryRef: entry.entryRef };
      applied = 'paid';
    } else {
      return { unmatched: 'not_a_booked_debit_or_return' };
    }
    let handled: Loaded<Payout>;
    try {
      handled = await this.payouts.execute(payoutId, command, { ...CONTENDED, from: loaded });
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'invalid_status') return { unmatched: 'payout_not_in_transit' };
      throw error;
    }
    await this.finish(payoutId, handled);
    await this.pool.query('INSERT INTO bank_statement_entries (entry_ref, statement_id, payout_id, outcome) VALUES ($1, $2, $3, $4) ON CONFLICT (entry_ref) DO NOTHING', [
      entry.entryRef,
      statementId,
      payoutId,
      applied,
    ]);
    return { applied };
  }
}
