import { type ExecuteTransfer, type TransferOutcome } from '@pay/contracts';
import { type Clock, failpoint, iso, newId } from '@pay/kernel';
import { decideInOrder, type TransferPlan } from '@pay/ledger-domain';
import { type LedgerTransferOutcome } from '@pay/observability';
import { type PoolClient } from 'pg';
import { type BatchEntry, lockAccounts, writeEntries } from './ledger.store';
import { claimOperations, keyReused, type StoredOperation, storedOperations } from './transaction';

/** A transfer checked and planned (before any transaction), with the hash of its inputs. */
export interface PreparedTransfer {
  request: ExecuteTransfer;
  plan: TransferPlan;
  hash: string;
}

export type BatchResult =
  /** Answered once the batch commits, and counted as `counted`. */
  | { result: 'answered'; outcome: TransferOutcome; counted: LedgerTransferOutcome }
  /** Fails alone, nothing stored for it: a refused party, or its operation id reused with other inputs. */
  | { result: 'failed'; error: unknown }
  /** A repeat of an operation the batch refused: it runs alone after the commit, as it would have after a rollback. */
  | { result: 'alone' };

/** Where the crash test kills the process: a batch of several transfers written, not committed. */
export const BATCH_BEFORE_COMMIT_FAILPOINT = 'ledger.batch-before-commit';

/**
 * Applies transfers in the caller's transaction, as if each ran alone in the given order. Every
 * operation id is claimed by one statement; the accounts of those claimed are locked once, in id order
 * (the order of every other writer); each transfer is decided against the balances its predecessors
 * left; everything is written by one statement. An operation id seen earlier in the batch answers the
 * outcome of its first occurrence (or idempotency_key_reused), one claimed before answers its stored
 * outcome: never two entries. Returns one result per transfer, in order, for after the commit.
 */
export async function applyTransferBatch(client: PoolClient, clock: Clock, transfers: readonly PreparedTransfer[]): Promise<BatchResult[]> {
  const firsts = new Map<string, PreparedTransfer>();
  for (const transfer of transfers) if (!firsts.has(transfer.request.operationId)) firsts.set(transfer.request.operationId, transfer);
  const claimed = await claimOperations(client, [...firsts.values()].map((t) => ({ id: t.request.operationId, hash: t.hash })), clock.now());
  const stored = await storedOperations(client, [...firsts.keys()].filter((id) => !claimed.has(id)));

  const toDecide = [...firsts.values()].filter((t) => claimed.has(t.request.operationId)); // arrival order
  // Dated once its accounts are locked, as a transfer alone is: the batch is one commit, hence one instant.
  const { accounts: locked, now } = await lockAccounts(client, toDecide.flatMap((t) => t.plan.postings.map((p) => p.account)), clock);
  const { decisions, balances } = decideInOrder(toDecide.map((t) => ({ debitOwner: t.request.debitOwner, currency: t.request.currency, plan: t.plan })), locked);

  const decided = new Map<string, { outcome: TransferOutcome } | { error: Error }>();
  const entries: BatchEntry[] = [];
  const released: string[] = [];
  toDecide.forEach(({ request, plan }, i) => {
    const decision = decisions[i]!;
    if (decision.decision === 'refused') {
      released.push(request.operationId);
      decided.set(request.operationId, { error: decision.error });
    } else if (decision.decision === 'rejected') {
      decided.set(request.operationId, { outcome: { status: 'rejected', reason: 'insufficient_balance' } });
    } else {
      const { feeAmount, netAmount, debitedAmount } = plan;
      const entryId = newId('journalEntry');
      decided.set(request.operationId, { outcome: { status: 'completed', entryId, feeAmount, netAmount, debitedAmount, createdAt: iso(now) } });
      const { operationId, reference, useCase } = request;
      entries.push({ id: entryId, operationId, reference, kind: useCase, postings: plan.postings, balancesAfter: decision.balancesAfter });
    }
  });
  const outcomes = [...decided].flatMap(([operationId, answer]) => ('outcome' in answer ? [{ operationId, outcome: answer.outcome }] : []));
  await writeEntries(client, { createdAt: now, entries, outcomes, released, balances }, locked);
  if (toDecide.length > 1) failpoint(BATCH_BEFORE_COMMIT_FAILPOINT);

  return transfers.map((transfer): BatchResult => {
    const id = transfer.request.operationId;
    const first = firsts.get(id)!;
    const answer = decided.get(id);
    if (!answer) return answerStored(stored.get(id)!, transfer, id);
    if ('error' in answer) return transfer === first ? { result: 'failed', error: answer.error } : { result: 'alone' };
    if (transfer === first) return { result: 'answered', outcome: answer.outcome, counted: answer.outcome.status === 'completed' ? 'applied' : 'rejected' };
    // A repeat within the batch: what a concurrent repeat of today's path gets once the first commits.
    return transfer.hash === first.hash ? { result: 'answered', outcome: answer.outcome, counted: 'duplicate' } : { result: 'failed', error: keyReused(id) };
  });
}

const answerStored = (stored: StoredOperation, transfer: PreparedTransfer, id: string): BatchResult =>
  stored.hash === transfer.hash ? { result: 'answered', outcome: stored.outcome as TransferOutcome, counted: 'duplicate' } : { result: 'failed', error: keyReused(id) };
