import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { notFound, ServiceError, type CreateWebhookEndpoint, type IntegrationEvent } from '@pay/contracts';
import { failpoint, type OffsetClock } from '@pay/kernel';
import { CLOCK, PG_POOL, type MigrationSet } from '@pay/platform';
import { checkEndpointUrl, newWebhookSecret } from './delivery';
import { DISPATCHER_DEFAULTS, WebhookDispatcher } from './webhook-dispatcher';
import { toEndpointResource, WebhooksStore } from './webhooks.store';

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

  constructor(
    @Inject(PG_POOL) pool: Pool,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
  ) {
    this.store = new WebhooksStore(pool);
    this.dispatcher = new WebhookDispatcher(this.store, clock, { ...DISPATCHER_DEFAULTS, sandbox: config.sandbox });
  }

  onModuleInit(): void {
    const store = this.store;
    this.bus.handle('events.record', async (event) => ({ recorded: await this.record(event) }));
    this.bus.handle('webhooks.endpoints.create', (request) => this.createEndpoint(request));
    this.bus.handle('webhooks.endpoints.list', ({ integratorId, limit, startingAfter }) => store.listEndpoints(integratorId, limit, startingAfter));
    this.bus.handle('webhooks.endpoints.retrieve', async ({ integratorId, id }) => {
      const endpoint = await store.findEndpoint(integratorId, id);
      if (!endpoint) throw notFound('webhook endpoint', id);
      return toEndpointResource(endpoint);
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
    this.bus.handle('webhooks.events.redeliver', async ({ integratorId, id }) => {
      const event = await store.findEvent(integratorId, id);
      if (!event) throw notFound('event', id);
      await store.redeliver(integratorId, id, this.clock.now());
      this.dispatcher.wake();
      return event;
    });
    this.bus.handle('webhooks.events.deliveries', async ({ integratorId, id }) => {
      if (!(await store.findEvent(integratorId, id))) throw notFound('event', id);
      return store.deliveriesOf(integratorId, id);
    });
    this.bus.handle('webhooks.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      return { applied: await this.dispatcher.drainDue() };
    });
    this.dispatcher.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.stop();
  }

  private async record(event: IntegrationEvent): Promise<boolean> {
    const recorded = await this.store.recordEvent(event, this.clock.now());
    failpoint('webhooks.after-record');
    if (recorded) this.dispatcher.wake();
    return recorded;
  }

  private async createEndpoint(request: CreateWebhookEndpoint) {
    const checked = await checkEndpointUrl(request.url, { sandbox: this.config.sandbox });
    if (!checked.ok) throw new ServiceError('invalid_request', checked.message, 'url');
    const endpoint = {
      id: request.endpointId,
      integratorId: request.integratorId,
      url: request.url,
      enabledEvents: request.enabledEvents,
      secret: newWebhookSecret(),
      createdAt: this.clock.now(),
    };
    await this.store.createEndpoint(endpoint);
    return toEndpointResource(endpoint);
  }
}

@Module({})
export class WebhooksModule {
  static forRoot(config: WebhooksConfig): DynamicModule {
    return { module: WebhooksModule, providers: [{ provide: WEBHOOKS_CONFIG, useValue: config }, WebhooksRuntime] };
  }
}
