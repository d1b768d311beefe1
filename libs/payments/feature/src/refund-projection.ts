import type { Pool, PoolClient } from 'pg';
import type { ListObjects, ListResource, RefundResource } from '@pay/contracts';
import type { RecordedEvent } from '@pay/event-store';
import { listPage } from '@pay/platform';
import { refundDecider, toRefundResource, type Refund, type RefundEvent } from '@pay/payments-domain';

type Existing = Exclude<Refund, { status: 'none' }>;

export const REFUND_EVENT_PREFIX = 'Refund';

/** Projects refund events into refund_views (the folded state), in the subscription's transaction. */
export async function projectRefundEvents(events: RecordedEvent[], tx: PoolClient): Promise<void> {
  for (const recorded of events) {
    const event = recorded.data as RefundEvent;
    const revision = recorded.revision.toString();
    if (event.type === 'RefundRequested') {
      const state = refundDecider.evolve(refundDecider.initialState, event);
      await tx.query({
        name: 'refund-view-insert',
        text: `INSERT INTO refund_views (refund_id, integrator_id, payment, created_at, state, revision)
               VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (refund_id) DO NOTHING`,
        values: [event.refundId, event.integratorId, event.paymentId, event.createdAt, JSON.stringify(state), revision],
      });
      continue;
    }
    const { rows } = await tx.query<{ state: Existing; revision: string }>({
      name: 'refund-view-read',
      text: 'SELECT state, revision FROM refund_views WHERE refund_id = $1',
      values: [event.refundId],
    });
    if (!rows[0]) throw new Error(`refund view ${event.refundId}: ${event.type} before its request`);
    if (BigInt(rows[0].revision) >= recorded.revision) continue;
    await tx.query({
      name: 'refund-view-update',
      text: 'UPDATE refund_views SET state = $2, revision = $3 WHERE refund_id = $1 AND revision < $3',
      values: [event.refundId, JSON.stringify(refundDecider.evolve(rows[0].state, event)), revision],
    });
  }
}

/** The integrator's refunds, newest first, optionally of one payment (the caller catches the projection up). */
export async function listRefunds(pool: Pool, query: ListObjects<'payment'>): Promise<ListResource<RefundResource>> {
  const { states, hasMore } = await listPage<Existing>(pool, { ...query, table: 'refund_views', idColumn: 'refund_id', equals: { payment: query.filters.payment } });
  return { object: 'list', data: states.map(toRefundResource), has_more: hasMore };
}
