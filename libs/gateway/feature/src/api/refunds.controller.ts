import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type ListResource, type RefundResource } from '@pay/contracts';
import { hasPrefix } from '@pay/kernel';
import { GatewayCore } from '../gateway.core';
import { IsAmount, validateBody } from '../http/validation';
import { parseListQuery } from './list-query';
import { checkIdempotencyKey, STRING_LENGTH_MAX } from './payments.controller';
import { JsonBody, LIST_QUERY, QueryParams } from '../openapi/describe';

export class CreateRefundBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) payment!: string;
  @IsOptional() @IsAmount() amount?: number | null;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) reason?: string | null;
}

/** Refunds of succeeded payments (Pay), wholly or in parts, to the customer's balance. */
@Controller('v1/refunds')
export class RefundsController {
  constructor(private readonly gateway: GatewayCore) {}

  /** `201` with the refund, `succeeded` or `failed` (insufficient_balance: nothing moved). */
  @JsonBody(CreateRefundBody)
  @Post()
  @HttpCode(201)
  async create(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<RefundResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const input = validateBody(CreateRefundBody, body);
    if (!hasPrefix(input.payment, 'payment')) {
      throw new ServiceError('invalid_request', 'payment must be the id of a payment (pay_…): only Pay payments can be refunded', 'payment');
    }
    const key = checkIdempotencyKey(idempotencyKey);
    return this.gateway.idempotency.run({ scope: integratorId, key, endpoint: 'POST /v1/refunds', body, objectKind: 'refund', reply }, (refundId) =>
      this.gateway.bus.request('payments.refunds.create', {
        refundId,
        integratorId,
        paymentId: input.payment,
        amount: input.amount ?? null,
        reason: input.reason ?? null,
      }),
    );
  }

  @QueryParams('payment', ...LIST_QUERY)
  @Get()
  async list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: unknown): Promise<ListResource<RefundResource>> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const page = parseListQuery(query, ['payment'] as const);
    return this.gateway.bus.request('payments.refunds.list', { integratorId, ...page });
  }

  @Get(':id')
  async retrieve(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') id: string): Promise<RefundResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    return this.gateway.bus.request('payments.refunds.retrieve', { integratorId, id });
  }
}
