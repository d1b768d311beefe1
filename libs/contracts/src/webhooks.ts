import { topicsOf, type ApplyDeadlines, type DeadlinesApplied, type IntegratorObjectRef, type ListObjects, type MessageKeys } from './common';
import type { EventResource, IntegrationEvent } from './events';
import type { EndpointDeliveryResource, ListResource, WebhookEndpointResource } from './resources';

/** The webhooks app: the integrators' events, their webhook endpoints and the deliveries to them. */

export interface ListPage {
  integratorId: string;
  limit: number;
  startingAfter?: string;
}

export interface CreateWebhookEndpoint {
  endpointId: string;
  integratorId: string;
  url: string;
  enabledEvents: string[];
}

export interface UpdateWebhookEndpoint {
  integratorId: string;
  id: string;
  url?: string;
  enabledEvents?: string[];
  status?: 'enabled' | 'disabled';
}

export interface ListEndpointDeliveries {
  integratorId: string;
  id: string;
  limit: number;
  startingAfter?: string;
  status?: 'pending' | 'succeeded' | 'failed' | 'canceled';
}

/** An event's deliveries, oldest first: `startingAfter` a delivery of the event. */
export interface ListEventDeliveries {
  integratorId: string;
  id: string;
  limit: number;
  startingAfter?: string;
}

export interface RecoverDeliveries {
  integratorId: string;
  id: string;
  /** ISO time: failed deliveries of events created at or after it are sent again. */
  since: string;
}

export interface WebhooksTopics {
  /** Recording is idempotent by event id: at-least-once publishers may repeat it. */
  'events.record': { request: IntegrationEvent; reply: { recorded: boolean } };
  /**
   * A relay's batch, or the events of a caller's concurrent commands (at most EVENTS_RECORD_BATCH_MAX),
   * in order: each event not recorded yet is recorded as `events.record` would. In a relay's batch
   * usually every one was already: one look answers the batch.
   */
  'events.record-batch': { request: { events: IntegrationEvent[] }; reply: { recorded: number } };
  'webhooks.endpoints.create': { request: CreateWebhookEndpoint; reply: WebhookEndpointResource };
  'webhooks.endpoints.list': { request: ListPage; reply: ListResource<WebhookEndpointResource> };
  'webhooks.endpoints.retrieve': { request: IntegratorObjectRef; reply: WebhookEndpointResource };
  'webhooks.endpoints.delete': { request: IntegratorObjectRef; reply: { id: string; object: 'webhook_endpoint'; deleted: true } };
  'webhooks.endpoints.update': { request: UpdateWebhookEndpoint; reply: WebhookEndpointResource };
  'webhooks.endpoints.rotate-secret': { request: IntegratorObjectRef; reply: WebhookEndpointResource };
  'webhooks.endpoints.deliveries': { request: ListEndpointDeliveries; reply: ListResource<EndpointDeliveryResource> };
  'webhooks.endpoints.recover': { request: RecoverDeliveries; reply: { object: 'recovery'; endpoint: string; redelivered: number } };
  'webhooks.events.list': { request: ListObjects<'type' | 'object_id'>; reply: ListResource<EventResource> };
  'webhooks.events.retrieve': { request: IntegratorObjectRef; reply: EventResource };
  'webhooks.events.redeliver': { request: IntegratorObjectRef; reply: EventResource };
  'webhooks.events.deliveries': { request: ListEventDeliveries; reply: ListResource<EndpointDeliveryResource> };
  'webhooks.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
}

/** Each topic's message key (common.ts, MessageKeyOf); null: about no entity, a random key. */
export const WEBHOOKS_MESSAGE_KEYS = {
  /** By the object the event is about: one object's events are recorded in the order they happened. */
  'events.record': 'objectId',
  /** A batch is about many objects; each object's events are in order within it, and a sender sends one batch at a time. */
  'events.record-batch': null,
  'webhooks.endpoints.create': 'endpointId',
  'webhooks.endpoints.list': null,
  'webhooks.endpoints.retrieve': 'id',
  'webhooks.endpoints.delete': 'id',
  'webhooks.endpoints.update': 'id',
  'webhooks.endpoints.rotate-secret': 'id',
  'webhooks.endpoints.deliveries': 'id',
  'webhooks.endpoints.recover': 'id',
  'webhooks.events.list': null,
  'webhooks.events.retrieve': 'id',
  'webhooks.events.redeliver': 'id',
  'webhooks.events.deliveries': 'id',
  'webhooks.apply-deadlines': null,
} as const satisfies MessageKeys<WebhooksTopics>;

export const WEBHOOKS_TOPICS = topicsOf(WEBHOOKS_MESSAGE_KEYS);
