import type { Pool } from 'pg';
import { cashPaymentDecider, toCashPaymentResource, type CashPayment, type CashPaymentEvent } from '@pay/cash-domain';
import type { CashPaymentResource, ListObjects, ListResource } from '@pay/contracts';
import { eachRow, projectForward, type SweptView } from '@pay/event-store';
import { listPage } from '@pay/platform';

type Existing = Exclude<CashPayment, { status: 'none' }>;

/**
 * Projects cash payment events into cash_payment_views, in the subscription's transaction (with its
 * checkpoint), and releases the payment reference once the payment is final. A row only moves
 * forward: an event older than the row's revision is ignored.
 */
export const projectCashPaymentEvents = projectForward<CashPaymentEvent, CashPayment, 'CashPaymentCreated'>({
  name: 'cash payment',
  table: 'cash_payment_views',
  idColumn: 'cash_payment_id',
  decider: cashPaymentDecider,
  idOf: (event) => event.cashPaymentId,
  createdBy: 'CashPaymentCreated',
  insert: eachRow(async (tx, { event, state, revision }) => {
    await tx.query({
      name: 'cash-payment-view-insert',
      text: `INSERT INTO cash_payment_views (cash_payment_id, integrator_id, status, expires_at, order_reference, payment_reference, created_at, state, revision, updated_at)
             VALUES ($1, $2, 'awaiting_payment', $3, $4, $5, $6, $7, $8, now()) ON CONFLICT (cash_payment_id) DO NOTHING`,
      values: [event.cashPaymentId, event.integratorId, event.expiresAt, event.orderReference, event.paymentReference, event.createdAt, JSON.stringify(state), revision],
    });
  }),
  update: eachRow(async (tx, { event, state, revision }) => {
    const { status, validating } = summary(event);
    await tx.query({
      name: 'cash-payment-view-update',
      text: `UPDATE cash_payment_views SET status = $2, validating = $3, state = $5, revision = $4, updated_at = now()
             WHERE cash_payment_id = $1 AND revision < $4`,
      values: [event.cashPaymentId, status, validating, revision, JSON.stringify(state)],
    });
    if (status !== 'awaiting_payment') {
      await tx.query({
        name: 'cash-payment-reference-release',
        text: 'UPDATE cash_payment_references SET open = false WHERE cash_payment_id = $1 AND open',
        values: [event.cashPaymentId],
      });
    }
  }),
});

/** The sweeps' rows: open cash payments not being validated (expiry), and validations whose outcome is not recorded. */
export const CASH_PAYMENT_SWEEPS: SweptView = {
  table: 'cash_payment_views',
  idColumn: 'cash_payment_id',
  expirable: "status = 'awaiting_payment' AND NOT validating",
  stepPending: 'validating',
};

const summary = (
  event: Exclude<CashPaymentEvent, { type: 'CashPaymentCreated' }>,
): { status: Exclude<CashPayment['status'], 'none'>; validating: boolean } => {
  switch (event.type) {
    case 'CashPaymentValidationStarted':
      return { status: 'awaiting_payment', validating: true };
    case 'CashPaymentSucceeded':
      return { status: 'succeeded', validating: false };
    case 'CashPaymentCanceled':
      return { status: 'canceled', validating: false };
    case 'CashPaymentExpired':
      return { status: 'expired', validating: false };
    default: {
      const unknown: never = event;
      throw new Error(`unknown cash payment event ${JSON.stringify(unknown)}`);
    }
  }
};

/** The integrator's cash payments, newest first, from the projection (the caller catches it up first). */
export async function listCashPayments(pool: Pool, query: ListObjects<'order_reference' | 'status' | 'payment_reference'>): Promise<ListResource<CashPaymentResource>> {
  const { filters } = query;
  const { states, hasMore } = await listPage<Existing>(pool, {
    ...query,
    table: 'cash_payment_views',
    idColumn: 'cash_payment_id',
    equals: { order_reference: filters.order_reference, payment_reference: filters.payment_reference },
    changing: { status: filters.status },
  });
  return { object: 'list', data: states.map(toCashPaymentResource), has_more: hasMore };
}
