import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ChainVerificationResource, ReconciliationResource } from '@pay/contracts';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { LEDGER_CHAIN_VERIFY_TIMEOUT_MS } from '@pay/kernel';
import { AdminGuard } from '../auth/admin.guard';
import { requireEmptyBody } from '../http/validation';
import type { ReconciliationReport } from './reconciliation';
import { runReconciliation } from './run-reconciliation';
import { Returns } from '../openapi/describe';

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
    return runReconciliation(this.bus);
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
