import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { CatchUpSubscription, type EventStore } from '@pay/event-store';
import type { OffsetClock } from '@pay/kernel';
import { CLOCK, EVENT_STORE, PG_POOL, type MigrationSet } from '@pay/platform';
import { PAYMENT_EVENT_PREFIX, projectPaymentEvents } from './payment-projection';
import { relayPaymentEvents } from './payment-relay';
import { PaymentSweeps, PaymentsService, type PaymentsConfig } from './payments.service';

export const PAYMENTS_MIGRATIONS: MigrationSet = { name: 'payments', dir: join(__dirname, '..', 'migrations') };
const PAYMENTS_CONFIG = Symbol('PaymentsConfig');

const SWEEP_INTERVAL_MS = 1_000;
const SWEEP_BATCH_MAX = 100;
/** An authorization started this long ago without an outcome is taken over by the sweep. */
const STALLED_AUTHORIZATION_MS = 5_000;

/** Wires the payments app to the bus, its projection and its sweeps (deadlines, stalled authorizations). */
@Injectable()
class PaymentsRuntime implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('payments');
  private readonly service: PaymentsService;
  private readonly sweeps: PaymentSweeps;
  private readonly projection: CatchUpSubscription;
  private readonly relay: CatchUpSubscription;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    @Inject(PG_POOL) pool: Pool,
    @Inject(PAYMENTS_CONFIG) config: PaymentsConfig,
  ) {
    this.service = new PaymentsService(store, bus, clock, config);
    this.sweeps = new PaymentSweeps(pool);
    this.projection = new CatchUpSubscription({
      subscriptionId: 'payments.payment-views',
      store,
      pool,
      typePrefixes: [PAYMENT_EVENT_PREFIX],
      handle: projectPaymentEvents,
      onError: (error) => this.logger.error(`payment projection: ${String(error)}`),
    });
    this.relay = new CatchUpSubscription({
      subscriptionId: 'payments.integration-events',
      store,
      pool,
      typePrefixes: [PAYMENT_EVENT_PREFIX],
      handle: (events) => relayPaymentEvents(store, bus, events),
      onError: (error) => this.logger.warn(`event relay will retry: ${String(error)}`),
    });
  }

  async onModuleInit(): Promise<void> {
    const s = this.service;
    this.bus.handle('payments.create', (m) => s.create(m));
    this.bus.handle('payments.retrieve', (m) => s.retrieve(m));
    this.bus.handle('payments.cancel', (m) => s.cancel(m));
    this.bus.handle('payments.decline', (m) => s.decline(m));
    this.bus.handle('payments.authorize', (m) => s.authorize(m));
    this.bus.handle('payments.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      await this.projection.catchUp();
      const applied = await this.serialized(() => this.expireDue());
      return { applied };
    });
    await this.projection.start();
    await this.relay.start();
    // A crash may have left authorizations half done: finish them before serving.
    await this.projection.catchUp();
    await this.recoverStalled(0);
    this.timer = setInterval(() => void this.serialized(() => this.sweep()), SWEEP_INTERVAL_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
    await this.relay.stop();
    await this.projection.stop();
  }

  private async sweep(): Promise<void> {
    try {
      await this.expireDue();
      await this.recoverStalled(STALLED_AUTHORIZATION_MS);
    } catch (error) {
      this.logger.error(`sweep failed: ${String(error)}`);
    }
  }

  /** One sweep at a time: the timer and a clock advance never run the same work concurrently. */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.sweeping.then(work, work);
    this.sweeping = run.catch(() => undefined);
    return run;
  }

  private async expireDue(): Promise<number> {
    let applied = 0;
    for (;;) {
      const due = await this.sweeps.dueForExpiry(this.clock.now(), SWEEP_BATCH_MAX);
      for (const paymentId of due) if (await this.service.expire(paymentId)) applied += 1;
      if (due.length < SWEEP_BATCH_MAX) return applied;
      await this.projection.catchUp();
    }
  }

  private async recoverStalled(olderThanMs: number): Promise<void> {
    for (const paymentId of await this.sweeps.stalledAuthorizations(olderThanMs, SWEEP_BATCH_MAX)) {
      try {
        const state = await this.service.finishAuthorization(paymentId);
        this.logger.log(`authorization of ${paymentId} resumed: ${state.status}`);
      } catch (error) {
        this.logger.warn(`authorization of ${paymentId} not finished yet: ${String(error)}`);
      }
    }
  }
}

@Module({})
export class PaymentsModule {
  static forRoot(config: PaymentsConfig): DynamicModule {
    return { module: PaymentsModule, providers: [{ provide: PAYMENTS_CONFIG, useValue: config }, PaymentsRuntime] };
  }
}
