import { randomUUID } from 'node:crypto';
import { expectCall, mapConcurrent } from './http';

export const CURRENCY = 'DZD';
/** Minor units per payment: small, so that one top-up covers many payments. */
export const PAYMENT_AMOUNT = 1_000;

export interface Fixture {
  baseUrl: string;
  apiKey: string;
  merchantConnection: string;
  customers: string[];
}

/**
 * Through the admin API, as an operator would: one integrator, one DZD merchant connection, and
 * `customerCount` customers each topped up for `paymentsPerCustomer` payments (with a margin). Several
 * customers, so that the debited account is not the only hot row (the merchant and fee accounts are).
 */
export async function setUp(baseUrl: string, adminKey: string, customerCount: number, paymentsPerCustomer: number): Promise<Fixture> {
  const admin = { key: adminKey };
  const integrator = (await expectCall(baseUrl, 'POST', '/admin/v1/integrators', 201, { ...admin, body: { name: 'bench' } })).body;
  const connection = (
    await expectCall(baseUrl, 'POST', '/admin/v1/connections', 201, {
      ...admin,
      body: { integrator: integrator.id, kind: 'merchant', name: 'bench merchant', currency: CURRENCY },
    })
  ).body;
  const topupAmount = PAYMENT_AMOUNT * paymentsPerCustomer * 2;
  const customers = await mapConcurrent(Array.from({ length: customerCount }, (_, i) => i), 8, async (i) => {
    const customer = (
      await expectCall(baseUrl, 'POST', '/admin/v1/customers', 201, {
        ...admin,
        body: { name: `bench customer ${i}`, phone: `+213555${String(i).padStart(6, '0')}`, pin: '1234', currency: CURRENCY },
      })
    ).body;
    await expectCall(baseUrl, 'POST', '/admin/v1/topups', 201, {
      ...admin,
      headers: { 'Idempotency-Key': randomUUID() },
      body: { account: customer.id, amount: topupAmount, currency: CURRENCY },
    });
    return customer.id as string;
  });
  return { baseUrl, apiKey: integrator.api_key, merchantConnection: connection.id, customers };
}

/** The body of every POST /v1/payments of the bench. */
export const paymentBody = (fixture: Fixture, orderReference: string) =>
  JSON.stringify({
    amount: PAYMENT_AMOUNT,
    currency: CURRENCY,
    order_reference: orderReference,
    merchant_connection: fixture.merchantConnection,
    return_url: 'https://merchant.example/return',
  });
