import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { notFound } from '@pay/contracts';
import { CASH_PAYMENT_EVENT_PREFIX } from '@pay/cash-domain';
import { CatchUpSubscription, type EventStore } from '@pay/event-store';
import type { OffsetClock } from '@pay/kernel';
import { CLOCK, EVENT_STORE, PG_POOL, type MigrationSet } from '@pay/platform';
import { CashPointsStore } from './cash-points.store';
import { projectCashPaymentEvents } from './cash-payment-projection';
import { relayCashPaymentEvents } from './cash-payment-relay';
import { CashPaymentNumbers, CashPaymentSweeps } from './cash-payment-store';
import { CashPaymentsService, type CashConfig } from './cash-payments.service';

export type { CashConfig } from './cash-payments.service';

export const CASH_MIGRATIONS: MigrationSet = { name: 'cash', dir: join(__dirname, '..', 'migrations') };
const CASH_CONFIG = Symbol('CashConfig');

const SWEEP_INTERVAL_MS = 1_000;
const SWEEP_BATCH_MAX = 100;
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
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(PG_POOL) pool: Pool,
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
    this.bus.handle('cash.cash-payments.cancel', (m) => s.cancel(m));
    this.bus.handle('cash.cash-payments.pay', (m) => s.pay(m));
    this.bus.handle('cash.cash-payments.find-by-reference', ({ reference }) => s.findByReference(reference));
    this.bus.handle('cash.cash-payments.instructions-page', ({ cashPaymentId }) => s.instructionsPage(cashPaymentId));
    this.bus.handle('cash.cash-payments.qr-code', ({ cashPaymentId }) => s.qrCode(cashPaymentId));
    this.bus.handle('cash.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      await this.projection.catchUp();
      const applied = await this.serialized(() => this.expireDue());
      return { applied };
    });
    await this.projection.start();
    await this.relay.start();
    // A crash may have left validations half done: finish them before serving.
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
      await this.recoverStalled(STALLED_VALIDATION_MS);
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
      for (const cashPaymentId of due) if (await this.service.expire(cashPaymentId)) applied += 1;
      if (due.length < SWEEP_BATCH_MAX) return applied;
      await this.projection.catchUp();
    }
  }

  private async recoverStalled(olderThanMs: number): Promise<void> {
    for (const cashPaymentId of await this.sweeps.stalledValidations(olderThanMs, SWEEP_BATCH_MAX)) {
      try {
        const state = await this.service.finishValidation(cashPaymentId);
        this.logger.log(`validation of ${cashPaymentId} resumed: ${state.status}`);
      } catch (error) {
        this.logger.warn(`validation of ${cashPaymentId} not finished yet: ${String(error)}`);
      }
    }
  }
}

@Module({})
export class CashModule {
  static forRoot(config: CashConfig): DynamicModule {
    return { module: CashModule, providers: [{ provide: CASH_CONFIG, useValue: config }, CashRuntime] };
  }
}
