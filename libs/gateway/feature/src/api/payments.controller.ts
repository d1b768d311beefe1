import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { listOf, type ListResource, PAYMENT_STATUSES, PaymentResource } from '@pay/contracts';
import { STRING_LENGTH_MAX, type Currency } from '@pay/kernel';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { RequiresScope } from '../auth/scopes';
import { ConnectionAuthorization, requireCurrency } from '../directory/connection-authorization';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { Creation, requireIdempotencyKey, type CreateRequest } from '../http/idempotency-key';
import { IsAmount, IsHttpsUrl, IsSupportedCurrency, requireEmptyBody, validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { JsonBody, CREATED_RANGE, LIST_QUERY, QueryParams, Returns } from '../openapi/describe';
import { parseListQuery } from './list-query';

export class CreatePaymentBody {
  @IsDefined() @IsAmount() amount!: number;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) order_reference!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) merchant_connection!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) @IsHttpsUrl() return_url!: string;
}

@Controller('v1/payments')
@UseGuards(ApiKeyGuard)
@RequiresScope('payments')
export class PaymentsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly idempotency: IdempotencyStore,
    private readonly connections: ConnectionAuthorization,
  ) {}

  /** The Idempotency-Key is required here, unlike the other creates. */
  @Returns(PaymentResource, 'Create a payment', { description: 'Creates a pending payment and answers its `authorization_url`, the hosted page where the customer authorizes it before `expires_at` (30 minutes). Requires an Idempotency-Key.' })
  @JsonBody(CreatePaymentBody)
  @Post()
  @HttpCode(201)
  async create(@Integrator() { integratorId }: ApiKeyRecord, @Creation() request: CreateRequest): Promise<PaymentResource> {
    const input = validateBody(CreatePaymentBody, request.body);
    const key = requireIdempotencyKey(request.idempotencyKey);
    const merchant = await this.connections.authorized(integratorId, input.merchant_connection, 'merchant_connection');
    requireCurrency(merchant, input.currency);
    return this.idempotency.run({ scope: integratorId, key, endpoint: 'POST /v1/payments', objectKind: 'payment' }, request, (paymentId) =>
      this.bus.request('payments.create', {
        paymentId,
        integratorId,
        amount: input.amount,
        currency: input.currency,
        orderReference: input.order_reference,
        merchantConnection: input.merchant_connection,
        returnUrl: input.return_url,
      }),
    );
  }

  /** Newest first, own payments only; filters by order, status, merchant connection and creation time. */
  @Returns(listOf(PaymentResource), 'List payments')
  @QueryParams('order_reference', { status: PAYMENT_STATUSES }, 'merchant_connection', ...CREATED_RANGE, ...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<PaymentResource>> {
    const page = parseListQuery(query, ['order_reference', 'status', 'merchant_connection'] as const, { oneOf: { status: PAYMENT_STATUSES }, createdRange: true });
    return this.bus.request('payments.list', { integratorId, ...page });
  }

  @Returns(PaymentResource, 'Retrieve a payment')
  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') paymentId: string): Promise<PaymentResource> {
    return this.bus.request('payments.retrieve', { integratorId, paymentId });
  }

  @Returns(PaymentResource, 'Cancel a payment', { description: 'Cancels a pending payment; any other status is 409 invalid_status.' })
  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') paymentId: string, @Body() body: unknown): Promise<PaymentResource> {
    requireEmptyBody(body);
    return this.bus.request('payments.cancel', { integratorId, paymentId });
  }
}
