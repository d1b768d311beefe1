import type { PoolClient } from 'pg';
import type { RecordedEvent } from '@pay/event-store';
import type { Payment, PaymentEvent } from '@pay/payments-domain';

/**
 * Projects payment events into payment_views, in the subscription's transaction (with its checkpoint).
 * A row only moves forward: an event older than the row's revision is ignored.
 */
export async function projectPaymentEvents(events: RecordedEvent[], tx: PoolClient): Promise<void> {
  for (const recorded of events) {
    const event = recorded.data as PaymentEvent;
    if (event.type === 'PaymentCreated') {
      await tx.query({
        name: 'payment-view-insert',
        text: `INSERT INTO payment_views (payment_id, integrator_id, status, expires_at, revision, updated_at)
               VALUES ($1, $2, 'pending', $3, $4, now()) ON CONFLICT (payment_id) DO NOTHING`,
        values: [event.paymentId, event.integratorId, event.expiresAt, recorded.revision.toString()],
      });
      continue;
    }
    const { status, authorizing } = summary(event);
    await tx.query({
      name: 'payment-view-update',
      text: `UPDATE payment_views SET status = $2, authorizing = $3, revision = $4, updated_at = now()
             WHERE payment_id = $1 AND revision < $4`,
      values: [event.paymentId, status, authorizing, recorded.revision.toString()],
    });
  }
}

const summary = (event: Exclude<PaymentEvent, { type: 'PaymentCreated' }>): { status: Exclude<Payment['status'], 'none'>; authorizing: boolean } => {
  switch (event.type) {
    case 'PaymentAuthorizationStarted':
      return { status: 'pending', authorizing: true };
    case 'PaymentSucceeded':
      return { status: 'succeeded', authorizing: false };
    case 'PaymentDeclined':
      return { status: 'declined', authorizing: false };
    case 'PaymentCanceled':
      return { status: 'canceled', authorizing: false };
    case 'PaymentExpired':
      return { status: 'expired', authorizing: false };
    default: {
      const unknown: never = event;
      throw new Error(`unknown payment event ${JSON.stringify(unknown)}`);
    }
  }
};

export const PAYMENT_EVENT_PREFIX = 'Payment';
