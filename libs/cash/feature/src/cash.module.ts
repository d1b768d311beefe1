import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { notFound } from '@pay/contracts';
import { CASH_PAYMENT_EVENT_PREFIX, expectedCashPaymentMovements, type CashPayment } from '@pay/cash-domain';
import { CatchUpSubscription, Sweeper, type EventStore } from '@pay/event-store';
import type { OffsetClock } from '@pay/kernel';
import { CLOCK, EVENT_STORE, PG_POOL, statesAfter, type MigrationSet } from '@pay/platform';
import { CashPointsStore } from './cash-points.store';
import { listCashPayments, projectCashPaymentEvents } from './cash-payment-projection';
import { relayCashPaymentEvents } from './cash-payment-relay';
import { CashPaymentNumbers, CashPaymentSweeps } from './cash-payment-store';
import { CashPaymentsService, type CashConfig } from './cash-payments.service';

export type { CashConfig } from './cash-payments.service';

export const CASH_MIGRATIONS: MigrationSet = { name: 'cash', dir: join(__dirname, '..', 'migrations') };
const CASH_CONFIG = Symbol('CashConfig');

/** A validation started this long ago without an outcome is taken over by the sweep. */
const STALLED_VALIDATION_MS = 5_000;

/** The cash app: cash points and cash payments, their projection, relay and sweeps (deadlines, stalled validations). */
@Injectable()
class CashRuntime implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('cash');
  private readonly cashPoints: CashPointsStore;
  private readonly service: CashPaymentsService;
  private readonly sweeps: CashPaymentSweeps;
  private readonly projection: CatchUpSubscription;
  private readonly relay: CatchUpSubscription;
  private readonly sweeper: Sweeper;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    @Inject(CASH_CONFIG) config: CashConfig,
  ) {
    this.cashPoints = new CashPointsStore(pool);
    this.service = new CashPaymentsService(store, bus, clock, new CashPaymentNumbers(pool), this.cashPoints, config);
    this.sweeps = new CashPaymentSweeps(pool);
    this.projection = new CatchUpSubscription({
      subscriptionId: 'cash.cash-payment-views',
      store,
      pool,
      typePrefixes: [CASH_PAYMENT_EVENT_PREFIX],
      handle: projectCashPaymentEvents,
      onError: (error) => this.logger.error(`cash payment projection: ${String(error)}`),
    });
    this.relay = new CatchUpSubscription({
      subscriptionId: 'cash.integration-events',
      store,
      pool,
      typePrefixes: [CASH_PAYMENT_EVENT_PREFIX],
      handle: (events) => relayCashPaymentEvents(store, bus, events),
      onError: (error) => this.logger.warn(`event relay will retry: ${String(error)}`),
    });
    this.sweeper = new Sweeper(
      {
        due: (now, limit) => this.sweeps.dueForExpiry(now, limit),
        applyDeadline: (id) => this.service.expire(id),
        stalled: (olderThanMs, limit) => this.sweeps.stalledValidations(olderThanMs, limit),
        resume: (id) => this.service.finishValidation(id),
      },
      this.projection,
      clock,
      this.logger,
      { process: 'validation', stalledAfterMs: STALLED_VALIDATION_MS },
    );
  }

  async onModuleInit(): Promise<void> {
    const { cashPoints, service: s } = this;
    this.bus.handle('cash.cash-points.create', (request) => cashPoints.create(request, this.clock.now()));
    this.bus.handle('cash.cash-points.list', ({ limit }) => cashPoints.list(limit));
    this.bus.handle('cash.cash-points.retrieve', async ({ cashPointId }) => {
      const point = await cashPoints.find(cashPointId);
      if (!point) throw notFound('cash point', cashPointId);
      return point;
    });
    this.bus.handle('cash.cash-payments.create', (m) => s.create(m));
    this.bus.handle('cash.cash-payments.retrieve', (m) => s.retrieve(m));
    // Read your writes: a cash payment is listed as soon as its create has been answered.
    this.bus.handle('cash.list', async (m) => {
      await this.projection.catchUp();
      return listCashPayments(this.pool, m);
    });
    this.bus.handle('cash.expected-movements', async ({ afterSeq, limit }) => {
      await this.projection.catchUp();
      const { states, nextAfterSeq } = await statesAfter<Exclude<CashPayment, { status: 'none' }>>(this.pool, 'cash_payment_views', afterSeq, limit);
      return { items: states.map(expectedCashPaymentMovements), nextAfterSeq };
    });
    this.bus.handle('cash.cash-payments.cancel', (m) => s.cancel(m));
    this.bus.handle('cash.cash-payments.pay', (m) => s.pay(m));
    this.bus.handle('cash.cash-payments.find-by-reference', ({ reference }) => s.findByReference(reference));
    this.bus.handle('cash.cash-payments.instructions-page', ({ cashPaymentId, page }) => s.instructionsPage(cashPaymentId, page));
    this.bus.handle('cash.cash-payments.qr-code', ({ cashPaymentId }) => s.qrCode(cashPaymentId));
    this.bus.handle('cash.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      return { applied: await this.sweeper.applyDeadlines() };
    });
    await this.projection.start();
    await this.relay.start();
    // A crash may have left validations half done: finish them before serving.
    await this.sweeper.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
    await this.relay.stop();
    await this.projection.stop();
  }
}

@Module({})
export class CashModule {
  static forRoot(config: CashConfig): DynamicModule {
    return { module: CashModule, providers: [{ provide: CASH_CONFIG, useValue: config }, CashRuntime] };
  }
}
