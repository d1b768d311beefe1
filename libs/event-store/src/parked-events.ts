import type { Pool, PoolClient } from 'pg';
import { PARKED_ERROR_LENGTH_MAX, PARKED_LIST_MAX } from '@pay/kernel';

/**
 * es_parked_events: the poison events a subscription passed over (see CatchUpSubscription), kept for
 * an operator to list and replay.
 */
export interface ParkedEventRow {
  subscriptionId: string;
  eventId: string;
  streamId: string;
  type: string;
  error: string;
  parkedAt: Date;
}

export const describeError = (error: unknown): string =>
  String(error instanceof Error ? (error.stack ?? error.message) : error).slice(0, PARKED_ERROR_LENGTH_MAX);

export async function parkEvent(tx: PoolClient, event: Omit<ParkedEventRow, 'parkedAt'>): Promise<void> {
  await tx.query(
    `INSERT INTO es_parked_events (subscription_id, event_id, stream_id, type, error) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (subscription_id, event_id) DO NOTHING`,
    [event.subscriptionId, event.eventId, event.streamId, event.type, event.error.slice(0, PARKED_ERROR_LENGTH_MAX)],
  );
}

/** Parked events of these subscriptions (of one of them when `eventId` is given), oldest first. */
export async function listParkedEvents(pool: Pool, subscriptionIds: readonly string[], limit: number, eventId?: string): Promise<ParkedEventRow[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > PARKED_LIST_MAX) throw new RangeError(`limit must be an integer from 1 to ${PARKED_LIST_MAX}, got ${limit}`);
  const { rows } = await pool.query<ParkedEventRow>(
    `SELECT subscription_id AS "subscriptionId", event_id AS "eventId", stream_id AS "streamId", type, error, parked_at AS "parkedAt"
     FROM es_parked_events WHERE subscription_id = ANY ($1::text[]) AND ($2::text IS NULL OR event_id = $2::text)
     ORDER BY parked_at, subscription_id, event_id LIMIT $3`,
    [subscriptionIds, eventId ?? null, limit],
  );
  return rows;
}

/** Takes the event off the list in the replay's transaction (locking the row against a concurrent replay); false when it was not parked. */
export async function unparkEvent(tx: PoolClient, subscriptionId: string, eventId: string): Promise<boolean> {
  const { rowCount } = await tx.query('DELETE FROM es_parked_events WHERE subscription_id = $1 AND event_id = $2', [subscriptionId, eventId]);
  return rowCount === 1;
}

export async function updateParkedError(pool: Pool, subscriptionId: string, eventId: string, error: string): Promise<void> {
  await pool.query('UPDATE es_parked_events SET error = $3 WHERE subscription_id = $1 AND event_id = $2', [subscriptionId, eventId, error.slice(0, PARKED_ERROR_LENGTH_MAX)]);
}

export async function countParkedEvents(pool: Pool, subscriptionId: string): Promise<number> {
  const { rows } = await pool.query<{ parked: number }>('SELECT count(*)::int AS parked FROM es_parked_events WHERE subscription_id = $1', [subscriptionId]);
  return rows[0]?.parked ?? 0;
}
