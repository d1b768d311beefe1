import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { MESSAGE_BUS, type MessageBus } from '@pay/bus';
import { CatchUpSubscription, Sweeper, type EventStore } from '@pay/event-store';
import type { OffsetClock } from '@pay/kernel';
import { expectedCollectionMovements, type Collection } from '@pay/collections-domain';
import { CLOCK, EVENT_STORE, PG_POOL, statesAfter, type MigrationSet } from '@pay/platform';
import { COLLECTION_EVENT_PREFIX, listCollections, projectCollectionEvents, unsettledCollections } from './collection-projection';
import { relayCollectionEvents } from './collection-relay';
import { CollectionSweeps, CollectionsService, type CollectionsConfig } from './collections.service';

/** The collections app's schemas: its read model (collection_views). */
export const COLLECTIONS_MIGRATIONS: readonly MigrationSet[] = [{ name: 'collections', dir: join(__dirname, '..', 'migrations') }];

const COLLECTIONS_CONFIG = Symbol('CollectionsConfig');

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
  private readonly sweeper: Sweeper;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: OffsetClock,
    @Inject(PG_POOL) private readonly pool: Pool,
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
    this.sweeper = new Sweeper(
      {
        due: (now, limit) => this.sweeps.dueForOverdue(now, limit),
        applyDeadline: (id) => this.service.markOverdue(id),
        stalled: (olderThanMs, limit) => this.sweeps.unfinished(olderThanMs, limit),
        resume: (id) => this.service.finish(id),
      },
      this.projection,
      clock,
      this.logger,
      { process: 'ledger steps', stalledAfterMs: STALLED_SETTLEMENT_MS, roundsMax: OVERDUE_ROUNDS_MAX },
    );
  }

  async onModuleInit(): Promise<void> {
    const s = this.service;
    this.bus.handle('collections.create', (m) => s.create(m));
    this.bus.handle('collections.retrieve', (m) => s.retrieve(m));
    // Read your writes: a collection is listed as soon as its create has been answered.
    this.bus.handle('collections.list', async (m) => {
      await this.projection.catchUp();
      return listCollections(this.pool, m, this.clock.now());
    });
    this.bus.handle('collections.unsettled', async ({ limit }) => {
      await this.projection.catchUp();
      return unsettledCollections(this.pool, limit, this.clock.now());
    });
    this.bus.handle('collections.expected-movements', async ({ afterSeq, limit }) => {
      await this.projection.catchUp();
      const { states, nextAfterSeq } = await statesAfter<Exclude<Collection, { status: 'none' }>>(this.pool, 'collection_views', afterSeq, limit);
      return { items: states.map(expectedCollectionMovements), nextAfterSeq };
    });
    this.bus.handle('collections.confirm-handover', (m) => s.confirmHandover(m));
    this.bus.handle('collections.validate-deposit', (m) => s.validateDeposit(m));
    this.bus.handle('collections.resolve-deposit', (m) => s.resolveDeposit(m));
    this.bus.handle('collections.apply-deadlines', async ({ clockOffsetMs }) => {
      this.clock.observeOffset(clockOffsetMs);
      return { applied: await this.sweeper.applyDeadlines() };
    });
    await this.projection.start();
    await this.relay.start();
    // A crash may have left settlements or cash movements half done: finish them before serving.
    await this.sweeper.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
    await this.relay.stop();
    await this.projection.stop();
  }
}

@Module({})
export class CollectionsModule {
  static forRoot(config: CollectionsConfig): DynamicModule {
    return { module: CollectionsModule, providers: [{ provide: COLLECTIONS_CONFIG, useValue: config }, CollectionsRuntime] };
  }
}
