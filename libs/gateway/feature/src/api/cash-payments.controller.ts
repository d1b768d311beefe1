import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { CASH_PAYMENT_STATUSES, CashPaymentResource, listOf, type ListResource, ServiceError } from '@pay/contracts';
import { CASH_EXPIRES_AT_MAX_AHEAD_MS, CASH_EXPIRES_AT_MIN_AHEAD_MS, DAY_MS, MINUTE_MS, STRING_LENGTH_MAX, type Currency, type OffsetClock } from '@pay/kernel';
import { CLOCK } from '@pay/platform';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { RequiresScope } from '../auth/scopes';
import { ConnectionAuthorization, requireCurrency } from '../directory/connection-authorization';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { IsAmount, IsSupportedCurrency, requireEmptyBody, validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { JsonBody, CREATED_RANGE, LIST_QUERY, QueryParams, Returns } from '../openapi/describe';
import { parseIsoInstant, parseListQuery } from './list-query';

/** ISO 8601 date and time with a zone (Z or ±hh:mm): a deadline without a zone is ambiguous. */

export class CreateCashPaymentBody {
  @IsDefined() @IsAmount() amount!: number;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) order_reference!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) merchant_connection!: string;
  /** Optional; JSON null counts as missing (the default deadline applies). Bounds: checkExpiresAt. */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) expires_at?: string;
}

class PayCashBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) cash_point!: string;
  @IsDefined() @IsAmount() amount!: number;
}


/**
 * `expires_at`, when given as a string, must be an ISO 8601 time 5 minutes to 30 days ahead of the
 * service clock. Checked before the other body rules so that this invalid_request outranks
 * invalid_amount and unsupported_currency (contract section 2, validation order).
 */
export const checkExpiresAt = (body: unknown, now: Date): void => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const value = (body as Record<string, unknown>)['expires_at'];
  if (typeof value !== 'string' || value.length === 0 || value.length > STRING_LENGTH_MAX) return; // left to validateBody
  const instant = parseIsoInstant(value);
  const aheadMs = instant === undefined ? undefined : instant - now.getTime();
  if (aheadMs === undefined || aheadMs < CASH_EXPIRES_AT_MIN_AHEAD_MS || aheadMs > CASH_EXPIRES_AT_MAX_AHEAD_MS) {
    throw new ServiceError('invalid_request', `expires_at must be an ISO 8601 time at least ${CASH_EXPIRES_AT_MIN_AHEAD_MS / MINUTE_MS} minutes and at most ${CASH_EXPIRES_AT_MAX_AHEAD_MS / DAY_MS} days ahead`, 'expires_at');
  }
};

@Controller('v1/cash_payments')
@UseGuards(ApiKeyGuard)
@RequiresScope('cash_payments')
export class CashPaymentsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    private readonly idempotency: IdempotencyStore,
    private readonly connections: ConnectionAuthorization,
  ) {}

  @Returns(CashPaymentResource, 'Create a cash payment', { description: 'Creates a cash payment awaiting payment at a cash point, with its `payment_reference`, QR code and instructions page; it expires at `expires_at` (default 72 hours).' })
  @JsonBody(CreateCashPaymentBody)
  @Post()
  @HttpCode(201)
  async create(@Integrator() { integratorId }: ApiKeyRecord, @Creation() request: CreateRequest): Promise<CashPaymentResource> {
    checkExpiresAt(request.body, this.clock.now());
    const input = validateBody(CreateCashPaymentBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    const merchant = await this.connections.authorized(integratorId, input.merchant_connection, 'merchant_connection');
    requireCurrency(merchant, input.currency);
    const expiresAt = input.expires_at === undefined ? null : new Date(parseIsoInstant(input.expires_at)!).toISOString();
    return this.idempotency.run({ scope: integratorId, key, endpoint: 'POST /v1/cash_payments', objectKind: 'cashPayment' }, request, (cashPaymentId) =>
      this.bus.request('cash.cash-payments.create', {
        cashPaymentId,
        integratorId,
        amount: input.amount,
        currency: input.currency,
        orderReference: input.order_reference,
        merchantConnection: input.merchant_connection,
        expiresAt,
      }),
    );
  }

  /** Newest first, own cash payments only; filters by order, status, payment reference and creation time. */
  @Returns(listOf(CashPaymentResource), 'List cash payments')
  @QueryParams('order_reference', { status: CASH_PAYMENT_STATUSES }, 'payment_reference', ...CREATED_RANGE, ...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<CashPaymentResource>> {
    const page = parseListQuery(query, ['order_reference', 'status', 'payment_reference'] as const, { oneOf: { status: CASH_PAYMENT_STATUSES }, createdRange: true });
    return this.bus.request('cash.list', { integratorId, ...page });
  }

  @Returns(CashPaymentResource, 'Retrieve a cash payment')
  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') cashPaymentId: string): Promise<CashPaymentResource> {
    return this.bus.request('cash.cash-payments.retrieve', { integratorId, cashPaymentId });
  }

  @Returns(CashPaymentResource, 'Cancel a cash payment')
  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') cashPaymentId: string, @Body() body: unknown): Promise<CashPaymentResource> {
    requireEmptyBody(body);
    return this.bus.request('cash.cash-payments.cancel', { integratorId, cashPaymentId });
  }
}

/** Sandbox test helpers of cash_payments: registered only when SANDBOX=true. */
@Controller('v1/test_helpers/cash_payments')
@UseGuards(ApiKeyGuard)
@RequiresScope('cash_payments')
export class CashPaymentsTestHelpersController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  /** The cash agent validates the cash at a cash point: the exact amount only (else invalid_amount, nothing changes). */
  @Returns(CashPaymentResource, 'Pay a cash payment at a cash point (sandbox)', { description: 'The agent validates the cash: the exact amount succeeds; any other amount is 400 invalid_amount and changes nothing.' })
  @JsonBody(PayCashBody)
  @Post(':id/pay')
  @HttpCode(200)
  async pay(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') cashPaymentId: string, @Body() body: unknown): Promise<CashPaymentResource> {
    const input = validateBody(PayCashBody, body);
    return this.bus.request('cash.cash-payments.pay', { integratorId, cashPaymentId, cashPointId: input.cash_point, amount: input.amount });
  }
}
