import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ChainVerificationResource, ReconciliationResource } from '@pay/contracts';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import type { AccountDeltas, ExpectedMovements, ExpectedMovementsPage, LedgerMovementsPage } from '@pay/contracts';
import { LEDGER_CHAIN_VERIFY_TIMEOUT_MS, RECONCILIATION_PAGE, RECONCILIATION_TIMEOUT_MS } from '@pay/kernel';
import { AdminGuard } from '../auth/admin.guard';
import { requireEmptyBody } from '../http/validation';
import { reconcile, type ReconciliationReport } from './reconciliation';
import { Returns } from '../openapi/describe';

const EXPECTED_MOVEMENT_TOPICS = ['payments.expected-movements', 'cash.expected-movements', 'supplier-payments.expected-movements', 'collections.expected-movements'] as const;

/** The proof that the ledger and the event-sourced objects agree (admin key). */
@Controller('admin/v1/ledger')
@UseGuards(AdminGuard)
export class ReconciliationController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Returns(ReconciliationResource, 'Reconcile the ledger with the objects’ histories')
  @Post('reconciliations')
  @HttpCode(200)
  async reconcile(@Body() body: unknown): Promise<ReconciliationReport> {
    requireEmptyBody(body);
    const expected: ExpectedMovements[] = [];
    for (const topic of EXPECTED_MOVEMENT_TOPICS) {
      for (let afterSeq: string | null = null; ; ) {
        const page: ExpectedMovementsPage = await this.bus.request(topic, { afterSeq, limit: RECONCILIATION_PAGE }, { timeoutMs: RECONCILIATION_TIMEOUT_MS });
        expected.push(...page.items);
        if (page.nextAfterSeq === null) break;
        afterSeq = page.nextAfterSeq;
      }
    }
    const ledger: Record<string, AccountDeltas> = {};
    for (let afterReference: string | null = null; ; ) {
      const page: LedgerMovementsPage = await this.bus.request('ledger.movements', { afterReference, limit: RECONCILIATION_PAGE }, { timeoutMs: RECONCILIATION_TIMEOUT_MS });
      Object.assign(ledger, page.byReference);
      if (page.nextAfterReference === null) break;
      afterReference = page.nextAfterReference;
    }
    const chain = await this.bus.request('ledger.chain.verify', {}, { timeoutMs: LEDGER_CHAIN_VERIFY_TIMEOUT_MS });
    return reconcile(expected, ledger, chain);
  }

  /** Every hash of the chain recomputed from the stored entries (admin key only: a finance key is 403). */
  @Returns(ChainVerificationResource, 'Verify the hash chain', { description: 'Recomputes every hash of the chain from the stored entries (admin key only): `valid`, or `broken` with the first sequence that does not hold.' })
  @Post('chain/verify')
  @HttpCode(200)
  async verifyChain(@Body() body: unknown): Promise<ChainVerificationResource> {
    requireEmptyBody(body);
    return this.bus.request('ledger.chain.verify', {}, { timeoutMs: LEDGER_CHAIN_VERIFY_TIMEOUT_MS });
  }
}
