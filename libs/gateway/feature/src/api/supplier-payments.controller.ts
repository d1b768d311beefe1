import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { listOf, type ListResource, SUPPLIER_PAYMENT_STATUSES, SupplierPaymentResource, type SupplierPaymentStatus } from '@pay/contracts';
import { DESCRIPTION_LENGTH_MAX, STRING_LENGTH_MAX, type Currency } from '@pay/kernel';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { RequiresScope } from '../auth/scopes';
import { ConnectionAuthorization } from '../directory/connection-authorization';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { IsAmount, IsSupportedCurrency, requireEmptyBody, validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { JsonBody, LIST_QUERY, QueryParams, Returns } from '../openapi/describe';
import { parseListQuery } from './list-query';

export class CreateSupplierPaymentBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) payer_connection!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) beneficiary!: string;
  @IsDefined() @IsAmount() amount!: number;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) invoice_reference!: string;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(DESCRIPTION_LENGTH_MAX) description?: string;
}

/**
 * The supplier_payments API. Validation order (contract section 2): authentication, body shape, the
 * payer connection (here), the beneficiary (supplier-payments app), then currency_mismatch against
 * the payer's account and the beneficiary's (supplier-payments app).
 */
@Controller('v1/supplier_payments')
@UseGuards(ApiKeyGuard)
@RequiresScope('supplier_payments')
export class SupplierPaymentsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly idempotency: IdempotencyStore,
    private readonly connections: ConnectionAuthorization,
  ) {}

  @Returns(SupplierPaymentResource, 'Create a supplier payment')
  @JsonBody(CreateSupplierPaymentBody)
  @Post()
  @HttpCode(201)
  async create(@Integrator() { integratorId }: ApiKeyRecord, @Creation() request: CreateRequest): Promise<SupplierPaymentResource> {
    const input = validateBody(CreateSupplierPaymentBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    const payer = await this.connections.authorized(integratorId, input.payer_connection, 'payer_connection');
    return this.idempotency.run({ scope: integratorId, key, endpoint: 'POST /v1/supplier_payments', objectKind: 'supplierPayment' }, request, (supplierPaymentId) =>
      this.bus.request('supplier-payments.create', {
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
  @Returns(listOf(SupplierPaymentResource), 'List supplier payments')
  @QueryParams('invoice_reference', { status: SUPPLIER_PAYMENT_STATUSES }, ...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<SupplierPaymentResource>> {
    const { limit, startingAfter, filters } = parseListQuery(query, ['invoice_reference', 'status'] as const, { oneOf: { status: SUPPLIER_PAYMENT_STATUSES } });
    const { invoice_reference: invoiceReference } = filters;
    const status = filters.status as SupplierPaymentStatus | undefined;
    return this.bus.request('supplier-payments.list', {
      integratorId,
      limit,
      ...(startingAfter === undefined ? {} : { startingAfter }),
      ...(invoiceReference === undefined ? {} : { invoiceReference }),
      ...(status === undefined ? {} : { status }),
    });
  }

  @Returns(SupplierPaymentResource, 'Retrieve a supplier payment')
  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') supplierPaymentId: string): Promise<SupplierPaymentResource> {
    return this.bus.request('supplier-payments.retrieve', { integratorId, supplierPaymentId });
  }

  @Returns(SupplierPaymentResource, 'Cancel a supplier payment')
  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') supplierPaymentId: string, @Body() body: unknown): Promise<SupplierPaymentResource> {
    requireEmptyBody(body);
    return this.bus.request('supplier-payments.cancel', { integratorId, supplierPaymentId });
  }
}

/**
 * Sandbox test helpers of supplier_payments (contract section 8): they run the commands of the hosted
 * approval page. Registered only when SANDBOX=true.
 */
@Controller('v1/test_helpers/supplier_payments')
@UseGuards(ApiKeyGuard)
@RequiresScope('supplier_payments')
export class SupplierPaymentsTestHelpersController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  /** `succeeded`, or `declined` with insufficient_balance or beneficiary_unavailable. */
  @Returns(SupplierPaymentResource, 'Approve a supplier payment (sandbox)')
  @Post(':id/approve')
  @HttpCode(200)
  async approve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') supplierPaymentId: string, @Body() body: unknown): Promise<SupplierPaymentResource> {
    requireEmptyBody(body);
    return this.bus.request('supplier-payments.approve', { integratorId, supplierPaymentId });
  }

  @Returns(SupplierPaymentResource, 'Reject a supplier payment (sandbox)')
  @Post(':id/reject')
  @HttpCode(200)
  async reject(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') supplierPaymentId: string, @Body() body: unknown): Promise<SupplierPaymentResource> {
    requireEmptyBody(body);
    return this.bus.request('supplier-payments.reject', { integratorId, supplierPaymentId });
  }
}
