import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { IsDefined, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEADLINE_TOPICS, ServiceError, type ClockResource, type PaymentResource } from '@pay/contracts';
import { iso } from '@pay/kernel';
import { GatewayCore } from '../gateway.core';
import { requireEmptyBody, validateBody } from '../http/validation';
import { STRING_LENGTH_MAX } from './payments.controller';
import { JsonBody } from '../openapi/describe';

class AuthorizeBody {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(STRING_LENGTH_MAX) customer!: string;
}

/** Ten years, in seconds: a bound on one advance. */
const ADVANCE_SECONDS_MAX = 10 * 365 * 24 * 3600;

class AdvanceBody {
  @IsDefined() @IsInt() @Min(1) @Max(ADVANCE_SECONDS_MAX) seconds!: number;
}

/**
 * Sandbox test helpers (contract section 8): they run the same commands as the hosted pages and the
 * agents' applications do in live mode. Registered only when SANDBOX=true; otherwise these routes 404.
 */
@Controller('v1/test_helpers')
export class TestHelpersController {
  constructor(private readonly gateway: GatewayCore) {}

  @JsonBody(AuthorizeBody)
  @Post('payments/:id/authorize')
  @HttpCode(200)
  async authorize(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') paymentId: string,
    @Body() body: unknown,
  ): Promise<PaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const input = validateBody(AuthorizeBody, body);
    const customer = await this.gateway.directory.findCustomer(input.customer);
    if (!customer) throw new ServiceError('invalid_request', `no such customer: '${input.customer}'`, 'customer');
    return this.gateway.bus.request('payments.authorize', { integratorId, paymentId, customer });
  }

  @Post('payments/:id/decline')
  @HttpCode(200)
  async decline(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('id') paymentId: string,
    @Body() body: unknown,
  ): Promise<PaymentResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    requireEmptyBody(body);
    return this.gateway.bus.request('payments.decline', { integratorId, paymentId });
  }

  @Get('clock')
  async clock(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<ClockResource> {
    await this.gateway.authenticate(request, reply);
    return { object: 'clock', now: iso(this.gateway.clock.now()) };
  }

  /** Moves the service clock forward, then has every app apply the deadlines now passed, before answering. */
  @JsonBody(AdvanceBody)
  @Post('clock/advance')
  @HttpCode(200)
  async advance(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Body() body: unknown): Promise<ClockResource> {
    await this.gateway.authenticate(request, reply);
    const { seconds } = validateBody(AdvanceBody, body);
    const clockOffsetMs = await this.gateway.clockStore.advance(this.gateway.clock, seconds);
    for (const topic of DEADLINE_TOPICS) await this.gateway.bus.request(topic, { clockOffsetMs }, { timeoutMs: 60_000 });
    return { object: 'clock', now: iso(this.gateway.clock.now()) };
  }
}
