import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { notFound } from '@pay/contracts';
import { CatchUpSubscription, Sweeper, type EventStore } from '@pay/event-store';
import type { OffsetClock } from '@pay/kernel';
import { CLOCK, EVENT_STORE, PG_POOL, statesAfter, type MigrationSet } from '@pay/platform';
import { expectedSupplierPaymentMovements, SUPPLIER_PAYMENT_EVENT_PREFIX, type SupplierPayment } from '@pay/supplier-payments-domain';
import { BeneficiariesStore, toAdminBeneficiaryResource } from './beneficiaries.store';
import { projectSupplierPaymentEvents, SupplierPaymentViews } from './supplier-payment-projection';
import { relaySupplierPaymentEvents } from './supplier-payment-relay';
import { SupplierPaymentsService, type SupplierPaymentsConfig } from './supplier-payments.service';

export type { SupplierPaymentsConfig } from './supplier-payments.service';

export const SUPPLIER_PAYMENTS_MIGRATIONS: MigrationSet = { name: 'supplier_payments', dir: join(__dirname, '..', 'migrations') };
const SUPPLIER_PAYMENTS_CONFIG = Symbol('SupplierPaymentsConfig');

/** An approval started this long ago without an outcome is taken over by the sweep. */
const STALLED_APPROVAL_MS = 5_000;

/**
 * The supplier-payments app: beneficiaries, and the supplier payments to them behind the bus, with
 * their projection (list, sweeps), the relay of their events, and the sweeps (approval deadlines,
 * stalled approvals).
 */
@Injectable()
class SupplierPaymentsRuntime implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('supplier-payments');
  private readonly beneficiaries: BeneficiariesStore;
  private readonly service: SupplierPaymentsService;
  private readonly views: SupplierPaymentViews;
  private readonly projection: CatchUpSubscription;
  private readonly relay: CatchUpSubscription;
  private readonly sweeper: Sweeper;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    @Inject(SUPPLIER_PAYMENTS_CONFIG) config: SupplierPaymentsConfig,
  ) {
    this.beneficiaries = new BeneficiariesStore(pool);
    this.service = new SupplierPaymentsService(store, bus, clock, this.beneficiaries, config);
    this.views = new SupplierPaymentViews(pool);
    this.projection = new CatchUpSubscription({
      subscriptionId: 'supplier-payments.supplier-payment-views',
      store,
      pool,
      typePrefixes: [SUPPLIER_PAYMENT_EVENT_PREFIX],
      handle: projectSupplierPaymentEvents,
      onError: (error) => this.logger.error(`supplier payment projection: ${String(error)}`),
    });
    this.relay = new CatchUpSubscription({
      subscriptionId: 'supplier-payments.integration-events',
      store,
      pool,
      typePrefixes: [SUPPLIER_PAYMENT_EVENT_PREFIX],
      handle: (events) => relaySupplierPaymentEvents(store, bus, events),
      onError: (error) => this.logger.warn(`event relay will retry: ${String(error)}`),
    });
    this.sweeper = new Sweeper(
      {
        due: (now, limit) => this.views.dueForExpiry(now, limit),
        applyDeadline: (id) => this.service.expire(id),
        stalled: (olderThanMs, limit) => this.views.stalledApprovals(olderThanMs, limit),
        resume: (id) => this.service.finishApproval(id),
      },
      this.projection,
      clock,
      this.logger,
      { process: 'approval', stalledAfterMs: STALLED_APPROVAL_MS },
    );
  }

  async onModuleInit(): Promise<void> {
    this.handleBeneficiaries();
    const s = this.service;
    this.bus.handle('supplier-payments.create', (m) => s.create(m));
    this.bus.handle('supplier-payments.retrieve', (m) => s.retrieve(m));
    this.bus.handle('supplier-payments.cancel', (m) => s.cancel(m));
    this.bus.handle('supplier-payments.approve', (m) => s.approve(m));
    this.bus.handle('supplier-payments.reject', (m) => s.reject(m));
    // Read your writes: the list answers "does a payment exist for this invoice?" right after a create.
    this.bus.handle('supplier-payments.list', async (m) => {
      await this.projection.catchUp();
      return this.views.list(m);
    });
    this.bus.handle('supplier-payments.expected-movements', async ({ afterSeq, limit }) => {
      await this.projection.catchUp();
      const { states, nextAfterSeq } = await statesAfter<Exclude<SupplierPayment, { status: 'none' }>>(this.pool, 'sp_supplier_payment_views', afterSeq, limit);
      return { items: states.map(expectedSupplierPaymentMovements), nextAfterSeq };
    });
    this.bus.handle('supplier-payments.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      return { applied: await this.sweeper.applyDeadlines() };
    });
    await this.projection.start();
    await this.relay.start();
    // A crash may have left approvals half done: finish them before serving.
    await this.sweeper.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
    await this.relay.stop();
    await this.projection.stop();
  }

  private handleBeneficiaries(): void {
    const beneficiaries = this.beneficiaries;
    this.bus.handle('supplier-payments.beneficiaries.create', async (request) => {
      // The account first: a crash in between leaves an unused account, never a beneficiary without one.
      await this.bus.request('ledger.open-account', { owner: request.beneficiaryId, kind: 'beneficiary', currency: request.currency });
      return toAdminBeneficiaryResource(await beneficiaries.create(request, this.clock.now()));
    });
    this.bus.handle('supplier-payments.beneficiaries.revoke', async ({ beneficiaryId }) => {
      const revoked = await beneficiaries.revoke(beneficiaryId, this.clock.now());
      if (!revoked) throw notFound('beneficiary', beneficiaryId);
      return toAdminBeneficiaryResource(revoked);
    });
    this.bus.handle('supplier-payments.beneficiaries.retrieve', (ref) => this.service.retrieveBeneficiary(ref));
  }
}

@Module({})
export class SupplierPaymentsModule {
  static forRoot(config: SupplierPaymentsConfig): DynamicModule {
    return { module: SupplierPaymentsModule, providers: [{ provide: SUPPLIER_PAYMENTS_CONFIG, useValue: config }, SupplierPaymentsRuntime] };
  }
}
