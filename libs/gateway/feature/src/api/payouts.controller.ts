import { Controller, Get, Header, HttpCode, Inject, Param, Post, Query, Body, UseGuards } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { BankAccountResource, listOf, PAYOUT_STATUSES, PayoutResource, type ListResource, type PayoutStatus } from '@pay/contracts';
import { ACCOUNT_HOLDER_LENGTH_MAX, DESCRIPTION_LENGTH_MAX, STRING_LENGTH_MAX, type Currency } from '@pay/kernel';
import { Audit, Audited, type AuditTrail } from '../audit/audited';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { RequiresScope } from '../auth/scopes';
import { ConnectionAuthorization } from '../directory/connection-authorization';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { IsAmount, IsSupportedCurrency, requireEmptyBody, validateBody } from '../http/validation';
import { NO_STORE } from '../http/headers';
import { IdempotencyStore } from '../idempotency/idempotency';
import { bodyKey, secretSeal } from '../idempotency/secret-seal';
import { CREATED_RANGE, JsonBody, LIST_QUERY, QueryParams, Returns } from '../openapi/describe';
import { parseListQuery } from './list-query';

/**
 * The high surrogates of U+1FFFE/U+1FFFF, U+2FFFE/U+2FFFF … U+10FFFE/U+10FFFF: each plane's last two
 * code points, noncharacters, are one of these followed by U+DFFE or U+DFFF.
 */
const PLANE_END_HIGH_SURROGATES = Array.from({ length: 16 }, (_, plane) => `\\u${(0xd83f + plane * 0x40).toString(16).toUpperCase()}`).join('');

/**
 * Text the bank file carries (the account holder, the payout's description): no control character
 * (tab, CR and LF included: the file's text fields are one line) and no noncharacter (U+FDD0…U+FDEF
 * and the last two code points of every plane), which XML 1.0 forbids or a bank cannot print (the
 * file writes any other as a space). Spelt as UTF-16 code units without the `u` flag, not `\p{…}` or
 * `\u{…}`: the pattern is the API description's too, which tools read with regex dialects that lack
 * both. A surrogate pair is one character: one whose high half ends a plane must not end in DFFE/DFFF.
 */
const BANK_TEXT = new RegExp(`^(?:[^\\u0000-\\u001F\\u007F-\\u009F\\uFDD0-\\uFDEF\\uFFFE\\uFFFF${PLANE_END_HIGH_SURROGATES}]|[${PLANE_END_HIGH_SURROGATES}][\\uDC00-\\uDFFD])*$`);
const IsBankText = () => Matches(BANK_TEXT, { message: '$property must not contain control characters (tab, CR, LF included) or Unicode noncharacters' });

export class CreateBankAccountBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) connection!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(ACCOUNT_HOLDER_LENGTH_MAX) @IsBankText() account_holder!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) iban!: string;
}

export class CreatePayoutBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) connection!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) bank_account!: string;
  @IsDefined() @IsAmount() amount!: number;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(DESCRIPTION_LENGTH_MAX) @IsBankText() description?: string;
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
  @Returns(BankAccountResource, 'Register a bank account', {
    description: 'Registers a bank account for a connection’s payouts. The IBAN is checked by ISO 13616 (spaces ignored) and its country must use the connection’s currency, else `400 invalid_request` with `param: "iban"`. Answers 201 with the bank account: the only answer with the full `iban`.',
  })
  @JsonBody(CreateBankAccountBody)
  @Audited('bank_account.created')
  @Post()
  @HttpCode(201)
  @Header('Cache-Control', NO_STORE) // the answer carries the full IBAN
  async create(@Integrator() { integratorId }: ApiKeyRecord, @Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<BankAccountResource> {
    const input = validateBody(CreateBankAccountBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    const connection = await this.connections.authorized(integratorId, input.connection, 'connection');
    // The full IBAN, in the answer and in the body, is stored for a replay sealed and digested under the caller's key, never as it is.
    const call = { scope: integratorId, key, endpoint: 'POST /v1/bank_accounts', objectKind: 'bankAccount' as const, seal: secretSeal(request, key, 'iban'), bodyKey: bodyKey(request, key) };
    return this.idempotency.run(call, request, async (bankAccountId) => {
      await audit.intend({ object: 'bank_account', id: bankAccountId });
      return this.bus.request('payments.bank-accounts.create', {
        bankAccountId,
        integratorId,
        connection: connection.id,
        connectionCurrency: connection.currency,
        accountHolder: input.account_holder,
        iban: input.iban,
      });
    });
  }

  @Returns(listOf(BankAccountResource), 'List bank accounts')
  @QueryParams('connection', ...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<BankAccountResource>> {
    const page = parseListQuery(query, ['connection'] as const);
    if (page.filters.connection !== undefined) await this.connections.authorized(integratorId, page.filters.connection, 'connection');
    return this.bus.request('payments.bank-accounts.list', { integratorId, ...page });
  }

  @Returns(BankAccountResource, 'Retrieve a bank account', { description: 'Answers 200 with the bank account, without the full IBAN.' })
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
  @Returns(PayoutResource, 'Create a payout', {
    description:
      'Pays part of a connection’s available balance out to one of its bank accounts. The amount leaves the available balance at once (a balance transaction of type `payout`); above the available balance it is `400 insufficient_balance` and nothing moves; `currency` must be the connection’s (`currency_mismatch`). Answers 201 with the payout, `pending`.',
  })
  @JsonBody(CreatePayoutBody)
  @Audited('payout.created')
  @Post()
  @HttpCode(201)
  async create(@Integrator() { integratorId }: ApiKeyRecord, @Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<PayoutResource> {
    const input = validateBody(CreatePayoutBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    const connection = await this.connections.authorized(integratorId, input.connection, 'connection');
    return this.idempotency.run({ scope: integratorId, key, endpoint: 'POST /v1/payouts', objectKind: 'payout' }, request, async (payoutId) => {
      await audit.intend({ object: 'payout', id: payoutId });
      return this.bus.request('payments.payouts.create', {
        payoutId,
        integratorId,
        connection: connection.id,
        bankAccount: input.bank_account,
        amount: input.amount,
        currency: input.currency,
        description: input.description ?? null,
      });
    });
  }

  /** Newest first; filters `connection`, `status`, `created_gte`, `created_lt`. */
  @Returns(listOf(PayoutResource), 'List payouts')
  @QueryParams('connection', { status: PAYOUT_STATUSES }, ...CREATED_RANGE, ...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<PayoutResource>> {
    const { filters, ...page } = parseListQuery(query, ['connection', 'status'] as const, { oneOf: { status: PAYOUT_STATUSES }, createdRange: true });
    // Another integrator's connection is refused as everywhere a connection is named (403), not an empty list.
    if (filters.connection !== undefined) await this.connections.authorized(integratorId, filters.connection, 'connection');
    return this.bus.request('payments.payouts.list', { integratorId, ...page, filters: { ...filters, status: filters.status as PayoutStatus | undefined } });
  }

  @Returns(PayoutResource, 'Retrieve a payout')
  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') payoutId: string): Promise<PayoutResource> {
    return this.bus.request('payments.payouts.retrieve', { integratorId, payoutId });
  }

  /** Only a `pending` payout (else `409 invalid_status`): the amount goes back to the available balance. */
  @Returns(PayoutResource, 'Cancel a payout', { description: 'Only a `pending` payout (else `409 invalid_status`): the amount goes back to the available balance (a balance transaction of type `payout_reversal`). Answers 200 with the payout, `canceled`.' })
  @Audited('payout.canceled')
  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') payoutId: string, @Body() body: unknown, @Audit() audit: AuditTrail): Promise<PayoutResource> {
    requireEmptyBody(body);
    await audit.intend({ object: 'payout', id: payoutId });
    return this.bus.request('payments.payouts.cancel', { integratorId, payoutId });
  }
}
