import { Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { listOf, type ListResource, RefundResource, ServiceError } from '@pay/contracts';
import { hasPrefix, STRING_LENGTH_MAX } from '@pay/kernel';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { RequiresScope } from '../auth/scopes';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { IsAmount, validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { JsonBody, LIST_QUERY, QueryParams, Returns } from '../openapi/describe';
import { parseListQuery } from './list-query';
import { Audit, Audited, type AuditTrail } from '../audit/audited';

export class CreateRefundBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) payment!: string;
  @IsOptional() @IsAmount() amount?: number;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) reason?: string;
}

/** Refunds of succeeded payments (Pay), wholly or in parts, to the customer's balance. */
@Controller('v1/refunds')
@UseGuards(ApiKeyGuard)
@RequiresScope('refunds')
export class RefundsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly idempotency: IdempotencyStore,
  ) {}

  /** `201` with the refund, `succeeded` or `failed` (insufficient_balance: nothing moved). */
  @Returns(RefundResource, 'Refund a payment', { description: 'Refunds a succeeded payment, wholly (no amount) or in part, to the customer’s balance: the refund answers `succeeded`, or `failed` with `insufficient_balance` when the merchant’s balance cannot cover it (nothing moved).' })
  @JsonBody(CreateRefundBody)
  @Post()
  @HttpCode(201)
  @Audited('refund.created')
  async create(@Integrator() { integratorId }: ApiKeyRecord, @Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<RefundResource> {
    const input = validateBody(CreateRefundBody, request.body);
    if (!hasPrefix(input.payment, 'payment')) {
      throw new ServiceError('invalid_request', 'payment must be the id of a payment (pay_…): only Pay payments can be refunded', 'payment');
    }
    const key = checkIdempotencyKey(request.idempotencyKey);
    return this.idempotency.run({ scope: integratorId, key, endpoint: 'POST /v1/refunds', objectKind: 'refund' }, request, async (refundId) => {
      await audit.intend({ object: 'refund', id: refundId });
      return this.bus.request('payments.refunds.create', { refundId, integratorId, paymentId: input.payment, amount: input.amount ?? null, reason: input.reason ?? null });
    });
  }

  @Returns(listOf(RefundResource), 'List refunds')
  @QueryParams('payment', ...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<RefundResource>> {
    return this.bus.request('payments.refunds.list', { integratorId, ...parseListQuery(query, ['payment'] as const) });
  }

  @Returns(RefundResource, 'Retrieve a refund')
  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string): Promise<RefundResource> {
    return this.bus.request('payments.refunds.retrieve', { integratorId, id });
  }
}
