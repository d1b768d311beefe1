import type { Pool } from 'pg';
import { collectionDecider, toCollectionResource, type Collection, type CollectionEvent } from '@pay/collections-domain';
import type { CollectionResource, ListObjects, ListResource } from '@pay/contracts';
import { eachRow, projectForward, type SweptView } from '@pay/event-store';
import { listPage } from '@pay/platform';

type Existing = Exclude<Collection, { status: 'none' }>;

export const COLLECTION_EVENT_PREFIX = 'Collection';

/**
 * Projects collection events into collection_views, in the subscription's transaction (with its
 * checkpoint). A row only moves forward: an event older than the row's revision is ignored.
 */
export const projectCollectionEvents = projectForward<CollectionEvent, Collection, 'CollectionCreated'>({
  name: 'collection',
  table: 'collection_views',
  idColumn: 'collection_id',
  decider: collectionDecider,
  idOf: (event) => event.collectionId,
  createdBy: 'CollectionCreated',
  insert: eachRow(async (tx, { event, state, revision }) => {
    await tx.query({
      name: 'collection-view-insert',
      text: `INSERT INTO collection_views (collection_id, integrator_id, status, order_reference, created_at, state, revision, updated_at)
             VALUES ($1, $2, 'awaiting_collection', $3, $4, $5, $6, now()) ON CONFLICT (collection_id) DO NOTHING`,
      values: [event.collectionId, event.integratorId, event.orderReference, event.createdAt, JSON.stringify(state), revision],
    });
  }),
  update: eachRow(async (tx, { event, state, revision }) => {
    const { status, settling, movements, overdue } = summary(event);
    await tx.query({
      name: 'collection-view-update',
      text: `UPDATE collection_views SET status = COALESCE($2, status), settling = COALESCE($3, settling), pending_movements = pending_movements + $4,
               overdue_notified = overdue_notified OR $5, due_at = COALESCE($6, due_at), state = $8, revision = $7, updated_at = now()
             WHERE collection_id = $1 AND revision < $7`,
      values: [event.collectionId, status, settling, movements, overdue, event.type === 'CollectionCollected' ? event.dueAt : null, revision, JSON.stringify(state)],
    });
  }),
});

/** The stalled sweep's rows: settlements or cash movements decided and not recorded. */
export const COLLECTION_SWEEPS: SweptView = {
  table: 'collection_views',
  idColumn: 'collection_id',
  stepPending: 'settling OR pending_movements > 0',
};

type Status = Exclude<Collection['status'], 'none'>;

interface Change {
  /** The status after the event; null: unchanged. */
  status: Status | null;
  /** Whether a settlement is under way; null: unchanged. */
  settling: boolean | null;
  /** How many cash movements the event adds to (or, recorded, removes from) the pending ones. */
  movements: number;
  overdue: boolean;
}

const summary = (event: Exclude<CollectionEvent, { type: 'CollectionCreated' }>): Change => {
  const unchanged: Change = { status: null, settling: null, movements: 0, overdue: false };
  switch (event.type) {
    case 'CollectionCollected':
      return { ...unchanged, status: 'collected_awaiting_deposit', settling: false, movements: 1 };
    case 'CollectionDepositUnderReview':
      return { ...unchanged, status: 'deposit_under_review', settling: false, movements: event.movement ? 1 : 0 };
    case 'CollectionSettlementStarted':
      return { ...unchanged, settling: true, movements: event.movements.length };
    case 'CollectionCashMoved':
      return { ...unchanged, movements: -1 };
    case 'CollectionDepositOverdue':
      return { ...unchanged, overdue: true };
    case 'CollectionSettled':
      return { ...unchanged, status: 'settled', settling: false };
    default: {
      const unknown: never = event;
      throw new Error(`unknown collection event ${JSON.stringify(unknown)}`);
    }
  }
};

/** The integrator's collections, newest first, from the projection (the caller catches it up first). */
export async function listCollections(pool: Pool, query: ListObjects<'order_reference' | 'status'>, now: Date): Promise<ListResource<CollectionResource>> {
  const { filters } = query;
  const { states, hasMore } = await listPage<Existing>(pool, {
    ...query,
    table: 'collection_views',
    idColumn: 'collection_id',
    equals: { order_reference: filters.order_reference },
    changing: { status: filters.status },
  });
  return { object: 'list', data: states.map((state) => toCollectionResource(state, now)), has_more: hasMore };
}

/** Collections whose cash is collected and not yet settled (finance's cash in transit), oldest first. */
export const unsettledCollections = (pool: Pool, limit: number, now: Date): Promise<CollectionResource[]> =>
  selectViews(pool, now, 'collection-views-unsettled', `status IN ('collected_awaiting_deposit', 'deposit_under_review') ORDER BY seq LIMIT $1`, [limit]);

/** Collections nobody has picked up yet, oldest first: the carriers' pickups (collections carry no assigned carrier). */
export const awaitingPickup = (pool: Pool, limit: number, now: Date): Promise<CollectionResource[]> =>
  selectViews(pool, now, 'collection-views-awaiting-pickup', `status = 'awaiting_collection' ORDER BY seq LIMIT $1`, [limit]);

/** The collections this carrier picked up and has not deposited yet, the most urgent first. */
export const heldByCarrier = (pool: Pool, carrier: string, limit: number, now: Date): Promise<CollectionResource[]> =>
  selectViews(pool, now, 'collection-views-held-by-carrier', `${AWAITING_DEPOSIT} AND state->'deposit'->>'carrier' = $1 ${MOST_URGENT_FIRST}`, [carrier, limit]);

/** The deposits a cash point expects (collected, not yet deposited), the most urgent first. */
export const expectedDeposits = (pool: Pool, cashPoint: string, limit: number, now: Date): Promise<CollectionResource[]> =>
  selectViews(pool, now, 'collection-views-expected-deposits', `${AWAITING_DEPOSIT} AND state->'deposit'->>'cashPoint' = $1 ${MOST_URGENT_FIRST}`, [cashPoint, limit]);

const AWAITING_DEPOSIT = `status = 'collected_awaiting_deposit'`;
const MOST_URGENT_FIRST = 'ORDER BY due_at, seq LIMIT $2';

/** The collections a prepared statement (`name`) selects from the projection, as the API shows them. */
async function selectViews(pool: Pool, now: Date, name: string, where: string, values: unknown[]): Promise<CollectionResource[]> {
  const { rows } = await pool.query<{ state: Existing }>({ name, text: `SELECT state FROM collection_views WHERE ${where}`, values });
  return rows.map((row) => toCollectionResource(row.state, now));
}
