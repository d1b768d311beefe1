import { Body, Controller, Delete, Get, Header, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { DeletedWebhookEndpointResource, DELIVERY_STATUSES, EndpointDeliveryResource, EVENT_TYPES, EventResource, listOf, type ListResource, RecoveryResource, WebhookEndpointResource } from '@pay/contracts';
import { URL_LENGTH_MAX } from '@pay/kernel';
import { ApiKeyGuard, Integrator } from '../auth/api-key.guard';
import { RequiresScope } from '../auth/scopes';
import { sha256, type ApiKeyRecord } from '../directory/directory.repository';
import { checkIdempotencyKey, Creation, type CreateRequest } from '../http/idempotency-key';
import { IsIsoTime, requireEmptyBody, validateBody } from '../http/validation';
import { IdempotencyStore } from '../idempotency/idempotency';
import { secretSeal } from '../idempotency/secret-seal';
import { JsonBody, CREATED_RANGE, LIST_QUERY, QueryParams, Returns } from '../openapi/describe';
import { NO_STORE } from '../http/headers';
import { parseIsoInstant, parseListQuery } from './list-query';
import { Audit, Audited, type AuditTrail } from '../audit/audited';

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
  @IsDefined() @IsString() @IsIsoTime() since!: string;
}


/** Webhook endpoints: created, listed, updated, disabled, given a new secret, deleted; their deliveries. The URL is checked against SSRF by the webhooks app. */
@Controller('v1/webhook_endpoints')
@UseGuards(ApiKeyGuard)
@RequiresScope('webhook_endpoints')
export class WebhookEndpointsController {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly idempotency: IdempotencyStore,
  ) {}

  @Returns(WebhookEndpointResource, 'Create a webhook endpoint', { description: 'Answers the endpoint with its `secret` (shown only here and by rotate_secret). `url` must be https:// and must not resolve to a private address (in sandbox, http:// or https:// to 127.0.0.1, localhost or [::1], written so, is accepted).' })
  @JsonBody(CreateEndpointBody)
  @Post()
  @HttpCode(201)
  @Audited('webhook_endpoint.created')
  @Header('Cache-Control', NO_STORE) // the answer carries the signing secret
  async create(@Integrator() { integratorId }: ApiKeyRecord, @Creation() request: CreateRequest, @Audit() audit: AuditTrail): Promise<WebhookEndpointResource> {
    const input = validateBody(CreateEndpointBody, request.body);
    const key = checkIdempotencyKey(request.idempotencyKey);
    // The stored answer holds the signing secret sealed: only the same key's retry reads it back.
    const call = { scope: integratorId, key, endpoint: 'POST /v1/webhook_endpoints', objectKind: 'webhookEndpoint' as const, seal: secretSeal(request, key, 'secret') };
    return this.idempotency.run(call, request, async (endpointId) => {
      await audit.intend({ object: 'webhook_endpoint', id: endpointId });
      return this.bus.request('webhooks.endpoints.create', { endpointId, integratorId, url: input.url, enabledEvents: [...new Set(input.enabled_events ?? ['*'])] });
    });
  }

  @Returns(listOf(WebhookEndpointResource), 'List webhook endpoints')
  @QueryParams(...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<WebhookEndpointResource>> {
    const { limit, startingAfter } = parseListQuery(query);
    return this.bus.request('webhooks.endpoints.list', { integratorId, limit, ...(startingAfter ? { startingAfter } : {}) });
  }

  @Returns(WebhookEndpointResource, 'Retrieve a webhook endpoint')
  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string): Promise<WebhookEndpointResource> {
    return this.bus.request('webhooks.endpoints.retrieve', { integratorId, id });
  }

  /** Changes url, enabled_events or status; a disabled endpoint is sent nothing (nor later the events of that time). */
  @Returns(WebhookEndpointResource, 'Update a webhook endpoint', { description: 'Changes the URL, the event types or the status; a disabled endpoint is sent nothing, and events of the disabled period are not sent later.' })
  @JsonBody(UpdateEndpointBody)
  @Post(':id')
  @HttpCode(200)
  @Audited('webhook_endpoint.updated', { repeatable: true })
  async update(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string, @Body() body: unknown, @Audit() audit: AuditTrail): Promise<WebhookEndpointResource> {
    const input = validateBody(UpdateEndpointBody, body);
    const enabledEvents = input.enabled_events === undefined ? undefined : [...new Set(input.enabled_events)];
    // What the endpoint shows once updated: how the sweeper tells, after a crash, that the update was made
    // (the URL as its hash: a URL may carry a token, and intents hold no secret).
    await audit.intend({ object: 'webhook_endpoint', id }, {
      ...(input.url === undefined ? {} : { url_sha256: sha256(input.url) }),
      ...(enabledEvents === undefined ? {} : { enabled_events: enabledEvents }),
      ...(input.status === undefined ? {} : { status: input.status }),
    });
    return this.bus.request('webhooks.endpoints.update', {
      integratorId,
      id,
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(enabledEvents === undefined ? {} : { enabledEvents }),
      ...(input.status === undefined ? {} : { status: input.status }),
    });
  }

  /** A new secret, shown once here; for 24 hours deliveries are signed with the old one too. */
  @Returns(WebhookEndpointResource, 'Rotate a webhook endpoint’s secret', { description: 'Answers the endpoint with a new `secret`; for 24 hours every delivery carries two signatures, one per secret.' })
  @Post(':id/rotate_secret')
  @HttpCode(200)
  @Audited('webhook_endpoint.secret_rotated', { repeatable: true })
  @Header('Cache-Control', NO_STORE) // the answer carries the new signing secret
  async rotateSecret(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string, @Body() body: unknown, @Audit() audit: AuditTrail): Promise<WebhookEndpointResource> {
    requireEmptyBody(body);
    await audit.intend({ object: 'webhook_endpoint', id });
    return this.bus.request('webhooks.endpoints.rotate-secret', { integratorId, id });
  }

  @Returns(listOf(EndpointDeliveryResource), 'List a webhook endpoint’s deliveries')
  @QueryParams({ status: DELIVERY_STATUSES }, ...LIST_QUERY)
  @Get(':id/deliveries')
  async deliveries(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string, @Query() query: unknown): Promise<ListResource<EndpointDeliveryResource>> {
    const { limit, startingAfter, filters } = parseListQuery(query, ['status'] as const, { oneOf: { status: DELIVERY_STATUSES } });
    return this.bus.request('webhooks.endpoints.deliveries', {
      integratorId,
      id,
      limit,
      ...(startingAfter === undefined ? {} : { startingAfter }),
      ...(filters.status === undefined ? {} : { status: filters.status as (typeof DELIVERY_STATUSES)[number] }),
    });
  }

  /** Sends again every failed delivery of the endpoint whose event was created at or after `since`. */
  @Returns(RecoveryResource, 'Recover failed deliveries', { description: 'Sends again every failed delivery of the endpoint whose event was created at or after `since`.' })
  @JsonBody(RecoverBody)
  @Post(':id/recover')
  @HttpCode(200)
  @Audited('failed_deliveries.redelivered', { repeatable: true, intends: { object: 'webhook_endpoint', param: 'id' } })
  async recover(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string, @Body() body: unknown) {
    const { since } = validateBody(RecoverBody, body);
    return this.bus.request('webhooks.endpoints.recover', { integratorId, id, since: new Date(parseIsoInstant(since, 'up')!).toISOString() });
  }

  @Returns(DeletedWebhookEndpointResource, 'Delete a webhook endpoint', { operationId: 'webhookEndpoints.delete' })
  @Delete(':id')
  @Audited('webhook_endpoint.deleted')
  async remove(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string, @Body() body: unknown, @Audit() audit: AuditTrail) {
    requireEmptyBody(body);
    await audit.intend({ object: 'webhook_endpoint', id });
    return this.bus.request('webhooks.endpoints.delete', { integratorId, id });
  }
}

/** Events (contract section 6): listed newest first, retrieved, redelivered, and their delivery attempts. */
@Controller('v1/events')
@UseGuards(ApiKeyGuard)
@RequiresScope('events')
export class EventsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Returns(listOf(EventResource), 'List events')
  @QueryParams({ type: EVENT_TYPES }, 'object_id', ...CREATED_RANGE, ...LIST_QUERY)
  @Get()
  async list(@Integrator() { integratorId }: ApiKeyRecord, @Query() query: unknown): Promise<ListResource<EventResource>> {
    const page = parseListQuery(query, ['type', 'object_id'] as const, { oneOf: { type: EVENT_TYPES }, createdRange: true });
    return this.bus.request('webhooks.events.list', { integratorId, ...page });
  }

  @Returns(EventResource, 'Retrieve an event')
  @Get(':id')
  async retrieve(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string): Promise<EventResource> {
    return this.bus.request('webhooks.events.retrieve', { integratorId, id });
  }

  /** Sends the event again to the integrator's matching endpoints: same id and body, a fresh timestamp. */
  @Returns(EventResource, 'Redeliver an event', { description: 'Schedules a new delivery of the event to each endpoint that listens to its type.' })
  @Post(':id/redeliver')
  @HttpCode(200)
  @Audited('event.redelivered', { repeatable: true, intends: { object: 'event', param: 'id' } })
  async redeliver(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string, @Body() body: unknown): Promise<EventResource> {
    requireEmptyBody(body);
    return this.bus.request('webhooks.events.redeliver', { integratorId, id });
  }

  @Returns(listOf(EndpointDeliveryResource), 'List an event’s deliveries', { description: 'The deliveries of the event, oldest first, each with its attempts in `attempt_history`.' })
  @QueryParams(...LIST_QUERY)
  @Get(':id/deliveries')
  async deliveries(@Integrator() { integratorId }: ApiKeyRecord, @Param('id') id: string, @Query() query: unknown): Promise<ListResource<EndpointDeliveryResource>> {
    const { limit, startingAfter } = parseListQuery(query);
    return this.bus.request('webhooks.events.deliveries', { integratorId, id, limit, ...(startingAfter === undefined ? {} : { startingAfter }) });
  }
}
