import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PAYMENT_STATUSES, ServiceError, type ListResource, type PaymentResource } from '@pay/contracts';
import type { Currency } from '@pay/kernel';
import { GatewayCore } from '../gateway.core';
import { IDEMPOTENCY_KEY_LENGTH_MAX } from '../idempotency/idempotency';
import { parseListQuery } from './list-query';
import { IsAmount, IsHttpsUrl, IsSupportedCurrency, requireEmptyBody, validateBody } from '../http/validation';
import { JsonBody, LIST_QUERY, QueryParams } from '../openapi/describe';

export const STRING_LENGTH_MAX = 255;

export class CreatePaymentBody {
  @IsDefined() @IsAmount() amount!: number;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) order_reference!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) merchant_connection!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) @IsHttpsUrl() return_url!: string;
}

export const requireIdempotencyKey = (key: string | undefined): string => {
  if (key === undefined || key === '') throw new ServiceError('invalid_request', 'the Idempotency-Key header is required on this request', 'Idempotency-Key');
  return checkIdempotencyKey(key)!;
};

export const checkIdempotencyKey = (key: string | undefined): string | undefined => {
  if (key !== undefined && (key.length === 0 || key.length > IDEMPOTENCY_KEY_LENGTH_MAX)) {
    throw new ServiceError('invalid_request', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_LENGTH_MAX} characters`, 'Idempotency-Key');
  }
  return key;
};

@Controller('v1/payments')
export class PaymentsController {
  constructor(private readonly gateway: GatewayCore) {}

  @JsonBody(CreatePaymentBody)
  @Post()
  @HttpCode(201)
  async create(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<PaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const input = validateBody(CreatePaymentBody, body);
    const key = requireIdempotencyKey(idempotencyKey);
    const merchant = await this.gateway.authorizedConnection(integratorId, input.merchant_connection, 'merchant_connection');
    this.gateway.requireCurrency(merchant, input.currency);
    return this.gateway.idempotency.run(
      { scope: integratorId, key, endpoint: 'POST /v1/payments', body, objectKind: 'payment', reply },
      (paymentId) =>
        this.gateway.bus.request('payments.create', {
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
  @QueryParams('order_reference', 'status', 'merchant_connection', 'created_gte', 'created_lt', ...LIST_QUERY)
  @Get()
  async list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: unknown): Promise<ListResource<PaymentResource>> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const page = parseListQuery(query, ['order_reference', 'status', 'merchant_connection'] as const, { oneOf: { status: PAYMENT_STATUSES }, createdRange: true });
    return this.gateway.bus.request('payments.list', { integratorId, ...page });
  }

  @Get(':id')
  async retrieve(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') paymentId: string): Promise<PaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    return this.gateway.bus.request('payments.retrieve', { integratorId, paymentId });
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') paymentId: string,
    @Body() body: unknown,
  ): Promise<PaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    requireEmptyBody(body);
    return this.gateway.bus.request('payments.cancel', { integratorId, paymentId });
  }
}
