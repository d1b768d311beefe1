import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { IsDefined, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { COLLECTION_STATUSES, CollectionResource, listOf, type ListResource, ServiceError } from '@pay/contracts';
import { AMOUNT_MAX_MINOR, SETTLEMENT_REQUEST_TIMEOUT_MS, STRING_LENGTH_MAX, type Currency } from '@pay/kernel';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { RequiresScope } from '../auth/scopes';
import { ConnectionAuthorization, requireCurrency } from '../directory/connection-authorization';
import type { ApiKeyRecord } from '../directory/directory.repository';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { code, IsAmount, IsSupportedCurrency, requireEmptyBody, validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { JsonBody, CREATED_RANGE, LIST_QUERY, QueryParams, Returns } from '../openapi/describe';
import { parseListQuery } from './list-query';

export class CreateCollectionBody {
  @IsDefined() @IsAmount() amount!: number;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) order_reference!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) beneficiary_connection!: string;
}

/** What the cash agent counted: an integer from 0 (nothing deposited) up to the amount limit, in minor units. */
export class ValidateDepositBody {
  @IsDefined()
  @IsInt(code('invalid_amount'))
  @Min(0, code('invalid_amount'))
  @Max(AMOUNT_MAX_MINOR, code('invalid_amount'))
  amount_received!: number;
}

/** The collections API: marketplace cash reconciliation (contract sections 2 to 4). */
@Controller('v1/collections')
@UseGuards(ApiKeyGuard)
@RequiresScope('collections')
export class CollectionsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly idempotency: IdempotencyStore,
    private readonly connections: ConnectionAuthorization,
  ) {}

  /**
   * Validation as for payments: authentication, body shape, then the beneficiary connection (the
   * caller's own wholesaler connection, else connection_not_authorized), then its currency.
   * Idempotency-Key is honoured when sent, not required.
   */
  @Returns(CollectionResource, 'Create a collection')
  @JsonBody(CreateCollectionBody)
  @Post()
  @HttpCode(201)
  async create(@Integrator() { integratorId }: ApiKeyRecord, @Creation() request: CreateRequest): Promise<CollectionResource> {
    const input = validateBody(CreateCollectionBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    const wholesaler = await this.connections.authorized(integratorId, input.beneficiary_connection, 'beneficiary_connection');
    if (wholesaler.kind !== 'wholesaler') {
      throw new ServiceError('connection_not_authorized', `connection '${wholesaler.id}' is not a wholesaler connection`, 'beneficiary_connection');
    }
    requireCurrency(wholesaler, input.currency);
    return this.idempotency.run({ scope: integratorId, key, endpoint: 'POST /v1/collections', objectKind: 'collection' }, request, (collectionId) =>
      this.bus.request('collections.create', {
        collectionId,
        integratorId,
        amount: input.amount,
        currency: input.currency,
        orderReference: input.order_reference,
        beneficiaryConnection: input.beneficiary_connection,
      }),
    );
  }

  /** Newest first, own collections only; filters by order, status and creation time. */
  @Returns(listOf(CollectionResource), 'List collections')
  @QueryParams('order_reference', { status: COLLECTION_STATUSES }, ...CREATED_RANGE, ...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<CollectionResource>> {
    const page = parseListQuery(query, ['order_reference', 'status'] as const, { oneOf: { status: COLLECTION_STATUSES }, createdRange: true });
    return this.bus.request('collections.list', { integratorId, ...page });
  }

  @Returns(CollectionResource, 'Retrieve a collection')
  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') collectionId: string): Promise<CollectionResource> {
    return this.bus.request('collections.retrieve', { integratorId, collectionId });
  }
}

/**
 * Sandbox test helpers of collections (contract section 8): the recipient's handover and the cash
 * agent's validation. Registered only when SANDBOX=true; otherwise these routes 404.
 */
@Controller('v1/test_helpers/collections')
@UseGuards(ApiKeyGuard)
@RequiresScope('collections')
export class CollectionsTestHelpersController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Returns(CollectionResource, 'Confirm a collection’s handover (sandbox)')
  @Post(':id/confirm_handover')
  @HttpCode(200)
  async confirmHandover(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') collectionId: string, @Body() body: unknown): Promise<CollectionResource> {
    requireEmptyBody(body);
    return this.bus.request('collections.confirm-handover', { integratorId, collectionId });
  }

  @Returns(CollectionResource, 'Validate a collection’s deposit (sandbox)', { description: 'The amount expected settles the collection; any other moves it to `deposit_under_review`, with no credit.' })
  @JsonBody(ValidateDepositBody)
  @Post(':id/validate_deposit')
  @HttpCode(200)
  async validateDeposit(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') collectionId: string, @Body() body: unknown): Promise<CollectionResource> {
    const input = validateBody(ValidateDepositBody, body);
    return this.bus.request('collections.validate-deposit', { integratorId, collectionId, amountReceived: input.amount_received }, { timeoutMs: SETTLEMENT_REQUEST_TIMEOUT_MS });
  }
}
