import type { Pool, PoolClient, QueryResult } from 'pg';
import type {
  EndpointDeliveryResource,
  EventResource,
  IntegrationEvent,
  ListEndpointDeliveries,
  ListEventDeliveries,
  ListObjects,
  ListResource,
  WebhookEndpointResource,
  WebhookEndpointStatus,
} from '@pay/contracts';
import { ServiceError } from '@pay/contracts';
import {
  EVENTS_RECORD_GROUP_MAX,
  EVENTS_RECORD_QUEUE_LENGTH_MAX,
  FAILING_ENDPOINT_DISABLED_AFTER_MS,
  ID_PREFIXES,
  ID_RANDOM_LENGTH,
  newId,
  randomBase62,
  PREVIOUS_SECRET_TTL_MS,
  SECRET_ROTATION_INTERVAL_MIN_MS,
  WEBHOOK_ENDPOINTS_PER_INTEGRATOR_MAX,
  WEBHOOK_REDELIVERIES_PER_INTEGRATOR_MAX,
  WEBHOOK_REDELIVERY_WINDOW_MS,
} from '@pay/kernel';
import { columns, GroupCommit, inTransaction, jsonElement, listPage, textElements, type Waiting } from '@pay/platform';
import { notInList, toPage } from './pagination';

export interface EndpointRow {
  id: string;
  integratorId: string;
  url: string;
  enabledEvents: string[];
  secret: string;
  status: WebhookEndpointStatus;
  disabledReason: string | null;
  createdAt: Date;
}

export const FAILING_FOR_5_DAYS = 'failing_for_5_days';

/** A delivery claimed for one attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  url: string;
  /** The endpoint's secret, and its previous one during the 24 hours after a rotation. */
  secrets: string[];
  body: string;
  attempts: number;
}

/** What a claim took, and the endpoints whose due deliveries it left (see claimDue). */
export interface Claim {
  deliveries: ClaimedDelivery[];
  dueLeft: string[];
}

export interface AttemptRecord {
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** Where the delivery goes after an attempt: done, failed for good, or due again at a time. */
export type AfterAttempt = { status: 'succeeded' } | { status: 'failed' } | { status: 'pending'; nextAttemptAt: Date };

/** An attempt made, for recordAttempts: the delivery, the attempt, where the delivery goes next, and the service clock after it. */
export interface FinishedAttempt {
  deliveryId: string;
  endpointId: string;
  attempt: AttemptRecord;
  next: AfterAttempt;
  now: Date;
}

/** Whether endpoint `e` gets an event of `type` from `integrator` (SQL expressions): one of the integrator's live endpoints that wants the type. */
const endpointWants = (integrator: string, type: string): string =>
  `e.integrator_id = ${integrator} AND e.deleted_at IS NULL AND e.status = 'enabled' AND ('*' = ANY (e.enabled_events) OR ${type} = ANY (e.enabled_events))`;

/** A delivery's (`d`) attempts, oldest first, as a JSON array. */
const ATTEMPT_LIST = `(SELECT COALESCE(json_agg(json_build_object('attempted_at', a.attempted_at, 'status_code', a.status_code, 'latency_ms', a.latency_ms, 'error', a.error) ORDER BY a.id), '[]')
   FROM wh_attempts a WHERE a.delivery_id = d.id)`;

/** Deliveries that match an event: $1 integrator, $2 type. */
const MATCHING_ENDPOINTS = `FROM wh_endpoints e WHERE ${endpointWants('$1', '$2')}`;

/** The event as its deliveries and GET /v1/events show it. */
const eventBody = (event: IntegrationEvent): string =>
  JSON.stringify({ id: event.id, object: 'event', type: event.type, created_at: event.createdAt, data: event.data });

/** What a delivery id is made of (claimDue writes ids into its statement's text: nothing else gets in). */
const DELIVERY_ID = /^[A-Za-z0-9_]{1,64}$/;

/** Delivery ids drawn for recordEvent's one statement: enough for the endpoints an integrator usually has. */
const RECORD_DELIVERY_IDS = 8;

/** RECORD_DELIVERY_IDS delivery ids from one draw of random characters (one call for the randomness, not one per id). */
const recordDeliveryIds = (): string[] => {
  const random = randomBase62(ID_RANDOM_LENGTH * RECORD_DELIVERY_IDS);
  const prefix = `${ID_PREFIXES.webhookDelivery}_`;
  return Array.from({ length: RECORD_DELIVERY_IDS }, (_, i) => prefix + random.slice(i * ID_RANDOM_LENGTH, (i + 1) * ID_RANDOM_LENGTH));
};

/**
 * The events of a group (recordEvents) in one statement: each event's matching endpoints, then the events
 * that have no more of them than the delivery ids drawn for each ($9; an event with more is not written
 * and its `matched` says so), in the group's order, then a delivery per endpoint for each new event.
 * $1..$6 the events, $7 each one's service time, $8 $9 delivery ids for each event, one after another.
 */
const RECORD_EVENTS_AND_DELIVERIES = `
WITH input AS MATERIALIZED (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], ${textElements(6)}, $7::timestamptz[])
    WITH ORDINALITY AS i (integrator_id, type, id, object_id, created_at, body, now, n)
), endpoints AS MATERIALIZED (
  SELECT i.n, e.id, row_number() OVER (PARTITION BY i.n ORDER BY e.id) AS k
  FROM input i JOIN wh_endpoints e ON ${endpointWants('i.integrator_id', 'i.type')}
), matched AS MATERIALIZED (
  SELECT i.n, i.id, count(endpoints.id)::int AS matched FROM input i LEFT JOIN endpoints ON endpoints.n = i.n GROUP BY i.n, i.id
), event AS (
  INSERT INTO wh_events (id, integrator_id, type, object_id, created_at, body)
  SELECT i.id, i.integrator_id, i.type, i.object_id, i.created_at, i.body FROM input i JOIN matched m ON m.n = i.n
  WHERE m.matched <= $9 ORDER BY i.n
  ON CONFLICT (id) DO NOTHING RETURNING id
), deliveries AS (
  INSERT INTO wh_deliveries (id, event_id, endpoint_id, origin, status, next_attempt_at, created_at)
  SELECT ($8::text[])[(i.n - 1) * $9 + endpoints.k], event.id, endpoints.id, 'event', 'pending', i.now, i.now
  FROM event JOIN input i ON i.id = event.id JOIN endpoints ON endpoints.n = i.n
  ON CONFLICT DO NOTHING
)
SELECT m.matched, m.id IN (SELECT id FROM event) AS inserted, ARRAY(SELECT ep.id FROM endpoints ep WHERE ep.n = m.n ORDER BY ep.k) AS endpoint_ids
FROM matched m ORDER BY m.n`;

/** An event to record and the service time of its deliveries; what its recording did. */
interface EventToRecord {
  event: IntegrationEvent;
  now: Date;
}
/** A delivery just recorded, and its endpoint. */
export interface NewDelivery {
  deliveryId: string;
  endpointId: string;
}
/** Whether the event was new, and the deliveries its recording made (none for a repeat). */
type RecordOutcome = { recorded: boolean; deliveries: NewDelivery[] };

export class WebhooksStore {
  /** Group commit of recordEvent: the events recorded while a statement runs go in the next one. */
  private readonly recorder = new GroupCommit<EventToRecord, RecordOutcome>((group) => this.recordEvents(group), {
    name: 'webhook event record',
    batchSizeMax: EVENTS_RECORD_GROUP_MAX,
    queueLengthMax: EVENTS_RECORD_QUEUE_LENGTH_MAX,
  });

  /**
   * `dispatchPool`: the dispatcher's claims and attempt records (asynchronous commit in the apps: an
   * attempt whose record a crash loses is made again, as at-least-once allows). The pool otherwise.
   */
  constructor(
    private readonly pool: Pool,
    private readonly dispatchPool: Pool = pool,
  ) {}

  // ---- endpoints ----
  /**
   * At most WEBHOOK_ENDPOINTS_PER_INTEGRATOR_MAX endpoints an integrator (deleted ones not counted): the
   * count and the insert run under a lock on the integrator, so parallel creates cannot pass it together.
   */
  async createEndpoint(endpoint: EndpointRow): Promise<void> {
    await this.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('wh_endpoints:' || $1, 0))`, [endpoint.integratorId]);
      // A retried create (same id from the idempotency key) finds the endpoint already there.
      const { rows } = await tx.query<{ existing: boolean; count: number }>(
        `SELECT EXISTS (SELECT 1 FROM wh_endpoints WHERE id = $1) AS existing,
                (SELECT count(*)::int FROM wh_endpoints WHERE integrator_id = $2 AND deleted_at IS NULL) AS count`,
        [endpoint.id, endpoint.integratorId],
      );
      if (rows[0]!.existing) return;
      if (rows[0]!.count >= WEBHOOK_ENDPOINTS_PER_INTEGRATOR_MAX) {
        throw new ServiceError('invalid_request', `an integrator has at most ${WEBHOOK_ENDPOINTS_PER_INTEGRATOR_MAX} webhook endpoints; delete one first`);
      }
      await tx.query('INSERT INTO wh_endpoints (id, integrator_id, url, enabled_events, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING', [
        endpoint.id,
        endpoint.integratorId,
        endpoint.url,
        endpoint.enabledEvents,
        endpoint.secret,
        endpoint.createdAt,
      ]);
    });
  }

  async findEndpoint(integratorId: string, id: string): Promise<EndpointRow | undefined> {
    const { rows } = await this.pool.query<EndpointDbRow>('SELECT * FROM wh_endpoints WHERE id = $1 AND integrator_id = $2 AND deleted_at IS NULL', [id, integratorId]);
    return rows[0] && toEndpoint(rows[0]);
  }

  async listEndpoints(integratorId: string, limit: number, startingAfter?: string): Promise<ListResource<WebhookEndpointResource>> {
    const beforeSeq = startingAfter === undefined ? null : await this.seqOf('wh_endpoints', integratorId, startingAfter, 'AND deleted_at IS NULL');
    const { rows } = await this.pool.query<EndpointDbRow>(
      // Newest first by created_at (the request's time), then seq: concurrent creates insert out of that order.
      `SELECT * FROM wh_endpoints WHERE integrator_id = $1 AND deleted_at IS NULL
         AND ($2::bigint IS NULL OR (created_at, seq) < ((SELECT created_at FROM wh_endpoints WHERE seq = $2), $2))
       ORDER BY created_at DESC, seq DESC LIMIT $3`,
      [integratorId, beforeSeq, limit + 1],
    );
    return toPage(rows.map((row) => toEndpointResource(toEndpoint(row))), limit);
  }

  /** Soft delete; its pending deliveries are canceled, so the endpoint receives nothing more. */
  async deleteEndpoint(integratorId: string, id: string, now: Date): Promise<boolean> {
    return this.transaction(async (tx) => {
      const { rowCount } = await tx.query('UPDATE wh_endpoints SET deleted_at = $3 WHERE id = $1 AND integrator_id = $2 AND deleted_at IS NULL', [id, integratorId, now]);
      if (rowCount === 0) return false;
      await cancelPending(tx, id);
      return true;
    });
  }

  /**
   * Changes URL, event types or status. Disabling cancels the endpoint's pending deliveries: a disabled
   * endpoint is sent nothing, and the events of the disabled period are not sent later.
   */
  async updateEndpoint(integratorId: string, id: string, change: { url?: string; enabledEvents?: string[]; status?: WebhookEndpointStatus }): Promise<EndpointRow | undefined> {
    return this.transaction(async (tx) => {
      const { rows } = await tx.query<EndpointDbRow>(
        `UPDATE wh_endpoints SET url = COALESCE($3, url), enabled_events = COALESCE($4, enabled_events), status = COALESCE($5, status),
           disabled_reason = CASE WHEN $5::text IS NULL THEN disabled_reason WHEN $5 = 'disabled' THEN 'disabled_by_integrator' ELSE NULL END,
           failing_since = CASE WHEN $5 = 'enabled' THEN NULL ELSE failing_since END
         WHERE id = $1 AND integrator_id = $2 AND deleted_at IS NULL RETURNING *`,
        [id, integratorId, change.url ?? null, change.enabledEvents ?? null, change.status ?? null],
      );
      if (rows[0]?.status === 'disabled') await cancelPending(tx, id);
      return rows[0] && toEndpoint(rows[0]);
    });
  }

  /**
   * A new secret; the previous one keeps signing (beside it) for PREVIOUS_SECRET_TTL_MS. Refused
   * (`rotated_recently`) while the current secret is younger than SECRET_ROTATION_INTERVAL_MIN_MS: of
   * concurrent rotations one wins, and every secret answered signs.
   */
  async rotateSecret(integratorId: string, id: string, secret: string, now: Date): Promise<EndpointRow | 'rotated_recently' | undefined> {
    const until = new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS);
    // The WHERE is evaluated again on the row a concurrent rotation just changed (READ COMMITTED).
    const { rows } = await this.pool.query<EndpointDbRow>(
      `UPDATE wh_endpoints SET previous_secret = secret, previous_secret_until = $4, secret = $3
       WHERE id = $1 AND integrator_id = $2 AND deleted_at IS NULL
         AND (previous_secret_until IS NULL OR previous_secret_until <= $5)
       RETURNING *`,
      [id, integratorId, secret, until, new Date(until.getTime() - SECRET_ROTATION_INTERVAL_MIN_MS)],
    );
    if (rows[0]) return toEndpoint(rows[0]);
    return (await this.findEndpoint(integratorId, id)) ? 'rotated_recently' : undefined;
  }

  /** An endpoint's deliveries, newest first, optionally of one status. */
  async endpointDeliveries(query: ListEndpointDeliveries): Promise<ListResource<EndpointDeliveryResource>> {
    const values: unknown[] = [query.id];
    let cursor = '';
    if (query.startingAfter !== undefined) {
      const { rows } = await this.pool.query<{ created_at: Date }>('SELECT created_at FROM wh_deliveries WHERE id = $1 AND endpoint_id = $2', [query.startingAfter, query.id]);
      if (!rows[0]) throw notInList(query.startingAfter);
      values.push(rows[0].created_at, query.startingAfter);
      cursor = `AND (d.created_at, d.id) < ($2, $3)`;
    }
    // 'delivering' is an attempt in flight: still pending to the integrator.
    const statuses = query.status === undefined ? null : query.status === 'pending' ? ['pending', 'delivering'] : [query.status];
    values.push(statuses, query.limit + 1);
    const { rows } = await this.pool.query<DeliveryDbRow>(
      `SELECT d.id, d.event_id, d.endpoint_id, d.status, d.next_attempt_at, d.created_at, ${ATTEMPT_LIST} AS attempt_list
       FROM wh_deliveries d
       WHERE d.endpoint_id = $1 ${cursor} AND ($${values.length - 1}::text[] IS NULL OR d.status = ANY ($${values.length - 1}::text[]))
       ORDER BY d.created_at DESC, d.id DESC LIMIT $${values.length}`,
      values,
    );
    return toPage(rows.map((row) => toEndpointDeliveryResource(row)), query.limit);
  }

  /**
   * Sends again every failed delivery of the endpoint whose event was created at or after `since`: one
   * new delivery per event, none for an event already delivered to the endpoint (a later delivery of it
   * succeeded) or with a delivery pending, so a repeat adds nothing. Concurrent calls queue an event
   * once: the unique index wh_deliveries_one_open refuses a second open delivery, and the insert skips it.
   */
  async recover(endpointId: string, since: Date, now: Date): Promise<number> {
    const { rows } = await this.pool.query<{ event_id: string }>(
      `SELECT DISTINCT d.event_id FROM wh_deliveries d JOIN wh_events ev ON ev.id = d.event_id
       WHERE d.endpoint_id = $1 AND d.status = 'failed' AND ev.created_at >= $2
         AND NOT EXISTS (SELECT 1 FROM wh_deliveries o WHERE o.event_id = d.event_id AND o.endpoint_id = $1 AND o.status IN ('pending', 'delivering', 'succeeded'))`,
      [endpointId, since],
    );
    if (rows.length === 0) return 0;
    const { rowCount } = await this.pool.query(
      `INSERT INTO wh_deliveries (id, event_id, endpoint_id, origin, status, next_attempt_at, created_at)
       SELECT d.id, d.event_id, $1, 'redeliver', 'pending', $2, $2 FROM unnest($3::text[], $4::text[]) AS d (id, event_id)
       ON CONFLICT DO NOTHING`,
      [endpointId, now, rows.map(() => newId('webhookDelivery')), rows.map((r) => r.event_id)],
    );
    return rowCount ?? 0;
  }

  // ---- events ----
  /** Which of these event ids are recorded. */
  async knownEventIds(ids: readonly string[]): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ id: string }>({ name: 'wh-known-event-ids', text: 'SELECT id FROM wh_events WHERE id = ANY ($1::text[])', values: [ids] });
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Records the event and its deliveries atomically, once by its id (a repeat changes nothing):
   * `recorded` when it was new, with the deliveries it got then. The events recorded at the same time
   * share one statement (group commit).
   */
  recordEvent(event: IntegrationEvent, now: Date): Promise<RecordOutcome> {
    return this.recorder.submit({ event, now });
  }

  /**
   * A group of recordEvent calls: one statement when each event has at most RECORD_DELIVERY_IDS
   * matching endpoints, the usual case; an event with more is recorded then by the transaction that
   * fans out to any number of them. An event id twice in the group is recorded by its first call; the
   * others are answered as repeats once it is.
   */
  private async recordEvents(group: readonly Waiting<EventToRecord, RecordOutcome>[]): Promise<void> {
    const firsts = new Map<string, Waiting<EventToRecord, RecordOutcome>>();
    for (const waiting of group) if (!firsts.has(waiting.item.event.id)) firsts.set(waiting.item.event.id, waiting);
    const unique = [...firsts.values()];
    const deliveryIds = unique.flatMap(() => recordDeliveryIds());
    const { rows } = await this.pool.query<{ inserted: boolean; matched: number; endpoint_ids: string[] }>({
      name: 'wh-record-events-and-deliveries',
      text: RECORD_EVENTS_AND_DELIVERIES,
      values: [
        ...columns(unique, ({ item: { event, now } }) => [event.integratorId, event.type, event.id, event.objectId, event.createdAt, jsonElement(eventBody(event)), now]),
        deliveryIds,
        RECORD_DELIVERY_IDS,
      ],
    });
    const outcomes = await Promise.allSettled(
      unique.map(async ({ item: { event, now } }, index): Promise<RecordOutcome> => {
        const { inserted, matched, endpoint_ids: endpointIds } = rows[index]!;
        if (matched > RECORD_DELIVERY_IDS) return this.transaction((tx) => this.recordEventIn(tx, event, now));
        // A new event's deliveries took the first of its ids, one per matching endpoint, in their order.
        const first = index * RECORD_DELIVERY_IDS;
        return { recorded: inserted, deliveries: inserted ? endpointIds.map((endpointId, k) => ({ deliveryId: deliveryIds[first + k]!, endpointId })) : [] };
      }),
    );
    const outcomeOf = new Map(unique.map((waiting, index) => [waiting.item.event.id, outcomes[index]!]));
    for (const waiting of group) {
      const outcome = outcomeOf.get(waiting.item.event.id)!;
      if (outcome.status === 'rejected') waiting.reject(outcome.reason);
      else waiting.resolve(firsts.get(waiting.item.event.id) === waiting ? outcome.value : { recorded: false, deliveries: [] });
    }
  }

  private async recordEventIn(tx: PoolClient, event: IntegrationEvent, now: Date): Promise<RecordOutcome> {
    const body = eventBody(event);
    const inserted = await tx.query({
      name: 'wh-record-event',
      text: `INSERT INTO wh_events (id, integrator_id, type, object_id, created_at, body) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
      values: [event.id, event.integratorId, event.type, event.objectId, event.createdAt, body],
    });
    if (inserted.rowCount === 0) return { recorded: false, deliveries: [] };
    return { recorded: true, deliveries: await this.fanOut(tx, event.id, event.integratorId, event.type, 'event', now) };
  }

  async findEvent(integratorId: string, id: string): Promise<EventResource | undefined> {
    const { rows } = await this.pool.query<{ body: string }>('SELECT body FROM wh_events WHERE id = $1 AND integrator_id = $2', [id, integratorId]);
    return rows[0] && (JSON.parse(rows[0].body) as EventResource);
  }

  async integratorOfEvent(id: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ integrator_id: string }>('SELECT integrator_id FROM wh_events WHERE id = $1', [id]);
    return rows[0]?.integrator_id;
  }

  /** Newest first, with the filters on type, object and creation time. */
  async listEvents(query: ListObjects<'type' | 'object_id'>): Promise<ListResource<EventResource>> {
    const { states, hasMore } = await listPage<string>(this.pool, {
      ...query,
      table: 'wh_events',
      idColumn: 'id',
      valueColumn: 'body',
      equals: { type: query.filters.type, object_id: query.filters.object_id },
    });
    return { object: 'list', data: states.map((body) => JSON.parse(body) as EventResource), has_more: hasMore };
  }

  /**
   * New deliveries of an existing event to the integrator's current matching endpoints, except those that
   * still have a delivery of it pending (a repeated redelivery adds nothing). The integrator's redeliveries
   * create at most WEBHOOK_REDELIVERIES_PER_INTEGRATOR_MAX deliveries per window (on the service clock);
   * beyond, `rate_limited`, and none is created.
   */
  async redeliver(integratorId: string, eventId: string, now: Date): Promise<number> {
    return this.transaction(async (tx) => {
      const { rows } = await tx.query<{ type: string }>('SELECT type FROM wh_events WHERE id = $1 AND integrator_id = $2', [eventId, integratorId]);
      if (!rows[0]) return 0;
      await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('wh_redeliver:' || $1, 0))`, [integratorId]);
      const { rows: recent } = await tx.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM wh_deliveries d JOIN wh_endpoints e ON e.id = d.endpoint_id
         WHERE d.origin = 'redeliver' AND d.created_at > $2 AND e.integrator_id = $1`,
        [integratorId, new Date(now.getTime() - WEBHOOK_REDELIVERY_WINDOW_MS)],
      );
      const { rows: wanted } = await tx.query<{ count: number }>(
        `SELECT count(*)::int AS count ${MATCHING_ENDPOINTS}
           AND NOT EXISTS (SELECT 1 FROM wh_deliveries p WHERE p.endpoint_id = e.id AND p.event_id = $3 AND p.status IN ('pending', 'delivering'))`,
        [integratorId, rows[0].type, eventId],
      );
      if (recent[0]!.count + wanted[0]!.count > WEBHOOK_REDELIVERIES_PER_INTEGRATOR_MAX) {
        throw new ServiceError('rate_limited', `too many redeliveries: at most ${WEBHOOK_REDELIVERIES_PER_INTEGRATOR_MAX} deliveries a minute; retry later`);
      }
      return (await this.fanOut(tx, eventId, integratorId, rows[0].type, 'redeliver', now, { skipPending: true })).length;
    });
  }

  /** An event's deliveries, oldest first (the order they were made), a page at a time. */
  async deliveriesOf(query: ListEventDeliveries): Promise<ListResource<EndpointDeliveryResource>> {
    const values: unknown[] = [query.id, query.integratorId];
    let cursor = '';
    if (query.startingAfter !== undefined) {
      const { rows } = await this.pool.query<{ created_at: Date }>('SELECT created_at FROM wh_deliveries WHERE id = $1 AND event_id = $2', [query.startingAfter, query.id]);
      if (!rows[0]) throw notInList(query.startingAfter);
      values.push(rows[0].created_at, query.startingAfter);
      cursor = 'AND (d.created_at, d.id) > ($3, $4)';
    }
    values.push(query.limit + 1);
    const { rows } = await this.pool.query<DeliveryDbRow>(
      `SELECT d.id, d.event_id, d.endpoint_id, d.status, d.next_attempt_at, d.created_at, ${ATTEMPT_LIST} AS attempt_list
       FROM wh_deliveries d JOIN wh_events ev ON ev.id = d.event_id AND ev.integrator_id = $2
       WHERE d.event_id = $1 ${cursor} ORDER BY d.created_at, d.id LIMIT $${values.length}`,
      values,
    );
    return toPage(rows.map(toEndpointDeliveryResource), query.limit);
  }

  // ---- dispatching ----
  /**
   * Deliveries due on the service clock and not yet claimed (counted up to `countMax`, one range read of
   * the partial index wh_deliveries_due), and when the oldest of them fell due: what a scrape reports.
   */
  async dueDeliveries(now: Date, countMax: number): Promise<{ count: number; oldestDueAt: Date | null }> {
    const { rows } = await this.pool.query<{ count: number; oldest: Date | null }>({
      name: 'wh-due-deliveries',
      text: `SELECT count(*)::int AS count, min(next_attempt_at) AS oldest FROM (
               SELECT next_attempt_at FROM wh_deliveries WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2) AS due`,
      values: [now, countMax],
    });
    return { count: rows[0]?.count ?? 0, oldestDueAt: rows[0]?.oldest ?? null };
  }

  /**
   * Claims up to `limit` deliveries due on the service clock (or whose claim expired), skipping rows
   * another dispatcher holds, and never more for one endpoint than its free slots: `perEndpointMax` less
   * its deliveries under a live lease, whichever dispatcher holds them (one per app instance), but for
   * `finished`: this dispatcher's whose attempt is over and whose record is not written yet. The live
   * endpoints are read once (their URL and secrets come with the claim, as of this statement: a rotation
   * or a disable committed before it is seen), each event's body once however many of its deliveries
   * are claimed (`body` is null on the others: the caller shares the first one's).
   *
   * `dueLeft`: the endpoints whose due deliveries this claim left (for want of a slot, past `limit`, or
   * held by another dispatcher's claim): only a slot of theirs that frees finds something to claim.
   *
   * Claims are taken one at a time across dispatchers (a transaction-scoped advisory lock, taken by a
   * first statement so that the claim's snapshot sees every claim committed before it): two claiming at
   * once would each count the other's slots free. Both statements go as one simple query (one round
   * trip, one implicit transaction: an error rolls both back), so the values are written into the text:
   * numbers checked as integers and an ISO date, nothing an integrator sent.
   */
  async claimDue(now: Date, limit: number, perEndpointMax: number, leaseMs: number, finished: readonly string[] = []): Promise<Claim> {
    for (const [name, value] of Object.entries({ limit, perEndpointMax, leaseMs })) {
      if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`claimDue: ${name} must be a non-negative integer, got ${value}`);
    }
    const unsafe = finished.find((id) => !DELIVERY_ID.test(id));
    if (unsafe !== undefined) throw new RangeError(`claimDue: not a delivery id: ${JSON.stringify(unsafe)}`);
    const at = `'${now.toISOString()}'::timestamptz`;
    const finishedIds = `ARRAY[${finished.map((id) => `'${id}'`).join(',')}]::text[]`;
    const results = (await this.dispatchPool.query(
      `SELECT pg_advisory_xact_lock(hashtextextended('wh_deliveries.claim', 0));
       WITH in_flight AS (
               SELECT endpoint_id, count(*) AS n FROM wh_deliveries
               WHERE status = 'delivering' AND lease_until >= now() AND NOT (id = ANY (${finishedIds})) GROUP BY endpoint_id),
             live AS MATERIALIZED (
               SELECT e.id, e.url, GREATEST(${perEndpointMax} - COALESCE(f.n, 0), 0) AS free,
                 CASE WHEN e.previous_secret_until > ${at} THEN ARRAY[e.secret, e.previous_secret] ELSE ARRAY[e.secret] END AS secrets
               FROM wh_endpoints e LEFT JOIN in_flight f ON f.endpoint_id = e.id
               WHERE e.deleted_at IS NULL AND e.status = 'enabled'),
             -- Each live endpoint's due deliveries, oldest first, one more than its free slots (one index
             -- probe per endpoint): a slow endpoint's backlog never hides another endpoint's due
             -- deliveries, and the one more tells that its slots leave some behind.
             due AS MATERIALIZED (
               SELECT e.id AS endpoint_id, e.free, c.id, c.next_attempt_at,
                 row_number() OVER (PARTITION BY e.id ORDER BY c.next_attempt_at, c.id) AS n
               FROM live e
               CROSS JOIN LATERAL (
                 SELECT d.id, d.next_attempt_at FROM wh_deliveries d
                 WHERE d.endpoint_id = e.id AND d.status IN ('pending', 'delivering')
                   AND ((d.status = 'pending' AND d.next_attempt_at <= ${at}) OR (d.status = 'delivering' AND d.lease_until < now()))
                 ORDER BY d.next_attempt_at LIMIT e.free + 1) c),
             candidates AS (SELECT id, next_attempt_at FROM due WHERE n <= free ORDER BY next_attempt_at LIMIT ${limit}),
             -- = ANY (ARRAY(…)): one index scan for the batch, whatever the planner guesses of its size.
             locked AS (
               SELECT d.id FROM wh_deliveries d WHERE d.id = ANY (ARRAY(SELECT id FROM candidates))
                 AND ((d.status = 'pending' AND d.next_attempt_at <= ${at}) OR (d.status = 'delivering' AND d.lease_until < now()))
               FOR UPDATE SKIP LOCKED),
             claimed AS (
               UPDATE wh_deliveries d SET status = 'delivering', lease_until = now() + make_interval(secs => ${leaseMs} / 1000.0)
               WHERE d.id = ANY (ARRAY(SELECT id FROM locked))
               RETURNING d.id, d.event_id, d.endpoint_id, d.attempts),
             firsts AS (SELECT DISTINCT ON (event_id) id, event_id FROM claimed ORDER BY event_id, id)
             SELECT c.id, c.event_id, c.endpoint_id, c.attempts, e.url, e.secrets, ev.body, NULL::text[] AS due_left
             FROM claimed c JOIN live e ON e.id = c.endpoint_id
             LEFT JOIN firsts f ON f.id = c.id
             LEFT JOIN (SELECT id, body FROM wh_events WHERE id = ANY (ARRAY(SELECT event_id FROM firsts))) ev ON ev.id = f.event_id
             -- One more row, whatever was claimed: the endpoints whose due deliveries were left (for want
             -- of a slot, past the limit, or held by another dispatcher's claim).
             UNION ALL
             SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, ARRAY(SELECT DISTINCT endpoint_id FROM due WHERE NOT (id = ANY (ARRAY(SELECT id FROM claimed))))`,
    )) as unknown as [QueryResult, QueryResult<ClaimedDbRow>];
    const rows = results[1].rows;
    const bodies = new Map<string, string>();
    const deliveries: ClaimedDelivery[] = [];
    let dueLeft: string[] = [];
    for (const row of rows) if (row.due_left === null && row.body !== null) bodies.set(row.event_id, row.body);
    for (const r of rows) {
      if (r.due_left !== null) dueLeft = r.due_left;
      else deliveries.push({ deliveryId: r.id, eventId: r.event_id, endpointId: r.endpoint_id, url: r.url, secrets: r.secrets, body: bodies.get(r.event_id) ?? '', attempts: r.attempts });
    }
    return { deliveries, dueLeft };
  }

  /**
   * Records an attempt and where the delivery goes next (recordAttempts for one). Answers the endpoint
   * when this attempt disabled it.
   */
  async recordAttempt(delivery: { deliveryId: string; endpointId: string }, attempt: AttemptRecord, next: AfterAttempt, now: Date): Promise<EndpointRow | undefined> {
    const overdue = await this.recordAttempts([{ ...delivery, attempt, next, now }]);
    return overdue.length === 0 ? undefined : this.disableFailingEndpoint(overdue[0]!, now);
  }

  /**
   * Records finished attempts and where each delivery goes next, in one statement (one commit for the
   * batch, on the dispatcher's pool: asynchronous commit, see WebhooksModule). The endpoints' runs of
   * failures are tracked on the service clock (`now` of the batch's last attempt): an endpoint's row is
   * written only when its run changes (its first failure, a success after failures). Answers the
   * endpoints whose attempts in the batch all failed and whose run is older than 5 days: for
   * disableFailingEndpoint.
   */
  async recordAttempts(finished: readonly FinishedAttempt[]): Promise<string[]> {
    if (finished.length === 0) return [];
    const now = new Date(Math.max(...finished.map((f) => f.now.getTime())));
    const runs = endpointRuns(finished);
    const { rows } = await this.dispatchPool.query<{ id: string }>({
      // Not a named statement: planned at each run for the table as it is. The deliveries table starts
      // empty and grows by every event times every endpoint; a generic plan kept from when it was small
      // read every delivery to update a few.
      text: `WITH a AS (
               SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::text[], $7::timestamptz[])
                 AS a (delivery_id, attempted_at, status_code, latency_ms, error, next_status, next_attempt_at)),
             attempts AS (
               INSERT INTO wh_attempts (delivery_id, attempted_at, status_code, latency_ms, error)
               SELECT delivery_id, attempted_at, status_code, latency_ms, error FROM a),
             deliveries AS (
               UPDATE wh_deliveries d SET attempts = d.attempts + 1, status = CASE WHEN d.status = 'canceled' THEN d.status ELSE a.next_status END,
                 next_attempt_at = a.next_attempt_at, lease_until = NULL
               FROM a WHERE d.id = ANY ($1::text[]) AND d.id = a.delivery_id),
             runs AS (SELECT * FROM unnest($8::text[], $9::text[]) AS r (endpoint_id, run)),
             -- 'succeeded': the last attempt succeeded; 'restarted': a success, then failures; 'failing': every attempt failed.
             health AS (
               UPDATE wh_endpoints e SET failing_since = CASE r.run WHEN 'succeeded' THEN NULL WHEN 'restarted' THEN $10 ELSE COALESCE(e.failing_since, $10) END
               FROM runs r
               WHERE e.id = ANY ($8::text[]) AND e.id = r.endpoint_id AND e.deleted_at IS NULL
                 AND CASE r.run WHEN 'succeeded' THEN e.failing_since IS NOT NULL WHEN 'restarted' THEN true ELSE e.failing_since IS NULL END)
             SELECT e.id FROM wh_endpoints e JOIN runs r ON r.endpoint_id = e.id
             WHERE e.id = ANY ($8::text[]) AND r.run = 'failing' AND e.deleted_at IS NULL AND e.status = 'enabled' AND e.failing_since <= $11`,
      values: [
        finished.map((f) => f.deliveryId),
        finished.map((f) => f.attempt.attemptedAt),
        finished.map((f) => f.attempt.statusCode),
        finished.map((f) => f.attempt.latencyMs),
        finished.map((f) => f.attempt.error),
        finished.map((f) => f.next.status),
        finished.map((f) => (f.next.status === 'pending' ? f.next.nextAttemptAt : null)),
        [...runs.keys()],
        [...runs.values()],
        now,
        new Date(now.getTime() - FAILING_ENDPOINT_DISABLED_AFTER_MS),
      ],
    });
    return rows.map((row) => row.id);
  }

  /**
   * Disables an endpoint whose every attempt has failed for 5 days (service clock), cancels its pending
   * deliveries and tells the integrator by a `webhook_endpoint.disabled` event on its other endpoints,
   * in one transaction with synchronous commit. Answers the endpoint when this call disabled it;
   * nothing when it is no longer due (a success meanwhile, disabled or deleted already).
   */
  async disableFailingEndpoint(endpointId: string, now: Date): Promise<EndpointRow | undefined> {
    return this.transaction(async (tx) => {
      const { rows } = await tx.query<EndpointDbRow>(
        `UPDATE wh_endpoints SET status = 'disabled', disabled_reason = $2
         WHERE id = $1 AND deleted_at IS NULL AND status = 'enabled' AND failing_since <= $3 RETURNING *`,
        [endpointId, FAILING_FOR_5_DAYS, new Date(now.getTime() - FAILING_ENDPOINT_DISABLED_AFTER_MS)],
      );
      const row = rows[0];
      if (!row) return undefined;
      await cancelPending(tx, row.id);
      if (await this.alreadyToldDisabled(tx, row.id)) return undefined;
      const endpoint = toEndpoint(row);
      await this.recordEventIn(tx, {
        id: newId('event'),
        type: 'webhook_endpoint.disabled',
        createdAt: now.toISOString(),
        integratorId: endpoint.integratorId,
        objectId: endpoint.id,
        data: { ...toEndpointResource(endpoint), object_version: 1 },
      }, now);
      return endpoint;
    });
  }

  private async alreadyToldDisabled(tx: PoolClient, endpointId: string): Promise<boolean> {
    const { rowCount } = await tx.query(`SELECT 1 FROM wh_events WHERE object_id = $1 AND type = 'webhook_endpoint.disabled'`, [endpointId]);
    return (rowCount ?? 0) > 0;
  }

  /** A delivery of the event to each matching endpoint. */
  private async fanOut(
    tx: PoolClient,
    eventId: string,
    integratorId: string,
    type: string,
    origin: 'event' | 'redeliver',
    now: Date,
    { skipPending }: { skipPending: boolean } = { skipPending: false },
  ): Promise<NewDelivery[]> {
    const { rows: endpoints } = skipPending
      ? await tx.query<{ id: string }>(
          `SELECT e.id ${MATCHING_ENDPOINTS}
             AND NOT EXISTS (SELECT 1 FROM wh_deliveries p WHERE p.endpoint_id = e.id AND p.event_id = $3 AND p.status IN ('pending', 'delivering'))`,
          [integratorId, type, eventId],
        )
      : await tx.query<{ id: string }>(`SELECT e.id ${MATCHING_ENDPOINTS}`, [integratorId, type]);
    if (endpoints.length === 0) return [];
    const { rows } = await tx.query<{ id: string; endpoint_id: string }>(
      `INSERT INTO wh_deliveries (id, event_id, endpoint_id, origin, status, next_attempt_at, created_at)
       SELECT d.id, $1, d.endpoint_id, $2, 'pending', $3, $3 FROM unnest($4::text[], $5::text[]) AS d (id, endpoint_id)
       ON CONFLICT DO NOTHING RETURNING id, endpoint_id`,
      [eventId, origin, now, endpoints.map(() => newId('webhookDelivery')), endpoints.map((e) => e.id)],
    );
    return rows.map((row) => ({ deliveryId: row.id, endpointId: row.endpoint_id }));
  }

  private async seqOf(table: 'wh_events' | 'wh_endpoints', integratorId: string, id: string, extra = ''): Promise<number> {
    const { rows } = await this.pool.query<{ seq: number }>(`SELECT seq FROM ${table} WHERE id = $1 AND integrator_id = $2 ${extra}`, [id, integratorId]);
    if (!rows[0]) throw notInList(id);
    return rows[0].seq;
  }

  private transaction<T>(work: (tx: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

}

interface EndpointDbRow {
  id: string;
  integrator_id: string;
  url: string;
  enabled_events: string[];
  secret: string;
  status: WebhookEndpointStatus;
  disabled_reason: string | null;
  created_at: Date;
}

/** A disabled or deleted endpoint is sent nothing more. */
const cancelPending = async (tx: PoolClient, endpointId: string): Promise<void> => {
  await tx.query(`UPDATE wh_deliveries SET status = 'canceled', next_attempt_at = NULL WHERE endpoint_id = $1 AND status = 'pending'`, [endpointId]);
};

/** A claimed delivery (due_left null), or the claim's last row: every column null but due_left. */
type ClaimedDbRow =
  | {
      id: string;
      event_id: string;
      endpoint_id: string;
      attempts: number;
      url: string;
      secrets: string[];
      /** On one claimed delivery of each event only. */
      body: string | null;
      due_left: null;
    }
  | { body: null; due_left: string[] };

/**
 * Per endpoint, its run of failures after a batch of attempts, in the order they finished:
 * 'succeeded' (the last one succeeded), 'restarted' (a success, then failures: a new run from now),
 * 'failing' (every one failed).
 */
const endpointRuns = (finished: readonly FinishedAttempt[]): Map<string, 'succeeded' | 'restarted' | 'failing'> => {
  const runs = new Map<string, 'succeeded' | 'restarted' | 'failing'>();
  for (const { endpointId, next } of finished) {
    const before = runs.get(endpointId);
    if (next.status === 'succeeded') runs.set(endpointId, 'succeeded');
    else runs.set(endpointId, before === 'succeeded' || before === 'restarted' ? 'restarted' : 'failing');
  }
  return runs;
};

interface DeliveryDbRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: string;
  next_attempt_at: Date | null;
  created_at: Date;
  attempt_list: { attempted_at: string; status_code: number | null; latency_ms: number; error: string | null }[];
}

const toEndpoint = (row: EndpointDbRow): EndpointRow => ({
  id: row.id,
  integratorId: row.integrator_id,
  url: row.url,
  enabledEvents: row.enabled_events,
  secret: row.secret,
  status: row.status,
  disabledReason: row.disabled_reason,
  createdAt: row.created_at,
});

/** The endpoint as the API shows it: the secret only where the integrator must store it (create, rotate). */
export const toEndpointResource = (endpoint: EndpointRow, { withSecret = false } = {}): WebhookEndpointResource => ({
  id: endpoint.id,
  object: 'webhook_endpoint',
  url: endpoint.url,
  // Checked against the event types when the endpoint was created or updated.
  enabled_events: endpoint.enabledEvents as WebhookEndpointResource['enabled_events'],
  ...(withSecret ? { secret: endpoint.secret } : {}),
  status: endpoint.status,
  disabled_reason: endpoint.disabledReason,
  created_at: endpoint.createdAt.toISOString(),
});

/** A webhook_delivery as the API answers it, wherever it is listed (an endpoint's deliveries, an event's). */
const toEndpointDeliveryResource = (row: DeliveryDbRow): EndpointDeliveryResource => {
  const history = row.attempt_list.map((a) => ({ ...a, attempted_at: new Date(a.attempted_at).toISOString() }));
  const last = history[history.length - 1];
  return {
    id: row.id,
    object: 'webhook_delivery',
    event: row.event_id,
    endpoint: row.endpoint_id,
    // 'delivering' is an attempt in flight: still pending to the integrator.
    status: row.status === 'delivering' ? 'pending' : (row.status as EndpointDeliveryResource['status']),
    attempts: history.length,
    last_attempt_at: last?.attempted_at ?? null,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    last_response_status: last?.status_code ?? null,
    created_at: row.created_at.toISOString(),
    attempt_history: history,
  };
};
