import type { Pool } from 'pg';
import { notFound, type EndpointHealth, type FailedDelivery, type ListResource } from '@pay/contracts';
import { FAILING_ENDPOINT_FLAGGED_AFTER_MS, REDELIVER_FAILED_MAX } from '@pay/kernel';
import { notInList, toPage } from './pagination';

/**
 * Deliveries the operator looks at: given up (`failed`), or attempted and failed at least once and
 * still scheduled (`pending`, or `delivering` while a retry is in flight), of an event no later
 * delivery has delivered to the endpoint. Only deliveries of live,
 * enabled endpoints: a disabled endpoint's deliveries are not sent, so listing them as actionable
 * would mislead (the integrator enables it again and uses `recover`).
 */
const FAILING = `d.attempts > 0 AND d.status IN ('pending', 'delivering', 'failed')`;
/** The event has reached the endpoint since (a later delivery of it succeeded): nothing to act on. */
const DELIVERED_SINCE = `EXISTS (SELECT 1 FROM wh_deliveries s WHERE s.event_id = d.event_id AND s.endpoint_id = d.endpoint_id AND s.status = 'succeeded')`;
/** A redelivery that met another's open delivery of the same event and endpoint (wh_deliveries_one_open) is tried again this many times. */
const REDELIVER_CONFLICT_TRIES_MAX = 5;
const UNIQUE_VIOLATION = '23505';
const LIVE_ENDPOINT = `e.id = d.endpoint_id AND e.status = 'enabled' AND e.deleted_at IS NULL`;

/** Whether an endpoint failing since `failingSince` has failed for long enough that an operator should look. */
export const isFlagged = (failingSince: Date, now: Date): boolean => now.getTime() - failingSince.getTime() > FAILING_ENDPOINT_FLAGGED_AFTER_MS;

/** The webhooks app's answers to the operator (admin API): failed deliveries, bulk redelivery, failing endpoints. */
export class WebhookOperations {
  constructor(private readonly pool: Pool) {}

  /** Newest first (by creation), optionally of one endpoint, `startingAfter` a delivery id of the list. */
  async failedDeliveries(query: { endpointId?: string; limit: number; startingAfter?: string }): Promise<ListResource<FailedDelivery>> {
    if (query.endpointId !== undefined) await this.requireEndpoint(query.endpointId);
    const values: unknown[] = [query.limit + 1];
    // Conditions written only when given, so that each shape of the query plans on its own index.
    let where = '';
    if (query.endpointId !== undefined) {
      values.push(query.endpointId);
      where += ` AND d.endpoint_id = $${values.length}`;
    }
    if (query.startingAfter !== undefined) {
      const createdAt = await this.createdAtOf(query.startingAfter, query.endpointId);
      values.push(createdAt, query.startingAfter);
      where += ` AND (d.created_at, d.id) < ($${values.length - 1}, $${values.length})`;
    }
    const { rows } = await this.pool.query<FailedDeliveryDbRow>(
      `SELECT d.id, d.endpoint_id, e.integrator_id, d.event_id, ev.type AS event_type, d.status, d.attempts, last.error, last.attempted_at
       FROM wh_deliveries d
       JOIN wh_endpoints e ON ${LIVE_ENDPOINT}
       JOIN wh_events ev ON ev.id = d.event_id
       LEFT JOIN LATERAL (SELECT a.error, a.attempted_at FROM wh_attempts a WHERE a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1) last ON true
       WHERE ${FAILING}${where} AND NOT ${DELIVERED_SINCE}
       ORDER BY d.created_at DESC, d.id DESC LIMIT $1`,
      values,
    );
    return toPage(rows.map(toFailedDelivery), query.limit);
  }

  /**
   * Every `failed` delivery (of one endpoint, or all) due again now, in one UPDATE: the same delivery
   * row goes back to `pending` (same event id and body), so nothing is duplicated, and a repeat finds
   * nothing failed. Per event and endpoint only the newest failed delivery is rescheduled, and none
   * when one is already pending or in flight, or when a later delivery of the event succeeded. It gets
   * one attempt: its retry schedule is spent, so a failure makes it `failed` again. Deliveries of
   * disabled or deleted endpoints are left alone.
   */
  async redeliverFailed(endpointId: string | undefined, now: Date): Promise<number> {
    if (endpointId !== undefined) await this.requireEndpoint(endpointId);
    for (let tries = 1; ; tries++) {
      try {
        return await this.rescheduleFailed(endpointId, now);
      } catch (error) {
        // A recover or redelivery committed an open delivery of one of the events meanwhile: the statement
        // is rolled back whole, and run again it sees that delivery and leaves the event alone.
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION || tries >= REDELIVER_CONFLICT_TRIES_MAX) throw error;
      }
    }
  }

  private async rescheduleFailed(endpointId: string | undefined, now: Date): Promise<number> {
    const { rowCount } = await this.pool.query({
      name: 'wh-ops-redeliver-failed',
      text: `WITH chosen AS (
               SELECT DISTINCT ON (d.event_id, d.endpoint_id) d.id
               FROM wh_deliveries d JOIN wh_endpoints e ON ${LIVE_ENDPOINT}
               WHERE ${FAILING} AND d.status = 'failed' AND ($1::text IS NULL OR d.endpoint_id = $1)
                 AND NOT EXISTS (SELECT 1 FROM wh_deliveries o WHERE o.event_id = d.event_id AND o.endpoint_id = d.endpoint_id AND o.status IN ('pending', 'delivering', 'succeeded'))
               ORDER BY d.event_id, d.endpoint_id, d.created_at DESC, d.id DESC
               LIMIT $3)
             -- Rechecked on the locked row: a concurrent call that took it first leaves it pending.
             UPDATE wh_deliveries d SET status = 'pending', next_attempt_at = $2, lease_until = NULL
             FROM chosen WHERE d.id = chosen.id AND d.status = 'failed'`,
      values: [endpointId ?? null, now, REDELIVER_FAILED_MAX],
    });
    return rowCount ?? 0;
  }

  /** Enabled endpoints whose current run of failures has not ended, oldest failure first. */
  async failingEndpoints(limit: number, now: Date): Promise<EndpointHealth[]> {
    const { rows } = await this.pool.query<FailingEndpointDbRow>({
      name: 'wh-ops-failing-endpoints',
      text: `SELECT id, integrator_id, url, status, failing_since FROM wh_endpoints
             WHERE failing_since IS NOT NULL AND status = 'enabled' AND deleted_at IS NULL
             ORDER BY failing_since, id LIMIT $1`,
      values: [limit],
    });
    return rows.map((row) => ({
      endpointId: row.id,
      integratorId: row.integrator_id,
      url: row.url,
      status: row.status,
      failingSince: row.failing_since.toISOString(),
      flagged: isFlagged(row.failing_since, now),
    }));
  }

  private async requireEndpoint(endpointId: string): Promise<void> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM wh_endpoints WHERE id = $1 AND deleted_at IS NULL', [endpointId]);
    if (rowCount === 0) throw notFound('webhook endpoint', endpointId);
  }

  /** The cursor's place in the list: any delivery (of the endpoint, when one is given), whatever its status now. */
  private async createdAtOf(deliveryId: string, endpointId: string | undefined): Promise<Date> {
    const { rows } = await this.pool.query<{ created_at: Date }>('SELECT created_at FROM wh_deliveries WHERE id = $1 AND ($2::text IS NULL OR endpoint_id = $2)', [
      deliveryId,
      endpointId ?? null,
    ]);
    if (!rows[0]) throw notInList(deliveryId);
    return rows[0].created_at;
  }
}

interface FailedDeliveryDbRow {
  id: string;
  endpoint_id: string;
  integrator_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  error: string | null;
  attempted_at: Date | null;
}

interface FailingEndpointDbRow {
  id: string;
  integrator_id: string;
  url: string;
  status: 'enabled' | 'disabled';
  failing_since: Date;
}

const toFailedDelivery = (row: FailedDeliveryDbRow): FailedDelivery => ({
  deliveryId: row.id,
  endpointId: row.endpoint_id,
  integratorId: row.integrator_id,
  eventId: row.event_id,
  eventType: row.event_type,
  status: row.status === 'failed' ? 'failed' : 'retrying',
  attempts: row.attempts,
  lastError: row.error,
  lastAttemptAt: row.attempted_at?.toISOString() ?? null,
});
