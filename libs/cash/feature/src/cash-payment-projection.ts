import type { PoolClient } from 'pg';
import type { CashPayment, CashPaymentEvent } from '@pay/cash-domain';
import type { RecordedEvent } from '@pay/event-store';

/**
 * Projects cash payment events into cash_payment_views, in the subscription's transaction (with its
 * checkpoint), and releases the payment reference once the payment is final. A row only moves
 * forward: an event older than the row's revision is ignored.
 */
export async function projectCashPaymentEvents(events: RecordedEvent[], tx: PoolClient): Promise<void> {
  for (const recorded of events) {
    const event = recorded.data as CashPaymentEvent;
    if (event.type === 'CashPaymentCreated') {
      await tx.query({
        name: 'cash-payment-view-insert',
        text: `INSERT INTO cash_payment_views (cash_payment_id, integrator_id, status, expires_at, revision, updated_at)
               VALUES ($1, $2, 'awaiting_payment', $3, $4, now()) ON CONFLICT (cash_payment_id) DO NOTHING`,
        values: [event.cashPaymentId, event.integratorId, event.expiresAt, recorded.revision.toString()],
      });
      continue;
    }
    const { status, validating } = summary(event);
    await tx.query({
      name: 'cash-payment-view-update',
      text: `UPDATE cash_payment_views SET status = $2, validating = $3, revision = $4, updated_at = now()
             WHERE cash_payment_id = $1 AND revision < $4`,
      values: [event.cashPaymentId, status, validating, recorded.revision.toString()],
    });
    if (status !== 'awaiting_payment') {
      await tx.query({
        name: 'cash-payment-reference-release',
        text: 'UPDATE cash_payment_references SET open = false WHERE cash_payment_id = $1 AND open',
        values: [event.cashPaymentId],
      });
    }
  }
}

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
