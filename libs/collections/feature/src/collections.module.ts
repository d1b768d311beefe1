import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { CatchUpSubscription, type EventStore } from '@pay/event-store';
import type { OffsetClock } from '@pay/kernel';
import { CLOCK, EVENT_STORE, PG_POOL, type MigrationSet } from '@pay/platform';
import { COLLECTION_EVENT_PREFIX, projectCollectionEvents } from './collection-projection';
import { relayCollectionEvents } from './collection-relay';
import { CollectionSweeps, CollectionsService, type CollectionsConfig } from './collections.service';

/** The collections app's schemas: its read model (collection_views). */
export const COLLECTIONS_MIGRATIONS: readonly MigrationSet[] = [{ name: 'collections', dir: join(__dirname, '..', 'migrations') }];

const COLLECTIONS_CONFIG = Symbol('CollectionsConfig');

const SWEEP_INTERVAL_MS = 1_000;
const SWEEP_BATCH_MAX = 100;
/** A settlement or cash movement decided this long ago without an outcome is taken over by the sweep. */
const STALLED_SETTLEMENT_MS = 5_000;
/** Batches of overdue deposits one sweep reports at most (the next sweep takes the rest). */
const OVERDUE_ROUNDS_MAX = 10;

/**
 * The collections app: marketplace cash reconciliation (collections, deposits, settlements), wired to
 * the bus, its projection, its event relay and the sweep (every second, and on a clock advance before
 * it answers) that reports overdue deposits (collection.deposit_overdue, once per collection) and
 * finishes stalled settlements and cash movements. `deposit.overdue` itself is computed on read from
 * the service clock.
 */
@Injectable()
class CollectionsRuntime implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('collections');
  private readonly service: CollectionsService;
  private readonly sweeps: CollectionSweeps;
  private readonly projection: CatchUpSubscription;
  private readonly relay: CatchUpSubscription;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    @Inject(PG_POOL) pool: Pool,
    @Inject(COLLECTIONS_CONFIG) config: CollectionsConfig,
  ) {
    this.service = new CollectionsService(store, bus, clock, config);
    this.sweeps = new CollectionSweeps(pool);
    this.projection = new CatchUpSubscription({
      subscriptionId: 'collections.collection-views',
      store,
      pool,
      typePrefixes: [COLLECTION_EVENT_PREFIX],
      handle: projectCollectionEvents,
      onError: (error) => this.logger.error(`collection projection: ${String(error)}`),
    });
    this.relay = new CatchUpSubscription({
      subscriptionId: 'collections.integration-events',
      store,
      pool,
      typePrefixes: [COLLECTION_EVENT_PREFIX],
      handle: (events) => relayCollectionEvents(store, bus, events),
      onError: (error) => this.logger.warn(`event relay will retry: ${String(error)}`),
    });
  }

  async onModuleInit(): Promise<void> {
    const s = this.service;
    this.bus.handle('collections.create', (m) => s.create(m));
    this.bus.handle('collections.retrieve', (m) => s.retrieve(m));
    this.bus.handle('collections.confirm-handover', (m) => s.confirmHandover(m));
    this.bus.handle('collections.validate-deposit', (m) => s.validateDeposit(m));
    this.bus.handle('collections.resolve-deposit', (m) => s.resolveDeposit(m));
    this.bus.handle('collections.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      await this.projection.catchUp();
      const applied = await this.serialized(() => this.reportOverdue());
      return { applied };
    });
    await this.projection.start();
    await this.relay.start();
    // A crash may have left settlements or cash movements half done: finish them before serving.
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

  /** One sweep at a time. */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.sweeping.then(work, work);
    this.sweeping = run.catch(() => undefined);
    return run;
  }

  private async sweep(): Promise<void> {
    try {
      await this.reportOverdue();
    } catch (error) {
      this.logger.error(`overdue sweep failed: ${String(error)}`);
    }
    await this.recoverStalled(STALLED_SETTLEMENT_MS);
  }

  /** Reports every deposit past due_at on the service clock as overdue, once each; answers how many. */
  private async reportOverdue(): Promise<number> {
    let applied = 0;
    for (let round = 0; round < OVERDUE_ROUNDS_MAX; round++) {
      const due = await this.sweeps.dueForOverdue(this.clock.now(), SWEEP_BATCH_MAX);
      for (const collectionId of due) if (await this.service.markOverdue(collectionId)) applied += 1;
      if (due.length < SWEEP_BATCH_MAX) break;
      await this.projection.catchUp();
    }
    return applied;
  }

  private async recoverStalled(olderThanMs: number): Promise<void> {
    let stalled: string[];
    try {
      stalled = await this.sweeps.unfinished(olderThanMs, SWEEP_BATCH_MAX);
    } catch (error) {
      this.logger.error(`sweep failed: ${String(error)}`);
      return;
    }
    for (const collectionId of stalled) {
      try {
        const state = await this.service.finish(collectionId);
        this.logger.log(`ledger steps of ${collectionId} resumed: ${state.status}`);
      } catch (error) {
        this.logger.warn(`ledger steps of ${collectionId} not finished yet: ${String(error)}`);
      }
    }
  }
}

@Module({})
export class CollectionsModule {
  static forRoot(config: CollectionsConfig): DynamicModule {
    return { module: CollectionsModule, providers: [{ provide: COLLECTIONS_CONFIG, useValue: config }, CollectionsRuntime] };
  }
}
