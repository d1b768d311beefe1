import type { Pool } from 'pg';
import type { ListObjects, ListResource, RefundResource } from '@pay/contracts';
import { projectForward } from '@pay/event-store';
import { columns, jsonElement, jsonbElements, listPage } from '@pay/platform';
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
  // Rows are inserted in the events' order (WITH ORDINALITY): `seq` orders the list among equal created_at.
  insert: async (tx, rows) => {
    await tx.query({
      name: 'refund-views-insert',
      text: `INSERT INTO refund_views (refund_id, integrator_id, payment, created_at, state, revision)
             SELECT r.refund_id, r.integrator_id, r.payment, r.created_at, r.state, r.revision
             FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], ${jsonbElements(5)}, $6::bigint[])
                  WITH ORDINALITY AS r (refund_id, integrator_id, payment, created_at, state, revision, n)
             ORDER BY r.n
             ON CONFLICT (refund_id) DO NOTHING`,
      values: columns(rows, ({ event, state, revision }) => [event.refundId, event.integratorId, event.paymentId, event.createdAt, jsonElement(state), revision]),
    });
  },
  updateFromStateOnly: true,
  // The = ANY finds the rows by the primary key (joined on the unnest alone, a generic plan may scan the table).
  update: async (tx, rows) => {
    await tx.query({
      name: 'refund-views-update',
      text: `UPDATE refund_views v SET state = r.state, revision = r.revision
             FROM unnest($1::text[], ${jsonbElements(2)}, $3::bigint[]) AS r (refund_id, state, revision)
             WHERE v.refund_id = ANY ($1::text[]) AND v.refund_id = r.refund_id AND v.revision < r.revision`,
      values: columns(rows, ({ event, state, revision }) => [event.refundId, jsonElement(state), revision]),
    });
  },
});

/** The integrator's refunds, newest first, optionally of one payment (the caller catches the projection up). */
export async function listRefunds(pool: Pool, query: ListObjects<'payment'>): Promise<ListResource<RefundResource>> {
  const { states, hasMore } = await listPage<Existing>(pool, { ...query, table: 'refund_views', idColumn: 'refund_id', equals: { payment: query.filters.payment } });
  return { object: 'list', data: states.map(toRefundResource), has_more: hasMore };
}
