import { Audited } from '../audit/audited';
import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { IsDefined, IsNotEmpty, IsString } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { ServiceError, type BankStatementImportResource, type PayoutBatchResource } from '@pay/contracts';
import { newId, PAYOUT_ADMIN_REQUEST_TIMEOUT_MS, type Currency } from '@pay/kernel';
import { AdminGuard } from '../auth/admin.guard';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { IsSupportedCurrency, validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { JsonBody } from '../openapi/describe';
import { parseStatement } from './camt053';

class PayoutBatchBody {
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
}

const XML = /^\s*(application|text)\/xml\s*(;|$)/i;

/**
 * Finance's side of payouts (admin API): batches of pending payouts and their credit-transfer file
 * (pain.001.001.09) for the bank, and the bank's statement (camt.053.001.08) that marks them paid or returned.
 */
@Controller('admin/v1')
@UseGuards(AdminGuard)
export class PayoutsAdminController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly idempotency: IdempotencyStore,
  ) {}

  /** `201`: every pending payout of the currency (the oldest PAYOUT_BATCH_MAX), now in transit; `count` 0 is allowed. */
  @JsonBody(PayoutBatchBody)
  @Audited('payout_batch.created')
  @Post('payout_batches')
  @HttpCode(201)
  async createBatch(@Creation() request: CreateRequest): Promise<PayoutBatchResource> {
    const input = validateBody(PayoutBatchBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    return this.idempotency.run({ scope: 'admin', key, endpoint: 'POST /admin/v1/payout_batches', objectKind: 'payoutBatch' }, request, (batchId) =>
      this.bus.request('payments.payout-batches.create', { batchId, currency: input.currency }, { timeoutMs: PAYOUT_ADMIN_REQUEST_TIMEOUT_MS }),
    );
  }

  /** The batch's pain.001.001.09 file, `application/xml`. */
  @Get('payout_batches/:id/file')
  async batchFile(@Param('id') batchId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { xml } = await this.bus.request('payments.payout-batches.file', { batchId }, { timeoutMs: PAYOUT_ADMIN_REQUEST_TIMEOUT_MS });
    void reply.header('Content-Type', 'application/xml; charset=utf-8');
    void reply.header('Content-Disposition', `attachment; filename="${batchId}.xml"`);
    return xml;
  }

  /**
   * A camt.053.001.08 statement, `application/xml` (up to 10 MB): parsed here (no entity is resolved,
   * a DOCTYPE is refused), then applied by the payments app; a file that fails applies nothing.
   */
  @Audited('bank_statement_import.created')
  @Post('bank_statements')
  @HttpCode(201)
  async importStatement(@Headers('content-type') contentType: string | undefined, @Body() body: unknown): Promise<BankStatementImportResource> {
    if (!XML.test(contentType ?? '') || typeof body !== 'string') {
      throw new ServiceError('invalid_request', 'the statement must be sent as XML, with Content-Type: application/xml');
    }
    const { statementId, entries } = parseStatement(body);
    return this.bus.request('payments.bank-statements.import', { importId: newId('bankStatementImport'), statementId, entries }, { timeoutMs: PAYOUT_ADMIN_REQUEST_TIMEOUT_MS });
  }
}
