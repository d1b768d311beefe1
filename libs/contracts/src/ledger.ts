import type { Currency } from '@pay/kernel';
import { topicsOf, type MessageKeys, type PartitionFields } from './common';
import type { BatchOutcome } from './errors';
import type {
  BalanceResource,
  BalanceTransactionResource,
  CashInTransitResource,
  FeeRevenueResource,
  JournalEntryResource,
  LedgerAccountResource,
  ListResource,
  ChainEntryResource,
  ChainVerificationResource,
  LedgerHeadResource,
  SigningKeyResource,
  StatementResource,
  TopupResource,
  TrialBalanceResource,
} from './resources';

/** The ledger app: accounts, balanced transfers and the journal, and finance's reads of them. */

export type LedgerAccountKind = 'customer' | 'connection' | 'beneficiary' | 'cash_point';

/**
 * The ledger account of the cash held at a cash point, one per currency it has received:
 * `<cash point id>:<CUR>` (e.g. `cp_…:DZD`), opened on first use.
 */
export const cashPointAccount = (cashPointId: string, currency: Currency): string => `${cashPointId}:${currency}`;

export interface OpenAccount {
  owner: string;
  kind: LedgerAccountKind;
  currency: Currency;
}

export interface GetBalance {
  owner: string;
  /** ISO time: the balance as it stood then (movements created at or before it). */
  asOf?: string;
}

export interface CreateTopup {
  /** Idempotency: the top-up id is chosen by the caller; a repeat returns the same top-up. */
  topupId: string;
  owner: string;
  amount: number;
  currency: Currency;
}

/** The use case whose fee rule applies (fee schedule key). */
export type FeeUseCase = 'payment' | 'cash_payment' | 'supplier_payment' | 'settlement';

/** Movements of physical cash between custody accounts (handover, deposit, write-off): never a fee. */
export type CashMovementKind = 'cash_handover' | 'cash_deposit' | 'cash_write_off';

/** Money returned: a refund moves the amount back from the merchant to the customer, never with a fee. */
export type ReturnKind = 'refund';

/**
 * Money out to a bank: `payout` moves the amount from the connection to the platform's payouts in
 * transit, `payout_reversal` back (canceled, returned by the bank), `payout_paid` from in transit to
 * paid out (the bank booked it). Never a fee.
 */
export type PayoutKind = 'payout' | 'payout_reversal' | 'payout_paid';

/** What a transfer is for: its journal entry's kind, and for a fee use case the fee rule. */
export type TransferUseCase = FeeUseCase | CashMovementKind | ReturnKind | PayoutKind;

/** The platform's accounts of payouts, per currency: in transit (sent to the bank, not booked) and paid out. */
export const payoutsInTransitAccount = (currency: Currency): string => `platform:payouts_in_transit:${currency}`;
export const paidOutAccount = (currency: Currency): string => `platform:paid_out:${currency}`;

/**
 * One balanced movement: `amount` leaves `debitOwner`; the fee of `useCase` goes to the platform.
 * feeMode `deducted`: the payee gets amount - fee (payments, cash, settlements).
 * feeMode `added`: the payer pays amount + fee and the payee gets amount (supplier payments).
 * feeMode `none`: the payee gets the amount, no fee whatever the schedule (required for cash movements).
 * `operationId` makes the transfer idempotent: the same id always answers the first outcome.
 */
export interface ExecuteTransfer {
  operationId: string;
  reference: string;
  useCase: TransferUseCase;
  feeMode: 'deducted' | 'added' | 'none';
  debitOwner: string;
  creditOwner: string;
  amount: number;
  currency: Currency;
}

export type TransferOutcome =
  | { status: 'completed'; entryId: string; feeAmount: number; netAmount: number; debitedAmount: number; createdAt: string }
  | { status: 'rejected'; reason: 'insufficient_balance' };

/**
 * Transfers of one currency that one caller sends together (those that queued while its last request
 * was in flight), at most TRANSFER_BATCH_SIZE_MAX: each runs as `ledger.transfer` would.
 */
export interface ExecuteTransfers {
  currency: Currency;
  transfers: ExecuteTransfer[];
}

/** The fee the schedule would charge for a use case (shown before a payer approves). */
export interface FeeQuoteRequest {
  useCase: FeeUseCase;
  feeMode: 'deducted' | 'added';
  amount: number;
  currency: Currency;
}

export interface FeeQuote {
  feeAmount: number;
  /** What leaves the payer: amount (fee deducted) or amount + fee (fee added). */
  debitedAmount: number;
}

/** Entries of one reference, or of one account over a period; oldest first. */
export type ListEntries =
  | { reference: string }
  | { account: string; from?: string; to?: string; limit: number; startingAfter?: string };

export interface ListLedgerAccounts {
  kind?: string;
  currency?: string;
  limit: number;
  startingAfter?: string;
}

export interface StatementRequest {
  account: string;
  from: string;
  to: string;
  limit: number;
  startingAfter?: string;
}

/** An account's balance over [from, to] for a chart: each movement when they are few, else `samples` instants. */
export interface BalanceSeriesRequest {
  account: string;
  from: string;
  to: string;
  samples: number;
}

/** An account's balance at an instant (ISO). */
export interface BalancePoint {
  at: string;
  balance: number;
}

export interface BalanceSeries {
  currency: Currency;
  /** The balance just before `from`, and at `to` (the last point's, or the opening one). */
  opening: number;
  closing: number;
  /** The period's movements: the sums of its debits and of its credits (a statement's, over all its pages). */
  totalDebits: number;
  totalCredits: number;
  /** Each movement's time and the balance after it; or, `sampled`, the balance at evenly spaced instants ending at `to`. */
  points: BalancePoint[];
  sampled: boolean;
}

export interface Period {
  from: string;
  to: string;
}

/** A connection's movements, newest first (the gateway has checked that the connection is the caller's). */
export interface ListBalanceTransactions {
  owner: string;
  limit: number;
  startingAfter?: string;
  source?: string;
  createdGte?: string;
  createdLt?: string;
}

export interface LedgerTopics {
  'ledger.open-account': { request: OpenAccount; reply: BalanceResource };
  'ledger.get-balance': { request: GetBalance; reply: BalanceResource };
  'ledger.topup': { request: CreateTopup; reply: TopupResource };
  'ledger.transfer': { request: ExecuteTransfer; reply: TransferOutcome };
  /** Each transfer's outcome, in the batch's order. */
  'ledger.transfer-batch': { request: ExecuteTransfers; reply: { outcomes: BatchOutcome<TransferOutcome>[] } };
  'ledger.entries': { request: ListEntries; reply: ListResource<JournalEntryResource> };
  'ledger.trial-balance': { request: { asOf?: string }; reply: TrialBalanceResource };
  'ledger.accounts.list': { request: ListLedgerAccounts; reply: ListResource<LedgerAccountResource> };
  'ledger.statement': { request: StatementRequest; reply: StatementResource };
  'ledger.balance-series': { request: BalanceSeriesRequest; reply: BalanceSeries };
  'ledger.fee-revenue': { request: Period; reply: FeeRevenueResource };
  /** The cash custody balances per currency (the collections behind them come from the collections app). */
  'ledger.cash-custody': { request: Record<string, never>; reply: Omit<CashInTransitResource, 'collections'> };
  'ledger.fee-quote': { request: FeeQuoteRequest; reply: FeeQuote };
  'ledger.balance-transactions.list': { request: ListBalanceTransactions; reply: ListResource<BalanceTransactionResource> };
  /** Any connection's movement by id: the gateway answers 404 unless its connection is the caller's. */
  'ledger.balance-transactions.retrieve': { request: { id: string }; reply: BalanceTransactionResource };
  /** The chain from a sequence on, ascending. */
  'ledger.chain.list': { request: { fromSequence: number; limit: number }; reply: ListResource<ChainEntryResource> };
  /** The head signed now: the latest, or the one at `toSequence` (an export's end). */
  'ledger.chain.head': { request: { toSequence?: number }; reply: LedgerHeadResource };
  'ledger.signing-keys': { request: Record<string, never>; reply: ListResource<SigningKeyResource> };
  /** Every hash recomputed from the stored entries. */
  'ledger.chain.verify': { request: Record<string, never>; reply: ChainVerificationResource };
}

/** Each topic's message key (common.ts, MessageKeyOf); null: about no entity, a random key. */
export const LEDGER_MESSAGE_KEYS = {
  'ledger.open-account': 'owner',
  'ledger.get-balance': 'owner',
  'ledger.topup': 'topupId',
  'ledger.transfer': 'operationId',
  /** A batch is about many operations (an operation's retry waits for its first request's answer). */
  'ledger.transfer-batch': null,
  /** By reference (an object's id); a page of an account's entries gets a random key. */
  'ledger.entries': 'reference',
  'ledger.trial-balance': null,
  'ledger.accounts.list': null,
  'ledger.statement': 'account',
  'ledger.balance-series': 'account',
  'ledger.fee-revenue': null,
  'ledger.cash-custody': null,
  'ledger.fee-quote': null,
  'ledger.balance-transactions.list': 'owner',
  'ledger.balance-transactions.retrieve': 'id',
  'ledger.chain.list': null,
  'ledger.chain.head': null,
  'ledger.signing-keys': null,
  'ledger.chain.verify': null,
} as const satisfies MessageKeys<LedgerTopics>;

export const LEDGER_TOPICS = topicsOf(LEDGER_MESSAGE_KEYS);

/**
 * The field whose value picks the Kafka partition of a ledger write, instead of its message key (which
 * still orders it): every entry of a currency moves that currency's platform accounts (fees, funding),
 * rows each entry locks, so its writes go to one partition, one ledger instance, and a second instance
 * takes other currencies and reads rather than waiting on those rows' locks.
 */
export const LEDGER_PARTITION_FIELDS = {
  'ledger.topup': 'currency',
  'ledger.transfer': 'currency',
  'ledger.transfer-batch': 'currency',
} as const satisfies PartitionFields<LedgerTopics>;
