import {
  type BalanceResource,
  type BatchOutcome,
  type CreateTopup,
  type ExecuteTransfer,
  type ExecuteTransfers,
  type FeeQuote,
  type FeeQuoteRequest,
  type GetBalance,
  type JournalEntryResource,
  type LedgerMovementsPage,
  type ListEntries,
  type ListResource,
  notFound,
  type OpenAccount,
  type PostingResource,
  ServiceError,
  type TopupResource,
  type TransferOutcome,
  type TrialBalanceResource,
} from '@pay/contracts';
import { type Clock, type Currency, iso, LEDGER_ENTRIES_PAGE_MAX, newId, TRANSFER_BATCH_SIZE_MAX, TRANSFER_QUEUE_LENGTH_MAX } from '@pay/kernel';
import { checkOpenAccount, checkParty, currencyMismatch, type FeeSchedule, planTopup, planTransfer } from '@pay/ledger-domain';
import { hostLogger, ledgerTransfersTotal, record, type LedgerTransferOutcome } from '@pay/observability';
import { settleEach } from '@pay/bus';
import { type Pool } from 'pg';
import { BalanceTransactions } from './balance-transactions';
import { FinanceReads, movementsByReference } from './finance-reads';
import { type LockedAccount, lockAccounts, writeEntry } from './ledger.store';
import { GroupCommit, inTransaction, type Waiting } from '@pay/platform';
import { once, requestHash, storeOutcome } from './transaction';
import { applyTransferBatch, type BatchResult, type PreparedTransfer } from './transfer-batch';

interface AccountRow {
  kind: string;
  currency: Currency;
  balance: number;
}


/** The ledger: accounts, top-ups and balanced, idempotent transfers over PostgreSQL. */
export class LedgerService {
  /** Each connection's movements, as integrators read them. */
  readonly balanceTransactions: BalanceTransactions;
  /** What finance reads: statements, balances as of a time, fee revenue, cash custody. */
  readonly finance: FinanceReads;
  /** Batches committed, and batches that failed (their transfers ran again alone): what tests and operators watch. */
  readonly batches = { written: 0, failed: 0 };
  /** Group commit in front of the transfer path: transfers that arrive while a batch is written form the next one. */
  private readonly batcher = new GroupCommit<PreparedTransfer, TransferOutcome>((batch) => this.writeBatch(batch), {
    name: 'ledger transfer',
    batchSizeMax: TRANSFER_BATCH_SIZE_MAX,
    queueLengthMax: TRANSFER_QUEUE_LENGTH_MAX,
  });

  constructor(
    private readonly pool: Pool,
    private readonly clock: Clock,
    private readonly schedule: FeeSchedule,
  ) {
    this.balanceTransactions = new BalanceTransactions(pool);
    this.finance = new FinanceReads(pool);
  }

  /** Idempotent by owner: opening again answers the account; another currency is refused. */
  async openAccount(request: OpenAccount): Promise<BalanceResource> {
    checkOpenAccount(request);
    const opened = await this.pool.query<AccountRow>({
      name: 'ledger.open-account',
      text: `INSERT INTO ledger_accounts (id, kind, currency, allow_negative, created_at) VALUES ($1, $2, $3, false, $4)
             ON CONFLICT (id) DO NOTHING RETURNING kind, currency, balance`,
      values: [request.owner, request.kind, request.currency, this.clock.now()],
    });
    // Already open (possibly by a concurrent call, committed meanwhile): read it in a new snapshot.
    const account = opened.rows[0] ?? (await this.findAccount(request.owner));
    if (!account) throw new Error(`account ${request.owner} neither opened nor found`);
    if (account.kind !== request.kind || account.currency !== request.currency) {
      throw new ServiceError('invalid_request', `${request.owner} already has a ${account.currency} ${account.kind} account`, 'currency');
    }
    return { object: 'balance', owner: request.owner, currency: account.currency, available: account.balance };
  }

  async getBalance({ owner, asOf }: GetBalance): Promise<BalanceResource> {
    const account = await this.findAccount(owner);
    if (!account) throw notFound('account', String(owner));
    const available = asOf === undefined ? account.balance : await this.finance.balanceAsOf(owner, asOf);
    return { object: 'balance', owner, currency: account.currency, available };
  }

  private async findAccount(id: string): Promise<AccountRow | undefined> {
    const { rows } = await this.pool.query<AccountRow>({
      name: 'ledger.find-account',
      text: 'SELECT kind, currency, balance FROM ledger_accounts WHERE id = $1',
      values: [id],
    });
    return rows[0];
  }

  /** Idempotent by topupId: a repeat answers the first top-up and credits nothing more. */
  async topup(request: CreateTopup): Promise<TopupResource> {
    const { postings } = planTopup(request);
    const { topupId, owner, amount, currency } = request;
    const operation = { id: topupId, hash: requestHash('topup', [topupId, owner, amount, currency]), now: this.clock.now() };
    return inTransaction(this.pool, (client) =>
      once(client, operation, async () => {
        const { accounts, now } = await lockAccounts(client, postings.map((p) => p.account), this.clock); // dated once locked: see transfer
        const account = accounts.get(owner);
        if (!account) throw notFound('account', owner);
        if (account.currency !== currency) throw currencyMismatch(owner, account.currency, currency);
        const topup: TopupResource = { id: topupId, object: 'topup', account: owner, amount, currency, created_at: iso(now) };
        await writeEntry(client, { id: newId('journalEntry'), operationId: topupId, reference: topupId, kind: 'topup', createdAt: now, postings, outcome: topup }, accounts);
        return topup;
      }),
    );
  }

  /** The fee the schedule charges for this use case and amount, and what would leave the payer (nothing moves). */
  feeQuote(request: FeeQuoteRequest): FeeQuote {
    const { feeAmount, debitedAmount } = planTransfer(
      { operationId: 'quote', reference: 'quote', useCase: request.useCase, feeMode: request.feeMode, debitOwner: 'quote:payer', creditOwner: 'quote:payee', amount: request.amount, currency: request.currency },
      this.schedule,
    );
    return { feeAmount, debitedAmount };
  }

  /**
   * One balanced movement, at most once per operationId. An insufficient balance is an outcome (stored,
   * so that a repeat answers it again), not an error; nothing moves. Transfers that arrive together are
   * applied by one transaction (applyTransferBatch), each as if alone. Counted once committed: applied,
   * rejected, or duplicate (a repeat answered from the stored outcome).
   */
  async transfer(request: ExecuteTransfer): Promise<TransferOutcome> {
    return this.batcher.submit(this.prepare(request));
  }

  /**
   * A caller's batch (`ledger.transfer-batch`): each transfer as `transfer` runs it, all sharing the
   * group commit. One refused or failed answers only its own caller; the others keep their outcomes.
   */
  async transferBatch({ currency, transfers }: ExecuteTransfers): Promise<BatchOutcome<TransferOutcome>[]> {
    // The batch's currency picked its partition, and so this instance: a transfer of another would be written by two.
    const stray = Array.isArray(transfers) ? transfers.find((transfer) => transfer.currency !== currency) : undefined;
    if (stray) throw new ServiceError('invalid_request', `transfer ${stray.operationId} is in ${stray.currency}, the batch in ${currency}`, 'transfers');
    return settleEach('ledger.transfer', transfers, TRANSFER_BATCH_SIZE_MAX, (transfer) => this.transfer(transfer));
  }

  private prepare(request: ExecuteTransfer): PreparedTransfer {
    const plan = planTransfer(request, this.schedule);
    const { operationId, reference, useCase, feeMode, debitOwner, creditOwner, amount, currency } = request;
    const hash = requestHash('transfer', [operationId, reference, useCase, feeMode, debitOwner, creditOwner, amount, currency]);
    return { request, plan, hash };
  }

  /** One batch: its transaction, then each caller answered (or run alone) in arrival order. */
  private async writeBatch(batch: readonly Waiting<PreparedTransfer, TransferOutcome>[]): Promise<void> {
    let results: BatchResult[];
    try {
      results = await inTransaction(this.pool, (client) => applyTransferBatch(client, this.clock, batch.map((waiting) => waiting.item)));
    } catch (error) {
      this.batches.failed++;
      hostLogger().warn({ err: error, transfers: batch.length }, 'ledger: a batch of transfers failed and rolled back; each runs again alone');
      // An unexpected database error failed the whole batch, and it rolled back: nothing of it was
      // applied. Each of its transfers runs again alone, one by one on the one-transaction path, so that
      // one bad transfer fails only its own caller (with its own error), never its neighbours.
      for (const waiting of batch) await this.transferAlone(waiting.item).then(waiting.resolve, waiting.reject);
      return;
    }
    this.batches.written++;
    const alone: Waiting<PreparedTransfer, TransferOutcome>[] = [];
    batch.forEach((waiting, i) => {
      const result = results[i]!;
      if (result.result === 'alone') alone.push(waiting);
      else if (result.result === 'failed') waiting.reject(result.error);
      else {
        record(() => ledgerTransfersTotal.inc({ outcome: result.counted }));
        waiting.resolve(result.outcome);
      }
    });
    for (const waiting of alone) await this.transferAlone(waiting.item).then(waiting.resolve, waiting.reject);
  }

  /** One transfer in its own transaction: the path a failed batch falls back to. */
  private async transferAlone({ request, plan, hash }: PreparedTransfer): Promise<TransferOutcome> {
    const { operationId, reference, useCase, debitOwner, currency } = request;
    let firstApplication = false;
    const outcome = await inTransaction(this.pool, (client) =>
      once(client, { id: operationId, hash, now: this.clock.now() }, async (): Promise<TransferOutcome> => {
        firstApplication = true;
        // Dated once its accounts are locked, and never before their last posting: a transfer that
        // waited for another one is dated after it, so statements and balances as of a time (by
        // created_at) follow the order balances moved.
        const { accounts, now } = await lockAccounts(client, plan.postings.map((p) => p.account), this.clock);
        for (const posting of plan.postings) checkParty(accounts.get(posting.account), posting.account, currency);
        const payer = accounts.get(debitOwner) as LockedAccount;
        if (!payer.allowNegative && payer.balance < plan.debitedAmount) {
          const rejected: TransferOutcome = { status: 'rejected', reason: 'insufficient_balance' };
          await storeOutcome(client, operationId, rejected);
          return rejected;
        }
        const entryId = newId('journalEntry');
        const { feeAmount, netAmount, debitedAmount } = plan;
        const completed: TransferOutcome = { status: 'completed', entryId, feeAmount, netAmount, debitedAmount, createdAt: iso(now) };
        // With the entry, the same statement adds a fee credit to its day's fee revenue: only here, on the
        // operation's first application (a replay answers above, from `once`, and writes nothing).
        await writeEntry(client, { id: entryId, operationId, reference, kind: useCase, createdAt: now, postings: plan.postings, outcome: completed }, accounts);
        return completed;
      }),
    );
    const counted: LedgerTransferOutcome = !firstApplication ? 'duplicate' : outcome.status === 'completed' ? 'applied' : 'rejected';
    record(() => ledgerTransfersTotal.inc({ outcome: counted }));
    return outcome;
  }

  /** What moved, by reference: what reconciliation compares with the objects' histories. */
  movements(afterReference: string | null, limit: number): Promise<LedgerMovementsPage> {
    return movementsByReference(this.pool, afterReference, limit);
  }

  /** Entries of one reference (an object id), or of one account over a period, oldest first. */
  async entries(query: ListEntries): Promise<ListResource<JournalEntryResource>> {
    if (!('reference' in query)) return this.finance.entriesOfAccount(query);
    const { reference } = query;
    const { rows } = await this.pool.query<{ id: string; reference: string; kind: string; created_at: Date; postings: PostingResource[] }>({
      name: 'ledger.entries-by-reference',
      text: `
        SELECT e.id, e.reference, e.kind, e.created_at,
          (SELECT json_agg(json_build_object('account', p.account_id, 'direction', p.direction, 'amount', p.amount, 'currency', p.currency) ORDER BY p.seq)
           FROM ledger_postings p WHERE p.entry_id = e.id) AS postings
        FROM ledger_entries e WHERE e.reference = $1
        ORDER BY e.created_at, e.position LIMIT $2`,
      values: [String(reference), LEDGER_ENTRIES_PAGE_MAX + 1],
    });
    const data = rows.slice(0, LEDGER_ENTRIES_PAGE_MAX).map(
      (row): JournalEntryResource => ({ id: row.id, object: 'journal_entry', reference: row.reference, kind: row.kind, created_at: iso(row.created_at), postings: row.postings }),
    );
    return { object: 'list', data, has_more: rows.length > LEDGER_ENTRIES_PAGE_MAX };
  }

  /** Total debits and credits of every posting, per currency: equal when the books balance. */
  async trialBalance({ asOf }: { asOf?: string } = {}): Promise<TrialBalanceResource> {
    if (asOf !== undefined) return this.finance.trialBalanceAsOf(asOf);
    const { rows } = await this.pool.query<{ currency: Currency; total_debits: number; total_credits: number }>({
      name: 'ledger.trial-balance',
      text: `
        SELECT currency,
          coalesce(sum(amount) FILTER (WHERE direction = 'debit'), 0)::bigint AS total_debits,
          coalesce(sum(amount) FILTER (WHERE direction = 'credit'), 0)::bigint AS total_credits
        FROM ledger_postings GROUP BY currency ORDER BY currency`,
    });
    return { object: 'trial_balance', currencies: rows };
  }
}
