import { randomBase62 } from '@pay/kernel';
import { isRetryable, untilAnswered, type Answer, type Call } from './http';
import type { RoundWorld } from './world';

/** The four use cases and refunds, each driven to a final status as an integrator and its agents would. */
export type OperationKind = 'payment' | 'refund' | 'cash_payment' | 'supplier_payment' | 'collection';

export interface Operation {
  kind: OperationKind;
  amount: number;
  /** The object's id, once its create was answered. */
  id?: string;
  /** The payment a refund is of. */
  payment?: string;
  /** The final status the service answered to the step that ends the object's flow, if it answered. */
  acknowledged?: string;
  /** True when some request of the flow failed (connection lost, 5xx) and was retried. */
  disturbed: boolean;
}

/** An operation's requests are retried with the same key for this long: the fault is over well before. */
const RETRY_DEADLINE_MS = 90_000;

export const RETRIEVE_PATH: Record<OperationKind, string> = {
  payment: '/v1/payments',
  refund: '/v1/refunds',
  cash_payment: '/v1/cash_payments',
  supplier_payment: '/v1/supplier_payments',
  collection: '/v1/collections',
};

export const FINAL_STATUSES: Record<OperationKind, readonly string[]> = {
  payment: ['succeeded', 'declined', 'canceled', 'expired'],
  refund: ['succeeded', 'failed'],
  cash_payment: ['succeeded', 'canceled', 'expired'],
  supplier_payment: ['succeeded', 'declined', 'rejected'],
  collection: ['settled', 'deposit_under_review'],
};

/**
 * Runs one operation's flow. Every request that fails retryably is repeated (creates with the same
 * Idempotency-Key); an action answered `409 invalid_status` after a lost answer means the action was
 * applied, and the object is read back.
 */
export async function runOperation(http: Call, world: RoundWorld, operation: Operation, cashPoint: string): Promise<void> {
  const key = world.apiKey;
  const send = async (method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<Answer> => {
    let retried = false;
    return untilAnswered(async () => {
      const answer = await http(method, path, { key, body, idempotencyKey });
      if (isRetryable(answer)) {
        operation.disturbed = retried = true;
        return answer;
      }
      // The lost answer's action was applied: the object tells what it did.
      if (retried && operation.id && answer.body?.error?.code === 'invalid_status') return http('GET', `${RETRIEVE_PATH[operation.kind]}/${operation.id}`, { key });
      return answer;
    }, RETRY_DEADLINE_MS);
  };
  const create = async (path: string, body: unknown): Promise<boolean> => {
    const answer = await send('POST', path, body, `chaos-${randomBase62(16)}`);
    if (answer.status !== 201) return false;
    operation.id = answer.body.id;
    if (FINAL_STATUSES[operation.kind].includes(answer.body.status)) operation.acknowledged = answer.body.status;
    return true;
  };
  const act = async (path: string, body?: unknown): Promise<void> => {
    const answer = await send('POST', path, body);
    if (answer.status === 200 && FINAL_STATUSES[operation.kind].includes(answer.body.status)) operation.acknowledged = answer.body.status;
  };

  switch (operation.kind) {
    case 'payment':
      if (!(await create('/v1/payments', { amount: operation.amount, currency: 'DZD', order_reference: `chaos-${randomBase62(8)}`, merchant_connection: world.merchant, return_url: 'https://shop.chaos.test/r' }))) return;
      return act(`/v1/test_helpers/payments/${operation.id}/authorize`, { customer: world.customer });
    case 'refund':
      await create('/v1/refunds', { payment: operation.payment, amount: operation.amount });
      return;
    case 'cash_payment':
      if (!(await create('/v1/cash_payments', { amount: operation.amount, currency: 'DZD', order_reference: `chaos-${randomBase62(8)}`, merchant_connection: world.merchant }))) return;
      return act(`/v1/test_helpers/cash_payments/${operation.id}/pay`, { cash_point: cashPoint, amount: operation.amount });
    case 'supplier_payment':
      if (!(await create('/v1/supplier_payments', { payer_connection: world.business, beneficiary: world.beneficiary, amount: operation.amount, currency: 'DZD', invoice_reference: `INV-${randomBase62(8)}` }))) return;
      return act(`/v1/test_helpers/supplier_payments/${operation.id}/approve`);
    case 'collection':
      if (!(await create('/v1/collections', { amount: operation.amount, currency: 'DZD', order_reference: `chaos-${randomBase62(8)}`, beneficiary_connection: world.wholesaler }))) return;
      await send('POST', `/v1/test_helpers/collections/${operation.id}/confirm_handover`);
      return act(`/v1/test_helpers/collections/${operation.id}/validate_deposit`, { amount_received: operation.amount });
  }
}
