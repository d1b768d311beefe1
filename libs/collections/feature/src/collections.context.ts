import { expectedCollectionMovements, type Collection } from '@pay/collections-domain';
import { AggregateRepository, recordWith, relayOf, stalledSteps, type ContextDeclaration, type ContextInfrastructure } from '@pay/event-store';
import { OVERDUE_ROUNDS_MAX } from '@pay/kernel';
import { statesAfter } from '@pay/platform';
import { collectionAggregate } from './collection-events';
import { awaitingPickup, COLLECTION_EVENT_PREFIX, COLLECTION_SWEEPS, expectedDeposits, heldByCarrier, listCollections, projectCollectionEvents, unsettledCollections } from './collection-projection';
import { CollectionSweeps, CollectionsService, type CollectionsConfig } from './collections.service';

const COLLECTION_VIEWS = 'collections.collection-views';

/**
 * The collections app: marketplace cash reconciliation (collections, deposits, settlements), with its
 * projection, its event relay and the sweep (every second, and on a clock advance before it answers)
 * that reports overdue deposits (collection.deposit_overdue, once per collection) and finishes
 * stalled settlements and cash movements. `deposit.overdue` itself is computed on read from the
 * service clock.
 */
export function collectionsContext({ store, bus, clock, pool }: ContextInfrastructure, config: CollectionsConfig): ContextDeclaration {
  const service = new CollectionsService(new AggregateRepository(store, collectionAggregate, recordWith(bus)), bus, clock, config);
  const sweeps = new CollectionSweeps(pool);
  return {
    app: 'collections',
    subscriptions: [
      { kind: 'projection', id: COLLECTION_VIEWS, typePrefixes: [COLLECTION_EVENT_PREFIX], handle: projectCollectionEvents },
      relayOf('collections.integration-events', collectionAggregate),
    ],
    sweeper: {
      tasks: {
        due: (now, limit) => sweeps.dueForOverdue(now, limit),
        applyDeadline: (id) => service.markOverdue(id),
        stalled: (olderThanMs, limit) => stalledSteps(pool, COLLECTION_SWEEPS, olderThanMs, limit),
        resume: (id) => service.finish(id),
      },
      caughtUpOn: COLLECTION_VIEWS,
      options: { process: 'ledger steps', roundsMax: OVERDUE_ROUNDS_MAX },
    },
    handlers: (caughtUp) => ({
      'collections.create': (m) => service.create(m),
      'collections.retrieve': (m) => service.retrieve(m),
      // Read your writes: a collection is listed as soon as its create has been answered.
      'collections.list': async (m) => {
        await caughtUp(COLLECTION_VIEWS);
        return listCollections(pool, m, clock.now());
      },
      'collections.unsettled': async ({ limit }) => {
        await caughtUp(COLLECTION_VIEWS);
        return unsettledCollections(pool, limit, clock.now());
      },
      'collections.carrier-queue': async ({ carrier, limit }) => {
        await caughtUp(COLLECTION_VIEWS);
        const now = clock.now();
        const [pickups, held] = await Promise.all([awaitingPickup(pool, limit, now), heldByCarrier(pool, carrier, limit, now)]);
        return { awaitingPickup: pickups, toDeposit: held };
      },
      'collections.expected-deposits': async ({ cashPoint, limit }) => {
        await caughtUp(COLLECTION_VIEWS);
        return expectedDeposits(pool, cashPoint, limit, clock.now());
      },
      'collections.expected-movements': async ({ afterSeq, limit }) => {
        await caughtUp(COLLECTION_VIEWS);
        const { states, nextAfterSeq } = await statesAfter<Exclude<Collection, { status: 'none' }>>(pool, 'collection_views', afterSeq, limit);
        return { items: states.map(expectedCollectionMovements), nextAfterSeq };
      },
      'collections.confirm-handover': (m) => service.confirmHandover(m),
      'collections.validate-deposit': (m) => service.validateDeposit(m),
      'collections.resolve-deposit': (m) => service.resolveDeposit(m),
    }),
  };
}
