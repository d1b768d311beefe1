/**
 * What the messages of several apps share, and how a topic declares its message key. A leaf: it
 * imports nothing, so every app's message file may import it without a circle.
 */

/** The apps of the platform; each request topic is served by exactly one of them. */
export const APP_NAMES = ['gateway', 'payments', 'ledger', 'webhooks', 'cash', 'supplier-payments', 'collections'] as const;
export type AppName = (typeof APP_NAMES)[number];

/** Sent by the clock owner after the service clock moved: apply every deadline now passed. */
export interface ApplyDeadlines {
  clockOffsetMs: number;
}

export interface DeadlinesApplied {
  applied: number;
}

/**
 * A page of one of an integrator's lists: newest first, `startingAfter` an id of the list, equality
 * filters by name, and `created_at` in [createdGte, createdLt) (ISO times, validated by the gateway).
 */
export interface ListObjects<F extends string> {
  integratorId: string;
  limit: number;
  startingAfter?: string;
  filters: Partial<Record<F, string>>;
  createdGte?: string;
  createdLt?: string;
}

export interface IntegratorObjectRef {
  integratorId: string;
  id: string;
}

// ---- message keys ----

/**
 * The ids of the objects with a stream of their own (an aggregate): a request that carries one is
 * about that object, and must be keyed by it (the compiler holds every declaration to this).
 */
export type EntityIdField = 'paymentId' | 'cashPaymentId' | 'supplierPaymentId' | 'collectionId' | 'payoutId' | 'batchId';

/** The string-valued fields of a request (of each member, for a union): what can key its message. */
export type StringField<R> = R extends unknown ? { [K in keyof R]-?: NonNullable<R[K]> extends string ? K : never }[keyof R] & string : never;

/**
 * A topic's message key: the field of its request whose value keys the Kafka message, so that the
 * requests about one object stay in order on one partition. A request naming an entity is keyed by
 * its id; any other names one of its string fields, or `null`: it is about no entity, and gets a
 * random key (spread over the partitions). A key field absent from a message also gives a random key.
 */
export type MessageKeyOf<R> = [Extract<StringField<R>, EntityIdField>] extends [never] ? StringField<R> | null : Extract<StringField<R>, EntityIdField>;

/** Every topic of a topics map with its message key: `satisfies MessageKeys<XTopics>` lists each topic once, none missing, none extra. */
export type MessageKeys<Topics> = { readonly [T in keyof Topics]: Topics[T] extends { request: infer R } ? MessageKeyOf<R> : never };

/** Topics whose partition a string field of their request picks, rather than their message key (see LEDGER_PARTITION_FIELDS). */
export type PartitionFields<Topics> = { readonly [T in keyof Topics]?: Topics[T] extends { request: infer R } ? StringField<R> : never };

/** The topics of a message-key map, in its order. */
export const topicsOf = <K extends object>(keys: K): (keyof K & string)[] => Object.keys(keys) as (keyof K & string)[];
