import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { IsDefined, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CASH_PAYMENT_STATUSES, ServiceError, type CashPaymentResource, type ListResource } from '@pay/contracts';
import { DAY_MS, MINUTE_MS, type Currency } from '@pay/kernel';
import { GatewayCore } from '../gateway.core';
import { IsAmount, IsSupportedCurrency, requireEmptyBody, validateBody } from '../http/validation';
import { sendPage } from '../hosted/headers';
import { HostedPages } from '../hosted/hosted-pages';
import { parseListQuery } from './list-query';
import { checkIdempotencyKey, STRING_LENGTH_MAX } from './payments.controller';
import { JsonBody, LIST_QUERY, QueryParams } from '../openapi/describe';

/** Contract section 2: `expires_at` at least 5 minutes and at most 30 days ahead of the service clock. */
export const CASH_EXPIRES_AT_MIN_AHEAD_MS = 5 * MINUTE_MS;
export const CASH_EXPIRES_AT_MAX_AHEAD_MS = 30 * DAY_MS;
/** ISO 8601 date and time with a zone (Z or ±hh:mm): a deadline without a zone is ambiguous. */
const ISO_8601_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

export class CreateCashPaymentBody {
  @IsDefined() @IsAmount() amount!: number;
  @IsDefined() @IsString() @IsNotEmpty() @IsSupportedCurrency() currency!: Currency;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) order_reference!: string;
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) merchant_connection!: string;
  /** Optional; JSON null counts as missing (the default deadline applies). Bounds: checkExpiresAt. */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) expires_at?: string | null;
}

class PayCashBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) cash_point!: string;
  @IsDefined() @IsAmount() amount!: number;
}

/** The instant of an ISO 8601 time with a zone, or undefined (malformed, or a calendar date that does not exist). */
export const parseIsoInstant = (value: string): number | undefined => {
  const match = ISO_8601_WITH_ZONE.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '0', zoneHours = '0', zoneMinutes = '0'] = match.map((part) => part ?? undefined);
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (calendar.getUTCMonth() !== Number(month) - 1 || calendar.getUTCDate() !== Number(day)) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59 || Number(zoneHours) > 23 || Number(zoneMinutes) > 59) return undefined;
  const instant = Date.parse(value);
  return Number.isNaN(instant) ? undefined : instant;
};

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
    throw new ServiceError('invalid_request', 'expires_at must be an ISO 8601 time at least 5 minutes and at most 30 days ahead', 'expires_at');
  }
};

@Controller('v1/cash_payments')
export class CashPaymentsController {
  constructor(private readonly gateway: GatewayCore) {}

  @JsonBody(CreateCashPaymentBody)
  @Post()
  @HttpCode(201)
  async create(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<CashPaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    checkExpiresAt(body, this.gateway.clock.now());
    const input = validateBody(CreateCashPaymentBody, body);
    const key = checkIdempotencyKey(idempotencyKey);
    const merchant = await this.gateway.authorizedConnection(integratorId, input.merchant_connection, 'merchant_connection');
    this.gateway.requireCurrency(merchant, input.currency);
    const expiresAt = input.expires_at == null ? null : new Date(parseIsoInstant(input.expires_at)!).toISOString();
    return this.gateway.idempotency.run(
      { scope: integratorId, key, endpoint: 'POST /v1/cash_payments', body, objectKind: 'cashPayment', reply },
      (cashPaymentId) =>
        this.gateway.bus.request('cash.cash-payments.create', {
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
  @QueryParams('order_reference', 'status', 'payment_reference', 'created_gte', 'created_lt', ...LIST_QUERY)
  @Get()
  async list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: unknown): Promise<ListResource<CashPaymentResource>> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const page = parseListQuery(query, ['order_reference', 'status', 'payment_reference'] as const, { oneOf: { status: CASH_PAYMENT_STATUSES }, createdRange: true });
    return this.gateway.bus.request('cash.list', { integratorId, ...page });
  }

  @Get(':id')
  async retrieve(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') cashPaymentId: string): Promise<CashPaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    return this.gateway.bus.request('cash.cash-payments.retrieve', { integratorId, cashPaymentId });
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') cashPaymentId: string,
    @Body() body: unknown,
  ): Promise<CashPaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    requireEmptyBody(body);
    return this.gateway.bus.request('cash.cash-payments.cancel', { integratorId, cashPaymentId });
  }
}

/** Sandbox test helpers of cash_payments: registered only when SANDBOX=true. */
@Controller('v1/test_helpers/cash_payments')
export class CashPaymentsTestHelpersController {
  constructor(private readonly gateway: GatewayCore) {}

  /** The cash agent validates the cash at a cash point: the exact amount only (else invalid_amount, nothing changes). */
  @JsonBody(PayCashBody)
  @Post(':id/pay')
  @HttpCode(200)
  async pay(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') cashPaymentId: string,
    @Body() body: unknown,
  ): Promise<CashPaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const input = validateBody(PayCashBody, body);
    return this.gateway.bus.request('cash.cash-payments.pay', { integratorId, cashPaymentId, cashPointId: input.cash_point, amount: input.amount });
  }
}


/**
 * The hosted pages of a cash payment, reached by its unguessable id: instructions (HTML, rendered by
 * the cash app in the customer's language, with the merchant's name looked up here) and the QR code
 * (PNG). Their headers are set once the content exists, so that a 404 stays a JSON error.
 */
@Controller('hosted/cash_payments')
export class CashPaymentsHostedController {
  constructor(
    private readonly gateway: GatewayCore,
    private readonly pages: HostedPages,
  ) {}

  @Get(':id/instructions')
  async instructions(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') cashPaymentId: string): Promise<string> {
    const payment = await this.gateway.bus.request('cash.cash-payments.retrieve', { integratorId: null, cashPaymentId });
    const merchant = await this.gateway.directory.findConnection(payment.merchant_connection);
    const language = this.pages.language(request, reply);
    const page = { language, brandName: this.pages.brandName, merchantName: merchant?.name ?? payment.merchant_connection };
    const { html } = await this.gateway.bus.request('cash.cash-payments.instructions-page', { cashPaymentId, page });
    return sendPage(reply, html, { language });
  }

  @Get(':id/qr.png')
  async qrCode(@Res({ passthrough: true }) reply: FastifyReply, @Param('id') cashPaymentId: string): Promise<Buffer> {
    const { pngBase64 } = await this.gateway.bus.request('cash.cash-payments.qr-code', { cashPaymentId });
    void reply.header('Content-Type', 'image/png').header('Cache-Control', 'private, max-age=300').header('X-Content-Type-Options', 'nosniff');
    return Buffer.from(pngBase64, 'base64');
  }
}
