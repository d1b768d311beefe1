import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EVENT_TYPES, type DeliveryResource, type EndpointDeliveryResource, type EventResource, type ListResource, type WebhookEndpointResource } from '@pay/contracts';
import { GatewayCore } from '../gateway.core';
import { requireEmptyBody, validateBody } from '../http/validation';
import { parseListQuery } from './list-query';
import { checkIdempotencyKey } from './payments.controller';
import { JsonBody, LIST_QUERY, QueryParams } from '../openapi/describe';

export const URL_LENGTH_MAX = 2048;

class CreateEndpointBody {
  @IsDefined() @IsString() @MaxLength(URL_LENGTH_MAX) url!: string;
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(EVENT_TYPES.length + 1) @IsIn(['*', ...EVENT_TYPES], { each: true }) enabled_events?: string[];
}

class UpdateEndpointBody {
  @IsOptional() @IsString() @MaxLength(URL_LENGTH_MAX) url?: string;
  @IsOptional() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(EVENT_TYPES.length + 1) @IsIn(['*', ...EVENT_TYPES], { each: true }) enabled_events?: string[];
  @IsOptional() @IsString() @IsIn(['enabled', 'disabled']) status?: 'enabled' | 'disabled';
}

class RecoverBody {
  @IsDefined() @IsString() @IsISO8601({ strict: true }) since!: string;
}

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** Webhook endpoints: created, listed, updated, disabled, given a new secret, deleted; their deliveries. The URL is checked against SSRF by the webhooks app. */
@Controller('v1/webhook_endpoints')
export class WebhookEndpointsController {
  constructor(private readonly gateway: GatewayCore) {}

  @JsonBody(CreateEndpointBody)
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

  @QueryParams(...LIST_QUERY)
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

  /** Changes url, enabled_events or status; a disabled endpoint is sent nothing (nor later the events of that time). */
  @JsonBody(UpdateEndpointBody)
  @Post(':id')
  @HttpCode(200)
  async update(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') id: string, @Body() body: unknown): Promise<WebhookEndpointResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const input = validateBody(UpdateEndpointBody, body);
    return this.gateway.bus.request('webhooks.endpoints.update', {
      integratorId,
      id,
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(input.enabled_events === undefined ? {} : { enabledEvents: [...new Set(input.enabled_events)] }),
      ...(input.status === undefined ? {} : { status: input.status }),
    });
  }

  /** A new secret, shown once here; for 24 hours deliveries are signed with the old one too. */
  @Post(':id/rotate_secret')
  @HttpCode(200)
  async rotateSecret(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') id: string, @Body() body: unknown): Promise<WebhookEndpointResource> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    requireEmptyBody(body);
    return this.gateway.bus.request('webhooks.endpoints.rotate-secret', { integratorId, id });
  }

  @QueryParams('status', ...LIST_QUERY)
  @Get(':id/deliveries')
  async deliveries(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') id: string, @Query() query: unknown): Promise<ListResource<EndpointDeliveryResource>> {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const { limit, startingAfter, filters } = parseListQuery(query, ['status'] as const, { oneOf: { status: DELIVERY_STATUSES } });
    return this.gateway.bus.request('webhooks.endpoints.deliveries', {
      integratorId,
      id,
      limit,
      ...(startingAfter === undefined ? {} : { startingAfter }),
      ...(filters.status === undefined ? {} : { status: filters.status as (typeof DELIVERY_STATUSES)[number] }),
    });
  }

  /** Sends again every failed delivery of the endpoint whose event was created at or after `since`. */
  @JsonBody(RecoverBody)
  @Post(':id/recover')
  @HttpCode(200)
  async recover(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Param('id') id: string, @Body() body: unknown) {
    const { integratorId } = await this.gateway.authenticate(request, reply);
    const { since } = validateBody(RecoverBody, body);
    return this.gateway.bus.request('webhooks.endpoints.recover', { integratorId, id, since: new Date(since).toISOString() });
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

  @QueryParams('type', 'object_id', 'created_gte', 'created_lt', ...LIST_QUERY)
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
