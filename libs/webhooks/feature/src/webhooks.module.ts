import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { notFound, ServiceError, type CreateWebhookEndpoint, type IntegrationEvent } from '@pay/contracts';
import { EVENTS_RECORD_BATCH_MAX, failpoint, SECRET_ROTATION_INTERVAL_MIN_MS, WEBHOOK_DUE_COUNT_MAX, type OffsetClock } from '@pay/kernel';
import { collectOnScrape, webhookDeliveriesDue, webhookOldestDueDeliveryAgeSeconds } from '@pay/observability';
import { CLOCK, PG_POOL, PG_POOL_ASYNC_COMMIT, type MigrationSet } from '@pay/platform';
import { checkEndpointUrl, newWebhookSecret } from './delivery';
import { DISPATCHER_DEFAULTS, WebhookDispatcher } from './webhook-dispatcher';
import { WebhookOperations } from './webhook-operations';
import { toEndpointResource, WebhooksStore, type EndpointRow } from './webhooks.store';

export const WEBHOOKS_MIGRATIONS: MigrationSet = { name: 'webhooks', dir: join(__dirname, '..', 'migrations') };

export interface WebhooksConfig {
  /** Loopback endpoint URLs are accepted (and delivered to) only in sandbox. */
  sandbox: boolean;
}
const WEBHOOKS_CONFIG = Symbol('WebhooksConfig');

/** The webhooks app: event records, endpoints, and their signed, retried delivery. */
@Injectable()
class WebhooksRuntime implements OnModuleInit, OnApplicationShutdown {
  private readonly store: WebhooksStore;
  private readonly dispatcher: WebhookDispatcher;
  private readonly operations: WebhookOperations;
  private stopScrapes: (() => void) | undefined;

  constructor(
    @Inject(PG_POOL) pool: Pool,
    // The dispatcher's claims and attempt records commit asynchronously: a crash of PostgreSQL may lose
    // the last of them, and a delivery whose attempt's record is lost is attempted again (at least once).
    @Inject(PG_POOL_ASYNC_COMMIT) dispatchPool: Pool,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
  ) {
    this.store = new WebhooksStore(pool, dispatchPool);
    this.dispatcher = new WebhookDispatcher(this.store, clock, { ...DISPATCHER_DEFAULTS, sandbox: config.sandbox });
    this.operations = new WebhookOperations(pool);
  }

  onModuleInit(): void {
    const store = this.store;
    this.bus.handle('events.record', async (event) => ({ recorded: await this.record(event) }));
    this.bus.handle('events.record-batch', async ({ events }) => ({ recorded: await this.recordBatch(events) }));
    this.bus.handle('webhooks.endpoints.create', (request) => this.createEndpoint(request));
    this.bus.handle('webhooks.endpoints.list', ({ integratorId, limit, startingAfter }) => store.listEndpoints(integratorId, limit, startingAfter));
    this.bus.handle('webhooks.endpoints.retrieve', async ({ integratorId, id }) => {
      const endpoint = await store.findEndpoint(integratorId, id);
      if (!endpoint) throw notFound('webhook endpoint', id);
      return toEndpointResource(endpoint);
    });
    this.bus.handle('webhooks.endpoints.update', async ({ integratorId, id, url, enabledEvents, status }) => {
      if (url !== undefined) await this.checkUrl(url);
      const endpoint = await store.updateEndpoint(integratorId, id, { ...(url === undefined ? {} : { url }), ...(enabledEvents === undefined ? {} : { enabledEvents }), ...(status === undefined ? {} : { status }) });
      if (!endpoint) throw notFound('webhook endpoint', id);
      return toEndpointResource(endpoint);
    });
    this.bus.handle('webhooks.endpoints.rotate-secret', async ({ integratorId, id }) => {
      const endpoint = await store.rotateSecret(integratorId, id, newWebhookSecret(), this.clock.now());
      if (!endpoint) throw notFound('webhook endpoint', id);
      if (endpoint === 'rotated_recently') {
        throw new ServiceError('invalid_status', `the secret was rotated less than ${SECRET_ROTATION_INTERVAL_MIN_MS / 1000} s ago: the secret it answered must stay valid; retry later`);
      }
      return toEndpointResource(endpoint, { withSecret: true });
    });
    this.bus.handle('webhooks.endpoints.deliveries', async (query) => {
      if (!(await store.findEndpoint(query.integratorId, query.id))) throw notFound('webhook endpoint', query.id);
      return store.endpointDeliveries(query);
    });
    this.bus.handle('webhooks.endpoints.recover', async ({ integratorId, id, since }) => {
      if (!(await store.findEndpoint(integratorId, id))) throw notFound('webhook endpoint', id);
      const redelivered = await store.recover(id, new Date(since), this.clock.now());
      if (redelivered > 0) this.dispatcher.wake();
      return { object: 'recovery' as const, endpoint: id, redelivered };
    });
    this.bus.handle('webhooks.endpoints.delete', async ({ integratorId, id }) => {
      if (!(await store.deleteEndpoint(integratorId, id, this.clock.now()))) throw notFound('webhook endpoint', id);
      return { id, object: 'webhook_endpoint', deleted: true };
    });
    this.bus.handle('webhooks.events.list', (query) => store.listEvents(query));
    this.bus.handle('webhooks.events.retrieve', async ({ integratorId, id }) => {
      const event = await store.findEvent(integratorId, id);
      if (!event) throw notFound('event', id);
      return event;
    });
    // The back office: whose an event found by its id alone is.
    this.bus.handle('webhooks.events.locate', async ({ id }) => {
      const integratorId = await store.integratorOfEvent(id);
      if (!integratorId) throw notFound('event', id);
      return { integratorId };
    });
    this.bus.handle('webhooks.events.redeliver', async ({ integratorId, id }) => {
      const event = await store.findEvent(integratorId, id);
      if (!event) throw notFound('event', id);
      await store.redeliver(integratorId, id, this.clock.now());
      this.dispatcher.wake();
      return event;
    });
    this.bus.handle('webhooks.events.deliveries', async (query) => {
      if (!(await store.findEvent(query.integratorId, query.id))) throw notFound('event', query.id);
      return store.deliveriesOf(query);
    });
    this.bus.handle('webhooks.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      await this.clock.stored(); // the app's other instances follow it from there
      return { applied: await this.dispatcher.drainDue() };
    });
    this.handleOperations();
    this.dispatcher.start();
    this.stopScrapes = collectOnScrape('webhooks', () => this.measureDueDeliveries(), [webhookDeliveriesDue, webhookOldestDueDeliveryAgeSeconds]);
  }

  /** The operator's view (admin API): failed deliveries, their bulk redelivery, failing endpoints; on the service clock. */
  private handleOperations(): void {
    this.bus.handle('webhooks.operations.failed-deliveries', (query) => this.operations.failedDeliveries(query));
    this.bus.handle('webhooks.operations.redeliver-failed', async ({ endpointId }) => {
      const redelivered = await this.operations.redeliverFailed(endpointId, this.clock.now());
      if (redelivered > 0) this.dispatcher.wake();
      return { redelivered };
    });
    this.bus.handle('webhooks.operations.failing-endpoints', async ({ limit }) => ({ items: await this.operations.failingEndpoints(limit, this.clock.now()) }));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopScrapes?.();
    await this.dispatcher.stop();
  }

  /** On scrape: the backlog of due deliveries and how long its oldest has waited (on the service clock, as deliveries fall due). */
  private async measureDueDeliveries(): Promise<void> {
    // Unknown (NaN) until read: a failed or late read must not leave the last scrape's value standing.
    webhookDeliveriesDue.set(Number.NaN);
    webhookOldestDueDeliveryAgeSeconds.set(Number.NaN);
    const now = this.clock.now();
    const { count, oldestDueAt } = await this.store.dueDeliveries(now, WEBHOOK_DUE_COUNT_MAX);
    webhookDeliveriesDue.set(count);
    webhookOldestDueDeliveryAgeSeconds.set(oldestDueAt ? Math.max(0, (now.getTime() - oldestDueAt.getTime()) / 1000) : 0);
  }

  private async record(event: IntegrationEvent): Promise<boolean> {
    const { recorded, deliveries } = await this.store.recordEvent(event, this.clock.now());
    failpoint('webhooks.after-record');
    // An event no endpoint wants has nothing to send: the dispatcher sleeps on.
    if (deliveries.length > 0) this.dispatcher.recorded(deliveries);
    return recorded;
  }

  /**
   * A relay's batch: one look for the events already recorded, then the others, submitted together and
   * in order: they share the store's next statements (group commit), which keep their order.
   */
  private async recordBatch(events: readonly IntegrationEvent[]): Promise<number> {
    if (events.length > EVENTS_RECORD_BATCH_MAX) throw new RangeError(`record at most ${EVENTS_RECORD_BATCH_MAX} events at once, got ${events.length}`);
    const known = await this.store.knownEventIds(events.map((event) => event.id));
    const recorded = await Promise.all(events.filter((event) => !known.has(event.id)).map((event) => this.record(event)));
    return recorded.filter(Boolean).length;
  }

  private async createEndpoint(request: CreateWebhookEndpoint) {
    await this.checkUrl(request.url);
    const endpoint: EndpointRow = {
      id: request.endpointId,
      integratorId: request.integratorId,
      url: request.url,
      enabledEvents: request.enabledEvents,
      secret: newWebhookSecret(),
      status: 'enabled',
      disabledReason: null,
      createdAt: this.clock.now(),
    };
    await this.store.createEndpoint(endpoint);
    return toEndpointResource(endpoint, { withSecret: true });
  }

  /** The same URL rules at creation and on every update (https, no private address, SSRF). */
  private async checkUrl(url: string): Promise<void> {
    const checked = await checkEndpointUrl(url, { sandbox: this.config.sandbox });
    if (!checked.ok) throw new ServiceError('invalid_request', checked.message, 'url');
  }
}

@Module({})
export class WebhooksModule {
  static forRoot(config: WebhooksConfig): DynamicModule {
    return { module: WebhooksModule, providers: [{ provide: WEBHOOKS_CONFIG, useValue: config }, WebhooksRuntime] };
  }
}
