import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EVENT_TYPES, type DeliveryResource, type EventResource, type ListResource, type WebhookEndpointResource } from '@pay/contracts';
import { GatewayCore } from '../gateway.core';
import { requireEmptyBody, validateBody } from '../http/validation';
import { parseListQuery } from './list-query';
import { checkIdempotencyKey } from './payments.controller';

export const URL_LENGTH_MAX = 2048;

class CreateEndpointBody {
  @IsDefined() @IsString() @MaxLength(URL_LENGTH_MAX) url!: string;
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(EVENT_TYPES.length + 1) @IsIn(['*', ...EVENT_TYPES], { each: true }) enabled_events?: string[];
}

/** Webhook endpoints (contract section 6). The URL is checked against SSRF by the webhooks app. */
@Controller('v1/webhook_endpoints')
export class WebhookEndpointsController {
  constructor(private readonly gateway: GatewayCore) {}

  @Post()
  @HttpCode(201)
  async create(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<WebhookEndpointResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const input = validateBody(CreateEndpointBody, body);
    const key = checkIdempotencyKey(idempotencyKey);
    return this.gateway.idempotency.run(
      { scope: integratorId, key, endpoint: 'POST /v1/webhook_endpoints', body, objectKind: 'webhookEndpoint', reply },
      (endpointId) =>
        this.gateway.bus.request('webhooks.endpoints.create', {
          endpointId,
          integratorId,
          url: input.url,
          enabledEvents: [...new Set(input.enabled_events ?? ['*'])],
        }),
    );
  }

  @Get()
  async list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: unknown): Promise<ListResource<WebhookEndpointResource>> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const { limit, startingAfter } = parseListQuery(query);
    return this.gateway.bus.request('webhooks.endpoints.list', { integratorId, limit, ...(startingAfter ? { startingAfter } : {}) });
  }

  @Get(':id')
  async retrieve(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') id: string): Promise<WebhookEndpointResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    return this.gateway.bus.request('webhooks.endpoints.retrieve', { integratorId, id });
  }

  @Delete(':id')
  async remove(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') id: string) {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    return this.gateway.bus.request('webhooks.endpoints.delete', { integratorId, id });
  }
}

/** Events (contract section 6): listed newest first, retrieved, redelivered, and their delivery attempts. */
@Controller('v1/events')
export class EventsController {
  constructor(private readonly gateway: GatewayCore) {}

  @Get()
  async list(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query() query: unknown): Promise<ListResource<EventResource>> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const page = parseListQuery(query, ['type', 'object_id'] as const, { oneOf: { type: EVENT_TYPES }, createdRange: true });
    return this.gateway.bus.request('webhooks.events.list', { integratorId, ...page });
  }

  @Get(':id')
  async retrieve(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') id: string): Promise<EventResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    return this.gateway.bus.request('webhooks.events.retrieve', { integratorId, id });
  }

  /** Sends the event again to the integrator's matching endpoints: same id and body, a fresh timestamp. */
  @Post(':id/redeliver')
  @HttpCode(200)
  async redeliver(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') id: string, @Body() body: unknown): Promise<EventResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    requireEmptyBody(body);
    return this.gateway.bus.request('webhooks.events.redeliver', { integratorId, id });
  }

  @Get(':id/deliveries')
  async deliveries(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') id: string): Promise<ListResource<DeliveryResource>> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    return this.gateway.bus.request('webhooks.events.deliveries', { integratorId, id });
  }
}
