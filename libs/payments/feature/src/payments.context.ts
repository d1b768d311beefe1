import type { Pool } from 'pg';
import { settleEach } from '@pay/bus';
import { AggregateRepository, expirySweep, recordWith, relayOf, type ContextDeclaration, type ContextInfrastructure } from '@pay/event-store';
import { AUTHORIZE_BATCH_MAX, hasPrefix } from '@pay/kernel';
import { searchReferences, statesAfter } from '@pay/platform';
import { notFound } from '@pay/contracts';
import { expectedPaymentMovements, expectedRefundMovements, toPaymentResource, type Payment, type Refund } from '@pay/payments-domain';
import { paymentAggregate } from './payment-events';
import { listPayments, PAYMENT_EVENT_PREFIX, PAYMENT_SWEEPS, projectPaymentEvents } from './payment-projection';
import { PaymentsService, type PaymentsConfig } from './payments.service';
import { refundAggregate } from './refund-events';
import { listRefunds, projectRefundEvents, REFUND_EVENT_PREFIX } from './refund-projection';
import { RefundsService } from './refunds.service';
import { payoutAggregate, payoutBatchAggregate } from './payout-events';
import {
  listBankAccounts,
  listPayouts,
  PAYOUT_BATCH_EVENT_PREFIX,
  PAYOUT_EVENT_PREFIX,
  payoutExpectedMovements,
  projectPayoutBatchEvents,
  projectPayoutEvents,
  stalledPayoutWork,
  listPayoutBatches,
  listStatementImports,
} from './payout-projection';
import { PayoutsService } from './payouts.service';

const PAYMENT_VIEWS = 'payments.payment-views';
const REFUND_VIEWS = 'payments.refund-views';
const PAYOUT_VIEWS = 'payments.payout-views';
const PAYOUTS_CURSOR = 'payouts:';
const PAYOUT_BATCH_VIEWS = 'payments.payout-batch-views';

/** The payments app: payments and their refunds, payouts to bank accounts, their projections and relays, the sweeps (deadlines, stalled authorizations, refunds and payouts). */
export function paymentsContext({ store, bus, clock, pool }: ContextInfrastructure, config: PaymentsConfig): ContextDeclaration {
  const payments = new AggregateRepository(store, paymentAggregate, recordWith(bus));
  const service = new PaymentsService(payments, bus, clock, config);
  const refundStreams = new AggregateRepository(store, refundAggregate, recordWith(bus));
  const refunds = new RefundsService(payments, refundStreams, bus, clock, config.ledgerTimeoutMs);
  // The payout views' catch-up is the runtime's, known once it has started the subscriptions.
  let catchUpPayouts: () => Promise<void> = () => Promise.reject(new Error('the payout views are not started yet'));
  const payoutStreams = new AggregateRepository(store, payoutAggregate, recordWith(bus));
  const payouts = new PayoutsService(
    payoutStreams,
    new AggregateRepository(store, payoutBatchAggregate, recordWith(bus)),
    bus,
    pool,
    clock,
    config.ledgerTimeoutMs,
    () => catchUpPayouts(),
  );
  const paymentSweep = expirySweep(pool, PAYMENT_SWEEPS, payments, clock);
  return {
    app: 'payments',
    subscriptions: [
      { kind: 'projection', id: PAYMENT_VIEWS, typePrefixes: [PAYMENT_EVENT_PREFIX], handle: projectPaymentEvents },
      relayOf('payments.integration-events', paymentAggregate),
      { kind: 'projection', id: REFUND_VIEWS, typePrefixes: [REFUND_EVENT_PREFIX], handle: projectRefundEvents },
      relayOf('payments.refund-events', refundAggregate),
      { kind: 'projection', id: PAYOUT_VIEWS, typePrefixes: [PAYOUT_EVENT_PREFIX], handle: projectPayoutEvents },
      relayOf('payments.payout-events', payoutAggregate),
      { kind: 'projection', id: PAYOUT_BATCH_VIEWS, typePrefixes: [PAYOUT_BATCH_EVENT_PREFIX], handle: projectPayoutBatchEvents },
    ],
    sweeper: {
      tasks: {
        // Stalled: a payment's authorization, its refunds reserved and not settled, a payout's ledger step, a batch left open.
        ...paymentSweep,
        stalled: async (olderThanMs, limit) => [...(await paymentSweep.stalled(olderThanMs, limit)), ...(await stalledPayoutWork(pool, olderThanMs, limit))],
        resume: async (id) => {
          if (hasPrefix(id, 'payout') || hasPrefix(id, 'payoutBatch')) return payouts.resume(id);
          const payment = await service.finishAuthorization(id);
          await refunds.finishPending(id);
          return payment;
        },
      },
      caughtUpOn: PAYMENT_VIEWS,
      options: { process: 'authorization' },
    },
    handlers: (caughtUp) => {
      catchUpPayouts = () => caughtUp(PAYOUT_VIEWS);
      return {
      'payments.create': (m) => service.create(m),
      'payments.retrieve': (m) => service.retrieve(m),
      'payments.cancel': (m) => service.cancel(m),
      'payments.decline': (m) => service.decline(m),
      'payments.authorize': (m) => service.authorize(m),
      'payments.authorize-batch': async ({ requests }) => ({
        outcomes: await settleEach('payments.authorize', requests, AUTHORIZE_BATCH_MAX, (m) => service.authorize(m), (all) => service.recall(all)),
      }),
      // Read your writes: a payment is listed as soon as its create has been answered.
      'payments.list': async (m) => {
        await caughtUp(PAYMENT_VIEWS);
        return listPayments(pool, m);
      },
      // The back office's search, across integrators, and the integrator of a refund or payout found by its id.
      // The search reads the view as it stands (at most a poll, 0.25 s, behind): waiting for it to catch up
      // would cost each search a read of the event store, and the object's page reads the object itself.
      'payments.search-references': async ({ reference, limit }) => {
        const rows = await searchReferences<Exclude<Payment, { status: 'none' }>>(pool, 'payment_views', ['order_reference'], reference, limit);
        return { items: rows.map((r) => ({ integratorId: r.integratorId, field: 'order_reference' as const, resource: toPaymentResource(r.state) })) };
      },
      'payments.locate': async ({ id }) => {
        if (hasPrefix(id, 'refund')) return { integratorId: (await refundStreams.loadVisible(id, null)).state.terms.integratorId };
        if (hasPrefix(id, 'payout')) return { integratorId: (await payoutStreams.loadVisible(id, null)).state.terms.integratorId };
        throw notFound('object', id);
      },
      'payments.refunds.create': (m) => refunds.create(m),
      'payments.refunds.retrieve': ({ integratorId, id }) => refunds.retrieve(integratorId, id),
      'payments.refunds.list': async (m) => {
        await caughtUp(REFUND_VIEWS);
        return listRefunds(pool, m);
      },
      // Reconciliation: what each payment's and each refund's history says moved.
      'payments.bank-accounts.create': (m) => payouts.createBankAccount(m),
      'payments.bank-accounts.retrieve': ({ integratorId, id }) => payouts.retrieveBankAccount(integratorId, id),
      'payments.bank-accounts.list': (m) => listBankAccounts(pool, m),
      'payments.payouts.create': (m) => payouts.create(m),
      'payments.payouts.retrieve': (m) => payouts.retrieve(m),
      'payments.payouts.cancel': (m) => payouts.cancel(m),
      'payments.payouts.list': async (m) => {
        await caughtUp(PAYOUT_VIEWS);
        return listPayouts(pool, m);
      },
      'payments.payout-batches.create': (m) => payouts.createBatch(m),
      'payments.payout-batches.file': ({ batchId }) => payouts.batchFile(batchId),
      'payments.bank-statements.import': (m) => payouts.importStatement(m),
      'payments.created-objects.exists': (m) => payouts.createdObjectExists(m),
      'payments.payout-batches.list': async ({ limit }) => {
        await caughtUp(PAYOUT_BATCH_VIEWS);
        return listPayoutBatches(pool, limit);
      },
      'payments.bank-statements.list': ({ limit }) => listStatementImports(pool, limit),
      // Reconciliation: what each payment's, refund's and payout's history says moved.
      'payments.expected-movements': async ({ afterSeq, limit }) => {
        await caughtUp(PAYMENT_VIEWS);
        await caughtUp(REFUND_VIEWS);
        await caughtUp(PAYOUT_VIEWS);
        // Payments (with their refunds) first, then payouts: a cursor `payouts:<seq>` is in the payouts' pages.
        if (afterSeq?.startsWith(PAYOUTS_CURSOR)) {
          const page = await payoutExpectedMovements(pool, afterSeq.slice(PAYOUTS_CURSOR.length) || null, limit);
          return { items: page.items, nextAfterSeq: page.nextAfterSeq === null ? null : `${PAYOUTS_CURSOR}${page.nextAfterSeq}` };
        }
        const movements = await expectedMovements(pool, afterSeq, limit);
        return { ...movements, nextAfterSeq: movements.nextAfterSeq ?? PAYOUTS_CURSOR };
      },
    };
    },
  };
}

async function expectedMovements(pool: Pool, afterSeq: string | null, limit: number) {
  const payments = await statesAfter<Exclude<Payment, { status: 'none' }>>(pool, 'payment_views', afterSeq, limit);
  const refundIds = payments.states.flatMap((p) => (p.status === 'succeeded' ? [p.terms.paymentId] : []));
  const { rows } = await pool.query<{ state: Exclude<Refund, { status: 'none' }> }>('SELECT state FROM refund_views WHERE payment = ANY ($1::text[])', [refundIds]);
  return { items: [...payments.states.map(expectedPaymentMovements), ...rows.map((r) => expectedRefundMovements(r.state))], nextAfterSeq: payments.nextAfterSeq };
}
