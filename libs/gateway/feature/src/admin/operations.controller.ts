import { Body, Controller, Get, HttpCode, Inject, Post, Query, UseGuards } from '@nestjs/common';
import { IsOptional, IsString, Matches } from 'class-validator';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { type EndpointHealth, EndpointHealthResource, type FailedDelivery, FailedDeliveryResource, listOf, type ListResource, operationsListOf, type ParkedEvent, ParkedEventReplayResource, ParkedEventResource, RedeliveryResource, ServiceError, type Static, SUBSCRIBING_APPS, type SubscribingApp, SubscriptionResource, type SubscriptionStatus } from '@pay/contracts';
import { ID_LENGTH_MAX, newId, OPERATIONS_APP_TIMEOUT_MS, OPERATIONS_REPLAY_TIMEOUT_MS } from '@pay/kernel';
import { parseListQuery } from '../api/list-query';
import { Audit, Audited, type AuditTrail } from '../audit/audited';
import { AdminGuard } from '../auth/admin.guard';
import { validateBody } from '../http/validation';
import { JsonBody, LIST_QUERY, QueryParams, Returns } from '../openapi/describe';

const SUBSCRIPTION_ID = new RegExp(`^(${SUBSCRIBING_APPS.join('|')})\\.[a-z0-9][a-z0-9-]{0,99}$`);
const EVENT_ID = /^[A-Za-z0-9_-]{1,100}$/;
const ENDPOINT_ID = new RegExp(`^we_[0-9A-Za-z]{1,${ID_LENGTH_MAX}}$`);
const DELIVERY_ID = new RegExp(`^whd_[0-9A-Za-z]{1,${ID_LENGTH_MAX}}$`);

class ReplayParkedBody {
  @IsOptional() @IsString() @Matches(SUBSCRIPTION_ID, { message: `subscription_id must be a subscription of ${SUBSCRIBING_APPS.join(', ')}, e.g. payments.payment-views` })
  subscription_id?: string;
  @IsOptional() @IsString() @Matches(EVENT_ID, { message: 'event_id must be an event id (1 to 100 letters, digits, - or _)' })
  event_id?: string;
}

class RedeliverFailedBody {
  @IsOptional() @IsString() @Matches(ENDPOINT_ID, { message: 'endpoint_id must be a webhook endpoint id (we_…)' })
  endpoint_id?: string;
}

const SUBSCRIPTION_LIST = operationsListOf(SubscriptionResource, 'SubscriptionList');
const PARKED_EVENT_LIST = operationsListOf(ParkedEventResource, 'ParkedEventList');

/** An app that did not answer: listed beside the answers of the others rather than failing the whole view. */
interface AppError {
  app: SubscribingApp;
  code: string;
  message: string;
}

/**
 * The operator's view of the background work (admin key): the catch-up subscriptions of each app with
 * their checkpoint and lag, parked events and their replay, failed webhook deliveries and their bulk
 * redelivery, failing endpoints.
 */
@Controller('admin/v1/operations')
@UseGuards(AdminGuard)
export class OperationsController {
  constructor(@Inject(MESSAGE_BUS) private readonly bus: MessageBus) {}

  @Returns(SUBSCRIPTION_LIST, 'List catch-up subscriptions')
  @Get('subscriptions')
  async subscriptions(@Query() query: unknown): Promise<Static<typeof SUBSCRIPTION_LIST>> {
    refuseParameters(query);
    const { answers, errors } = await this.askEveryApp((app) => this.bus.request(`${app}.operations.subscriptions`, {}, { timeoutMs: OPERATIONS_APP_TIMEOUT_MS }));
    return { object: 'list', data: answers.flatMap((answer) => answer.items.map(toSubscriptionView)), has_more: false, errors };
  }

  /** The newest parked events of every app, at most `limit` in all. */
  @Returns(PARKED_EVENT_LIST, 'List parked events')
  @QueryParams('limit')
  @Get('parked_events')
  async parkedEvents(@Query() query: unknown): Promise<Static<typeof PARKED_EVENT_LIST>> {
    const limit = limitOnly(query);
    // One more than asked from each app: whether there are more.
    const ask = (app: SubscribingApp) => this.bus.request(`${app}.operations.parked-events`, { limit: limit + 1 }, { timeoutMs: OPERATIONS_APP_TIMEOUT_MS });
    const { answers, errors } = await this.askEveryApp(ask);
    const parked = answers.flatMap((answer) => answer.items).sort((a, b) => b.parkedAt.localeCompare(a.parkedAt));
    return { object: 'list', data: parked.slice(0, limit).map(toParkedEventView), has_more: parked.length > limit, errors };
  }

  /** One parked event (both ids), every one of a subscription, or every one of every app (no body). */
  @Returns(ParkedEventReplayResource, 'Replay parked events')
  @JsonBody(ReplayParkedBody)
  @Post('parked_events/replay')
  @HttpCode(200)
  @Audited('parked_events.replayed', { repeatable: true })
  async replayParked(@Body() body: unknown, @Audit() audit: AuditTrail): Promise<ParkedEventReplayResource> {
    const { subscription_id: subscriptionId, event_id: eventId } = validateOptionalBody(ReplayParkedBody, body);
    if (eventId !== undefined && subscriptionId === undefined) throw new ServiceError('invalid_request', 'event_id needs the subscription_id it is parked in', 'subscription_id');
    const replay = { ...(subscriptionId === undefined ? {} : { subscriptionId }), ...(eventId === undefined ? {} : { eventId }) };
    // As the console's replay: the parked event, or for many (a subscription's, every app's) the operation.
    await audit.intend(eventId === undefined ? { object: 'operation', id: newId('operation') } : { object: 'parked_event', id: eventId });
    // A replay handles events again: given the time a projection batch may take, not the usual bound.
    const ask = (app: SubscribingApp) => this.bus.request(`${app}.operations.replay-parked`, replay, { timeoutMs: OPERATIONS_REPLAY_TIMEOUT_MS });
    // One subscription: its app's answer, or its error. Every app: each app's answer or error.
    const { answers, errors } = subscriptionId === undefined ? await this.askEveryApp(ask) : { answers: [await ask(appOf(subscriptionId))], errors: [] };
    return {
      object: 'parked_event_replay',
      replayed: answers.reduce((sum, answer) => sum + answer.replayed, 0),
      failed: answers.flatMap((answer) => answer.failed.map((f) => ({ subscription: f.subscriptionId, event: f.eventId, error: f.error }))),
      errors,
    };
  }

  @Returns(listOf(FailedDeliveryResource), 'List failed webhook deliveries')
  @QueryParams('endpoint_id', ...LIST_QUERY)
  @Get('failed_deliveries')
  async failedDeliveries(@Query() query: unknown): Promise<ListResource<FailedDeliveryResource>> {
    const { limit, startingAfter, filters } = parseListQuery(query, ['endpoint_id'] as const, { idPattern: DELIVERY_ID });
    const endpointId = filters.endpoint_id;
    if (endpointId !== undefined && !ENDPOINT_ID.test(endpointId)) throw new ServiceError('invalid_request', 'endpoint_id must be a webhook endpoint id (we_…)', 'endpoint_id');
    const page = await this.bus.request('webhooks.operations.failed-deliveries', {
      limit,
      ...(endpointId === undefined ? {} : { endpointId }),
      ...(startingAfter === undefined ? {} : { startingAfter }),
    });
    return { object: 'list', data: page.data.map(toFailedDeliveryView), has_more: page.has_more };
  }

  /** Every failed delivery (of one endpoint, or all) sent again now; a repeat finds none. */
  @Returns(RedeliveryResource, 'Redeliver failed webhook deliveries')
  @JsonBody(RedeliverFailedBody)
  @Post('failed_deliveries/redeliver')
  @HttpCode(200)
  @Audited('failed_deliveries.redelivered', { repeatable: true })
  async redeliverFailed(@Body() body: unknown, @Audit() audit: AuditTrail): Promise<RedeliveryResource> {
    const endpointId = validateOptionalBody(RedeliverFailedBody, body).endpoint_id;
    // As the console's redelivery: the endpoint, or for every endpoint's the operation.
    await audit.intend(endpointId === undefined ? { object: 'operation', id: newId('operation') } : { object: 'webhook_endpoint', id: endpointId });
    const { redelivered } = await this.bus.request('webhooks.operations.redeliver-failed', endpointId === undefined ? {} : { endpointId }, { timeoutMs: OPERATIONS_REPLAY_TIMEOUT_MS });
    return { object: 'redelivery', endpoint: endpointId ?? null, redelivered };
  }

  @Returns(listOf(EndpointHealthResource), 'List failing webhook endpoints')
  @QueryParams('limit')
  @Get('failing_endpoints')
  async failingEndpoints(@Query() query: unknown): Promise<ListResource<EndpointHealthResource>> {
    const limit = limitOnly(query);
    const { items } = await this.bus.request('webhooks.operations.failing-endpoints', { limit: limit + 1 });
    return { object: 'list', data: items.slice(0, limit).map(toEndpointHealthView), has_more: items.length > limit };
  }

  /** Asks the apps at once; one that fails or does not answer in time is an entry of `errors`. */
  private async askEveryApp<T>(ask: (app: SubscribingApp) => Promise<T>): Promise<{ answers: T[]; errors: AppError[] }> {
    const apps = SUBSCRIBING_APPS;
    const settled = await Promise.allSettled(apps.map(ask));
    const answers: T[] = [];
    const errors: AppError[] = [];
    settled.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') answers.push(outcome.value);
      else errors.push(appError(apps[index]!, outcome.reason));
    });
    return { answers, errors };
  }
}

const appError = (app: SubscribingApp, reason: unknown): AppError =>
  reason instanceof ServiceError ? { app, code: reason.code, message: reason.message } : { app, code: 'internal_error', message: 'the app failed to answer' };

/** The app that keeps a subscription: its id's prefix (`payments.payment-views`). */
const appOf = (subscriptionId: string): SubscribingApp => SUBSCRIBING_APPS.find((app) => subscriptionId.startsWith(`${app}.`))!;

/** An action whose parameters are all optional: no body is the same as `{}`. */
const validateOptionalBody = <T extends object>(dto: new () => T, body: unknown): T => validateBody(dto, body === undefined ? {} : body);

/** A list without a cursor: `limit` (1 to 100, default 10) and nothing else. */
const limitOnly = (query: unknown): number => {
  const { limit, startingAfter } = parseListQuery(query);
  if (startingAfter !== undefined) throw new ServiceError('invalid_request', 'unknown parameter: starting_after', 'starting_after');
  return limit;
};

const refuseParameters = (query: unknown): void => {
  const [name] = Object.keys((query as object | undefined) ?? {});
  if (name !== undefined) throw new ServiceError('invalid_request', `unknown parameter: ${name}`, name);
};

const toSubscriptionView = (s: SubscriptionStatus): SubscriptionResource => ({
  id: s.subscriptionId,
  object: 'subscription',
  app: s.app,
  checkpoint: s.checkpoint,
  checkpoint_updated_at: s.checkpointUpdatedAt,
  lag_seconds: s.lagSeconds,
  parked_events: s.parkedEvents,
  running: s.running,
});

const toParkedEventView = (p: ParkedEvent): ParkedEventResource => ({
  object: 'parked_event',
  subscription: p.subscriptionId,
  event: p.eventId,
  stream: p.streamId,
  type: p.type,
  error: p.error,
  parked_at: p.parkedAt,
});

const toFailedDeliveryView = (d: FailedDelivery): FailedDeliveryResource => ({
  id: d.deliveryId,
  object: 'failed_delivery',
  endpoint: d.endpointId,
  integrator: d.integratorId,
  event: d.eventId,
  event_type: d.eventType,
  status: d.status,
  attempts: d.attempts,
  last_error: d.lastError,
  last_attempt_at: d.lastAttemptAt,
});

const toEndpointHealthView = (e: EndpointHealth): EndpointHealthResource => ({
  id: e.endpointId,
  object: 'endpoint_health',
  integrator: e.integratorId,
  url: e.url,
  status: e.status,
  failing_since: e.failingSince,
  flagged: e.flagged,
});
