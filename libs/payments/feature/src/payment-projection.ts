import type { Pool } from 'pg';
import type { ListObjects, ListResource, PaymentResource } from '@pay/contracts';
import { projectForward, type SweptView } from '@pay/event-store';
import { columns, jsonElement, jsonbElements, listPage } from '@pay/platform';
import { paymentDecider, toPaymentResource, type Payment, type PaymentEvent } from '@pay/payments-domain';

type Existing = Exclude<Payment, { status: 'none' }>;

/**
 * Projects payment events into payment_views, in the subscription's transaction (with its checkpoint).
 * The row keeps the folded state (what the list answers) and the columns the list filters and the
 * sweeps query. A row only moves forward: an event at or below the row's revision is ignored.
 */
export const projectPaymentEvents = projectForward<PaymentEvent, Payment, 'PaymentCreated'>({
  name: 'payment',
  table: 'payment_views',
  idColumn: 'payment_id',
  decider: paymentDecider,
  idOf: (event) => event.paymentId,
  createdBy: 'PaymentCreated',
  // Rows are inserted in the events' order (WITH ORDINALITY): `seq` orders the list among equal created_at.
  insert: async (tx, rows) => {
    await tx.query({
      name: 'payment-views-insert',
      text: `INSERT INTO payment_views (payment_id, integrator_id, status, expires_at, order_reference, merchant_connection, created_at, state, revision, updated_at)
             SELECT r.payment_id, r.integrator_id, 'pending', r.expires_at, r.order_reference, r.merchant_connection, r.created_at, r.state, r.revision, now()
             FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::timestamptz[], ${jsonbElements(7)}, $8::bigint[])
                  WITH ORDINALITY AS r (payment_id, integrator_id, expires_at, order_reference, merchant_connection, created_at, state, revision, n)
             ORDER BY r.n
             ON CONFLICT (payment_id) DO NOTHING`,
      values: columns(rows, ({ event, state, revision }) => [
        event.paymentId,
        event.integratorId,
        event.expiresAt,
        event.orderReference,
        event.merchantConnection,
        event.createdAt,
        jsonElement(state),
        revision,
      ]),
    });
  },
  updateFromStateOnly: true,
  // The = ANY finds the rows by the primary key (joined on the unnest alone, a generic plan may scan the table).
  update: async (tx, rows) => {
    await tx.query({
      name: 'payment-views-update',
      text: `UPDATE payment_views v SET status = r.status, authorizing = r.authorizing, refunding = r.refunding, state = r.state, revision = r.revision, updated_at = now()
             FROM unnest($1::text[], $2::text[], $3::boolean[], $4::boolean[], ${jsonbElements(5)}, $6::bigint[]) AS r (payment_id, status, authorizing, refunding, state, revision)
             WHERE v.payment_id = ANY ($1::text[]) AND v.payment_id = r.payment_id AND v.revision < r.revision`,
      values: columns(rows, ({ event, state, revision }) => [event.paymentId, state.status, isAuthorizing(state), isRefunding(state), jsonElement(state), revision]),
    });
  },
});

/** The sweeps' rows: pending payments open to expiry, and authorizations or refunds whose outcome is not recorded. */
export const PAYMENT_SWEEPS: SweptView = {
  table: 'payment_views',
  idColumn: 'payment_id',
  expirable: "status = 'pending' AND NOT authorizing",
  stepPending: 'authorizing OR refunding',
};

/** Refunds reserved on the payment whose outcome is not settled. */
const isRefunding = (state: Existing): boolean => state.status === 'succeeded' && Object.keys(state.pendingRefunds ?? {}).length > 0;

/** A customer's authorization whose ledger step has started and whose outcome is not recorded. */
const isAuthorizing = (state: Existing): boolean => state.status === 'pending' && state.authorization !== null;

export const PAYMENT_EVENT_PREFIX = 'Payment';

/** The integrator's payments, newest first, from the projection (the caller catches it up first). */
export async function listPayments(pool: Pool, query: ListObjects<PaymentListFilter>): Promise<ListResource<PaymentResource>> {
  const { filters } = query;
  const { states, hasMore } = await listPage<Existing>(pool, {
    ...query,
    table: 'payment_views',
    idColumn: 'payment_id',
    equals: { order_reference: filters.order_reference, merchant_connection: filters.merchant_connection },
    changing: { status: filters.status },
  });
  return { object: 'list', data: states.map(toPaymentResource), has_more: hasMore };
}

type PaymentListFilter = 'order_reference' | 'status' | 'merchant_connection';
