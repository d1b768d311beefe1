import { Audit, Audited, type AuditTrail } from '../audit/audited';
import { Controller, Get, Headers, HttpCode, Inject, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { IsDefined, IsNotEmpty, IsString } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { BankStatementImportResource, PayoutBatchResource, ServiceError } from '@pay/contracts';
import { PAYOUT_ADMIN_REQUEST_TIMEOUT_MS, type Currency } from '@pay/kernel';
import { AdminGuard } from '../auth/admin.guard';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { IsSupportedCurrency, validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { JsonBody, MediaBody, Returns, ReturnsMedia } from '../openapi/describe';
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
  @Returns(PayoutBatchResource, 'Create a payout batch', {
    description: 'Puts every `pending` payout of the currency in a new batch, now `in_transit` (`count` 0 is allowed); its file is the credit transfer initiation for the bank. Answers 201 with the batch.',
  })
  @JsonBody(PayoutBatchBody)
  @Audited('payout_batch.created')
  @Post('payout_batches')
  @HttpCode(201)
  async createBatch(@Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<PayoutBatchResource> {
    const input = validateBody(PayoutBatchBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    return this.idempotency.run({ scope: 'admin', key, endpoint: 'POST /admin/v1/payout_batches', objectKind: 'payoutBatch' }, request, async (batchId) => {
      await audit.intend({ object: 'payout_batch', id: batchId });
      return this.bus.request('payments.payout-batches.create', { batchId, currency: input.currency }, { timeoutMs: PAYOUT_ADMIN_REQUEST_TIMEOUT_MS });
    });
  }

  /** The batch's pain.001.001.09 file, `application/xml`. */
  @ReturnsMedia(
    'application/xml',
    { type: 'string', description: 'An ISO 20022 `pain.001.001.09` credit transfer initiation: one `PmtInf`, one `CdtTrfTxInf` a payout (`EndToEndId` the payout id, `InstdAmt` in major units).' },
    'Download a payout batch’s file',
    {
      description:
        'The batch as an ISO 20022 credit transfer initiation (`pain.001.001.09`, `application/xml`), to send to the bank. A batch that holds no payout has no file (the standard wants one transaction at least): `409 invalid_status`.',
      conflict: true,
    },
  )
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
  @Returns(BankStatementImportResource, 'Import a bank statement', {
    description:
      'Applies an ISO 20022 `camt.053.001.08` statement: a booked (`BOOK`) debit entry whose `EndToEndId` is an `in_transit` payout with the same amount and currency marks it `paid`; a booked returned credit marks it `failed` (`returned_by_bank`, `failure_code` the return reason) and the amount goes back; any other entry (a pending one included) changes nothing and is listed in `unmatched`. A statement imported before answers `duplicate: true` and applies nothing. A body that is not such a statement is `400 invalid_request` naming what is wrong, and applies nothing: not well-formed (an entity never declared included), not UTF-8, an element read in another namespace, not exactly one `BkToCstmrStmt` and `Stmt`, an element the schema allows once repeated, a return reason that is not a code of 1 to 4 letters or digits. A charset other than UTF-8 is `415`. Answers 201.',
  })
  @MediaBody('application/xml', {
    type: 'string',
    description: 'An ISO 20022 `camt.053.001.08` bank statement in UTF-8 (`Content-Type: application/xml`): one `BkToCstmrStmt` with one `Stmt`, every element the import reads in the `camt.053.001.08` namespace, no DOCTYPE.',
  })
  @Audited('bank_statement_import.created')
  @Post('bank_statements')
  @HttpCode(201)
  async importStatement(@Headers('content-type') contentType: string | undefined, @Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<BankStatementImportResource> {
    const body = request.body;
    if (!XML.test(contentType ?? '') || typeof body !== 'string') {
      throw new ServiceError('invalid_request', 'the statement must be sent as XML, with Content-Type: application/xml');
    }
    const { statementId, entries } = parseStatement(body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    return this.idempotency.run({ scope: 'admin', key, endpoint: 'POST /admin/v1/bank_statements', objectKind: 'bankStatementImport' }, request, async (importId) => {
      // A statement imported before answers its first import: the answer's id is the one recorded.
      await audit.intend({ object: 'bank_statement_import', id: importId });
      return this.bus.request('payments.bank-statements.import', { importId, statementId, entries }, { timeoutMs: PAYOUT_ADMIN_REQUEST_TIMEOUT_MS });
    });
  }
}
