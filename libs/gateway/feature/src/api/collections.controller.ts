import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { IsDefined, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { COLLECTION_STATUSES, ServiceError, type CollectionResource, type ListResource } from '@pay/contracts';
import { AMOUNT_MAX_MINOR, type Currency } from '@pay/kernel';
import { GatewayCore } from '../gateway.core';
import { code, IsAmount, IsSupportedCurrency, requireEmptyBody, validateBody } from '../http/validation';
import { parseListQuery } from './list-query';
import { checkIdempotencyKey, STRING_LENGTH_MAX } from './payments.controller';
import { JsonBody, LIST_QUERY, QueryParams } from '../openapi/describe';

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
export class CollectionsController {
  constructor(private readonly gateway: GatewayCore) {}

  /**
   * Validation as for payments: authentication, body shape, then the beneficiary connection (the
   * caller's own wholesaler connection, else connection_not_authorized), then its currency.
   * Idempotency-Key is honoured when sent, not required.
   */
  @JsonBody(CreateCollectionBody)
  @Post()
  @HttpCode(201)
  async create(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<CollectionResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const input = validateBody(CreateCollectionBody, body);
    const key = checkIdempotencyKey(idempotencyKey);
    const wholesaler = await this.gateway.authorizedConnection(integratorId, input.beneficiary_connection, 'beneficiary_connection');
    if (wholesaler.kind !== 'wholesaler') {
      throw new ServiceError('connection_not_authorized', `connection '${wholesaler.id}' is not a wholesaler connection`, 'beneficiary_connection');
    }
    this.gateway.requireCurrency(wholesaler, input.currency);
    return this.gateway.idempotency.run(
      { scope: integratorId, key, endpoint: 'POST /v1/collections', body, objectKind: 'collection', reply },
      (collectionId) =>
        this.gateway.bus.request('collections.create', {
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
  @QueryParams('order_reference', 'status', 'created_gte', 'created_lt', ...LIST_QUERY)
  @Get()
  async list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: unknown): Promise<ListResource<CollectionResource>> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const page = parseListQuery(query, ['order_reference', 'status'] as const, { oneOf: { status: COLLECTION_STATUSES }, createdRange: true });
    return this.gateway.bus.request('collections.list', { integratorId, ...page });
  }

  @Get(':id')
  async retrieve(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') collectionId: string): Promise<CollectionResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    return this.gateway.bus.request('collections.retrieve', { integratorId, collectionId });
  }
}

/**
 * Sandbox test helpers of collections (contract section 8): the recipient's handover and the cash
 * agent's validation. Registered only when SANDBOX=true; otherwise these routes 404.
 */
@Controller('v1/test_helpers/collections')
export class CollectionsTestHelpersController {
  constructor(private readonly gateway: GatewayCore) {}

  @Post(':id/confirm_handover')
  @HttpCode(200)
  async confirmHandover(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') collectionId: string,
    @Body() body: unknown,
  ): Promise<CollectionResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    requireEmptyBody(body);
    return this.gateway.bus.request('collections.confirm-handover', { integratorId, collectionId });
  }

  @JsonBody(ValidateDepositBody)
  @Post(':id/validate_deposit')
  @HttpCode(200)
  async validateDeposit(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') collectionId: string,
    @Body() body: unknown,
  ): Promise<CollectionResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const input = validateBody(ValidateDepositBody, body);
    return this.gateway.bus.request('collections.validate-deposit', { integratorId, collectionId, amountReceived: input.amount_received }, { timeoutMs: 30_000 });
  }
}
