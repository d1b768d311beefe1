import type { Currency, Payments } from '@pay/sdk';

/** What an order is paid with: one kind of API object per order. */
export type Kind = 'payment' | 'cash_payment' | 'supplier_payment' | 'collection';
export const KINDS: readonly Kind[] = ['payment', 'cash_payment', 'supplier_payment', 'collection'];

/**
 * The integrator's order status. It only moves forward (rule 6): `unpaid` → `paid` for payments,
 * cash payments and supplier payments; `unpaid` → `collected` → `payable` for collections, where
 * `payable` (the money may be paid out) comes from settlement.completed only (rule 9).
 */
export type OrderStatus = 'unpaid' | 'collected' | 'paid' | 'payable';
export const ORDER_RANK: Record<OrderStatus, number> = { unpaid: 0, collected: 1, paid: 2, payable: 2 };
export const statusesBelow = (status: OrderStatus): OrderStatus[] =>
  (Object.keys(ORDER_RANK) as OrderStatus[]).filter((s) => ORDER_RANK[s] < ORDER_RANK[status]);

/** Object statuses that end an attempt without money (and `create_failed`: the API refused the create). */
const FAILED = new Set(['declined', 'canceled', 'expired', 'rejected', 'create_failed']);
const SUCCEEDED = new Set(['succeeded', 'settled']);

/** An attempt is pending until its object reaches a final status (`creating`: the create was not answered yet). */
export const attemptState = (status: string): 'pending' | 'succeeded' | 'failed' =>
  SUCCEEDED.has(status) ? 'succeeded' : FAILED.has(status) ? 'failed' : 'pending';

/** The order status an object status stands for; undefined while the object is still pending. */
export function orderStatusFor(kind: Kind, status: string): OrderStatus | undefined {
  if (kind === 'collection') return status === 'settled' ? 'payable' : status === 'awaiting_collection' ? undefined : 'collected';
  if (status === 'succeeded') return 'paid';
  return FAILED.has(status) ? 'unpaid' : undefined;
}

/** `payment.succeeded` → payment, `settlement.completed` → collection; undefined for types without an order (refund.*, webhook_endpoint.*, unknown). */
export function kindOfEvent(type: string): Kind | undefined {
  const prefix = type.split('.')[0];
  if (prefix === 'settlement') return 'collection';
  return KINDS.find((kind) => kind === prefix);
}

/** The fields of an object that are matched against the stored attempt and order (rule 5). */
export interface ObjectFields {
  id: string | undefined;
  reference: string | undefined;
  connection: string | undefined;
  amount: number | undefined;
  currency: string | undefined;
  status: string | undefined;
  version: number | undefined;
}

const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const num = (value: unknown) => (typeof value === 'number' ? value : undefined);

export function fieldsOf(kind: Kind, data: Record<string, unknown>): ObjectFields {
  const reference = kind === 'supplier_payment' ? data['invoice_reference'] : data['order_reference'];
  const connection =
    kind === 'supplier_payment' ? data['payer_connection'] : kind === 'collection' ? data['beneficiary_connection'] : data['merchant_connection'];
  return {
    id: str(data['id']),
    reference: str(reference),
    connection: str(connection),
    amount: num(data['amount']),
    currency: str(data['currency']),
    status: str(data['status']),
    version: num(data['object_version']),
  };
}

export type ApiObject = Record<string, unknown> & { id: string; status: string };

/** `GET` of the object, through the SDK (rules 5, 7 and 8). */
export async function retrieveObject(client: Payments, kind: Kind, id: string): Promise<ApiObject> {
  switch (kind) {
    case 'payment':
      return (await client.payments.retrieve(id)) as unknown as ApiObject;
    case 'cash_payment':
      return (await client.cashPayments.retrieve(id)) as unknown as ApiObject;
    case 'supplier_payment':
      return (await client.supplierPayments.retrieve(id)) as unknown as ApiObject;
    case 'collection':
      return (await client.collections.retrieve(id)) as unknown as ApiObject;
  }
}

export interface Order {
  reference: string;
  kind: Kind;
  amount: number;
  currency: Currency;
  /** merchant_connection (payments, cash payments), payer_connection (supplier payments), beneficiary_connection (collections). */
  connection: string;
  /** Supplier payments: the beneficiary paid. */
  beneficiary: string | null;
  /** Payments: where the customer returns after authorizing. */
  returnUrl: string | null;
  status: OrderStatus;
  /** The object (pay_…, cp_…) whose success paid the order. */
  paidBy: string | null;
  review: boolean;
  reviewReason: string | null;
}

export interface Attempt {
  idempotencyKey: string;
  orderReference: string;
  objectId: string | null;
  /** The object's status as last known, or `creating` / `create_failed`. */
  status: string;
  /** The highest object_version seen in an event about this object. */
  objectVersion: number | null;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- rows of pg */
export const orderFromRow = (row: any): Order => ({
  reference: row.reference,
  kind: row.kind,
  amount: Number(row.amount), // bigint columns arrive as strings
  currency: row.currency,
  connection: row.connection,
  beneficiary: row.beneficiary,
  returnUrl: row.return_url,
  status: row.status,
  paidBy: row.paid_by,
  review: row.review,
  reviewReason: row.review_reason,
});

export const attemptFromRow = (row: any): Attempt => ({
  idempotencyKey: row.idempotency_key,
  orderReference: row.order_reference,
  objectId: row.object_id,
  status: row.status,
  objectVersion: row.object_version,
});
/* eslint-enable @typescript-eslint/no-explicit-any */
