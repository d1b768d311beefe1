import type { CashPaymentResource, CollectionResource, PaymentResource, SupplierPaymentResource } from '@pay/contracts';
import type { MessageKey, MessageParams } from '@pay/hosted-ui';
import type { ErrorMessage } from '../forms';
import type { LockWarning } from '../stores/sign-in-attempts';

/** What a page says once its object is no longer waiting for the person (paid, declined, expired…). */
export interface Outcome {
  key: MessageKey;
  params: MessageParams;
  success: boolean;
  /** A translated word filled in as `{reason}`. */
  reasonKey?: MessageKey;
}

/** A row of an agent's list: a collection, opened by its link. */
export interface AgentListItem {
  href: string;
  recipient: string;
  order: string;
  amount: number;
  currency: CollectionResource['currency'];
  /** The deposit's deadline, once picked up. */
  dueAt: string | null;
  /** Where to deposit it (a carrier's list). */
  point: string | null;
}

/** What each template of views/ reads (`it.…`), besides the helpers every page has (`it.t`, `it.money`, `it.time`, `it.page`). */
export interface GatewayViews {
  message: { heading: MessageKey; text: MessageKey; link?: { href: string; label: MessageKey } };
  payment: {
    payment: PaymentResource;
    merchant: string;
    statusKey: MessageKey;
    /** Sign in, then authorize or decline; once the payment is no longer pending, its outcome. */
    step: 'sign_in' | 'confirm' | 'done';
    outcome: Outcome | null;
    returnUrl: string | null;
    /** The signed-in customer's name (with a way to sign out), null before sign-in. */
    signedInAs: string | null;
    /** The phone typed before a refused sign-in, shown again. */
    typedPhone: string;
    /** A mobile number of the payment's country, written both ways: the phone field's hint. */
    phoneExample: { national: string; international: string };
    csrf: string;
    error: ErrorMessage | null;
    /** The fields the error is about: marked invalid, described by it, the last one focused. */
    errorFields: string[];
    /** After a wrong PIN, the attempts left before the lock. */
    lockWarning: LockWarning | null;
  };
  approval: {
    payment: SupplierPaymentResource;
    fee: number;
    supplier: string;
    business: string;
    statusKey: MessageKey;
    step: 'sign_in' | 'confirm' | 'done';
    outcome: Outcome | null;
    csrf: string;
    error: ErrorMessage | null;
    /** After a wrong password, the attempts left before the lock. */
    lockWarning: LockWarning | null;
  };
  'agent-sign-in': { csrf: string; error: ErrorMessage | null; lockWarning: LockWarning | null };
  'agent-home': {
    agentName: string;
    roleKey: MessageKey;
    cashier: boolean;
    point: string;
    /** A cashier's expected deposits, the most urgent first: each opens its collection. */
    deposits: AgentListItem[];
    /** A carrier's pickups waiting, oldest first. */
    pickups: AgentListItem[];
    /** The cash a carrier holds, to deposit (at `point`), the most urgent first. */
    toDeposit: AgentListItem[];
    csrf: string;
    error: ErrorMessage | null;
  };
  'agent-cash-payment': { payment: CashPaymentResource; reference: string; merchant: string; statusKey: MessageKey; csrf: string; error: ErrorMessage | null };
  'agent-collection': {
    collection: CollectionResource;
    recipient: string;
    statusKey: MessageKey;
    canValidate: boolean;
    /** A carrier's handover form (the collection awaits pickup). */
    canHandover: boolean;
    /** The collection's QR code (its id), on the screen of the carrier who holds the cash. */
    qrCode: string | null;
    notice: MessageKey | null;
    /** Where the carrier deposits the cash, once collected. */
    depositPoint: { name: string; address: string } | null;
    /** An amount received that differs from the expected one, typed and waiting for the cashier's confirmation (minor units). */
    confirm: { minor: number; decimal: string } | null;
    csrf: string;
    error: ErrorMessage | null;
  };
}
