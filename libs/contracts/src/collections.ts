import type { Currency } from '@pay/kernel';
import { topicsOf, type ApplyDeadlines, type DeadlinesApplied, type ListObjects, type MessageKeys } from './common';
import { amount, currency, id, type ListResource } from './resources';
import { boolean, literal, named, nullable, object, oneOfValues, string, time, type Static } from './schema';

/** The collections app: marketplace cash reconciliation (collection, deposit, settlement). */

export const COLLECTION_STATUSES = ['awaiting_collection', 'collected_awaiting_deposit', 'deposit_under_review', 'settled'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];

export const CollectionDepositResource = named(
  'CollectionDeposit',
  object({
    point: id('cp_', 'The assigned cash point.'),
    due_at: time(),
    overdue: boolean(),
    deposited_late: boolean(),
    amount_expected: amount(),
    amount_received: nullable(amount()),
    validated_at: nullable(time()),
  }),
);
export type CollectionDepositResource = Static<typeof CollectionDepositResource>;

export const CollectionSettlementResource = named(
  'CollectionSettlement',
  object({ gross_amount: amount(), fee_amount: amount(), net_amount: amount(), currency: currency(), settled_at: time() }),
);
export type CollectionSettlementResource = Static<typeof CollectionSettlementResource>;

export const CollectionResource = named(
  'Collection',
  object(
    {
      id: id('col_'),
      object: literal('collection'),
      status: oneOfValues(COLLECTION_STATUSES),
      amount: amount(),
      currency: currency(),
      order_reference: string(),
      beneficiary_connection: id('conn_'),
      collected_at: nullable(time()),
      deposit: nullable(CollectionDepositResource),
      settlement: nullable(CollectionSettlementResource),
      created_at: time(),
    },
    { description: 'Marketplace cash: collected by a carrier, deposited at a cash point, settled to the wholesaler.' },
  ),
);
export type CollectionResource = Static<typeof CollectionResource>;

/** The code the wholesaler gives the carrier at handover (GET /v1/collections/{id}/handover_code). */
export const HandoverCodeResource = named('HandoverCode', object({ object: literal('handover_code'), collection: id('col_'), code: string() }));
export type HandoverCodeResource = Static<typeof HandoverCodeResource>;

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

export interface ConfirmHandoverRequest extends CollectionRef {
  /** The agent (agt_…) who confirmed it in the agents' application; absent from the sandbox helper. */
  carrier?: string;
}

/** What a carrier is expected to handle: pickups waiting (oldest first), and the cash they hold to deposit (most urgent first). */
export interface CarrierQueue {
  awaitingPickup: CollectionResource[];
  toDeposit: CollectionResource[];
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
  'collections.confirm-handover': { request: ConfirmHandoverRequest; reply: CollectionResource };
  'collections.validate-deposit': { request: ValidateDepositRequest; reply: CollectionResource };
  'collections.resolve-deposit': { request: ResolveDepositRequest; reply: CollectionResource };
  'collections.apply-deadlines': { request: ApplyDeadlines; reply: DeadlinesApplied };
  'collections.list': { request: ListObjects<'order_reference' | 'status'>; reply: ListResource<CollectionResource> };
  /** Every collection whose cash is collected and not yet settled (finance's cash in transit), oldest first. */
  'collections.unsettled': { request: { limit: number }; reply: CollectionResource[] };
  /** The agents' application: a carrier's pickups and deposits (each list at most `limit`). */
  'collections.carrier-queue': { request: { carrier: string; limit: number }; reply: CarrierQueue };
  /** The agents' application: the deposits a cash point expects (collected, not yet deposited), most urgent first. */
  'collections.expected-deposits': { request: { cashPoint: string; limit: number }; reply: CollectionResource[] };
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
  'collections.carrier-queue': null,
  'collections.expected-deposits': null,
} as const satisfies MessageKeys<CollectionsTopics>;

export const COLLECTIONS_TOPICS = topicsOf(COLLECTIONS_MESSAGE_KEYS);
