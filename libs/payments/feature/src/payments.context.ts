import type { Pool } from 'pg';
import { AggregateRepository, expirySweep, recordWith, relayOf, type ContextDeclaration, type ContextInfrastructure } from '@pay/event-store';
import { statesAfter } from '@pay/platform';
import { expectedPaymentMovements, expectedRefundMovements, type Payment, type Refund } from '@pay/payments-domain';
import { paymentAggregate } from './payment-events';
import { listPayments, PAYMENT_EVENT_PREFIX, PAYMENT_SWEEPS, projectPaymentEvents } from './payment-projection';
import { PaymentsService, type PaymentsConfig } from './payments.service';
import { refundAggregate } from './refund-events';
import { listRefunds, projectRefundEvents, REFUND_EVENT_PREFIX } from './refund-projection';
import { RefundsService } from './refunds.service';

const PAYMENT_VIEWS = 'payments.payment-views';
const REFUND_VIEWS = 'payments.refund-views';

/** The payments app: payments and their refunds, their projections and relays, the sweeps (deadlines, stalled authorizations and refunds). */
export function paymentsContext({ store, bus, clock, pool }: ContextInfrastructure, config: PaymentsConfig): ContextDeclaration {
  const payments = new AggregateRepository(store, paymentAggregate, recordWith(bus));
  const service = new PaymentsService(payments, bus, clock, config);
  const refunds = new RefundsService(payments, new AggregateRepository(store, refundAggregate, recordWith(bus)), bus, clock, config.ledgerTimeoutMs);
  return {
    app: 'payments',
    subscriptions: [
      { kind: 'projection', id: PAYMENT_VIEWS, typePrefixes: [PAYMENT_EVENT_PREFIX], handle: projectPaymentEvents },
      relayOf('payments.integration-events', paymentAggregate),
      { kind: 'projection', id: REFUND_VIEWS, typePrefixes: [REFUND_EVENT_PREFIX], handle: projectRefundEvents },
      relayOf('payments.refund-events', refundAggregate),
    ],
    sweeper: {
      tasks: {
        // Stalled: a payment's authorization, or its refunds reserved and not settled.
        ...expirySweep(pool, PAYMENT_SWEEPS, payments, clock),
        resume: async (id) => {
          const payment = await service.finishAuthorization(id);
          await refunds.finishPending(id);
          return payment;
        },
      },
      caughtUpOn: PAYMENT_VIEWS,
      options: { process: 'authorization' },
    },
    handlers: (caughtUp) => ({
      'payments.create': (m) => service.create(m),
      'payments.retrieve': (m) => service.retrieve(m),
      'payments.cancel': (m) => service.cancel(m),
      'payments.decline': (m) => service.decline(m),
      'payments.authorize': (m) => service.authorize(m),
      // Read your writes: a payment is listed as soon as its create has been answered.
      'payments.list': async (m) => {
        await caughtUp(PAYMENT_VIEWS);
        return listPayments(pool, m);
      },
      'payments.refunds.create': (m) => refunds.create(m),
      'payments.refunds.retrieve': ({ integratorId, id }) => refunds.retrieve(integratorId, id),
      'payments.refunds.list': async (m) => {
        await caughtUp(REFUND_VIEWS);
        return listRefunds(pool, m);
      },
      // Reconciliation: what each payment's and each refund's history says moved.
      'payments.expected-movements': async ({ afterSeq, limit }) => {
        await caughtUp(PAYMENT_VIEWS);
        await caughtUp(REFUND_VIEWS);
        return expectedMovements(pool, afterSeq, limit);
      },
    }),
  };
}

async function expectedMovements(pool: Pool, afterSeq: string | null, limit: number) {
  const payments = await statesAfter<Exclude<Payment, { status: 'none' }>>(pool, 'payment_views', afterSeq, limit);
  const refundIds = payments.states.flatMap((p) => (p.status === 'succeeded' ? [p.terms.paymentId] : []));
  const { rows } = await pool.query<{ state: Exclude<Refund, { status: 'none' }> }>('SELECT state FROM refund_views WHERE payment = ANY ($1::text[])', [refundIds]);
  return { items: [...payments.states.map(expectedPaymentMovements), ...rows.map((r) => expectedRefundMovements(r.state))], nextAfterSeq: payments.nextAfterSeq };
}
