import type { Pool } from 'pg';
import type { ListObjects, ListResource, RefundResource } from '@pay/contracts';
import { projectForward } from '@pay/event-store';
import { listPage } from '@pay/platform';
import { refundDecider, toRefundResource, type Refund, type RefundEvent } from '@pay/payments-domain';

type Existing = Exclude<Refund, { status: 'none' }>;

export const REFUND_EVENT_PREFIX = 'Refund';

/** Projects refund events into refund_views (the folded state), in the subscription's transaction. */
export const projectRefundEvents = projectForward<RefundEvent, Refund, 'RefundRequested'>({
  name: 'refund',
  table: 'refund_views',
  idColumn: 'refund_id',
  decider: refundDecider,
  idOf: (event) => event.refundId,
  createdBy: 'RefundRequested',
  insert: async (tx, event, state, revision) => {
    await tx.query({
      name: 'refund-view-insert',
      text: `INSERT INTO refund_views (refund_id, integrator_id, payment, created_at, state, revision)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (refund_id) DO NOTHING`,
      values: [event.refundId, event.integratorId, event.paymentId, event.createdAt, JSON.stringify(state), revision],
    });
  },
  updateFromStateOnly: true,
  update: async (tx, event, state, revision) => {
    await tx.query({
      name: 'refund-view-update',
      text: 'UPDATE refund_views SET state = $2, revision = $3 WHERE refund_id = $1 AND revision < $3',
      values: [event.refundId, JSON.stringify(state), revision],
    });
  },
});

/** The integrator's refunds, newest first, optionally of one payment (the caller catches the projection up). */
export async function listRefunds(pool: Pool, query: ListObjects<'payment'>): Promise<ListResource<RefundResource>> {
  const { states, hasMore } = await listPage<Existing>(pool, { ...query, table: 'refund_views', idColumn: 'refund_id', equals: { payment: query.filters.payment } });
  return { object: 'list', data: states.map(toRefundResource), has_more: hasMore };
}
