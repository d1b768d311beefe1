import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { CatchUpSubscription, Sweeper, type EventStore } from '@pay/event-store';
import type { OffsetClock } from '@pay/kernel';
import { CLOCK, EVENT_STORE, PG_POOL, statesAfter, type MigrationSet } from '@pay/platform';
import { expectedPaymentMovements, expectedRefundMovements, type Payment, type Refund } from '@pay/payments-domain';
import { listPayments, PAYMENT_EVENT_PREFIX, projectPaymentEvents } from './payment-projection';
import { relayPaymentEvents } from './payment-relay';
import { PaymentSweeps, PaymentsService, type PaymentsConfig } from './payments.service';
import { listRefunds, projectRefundEvents, REFUND_EVENT_PREFIX } from './refund-projection';
import { RefundsService, relayRefundEvents } from './refunds.service';

export const PAYMENTS_MIGRATIONS: MigrationSet = { name: 'payments', dir: join(__dirname, '..', 'migrations') };
const PAYMENTS_CONFIG = Symbol('PaymentsConfig');

/** An authorization or a refund started this long ago without an outcome is taken over by the sweep. */
const STALLED_AUTHORIZATION_MS = 5_000;

/** Wires the payments app to the bus, its projection and its sweeps (deadlines, stalled authorizations). */
@Injectable()
class PaymentsRuntime implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('payments');
  private readonly service: PaymentsService;
  private readonly sweeps: PaymentSweeps;
  private readonly projection: CatchUpSubscription;
  private readonly relay: CatchUpSubscription;
  private readonly refunds: RefundsService;
  private readonly refundProjection: CatchUpSubscription;
  private readonly refundRelay: CatchUpSubscription;
  private readonly sweeper: Sweeper;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    @Inject(PG_POOL) private readonly pool: Pool,
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
    this.refunds = new RefundsService(store, bus, clock, config.ledgerTimeoutMs);
    this.refundProjection = new CatchUpSubscription({
      subscriptionId: 'payments.refund-views',
      store,
      pool,
      typePrefixes: [REFUND_EVENT_PREFIX],
      handle: projectRefundEvents,
      onError: (error) => this.logger.error(`refund projection: ${String(error)}`),
    });
    this.refundRelay = new CatchUpSubscription({
      subscriptionId: 'payments.refund-events',
      store,
      pool,
      typePrefixes: [REFUND_EVENT_PREFIX],
      handle: (events) => relayRefundEvents(store, bus, events),
      onError: (error) => this.logger.warn(`refund event relay will retry: ${String(error)}`),
    });
    this.sweeper = new Sweeper(
      {
        due: (now, limit) => this.sweeps.dueForExpiry(now, limit),
        applyDeadline: (id) => this.service.expire(id),
        // A payment's authorization, or its refunds reserved and not settled.
        stalled: (olderThanMs, limit) => this.sweeps.stalled(olderThanMs, limit),
        resume: async (id) => {
          const payment = await this.service.finishAuthorization(id);
          await this.refunds.finishPending(id);
          return payment;
        },
      },
      this.projection,
      clock,
      this.logger,
      { process: 'authorization', stalledAfterMs: STALLED_AUTHORIZATION_MS },
    );
  }

  async onModuleInit(): Promise<void> {
    const s = this.service;
    this.bus.handle('payments.create', (m) => s.create(m));
    this.bus.handle('payments.retrieve', (m) => s.retrieve(m));
    this.bus.handle('payments.cancel', (m) => s.cancel(m));
    this.bus.handle('payments.decline', (m) => s.decline(m));
    this.bus.handle('payments.authorize', (m) => s.authorize(m));
    // Read your writes: a payment is listed as soon as its create has been answered.
    this.bus.handle('payments.list', async (m) => {
      await this.projection.catchUp();
      return listPayments(this.pool, m);
    });
    this.bus.handle('payments.refunds.create', (m) => this.refunds.create(m));
    this.bus.handle('payments.refunds.retrieve', ({ integratorId, id }) => this.refunds.retrieve(integratorId, id));
    this.bus.handle('payments.refunds.list', async (m) => {
      await this.refundProjection.catchUp();
      return listRefunds(this.pool, m);
    });
    // Reconciliation: what each payment's and each refund's history says moved.
    this.bus.handle('payments.expected-movements', async ({ afterSeq, limit }) => {
      await this.projection.catchUp();
      await this.refundProjection.catchUp();
      const payments = await statesAfter<Exclude<Payment, { status: 'none' }>>(this.pool, 'payment_views', afterSeq, limit);
      const refundIds = payments.states.flatMap((p) => (p.status === 'succeeded' ? [p.terms.paymentId] : []));
      const { rows } = await this.pool.query<{ state: Exclude<Refund, { status: 'none' }> }>('SELECT state FROM refund_views WHERE payment = ANY ($1::text[])', [refundIds]);
      return { items: [...payments.states.map(expectedPaymentMovements), ...rows.map((r) => expectedRefundMovements(r.state))], nextAfterSeq: payments.nextAfterSeq };
    });
    this.bus.handle('payments.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      return { applied: await this.sweeper.applyDeadlines() };
    });
    await this.projection.start();
    await this.relay.start();
    await this.refundProjection.start();
    await this.refundRelay.start();
    // A crash may have left authorizations or refunds half done: finish them before serving.
    await this.sweeper.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
    await this.refundRelay.stop();
    await this.refundProjection.stop();
    await this.relay.stop();
    await this.projection.stop();
  }
}

@Module({})
export class PaymentsModule {
  static forRoot(config: PaymentsConfig): DynamicModule {
    return { module: PaymentsModule, providers: [{ provide: PAYMENTS_CONFIG, useValue: config }, PaymentsRuntime] };
  }
}
