import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SUPPLIER_PAYMENT_STATUSES, ServiceError, type ListResource, type SupplierPaymentResource, type SupplierPaymentStatus } from '@pay/contracts';
import type { Currency } from '@pay/kernel';
import { GatewayCore } from '../gateway.core';
import { IsAmount, IsSupportedCurrency, requireEmptyBody, validateBody } from '../http/validation';
import { parseListQuery } from './list-query';
import { checkIdempotencyKey, STRING_LENGTH_MAX } from './payments.controller';
import { JsonBody, LIST_QUERY, QueryParams } from '../openapi/describe';

export const DESCRIPTION_LENGTH_MAX = 1000;

export class CreateSupplierPaymentBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) payer_connection!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) beneficiary!: string;
  @IsDefined() @IsAmount() amount!: number;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) invoice_reference!: string;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(DESCRIPTION_LENGTH_MAX) description?: string | null;
}

const isStatus = (value: string): value is SupplierPaymentStatus => (SUPPLIER_PAYMENT_STATUSES as readonly string[]).includes(value);

/**
 * The supplier_payments API. Validation order (contract section 2): authentication, body shape, the
 * payer connection (here), the beneficiary (supplier-payments app), then currency_mismatch against
 * the payer's account and the beneficiary's (supplier-payments app).
 */
@Controller('v1/supplier_payments')
export class SupplierPaymentsController {
  constructor(private readonly gateway: GatewayCore) {}

  @JsonBody(CreateSupplierPaymentBody)
  @Post()
  @HttpCode(201)
  async create(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<SupplierPaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const input = validateBody(CreateSupplierPaymentBody, body);
    const key = checkIdempotencyKey(idempotencyKey);
    const payer = await this.gateway.authorizedConnection(integratorId, input.payer_connection, 'payer_connection');
    return this.gateway.idempotency.run(
      { scope: integratorId, key, endpoint: 'POST /v1/supplier_payments', body, objectKind: 'supplierPayment', reply },
      (supplierPaymentId) =>
        this.gateway.bus.request('supplier-payments.create', {
          supplierPaymentId,
          integratorId,
          payerConnection: payer.id,
          payerCurrency: payer.currency,
          beneficiary: input.beneficiary,
          amount: input.amount,
          currency: input.currency,
          invoiceReference: input.invoice_reference,
          description: input.description ?? null,
        }),
    );
  }

  /** Newest first; used after a time-out to find whether a payment exists for an invoice. */
  @QueryParams('invoice_reference', 'status', ...LIST_QUERY)
  @Get()
  async list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: unknown): Promise<ListResource<SupplierPaymentResource>> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const { limit, startingAfter, filters } = parseListQuery(query, ['invoice_reference', 'status'] as const);
    const { status, invoice_reference: invoiceReference } = filters;
    if (status !== undefined && !isStatus(status)) {
      throw new ServiceError('invalid_request', `status must be one of ${SUPPLIER_PAYMENT_STATUSES.join(', ')}`, 'status');
    }
    return this.gateway.bus.request('supplier-payments.list', {
      integratorId,
      limit,
      ...(startingAfter === undefined ? {} : { startingAfter }),
      ...(invoiceReference === undefined ? {} : { invoiceReference }),
      ...(status === undefined ? {} : { status }),
    });
  }

  @Get(':id')
  async retrieve(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') supplierPaymentId: string): Promise<SupplierPaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    return this.gateway.bus.request('supplier-payments.retrieve', { integratorId, supplierPaymentId });
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') supplierPaymentId: string,
    @Body() body: unknown,
  ): Promise<SupplierPaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    requireEmptyBody(body);
    return this.gateway.bus.request('supplier-payments.cancel', { integratorId, supplierPaymentId });
  }
}

/**
 * Sandbox test helpers of supplier_payments (contract section 8): they run the commands of the hosted
 * approval page. Registered only when SANDBOX=true.
 */
@Controller('v1/test_helpers/supplier_payments')
export class SupplierPaymentsTestHelpersController {
  constructor(private readonly gateway: GatewayCore) {}

  /** `succeeded`, or `declined` with insufficient_balance or beneficiary_unavailable. */
  @Post(':id/approve')
  @HttpCode(200)
  async approve(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') supplierPaymentId: string,
    @Body() body: unknown,
  ): Promise<SupplierPaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    requireEmptyBody(body);
    return this.gateway.bus.request('supplier-payments.approve', { integratorId, supplierPaymentId });
  }

  @Post(':id/reject')
  @HttpCode(200)
  async reject(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') supplierPaymentId: string,
    @Body() body: unknown,
  ): Promise<SupplierPaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    requireEmptyBody(body);
    return this.gateway.bus.request('supplier-payments.reject', { integratorId, supplierPaymentId });
  }
}
