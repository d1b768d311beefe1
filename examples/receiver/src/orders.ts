import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { PaymentsError, type Currency, type Payments } from '@pay/sdk';
import { inTransaction } from './db';
import { attemptFromRow, attemptState, orderFromRow, retrieveObject, type ApiObject, type Attempt, type Kind, type Order } from './model';

export interface NewOrder {
  reference: string;
  kind: Kind;
  amount: number;
  currency: Currency;
  /** merchant_connection, payer_connection (supplier payments) or beneficiary_connection (collections). */
  connection: string;
  /** Required for supplier payments. */
  beneficiary?: string;
  /** Required for payments: an https:// URL. */
  returnUrl?: string;
}

/** createAttempt refused: the order is paid, or an earlier attempt is pending or succeeded (rule 8). */
export class AttemptRefusedError extends Error {
  override readonly name = 'AttemptRefusedError';
}

/** The integrator's orders and their payment attempts (one API object per attempt). */
export class Orders {
  constructor(
    private readonly pool: Pool,
    private readonly client: Payments,
  ) {}

  async create(order: NewOrder): Promise<Order> {
    if (order.kind === 'payment' && !order.returnUrl) throw new TypeError('a payment order needs returnUrl');
    if (order.kind === 'supplier_payment' && !order.beneficiary) throw new TypeError('a supplier payment order needs beneficiary');
    const { rows } = await this.pool.query(
      `INSERT INTO orders (reference, kind, amount, currency, connection, beneficiary, return_url)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (reference) DO NOTHING RETURNING *`,
      [order.reference, order.kind, order.amount, order.currency, order.connection, order.beneficiary ?? null, order.returnUrl ?? null],
    );
    if (!rows[0]) throw new Error(`order ${order.reference} already exists`);
    return orderFromRow(rows[0]);
  }

  async get(reference: string): Promise<(Order & { attempts: Attempt[] }) | undefined> {
    const { rows } = await this.pool.query('SELECT * FROM orders WHERE reference = $1', [reference]);
    if (!rows[0]) return undefined;
    const attempts = await this.pool.query('SELECT * FROM attempts WHERE order_reference = $1 ORDER BY created_at', [reference]);
    return { ...orderFromRow(rows[0]), attempts: attempts.rows.map(attemptFromRow) };
  }

  /**
   * A new attempt at paying the order: the API object (pay_…, cp_…, sp_…, col_…) created with a fresh
   * Idempotency-Key. Refused when the order is no longer unpaid, or when an earlier attempt is pending
   * (asked to the API: the stored status may be behind) or succeeded (rule 8).
   *
   * The attempt row, with its key, is written before the create: a create that was sent but not answered
   * (crash, timeout) is resumed by the next call with the same key, so it never makes a second object.
   */
  async createAttempt(reference: string): Promise<Attempt> {
    const reserved = await inTransaction(this.pool, (db) => this.reserve(db, reference));
    if (typeof reserved === 'string') throw new AttemptRefusedError(reserved);
    const { order, key } = reserved;
    let object: ApiObject;
    try {
      object = await this.createObject(order, key);
    } catch (error) {
      // Refused for good (a 4xx other than 409/429, never retried): nothing was created, the attempt no longer blocks the order.
      if (error instanceof PaymentsError && error.status !== undefined && error.status < 500 && error.status !== 409 && error.status !== 429) {
        await this.pool.query(`UPDATE attempts SET status = 'create_failed' WHERE idempotency_key = $1`, [key]);
      }
      throw error;
    }
    // Concurrent calls resuming the same key got the same object: the first one to write sets the status.
    const { rows } = await this.pool.query(
      `UPDATE attempts SET status = CASE WHEN object_id IS NULL THEN $3 ELSE status END, object_id = $2
       WHERE idempotency_key = $1 RETURNING *`,
      [key, object.id, object.status],
    );
    return attemptFromRow(rows[0]);
  }

  /** Under the order's lock (one createAttempt at a time per order): the key to create with, or why not. */
  private async reserve(db: PoolClient, reference: string): Promise<{ order: Order; key: string } | string> {
    const found = await db.query('SELECT * FROM orders WHERE reference = $1 FOR UPDATE', [reference]);
    if (!found.rows[0]) return `no order ${reference}`;
    const order = orderFromRow(found.rows[0]);
    if (order.status !== 'unpaid') return `order ${reference} is already ${order.status}`;
    const attempts = (await db.query('SELECT * FROM attempts WHERE order_reference = $1 ORDER BY created_at', [reference])).rows.map(attemptFromRow);
    const unanswered = attempts.find((a) => a.status === 'creating');
    if (unanswered) return { order, key: unanswered.idempotencyKey };
    for (const attempt of attempts) {
      let status = attempt.status;
      if (attemptState(status) === 'pending' && attempt.objectId) {
        status = (await retrieveObject(this.client, order.kind, attempt.objectId)).status;
        // Committed even when refusing below: the stored status catches up with the API's.
        await db.query('UPDATE attempts SET status = $2 WHERE idempotency_key = $1', [attempt.idempotencyKey, status]);
      }
      if (attemptState(status) !== 'failed') return `attempt ${attempt.objectId} of order ${reference} is ${status}`;
    }
    const key = `${reference}-${randomUUID()}`; // a fresh key: a new attempt, a new object
    await db.query(`INSERT INTO attempts (idempotency_key, order_reference, status) VALUES ($1, $2, 'creating')`, [key, reference]);
    return { order, key };
  }

  private async createObject(order: Order, idempotencyKey: string): Promise<ApiObject> {
    const { amount, currency, reference, connection } = order;
    const options = { idempotencyKey };
    switch (order.kind) {
      case 'payment':
        return (await this.client.payments.create(
          { amount, currency, order_reference: reference, merchant_connection: connection, return_url: order.returnUrl! },
          options,
        )) as unknown as ApiObject;
      case 'cash_payment':
        return (await this.client.cashPayments.create({ amount, currency, order_reference: reference, merchant_connection: connection }, options)) as unknown as ApiObject;
      case 'supplier_payment':
        return (await this.client.supplierPayments.create(
          { amount, currency, invoice_reference: reference, payer_connection: connection, beneficiary: order.beneficiary! },
          options,
        )) as unknown as ApiObject;
      case 'collection':
        return (await this.client.collections.create({ amount, currency, order_reference: reference, beneficiary_connection: connection }, options)) as unknown as ApiObject;
    }
  }
}
