import type { Pool } from 'pg';
import type { ListObjects, ListResource, PaymentResource } from '@pay/contracts';
import { projectForward, type SweptView } from '@pay/event-store';
import { listPage } from '@pay/platform';
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
  insert: async (tx, event, state, revision) => {
    await tx.query({
      name: 'payment-view-insert',
      text: `INSERT INTO payment_views (payment_id, integrator_id, status, expires_at, order_reference, merchant_connection, created_at, state, revision, updated_at)
             VALUES ($1, $2, 'pending', $3, $4, $5, $6, $7, $8, now()) ON CONFLICT (payment_id) DO NOTHING`,
      values: [event.paymentId, event.integratorId, event.expiresAt, event.orderReference, event.merchantConnection, event.createdAt, JSON.stringify(state), revision],
    });
  },
  updateFromStateOnly: true,
  update: async (tx, event, state, revision) => {
    await tx.query({
      name: 'payment-view-update',
      text: `UPDATE payment_views SET status = $2, authorizing = $3, refunding = $6, state = $4, revision = $5, updated_at = now()
             WHERE payment_id = $1 AND revision < $5`,
      values: [event.paymentId, state.status, isAuthorizing(state), JSON.stringify(state), revision, isRefunding(state)],
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
    equals: { status: filters.status, order_reference: filters.order_reference, merchant_connection: filters.merchant_connection },
  });
  return { object: 'list', data: states.map(toPaymentResource), has_more: hasMore };
}

type PaymentListFilter = 'order_reference' | 'status' | 'merchant_connection';
