import { topicsOf, type MessageKeys } from './common';
import type { CashPaymentResource } from './cash';
import type { PaymentResource } from './resources';
import type { SupplierPaymentResource } from './supplier-payments';

/**
 * The back office console's reads across integrators (the gateway's /console): the payments whose
 * order, invoice or payment reference is the one searched, and the integrator an object found by its
 * id alone belongs to (so that its events and deliveries are read as the integrator's own).
 */

/** A reference typed in the console's search: matched exactly, at most `limit` matches. */
export interface ReferenceSearch {
  reference: string;
  limit: number;
}

/** One object whose reference matched: the integrator it belongs to, its resource, and which reference field held it. */
export interface ReferenceMatch<R> {
  integratorId: string;
  field: 'order_reference' | 'invoice_reference' | 'payment_reference';
  resource: R;
}

export interface ConsoleTopics {
  'payments.search-references': { request: ReferenceSearch; reply: { items: ReferenceMatch<PaymentResource>[] } };
  'cash.search-references': { request: ReferenceSearch; reply: { items: ReferenceMatch<CashPaymentResource>[] } };
  'supplier-payments.search-references': { request: ReferenceSearch; reply: { items: ReferenceMatch<SupplierPaymentResource>[] } };
  /** The integrator of a refund (`re_`) or a payout (`po_`); resource_not_found for anything else. */
  'payments.locate': { request: { id: string }; reply: { integratorId: string } };
  /** The integrator of an event (`evt_`). */
  'webhooks.events.locate': { request: { id: string }; reply: { integratorId: string } };
}

export const CONSOLE_MESSAGE_KEYS = {
  'payments.search-references': null,
  'cash.search-references': null,
  'supplier-payments.search-references': null,
  'payments.locate': 'id',
  'webhooks.events.locate': 'id',
} as const satisfies MessageKeys<ConsoleTopics>;

export const CONSOLE_TOPICS = topicsOf(CONSOLE_MESSAGE_KEYS);
