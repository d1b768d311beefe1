/**
 * An integrator's Pay, refund and balance-transactions flow, written against a client generated from
 * /openapi.json by tools we did not write (openapi-typescript for the types, openapi-fetch for the
 * calls). It compiles with `tsc --strict` and no cast only if the document describes every field of
 * every answer; the test (generated-client.e2e.spec.ts) generates `openapi.d.ts`, compiles this file
 * and runs it against the service.
 *
 * Environment: BASE_URL, API_KEY (sk_…), MERCHANT (conn_…), CUSTOMER (cus_… with a balance in DZD).
 */
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { paths } from './openapi.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const merchant = env('MERCHANT');
const client = createClient<paths>({ baseUrl: env('BASE_URL'), headers: { Authorization: `Bearer ${env('API_KEY')}` } });

const fail = (what: string, error: { error: { code: string; message: string } } | undefined): never => {
  throw new Error(`${what}: ${error ? `${error.error.code}: ${error.error.message}` : 'no answer'}`);
};

// Pay: create, the customer authorizes (sandbox), retrieve.
const created = await client.POST('/v1/payments', {
  params: { header: { 'Idempotency-Key': randomUUID() } },
  body: { amount: 1_250_000, currency: 'DZD', order_reference: `order-${randomUUID()}`, merchant_connection: merchant, return_url: 'https://shop.example/return' },
});
const payment = created.data ?? fail('create a payment', created.error);
const pendingUrl: string | null = payment.authorization_url;

const authorized = await client.POST('/v1/test_helpers/payments/{id}/authorize', { params: { path: { id: payment.id } }, body: { customer: env('CUSTOMER') } });
const paid = authorized.data ?? fail('authorize', authorized.error);
if (paid.status !== 'succeeded') throw new Error(`the payment is ${paid.status} (${paid.decline_reason ?? 'no reason'})`);
const net: number = paid.net_amount ?? fail('net_amount', undefined);

// A partial refund.
const refunded = await client.POST('/v1/refunds', { params: { header: { 'Idempotency-Key': randomUUID() } }, body: { payment: paid.id, amount: 250_000, reason: 'one item returned' } });
const refund = refunded.data ?? fail('refund', refunded.error);
if (refund.status !== 'succeeded') throw new Error(`the refund is ${refund.status} (${refund.failure_reason ?? 'no reason'})`);

const again = await client.GET('/v1/payments/{id}', { params: { path: { id: paid.id } } });
const amountRefunded: number = (again.data ?? fail('retrieve', again.error)).amount_refunded;

// The merchant's balance transactions: they add up to its balance.
const listed = await client.GET('/v1/balance_transactions', { params: { query: { connection: merchant, limit: 100 } } });
const transactions = (listed.data ?? fail('list balance transactions', listed.error)).data;
const balance = await client.GET('/v1/balances/{connection}', { params: { path: { connection: merchant } } });
const available: number = (balance.data ?? fail('balance', balance.error)).available;
const total = transactions.reduce((sum, transaction) => sum + transaction.amount, 0);

const byType: Record<string, number> = {};
for (const transaction of transactions) byType[transaction.type] = (byType[transaction.type] ?? 0) + transaction.amount;

process.stdout.write(
  `${JSON.stringify({ payment: paid.id, authorization_url: pendingUrl, net_amount: net, refund: refund.id, amount_refunded: amountRefunded, transactions: transactions.length, by_type: byType, total, available })}\n`,
);
