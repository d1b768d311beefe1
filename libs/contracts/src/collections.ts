import type { Currency } from '@pay/kernel';
import { topicsOf, type ApplyDeadlines, type DeadlinesApplied, type ListObjects, type MessageKeys } from './common';
import type { ListResource } from './resources';

/** The collections app: marketplace cash reconciliation (collection, deposit, settlement). */

export const COLLECTION_STATUSES = ['awaiting_collection', 'collected_awaiting_deposit', 'deposit_under_review', 'settled'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];

export interface CollectionDepositResource {
  /** The assigned cash point (`cp_…`). */
  point: string;
  due_at: string;
  overdue: boolean;
  deposited_late: boolean;
  amount_expected: number;
  amount_received: number | null;
  validated_at: string | null;
}

export interface CollectionSettlementResource {
  gross_amount: number;
  fee_amount: number;
  net_amount: number;
  currency: Currency;
  settled_at: string;
}

export interface CollectionResource {
  id: string;
  object: 'collection';
  status: CollectionStatus;
  amount: number;
  currency: Currency;
  order_reference: string;
  beneficiary_connection: string;
  collected_at: string | null;
  deposit: CollectionDepositResource | null;
  settlement: CollectionSettlementResource | null;
  created_at: string;
}

export interface CreateCollectionRequest {
  /** Allocated by the gateway and kept with the idempotency key: a retried create reaches the same collection. */
  collectionId: string;
  integratorId: string;
  amount: number;
  currency: Currency;
  orderReference: string;
  beneficiaryConnection: string;
}

/** integratorId null: the agents' application, which reaches a collection by its unguessable id alone. */
export interface CollectionRef {
  integratorId: string | null;
  collectionId: string;
}

export interface ValidateDepositRequest extends CollectionRef {
  /** Counted by the cash agent, minor units, 0 or more. */
  amountReceived: number;
}

/**
 * The back office resolves a deposit under review (admin API): accept the received amount as the
 * settled gross, or record a corrected count (the exact amount settles; any other stays under review).
 */
export type ResolveDepositRequest = { collectionId: string } & ({ resolution: 'accept_received' } | { resolution: 'correct'; amountReceived: number });

export interface CollectionsTopics {
  'collections.create': { request: CreateCollectionRequest; reply: CollectionResource };
  'collections.retrieve': { request: CollectionRef; reply: CollectionResource };
  'collections.confirm-handover': { request: CollectionRef; reply: CollectionResource };
  'collections.validate-deposit': { request: ValidateDepositRequest; reply: CollectionResource };
  'collections.resolve-deposit': { request: ResolveDepositRequest; reply: CollectionResource };
  'collections.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
  'collections.list': { request: ListObjects<'order_reference' | 'status'>; reply: ListResource<CollectionResource> };
  /** Every collection whose cash is collected and not yet settled (finance's cash in transit), oldest first. */
  'collections.unsettled': { request: { limit: number }; reply: CollectionResource[] };
}

/** Each topic's message key (common.ts, MessageKeyOf); null: about no entity, a random key. */
export const COLLECTIONS_MESSAGE_KEYS = {
  'collections.create': 'collectionId',
  'collections.retrieve': 'collectionId',
  'collections.confirm-handover': 'collectionId',
  'collections.validate-deposit': 'collectionId',
  'collections.resolve-deposit': 'collectionId',
  'collections.apply-deadlines': null,
  'collections.list': null,
  'collections.unsettled': null,
} as const satisfies MessageKeys<CollectionsTopics>;

export const COLLECTIONS_TOPICS = topicsOf(COLLECTIONS_MESSAGE_KEYS);
