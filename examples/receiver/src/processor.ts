import type { PoolClient } from 'pg';
import { NotFoundError, type Event, type Payments } from '@pay/sdk';
import {
  attemptFromRow,
  fieldsOf,
  kindOfEvent,
  ORDER_RANK,
  orderFromRow,
  orderStatusFor,
  retrieveObject,
  statusesBelow,
  type Attempt,
  type Kind,
  type ObjectFields,
  type Order,
} from './model';

export interface ProcessOptions {
  client: Payments;
  /** An event created longer ago than this is late: its object is retrieved (rule 7). */
  lateAfterMs: number;
}

/**
 * Applies one stored event to the integrator's orders, inside the worker's transaction (which also marks
 * the event processed: rule 4). Answers the outcome recorded with the event. Throws to be retried later
 * (the API did not answer a retrieve, the attempt is still being created): nothing is then committed.
 */
export async function processEvent(db: PoolClient, event: Event, { client, lateAfterMs }: ProcessOptions): Promise<string> {
  const kind = kindOfEvent(event.type);
  // refund.*, webhook_endpoint.disabled and types added later: stored and acknowledged, no order effect here.
  if (!kind) return 'ignored: no order effect';
  const fields = fieldsOf(kind, event.data);

  // Orders are locked before attempts, here as in createAttempt: the two never wait on each other in a cycle.
  const known = fields.id ? await db.query('SELECT order_reference FROM attempts WHERE object_id = $1', [fields.id]) : undefined;
  const reference: string | undefined = known?.rows[0]?.order_reference ?? fields.reference;
  const orderRow = reference ? (await db.query('SELECT * FROM orders WHERE reference = $1 FOR UPDATE', [reference])).rows[0] : undefined;
  if (!orderRow) return `ignored: no order ${reference ?? '(no reference)'}`;
  const order = orderFromRow(orderRow);
  const attemptRow = fields.id ? (await db.query('SELECT * FROM attempts WHERE object_id = $1', [fields.id])).rows[0] : undefined;
  const attempt = attemptRow ? attemptFromRow(attemptRow) : undefined;
  if (!attempt) {
    const creating = await db.query(`SELECT 1 FROM attempts WHERE order_reference = $1 AND status = 'creating'`, [order.reference]);
    if (creating.rowCount) throw new Error(`order ${order.reference} has an attempt whose create is not answered yet`);
  }

  // Rule 5: the event must be about an attempt of this order, with its reference, connection, amount and currency.
  const differences = mismatches(kind, event, fields, order, attempt);
  if (differences.length > 0 || !attempt) {
    const retrieved = fields.id ? await retrieveOrNotFound(client, kind, fields.id) : 'no object id';
    const seen = typeof retrieved === 'string' ? retrieved : `retrieved: ${retrieved.status}, ${retrieved['amount']} ${retrieved['currency']}`;
    await flag(db, order.reference, `${event.type} ${event.id} about ${fields.id}: ${differences.join(', ')} (${seen}); order not updated`);
    return `flagged: ${differences.join(', ')}`;
  }

  // Rule 7: a late event's data may be stale; the object's current status decides.
  const late = lateness(kind, event, fields, order, attempt, lateAfterMs);
  const status = late ? (await retrieveObject(client, kind, attempt.objectId!)).status : fields.status!;
  await db.query('UPDATE attempts SET status = $2, object_version = GREATEST(object_version, $3) WHERE object_id = $1', [
    attempt.objectId,
    status,
    late ? null : (fields.version ?? null),
  ]);
  const outcome = await applyToOrder(db, kind, event, order, attempt, status);
  return late ? `${outcome} (late: ${late}; retrieved ${status})` : outcome;
}

function mismatches(kind: Kind, event: Event, fields: ObjectFields, order: Order, attempt: Attempt | undefined): string[] {
  const found: string[] = [];
  const differ = (name: string, got: unknown, expected: unknown) => got !== expected && found.push(`${name} ${String(got)} ≠ ${String(expected)}`);
  if (!attempt) found.push(`${fields.id} is not an attempt of order ${order.reference}`);
  differ('kind', kind, order.kind);
  differ('reference', fields.reference, order.reference);
  differ('connection', fields.connection, order.connection);
  differ('amount', fields.amount, order.amount);
  differ('currency', fields.currency, order.currency);
  if (typeof fields.status !== 'string') found.push('no status');
  if (event.type === 'settlement.completed') {
    const settlement = (event.data['settlement'] ?? {}) as Record<string, unknown>;
    differ('settlement.gross_amount', settlement['gross_amount'], order.amount);
    differ('settlement.currency', settlement['currency'], order.currency);
  }
  return found;
}

/** Why the event is late, or undefined when its data may be used as it is. */
function lateness(kind: Kind, event: Event, fields: ObjectFields, order: Order, attempt: Attempt, lateAfterMs: number): string | undefined {
  if (fields.version !== undefined && attempt.objectVersion !== null && fields.version <= attempt.objectVersion) {
    return `object_version ${fields.version}, ${attempt.objectVersion} already seen`;
  }
  const age = Date.now() - Date.parse(event.created_at);
  if (age > lateAfterMs) return `created ${Math.round(age / 1000)} s ago`;
  // The status does not fit: it would move the order back, or pay it a second time.
  const implied = orderStatusFor(kind, fields.status!) ?? 'unpaid';
  if (ORDER_RANK[implied] < ORDER_RANK[order.status]) return `${fields.status} but the order is ${order.status}`;
  if (isPaidStatus(implied) && order.paidBy && order.paidBy !== attempt.objectId) return `order already paid by ${order.paidBy}`;
  return undefined;
}

const isPaidStatus = (status: string) => status === 'paid' || status === 'payable';

/** Moves the order forward only; what would move it back or pay it twice is flagged instead (rules 2, 6, 9). */
async function applyToOrder(db: PoolClient, kind: Kind, event: Event, order: Order, attempt: Attempt, status: string): Promise<string> {
  const target = orderStatusFor(kind, status);
  if (!target) return `attempt ${status}; order unchanged`;
  // Rule 9: collection.collected (or any collection event but settlement.completed) is not a settlement.
  const allowed = kind === 'collection' && target === 'payable' && event.type !== 'settlement.completed' ? 'collected' : target;
  if (ORDER_RANK[allowed] > ORDER_RANK[order.status]) {
    // The WHERE clause is the guard: a status is only ever replaced by a higher one.
    await db.query(
      `UPDATE orders SET status = $2, paid_by = CASE WHEN $4 THEN $3 ELSE paid_by END, updated_at = now()
       WHERE reference = $1 AND status = ANY($5::text[])`,
      [order.reference, allowed, attempt.objectId, isPaidStatus(allowed), statusesBelow(allowed)],
    );
    return `order ${allowed}`;
  }
  if (target === 'unpaid' && order.status !== 'unpaid') {
    await flag(db, order.reference, `${event.type} ${event.id}: ${attempt.objectId} is ${status} but the order is ${order.status} (by ${order.paidBy ?? 'another event'}); order stays ${order.status}`);
    return `flagged: ${attempt.objectId} ${status} after the order was ${order.status}`;
  }
  if (isPaidStatus(target) && order.paidBy && order.paidBy !== attempt.objectId) {
    await flag(db, order.reference, `${event.type} ${event.id}: ${attempt.objectId} is ${status} too, the order was already paid by ${order.paidBy}: a second payment to refund`);
    return `flagged: second payment ${attempt.objectId}`;
  }
  return `order already ${order.status}`;
}

async function retrieveOrNotFound(client: Payments, kind: Kind, id: string) {
  try {
    return await retrieveObject(client, kind, id);
  } catch (error) {
    if (error instanceof NotFoundError) return 'not found at the API';
    throw error;
  }
}

async function flag(db: PoolClient, reference: string, reason: string): Promise<void> {
  await db.query(`UPDATE orders SET review = true, review_reason = concat_ws('; ', review_reason, $2::text), updated_at = now() WHERE reference = $1`, [reference, reason]);
}
