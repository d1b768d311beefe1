import { Controller, Get, HttpCode, Inject, Param, Post, Query, Body, UseGuards } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { PAYOUT_STATUSES, type BankAccountResource, type ListResource, type PayoutResource, type PayoutStatus } from '@pay/contracts';
import { ACCOUNT_HOLDER_LENGTH_MAX, DESCRIPTION_LENGTH_MAX, STRING_LENGTH_MAX, type Currency } from '@pay/kernel';
import { Audited } from '../audit/audited';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { RequiresScope } from '../auth/scopes';
import { ConnectionAuthorization } from '../directory/connection-authorization';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { IsAmount, IsSupportedCurrency, requireEmptyBody, validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { JsonBody, LIST_QUERY, QueryParams } from '../openapi/describe';
import { parseListQuery } from './list-query';

export class CreateBankAccountBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) connection!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(ACCOUNT_HOLDER_LENGTH_MAX) account_holder!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) iban!: string;
}

export class CreatePayoutBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) connection!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) bank_account!: string;
  @IsDefined() @IsAmount() amount!: number;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(DESCRIPTION_LENGTH_MAX) description?: string | null;
}

/** Bank accounts a connection's payouts go to: the IBAN checked by ISO 13616 and tied to the connection's currency. */
@Controller('v1/bank_accounts')
@UseGuards(ApiKeyGuard)
@RequiresScope('bank_accounts')
export class BankAccountsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly idempotency: IdempotencyStore,
    private readonly connections: ConnectionAuthorization,
  ) {}

  /** `201` with the bank account; the only answer with the full `iban`. */
  @JsonBody(CreateBankAccountBody)
  @Audited('bank_account.created')
  @Post()
  @HttpCode(201)
  async create(@Integrator() { integratorId }: ApiKeyRecord, @Creation() request: CreateRequest): Promise<BankAccountResource> {
    const input = validateBody(CreateBankAccountBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    const connection = await this.connections.authorized(integratorId, input.connection, 'connection');
    return this.idempotency.run({ scope: integratorId, key, endpoint: 'POST /v1/bank_accounts', objectKind: 'bankAccount' }, request, (bankAccountId) =>
      this.bus.request('payments.bank-accounts.create', {
        bankAccountId,
        integratorId,
        connection: connection.id,
        connectionCurrency: connection.currency,
        accountHolder: input.account_holder,
        iban: input.iban,
      }),
    );
  }

  @QueryParams('connection', ...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<BankAccountResource>> {
    const page = parseListQuery(query, ['connection'] as const);
    if (page.filters.connection !== undefined) await this.connections.authorized(integratorId, page.filters.connection, 'connection');
    return this.bus.request('payments.bank-accounts.list', { integratorId, ...page });
  }

  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string): Promise<BankAccountResource> {
    return this.bus.request('payments.bank-accounts.retrieve', { integratorId, id });
  }
}

/**
 * Payouts from a connection's available balance to one of its bank accounts. Validation order: body
 * shape, the connection (here, 403), the bank account (404) and currency_mismatch (payments app).
 */
@Controller('v1/payouts')
@UseGuards(ApiKeyGuard)
@RequiresScope('payouts')
export class PayoutsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly idempotency: IdempotencyStore,
    private readonly connections: ConnectionAuthorization,
  ) {}

  /** `201` with the payout, `pending`: the amount has left the available balance (else `400 insufficient_balance`, nothing moved). */
  @JsonBody(CreatePayoutBody)
  @Audited('payout.created')
  @Post()
  @HttpCode(201)
  async create(@Integrator() { integratorId }: ApiKeyRecord, @Creation() request: CreateRequest): Promise<PayoutResource> {
    const input = validateBody(CreatePayoutBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    const connection = await this.connections.authorized(integratorId, input.connection, 'connection');
    return this.idempotency.run({ scope: integratorId, key, endpoint: 'POST /v1/payouts', objectKind: 'payout' }, request, (payoutId) =>
      this.bus.request('payments.payouts.create', {
        payoutId,
        integratorId,
        connection: connection.id,
        bankAccount: input.bank_account,
        amount: input.amount,
        currency: input.currency,
        description: input.description ?? null,
      }),
    );
  }

  /** Newest first; filters `connection`, `status`, `created_gte`, `created_lt`. */
  @QueryParams('connection', 'status', 'created_gte', 'created_lt', ...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<PayoutResource>> {
    const { filters, ...page } = parseListQuery(query, ['connection', 'status'] as const, { oneOf: { status: PAYOUT_STATUSES }, createdRange: true });
    // Another integrator's connection is refused as everywhere a connection is named (403), not an empty list.
    if (filters.connection !== undefined) await this.connections.authorized(integratorId, filters.connection, 'connection');
    return this.bus.request('payments.payouts.list', { integratorId, ...page, filters: { ...filters, status: filters.status as PayoutStatus | undefined } });
  }

  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') payoutId: string): Promise<PayoutResource> {
    return this.bus.request('payments.payouts.retrieve', { integratorId, payoutId });
  }

  /** Only a `pending` payout (else `409 invalid_status`): the amount goes back to the available balance. */
  @Audited('payout.canceled')
  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') payoutId: string, @Body() body: unknown): Promise<PayoutResource> {
    requireEmptyBody(body);
    return this.bus.request('payments.payouts.cancel', { integratorId, payoutId });
  }
}
