import type { MessageBus } from '@pay/bus';
import type { AccountDeltas, ExpectedMovements, ExpectedMovementsPage, LedgerMovementsPage } from '@pay/contracts';
import { LEDGER_CHAIN_VERIFY_TIMEOUT_MS, RECONCILIATION_PAGE, RECONCILIATION_TIMEOUT_MS } from '@pay/kernel';
import { reconcile, type ReconciliationReport } from './reconciliation';

const EXPECTED_MOVEMENT_TOPICS = ['payments.expected-movements', 'cash.expected-movements', 'supplier-payments.expected-movements', 'collections.expected-movements'] as const;

/** Reads what every object's history says moved and what the ledger moved, page by page, and compares them (the chain verified too). */
export async function runReconciliation(bus: MessageBus): Promise<ReconciliationReport> {
  const expected: ExpectedMovements[] = [];
  for (const topic of EXPECTED_MOVEMENT_TOPICS) {
    for (let afterSeq: string | null = null; ; ) {
      const page: ExpectedMovementsPage = await bus.request(topic, { afterSeq, limit: RECONCILIATION_PAGE }, { timeoutMs: RECONCILIATION_TIMEOUT_MS });
      expected.push(...page.items);
      if (page.nextAfterSeq === null) break;
      afterSeq = page.nextAfterSeq;
    }
  }
  const ledger: Record<string, AccountDeltas> = {};
  for (let afterReference: string | null = null; ; ) {
    const page: LedgerMovementsPage = await bus.request('ledger.movements', { afterReference, limit: RECONCILIATION_PAGE }, { timeoutMs: RECONCILIATION_TIMEOUT_MS });
    Object.assign(ledger, page.byReference);
    if (page.nextAfterReference === null) break;
    afterReference = page.nextAfterReference;
  }
  const chain = await bus.request('ledger.chain.verify', {}, { timeoutMs: LEDGER_CHAIN_VERIFY_TIMEOUT_MS });
  return reconcile(expected, ledger, chain);
}
