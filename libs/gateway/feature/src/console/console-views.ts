import type { Notice } from './console-notice';
import type { EndpointHealth, FailedDelivery, ListResource, ParkedEvent, SubscriptionStatus } from '@pay/contracts';
import type { MessageKey, MessageParams } from '@pay/hosted-ui';
import type { Currency } from '@pay/kernel';
import type { ConsoleRoleName } from './console-sessions';
import type { AccountsFinanceViews } from './accounts-finance';

/** One field of an object as its page lists it: the API's name, and how its value reads. */
export interface Fact {
  /** The API's name of the field; shown when it has no label. */
  name: string;
  labelKey: MessageKey | null;
  kind: 'money' | 'time' | 'link' | 'yesNo' | 'status' | 'text';
  text: string;
  amount: number;
  href: string | null;
  /** A connection's name beside its id. */
  note: string | null;
}

export type ConsoleSection = 'search' | 'accounts' | 'finance' | 'operations';

export interface NavEntry {
  section: ConsoleSection;
  href: string;
  label: MessageKey;
}

/** What the console's layout reads (`it.chrome.…`) on every page, besides the hosted pages' helpers. */
export interface ConsoleChrome {
  /** The role signed in; null on the sign-in page and on a message shown without a session. */
  role: ConsoleRoleName | null;
  /** Whether actions are shown (a finance session sees none, and the server refuses them anyway). */
  admin: boolean;
  /** The session's CSRF token, for every form (`<%~ include('@console-csrf', it) %>`). */
  csrf: string;
  nav: (NavEntry & { current: boolean })[];
  stylesheet: string;
  money: (amountMinor: number, currency: Currency) => string;
  /** An instant in local time, the zone named: the currency's country, else the platform's; `—` for null. */
  at: (iso: string | null | undefined, currency?: Currency) => string;
  /** A calendar date (YYYY-MM-DD) as the console writes it and its date fields take it (DD/MM/YYYY). */
  date: (date: string) => string;
  /** A status in the page's language (`object`: the API's object name, `payment`, `delivery`, …). */
  status: (object: string, status: string) => string;
  /** An event type (`payment.succeeded`) in the page's language. */
  event: (type: string) => string;
  /** A journal entry's kind (`payment`, `payout_reversal`, …) in the page's language. */
  entryKind: (kind: string) => string;
}

/** A message above a page's content (`?error=` or `?done=` of a redirect after a form). */
export type { Notice };

/** What each console template reads (`it.…`), besides `it.chrome` and the helpers every page has (`it.t`, `it.money`, `it.time`, `it.page`). */
export interface ConsoleCoreViews {
  'console-message': { heading: MessageKey; text: MessageKey; params?: MessageParams; link?: { href: string; label: MessageKey } };
  'console-sign-in': { csrf: string; next: string; notice: Notice | null };
  'console-search': {
    query: string;
    notice: Notice | null;
    /** Null before a search; else what a reference matched, across integrators. */
    results: SearchResult[] | null;
    truncated: boolean;
  };
  'console-object': ObjectModel;
  'console-confirm': ConfirmModel;
  'console-operations': {
    notice: Notice | null;
    /** Apps that did not answer (the page shows what the others said). */
    errors: { app: string; message: string }[];
    subscriptions: SubscriptionStatus[];
    parked: ParkedEvent[];
    parkedMore: boolean;
    failingEndpoints: EndpointHealth[];
    failedDeliveries: ListResource<FailedDelivery>['data'];
    failedMore: boolean;
    max: number;
  };
}

/** A confirmation step before an action: what it does, and the form that does it (posted with the session's token). */
export interface ConfirmModel {
  heading: MessageKey;
  text: MessageKey;
  params?: MessageParams;
  action: string;
  fields: { name: string; value: string }[];
  submit: MessageKey;
  cancel: string;
}

export interface ObjectModel {
  id: string;
  kindKey: MessageKey;
  /** The API's object name (`payment`, `refund`, …): its statuses' words are this object's. */
  object: string;
  status: string | null;
  integratorId: string | null;
  currency: Currency | null;
  facts: Fact[];
  /** The status timeline: its events oldest first, each with its webhook deliveries and (admin) a redeliver link. */
  events: {
    id: string;
    type: string;
    at: string;
    redeliverHref: string | null;
    deliveries: { id: string; endpoint: string; status: string; nextAttemptAt: string | null; attempts: { at: string; statusCode: number | null; latencyMs: number; error: string | null }[] }[];
  }[];
  entries: { id: string; kind: string; at: string; postings: { account: string; href: string; direction: string; amount: number; currency: Currency }[] }[];
  audit: { id: string; action: string; actor: string; at: string; requestId: string | null }[];
  notice: Notice | null;
}

export interface SearchResult {
  href: string;
  id: string;
  kind: MessageKey;
  /** The API's object name (`payment`, `cash_payment`, `supplier_payment`). */
  object: string;
  /** The reference as stored, and which field held it. */
  reference: string;
  field: MessageKey;
  integrator: string;
  status: string;
  amount: number;
  currency: Currency;
  createdAt: string;
}

export interface ConsoleViews extends ConsoleCoreViews, AccountsFinanceViews {}
