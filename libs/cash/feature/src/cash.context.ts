import { expectedCashPaymentMovements, CASH_PAYMENT_EVENT_PREFIX, toCashPaymentResource, type CashPayment } from '@pay/cash-domain';
import { notFound } from '@pay/contracts';
import { AggregateRepository, expirySweep, recordWith, relayOf, type ContextDeclaration, type ContextInfrastructure } from '@pay/event-store';
import { searchReferences, statesAfter } from '@pay/platform';
import { cashPaymentAggregate } from './cash-payment-events';
import { CASH_PAYMENT_SWEEPS, listCashPayments, projectCashPaymentEvents } from './cash-payment-projection';
import { CashPaymentNumbers } from './cash-payment-store';
import { CashPaymentsService, type CashConfig } from './cash-payments.service';
import { CashPointsStore } from './cash-points.store';

const CASH_PAYMENT_VIEWS = 'cash.cash-payment-views';

/** The cash app: cash points and cash payments, their projection, relay and sweeps (deadlines, stalled validations). */
export function cashContext({ store, bus, clock, pool }: ContextInfrastructure, config: CashConfig): ContextDeclaration {
  const cashPoints = new CashPointsStore(pool);
  const cashPayments = new AggregateRepository(store, cashPaymentAggregate, recordWith(bus));
  const service = new CashPaymentsService(cashPayments, bus, clock, new CashPaymentNumbers(pool), cashPoints, config);
  return {
    app: 'cash',
    subscriptions: [
      { kind: 'projection', id: CASH_PAYMENT_VIEWS, typePrefixes: [CASH_PAYMENT_EVENT_PREFIX], handle: projectCashPaymentEvents },
      relayOf('cash.integration-events', cashPaymentAggregate),
    ],
    sweeper: {
      tasks: {
        ...expirySweep(pool, CASH_PAYMENT_SWEEPS, cashPayments, clock),
        resume: (id) => service.finishValidation(id),
      },
      caughtUpOn: CASH_PAYMENT_VIEWS,
      options: { process: 'validation' },
    },
    handlers: (caughtUp) => ({
      'cash.cash-points.create': (request) => cashPoints.create(request, clock.now()),
      'cash.cash-points.list': ({ limit }) => cashPoints.list(limit),
      'cash.cash-points.retrieve': async ({ cashPointId }) => {
        const point = await cashPoints.find(cashPointId);
        if (!point) throw notFound('cash point', cashPointId);
        return point;
      },
      'cash.cash-payments.create': (m) => service.create(m),
      'cash.cash-payments.retrieve': (m) => service.retrieve(m),
      // Read your writes: a cash payment is listed as soon as its create has been answered.
      'cash.list': async (m) => {
        await caughtUp(CASH_PAYMENT_VIEWS);
        return listCashPayments(pool, m);
      },
      // The back office's search, across integrators; a payment reference is typed with or without its spaces.
      // It reads the view as it stands, as the payments app's search does (see there).
      'cash.search-references': async ({ reference, limit }) => {
        const digits = reference.replace(/\s+/g, '');
        const [byOrder, byPayment] = await Promise.all([
          searchReferences<Exclude<CashPayment, { status: 'none' }>>(pool, 'cash_payment_views', ['order_reference'], reference, limit),
          /^[0-9]+$/.test(digits) ? searchReferences<Exclude<CashPayment, { status: 'none' }>>(pool, 'cash_payment_views', ['payment_reference'], digits, limit) : [],
        ]);
        return {
          items: [...byOrder, ...byPayment].slice(0, limit).map((r) => ({ integratorId: r.integratorId, field: r.field as 'order_reference' | 'payment_reference', resource: toCashPaymentResource(r.state) })),
        };
      },
      'cash.expected-movements': async ({ afterSeq, limit }) => {
        await caughtUp(CASH_PAYMENT_VIEWS);
        const { states, nextAfterSeq } = await statesAfter<Exclude<CashPayment, { status: 'none' }>>(pool, 'cash_payment_views', afterSeq, limit);
        return { items: states.map(expectedCashPaymentMovements), nextAfterSeq };
      },
      'cash.cash-payments.cancel': (m) => service.cancel(m),
      'cash.cash-payments.pay': (m) => service.pay(m),
      'cash.cash-payments.find-by-reference': ({ reference }) => service.findByReference(reference),
      'cash.cash-payments.instructions-page': ({ cashPaymentId, page }) => service.instructionsPage(cashPaymentId, page),
      'cash.cash-payments.qr-code': ({ cashPaymentId }) => service.qrCode(cashPaymentId),
    }),
  };
}
