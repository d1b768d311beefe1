import { randomBytes } from 'node:crypto';
import type { Currency, EventType, Payment, Payments, PaymentsAdmin, Payout } from '@pay/sdk';
import { majorUnits, sandboxIban, sandboxStatement } from './payouts';
import { EVENT_WAIT_MS } from './limits';
import { fixture, UsageError } from './settings';

/** Minor units of what triggers create: 1 500.00 in the bootstrap's currency. */
export const TRIGGER_AMOUNT = 150_000;

const MINUTE_S = 60;
const HOUR_S = 60 * MINUTE_S;
const DAY_S = 24 * HOUR_S;

export interface TriggerContext {
  client: Payments;
  /** The admin API (PAY_ADMIN_KEY): finance's batches and statements, for the payouts' events. */
  admin?: PaymentsAdmin;
  env: NodeJS.ProcessEnv;
  currency: Currency;
  /** A line for a person: what the trigger did on the way (a clock advance, a side effect). */
  note(line: string): void;
}

type Recipe = (context: TriggerContext) => Promise<string>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const reference = (prefix: string) => `cli-${prefix}-${randomBytes(4).toString('hex')}`;

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = EVENT_WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

async function advance(context: TriggerContext, seconds: number): Promise<void> {
  const clock = await context.client.testHelpers.clock.advance({ seconds });
  context.note(`moved the sandbox clock forward ${seconds} s (now ${clock.now}): every deadline passed meanwhile applies to the whole sandbox`);
}

const payment = (context: TriggerContext, merchant = fixture(context.env, 'merchant'), amount = TRIGGER_AMOUNT) =>
  context.client.payments.create({
    amount,
    currency: context.currency,
    order_reference: reference('order'),
    merchant_connection: merchant,
    return_url: 'https://shop.example/return',
  });

const paid = async (context: TriggerContext, merchant?: string, amount?: number): Promise<Payment> =>
  context.client.testHelpers.payments.authorize((await payment(context, merchant, amount)).id, { customer: fixture(context.env, 'customer') });

const cashPayment = (context: TriggerContext, expiresAt?: string) =>
  context.client.cashPayments.create({
    amount: TRIGGER_AMOUNT,
    currency: context.currency,
    order_reference: reference('cash'),
    merchant_connection: fixture(context.env, 'merchant'),
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  });

const supplierPayment = (context: TriggerContext, amount = TRIGGER_AMOUNT) =>
  context.client.supplierPayments.create({
    payer_connection: fixture(context.env, 'business'),
    beneficiary: fixture(context.env, 'beneficiary'),
    amount,
    currency: context.currency,
    invoice_reference: reference('invoice'),
  });

const collected = async (context: TriggerContext) => {
  const collection = await context.client.collections.create({
    amount: TRIGGER_AMOUNT,
    currency: context.currency,
    order_reference: reference('delivery'),
    beneficiary_connection: fixture(context.env, 'wholesaler'),
  });
  return context.client.testHelpers.collections.confirmHandover(collection.id);
};

/**
 * A refund fails when the merchant holds less than its amount. The refunds merchant is brought back to
 * zero first (by refunding its own earlier payments: refund.succeeded events of its own), then paid
 * once: it holds that payment's net, less than the amount refunded.
 */
async function failedRefund(context: TriggerContext): Promise<string> {
  const { client } = context;
  const merchant = fixture(context.env, 'refundsMerchant');
  let available = (await client.balances.retrieve(merchant)).available;
  for await (const earlier of client.payments.list({ merchant_connection: merchant, status: 'succeeded', limit: 100 })) {
    if (available === 0) break;
    const refundable = earlier.amount - (earlier.amount_refunded ?? 0);
    const amount = Math.min(refundable, available);
    if (amount === 0) continue;
    const drained = await client.refunds.create({ payment: earlier.id, amount, reason: 'sandbox: emptying the refunds merchant' });
    if (drained.status === 'succeeded') available -= amount;
  }
  if (available > 0) throw new Error(`the refunds merchant still holds ${available}: cannot make a refund fail`);
  const charged = await paid(context, merchant);
  const refund = await client.refunds.create({ payment: charged.id, reason: 'sandbox: refund.failed' });
  if (refund.status !== 'failed') throw new Error(`the refund ${refund.id} did not fail (${refund.status})`);
  return refund.id;
}

/** An endpoint that refuses every delivery for 5 days (service clock) is disabled by the service. */
async function disabledEndpoint(context: TriggerContext): Promise<string> {
  const { client } = context;
  // Port 9 (discard) on loopback: nothing listens, every attempt fails at once. Loopback is sandbox only.
  const endpoint = await client.webhookEndpoints.create({ url: 'http://127.0.0.1:9/payments-cli-unreachable', enabled_events: ['payment.succeeded'] });
  context.note(`created the failing endpoint ${endpoint.id} (${endpoint.url})`);
  await paid(context);
  await waitUntil('the first failed delivery attempt', async () => {
    const page = await client.webhookEndpoints.deliveries(endpoint.id).page();
    return page.data.some((delivery) => delivery.attempts > 0) ? true : undefined;
  });
  for (let day = 0; day < 5; day++) await advance(context, DAY_S);
  await paid(context);
  await waitUntil(`${endpoint.id} to be disabled`, async () => ((await client.webhookEndpoints.retrieve(endpoint.id)).status === 'disabled' ? true : undefined));
  return endpoint.id;
}

/** A payout of part of what a new payment paid the merchant, to a sandbox bank account of the merchant's. */
async function payout(context: TriggerContext): Promise<Payout> {
  const merchant = fixture(context.env, 'merchant');
  const charged = await paid(context, merchant);
  const account = await context.client.bankAccounts.create({ connection: merchant, account_holder: 'Sandbox merchant', iban: sandboxIban(context.currency) });
  return context.client.payouts.create({ connection: merchant, bank_account: account.id, amount: (charged.net_amount ?? TRIGGER_AMOUNT / 2) - 1, currency: context.currency, description: 'sandbox payout' });
}

const requireAdmin = (context: TriggerContext): PaymentsAdmin => {
  if (!context.admin) throw new UsageError('this event needs the admin API (a batch, the bank statement): set PAY_ADMIN_KEY or pass --admin-key');
  return context.admin;
};

/** A payout in a batch: in transit. */
async function inTransit(context: TriggerContext): Promise<Payout> {
  const admin = requireAdmin(context);
  const created = await payout(context);
  const batch = await admin.payoutBatches.create({ currency: context.currency });
  context.note(`batched every pending ${context.currency} payout of the sandbox in ${batch.id} (${batch.count})`);
  return created;
}

/** A payout the bank's statement books (paid) or returns (failed, AC04). */
async function settledPayout(context: TriggerContext, outcome: 'paid' | 'returned'): Promise<string> {
  const created = await inTransit(context);
  const result = await requireAdmin(context).bankStatements.import(sandboxStatement(created, outcome, majorUnits(created.amount, context.currency)));
  context.note(`imported the sandbox statement ${result.statement_id}`);
  return created.id;
}

/** Each event type, and how the sandbox makes it happen: the id of the object the event is about. */
export const RECIPES: Record<EventType, Recipe> = {
  'payment.succeeded': async (context) => (await paid(context)).id,
  'payment.declined': async (context) => (await context.client.testHelpers.payments.decline((await payment(context)).id)).id,
  'payment.canceled': async (context) => (await context.client.payments.cancel((await payment(context)).id)).id,
  'payment.expired': async (context) => {
    const created = await payment(context);
    await advance(context, 30 * MINUTE_S + 1); // the authorization deadline
    return created.id;
  },
  'cash_payment.succeeded': async (context) => {
    const created = await cashPayment(context);
    return (await context.client.testHelpers.cashPayments.pay(created.id, { cash_point: fixture(context.env, 'cashPoint'), amount: created.amount })).id;
  },
  'cash_payment.expired': async (context) => {
    const now = Date.parse((await context.client.testHelpers.clock.retrieve()).now);
    const created = await cashPayment(context, new Date(now + 6 * MINUTE_S * 1000).toISOString());
    await advance(context, 6 * MINUTE_S + 1);
    return created.id;
  },
  'cash_payment.canceled': async (context) => (await context.client.cashPayments.cancel((await cashPayment(context)).id)).id,
  'supplier_payment.succeeded': async (context) => (await context.client.testHelpers.supplierPayments.approve((await supplierPayment(context)).id)).id,
  'supplier_payment.declined': async (context) => {
    const available = (await context.client.balances.retrieve(fixture(context.env, 'business'))).available;
    return (await context.client.testHelpers.supplierPayments.approve((await supplierPayment(context, available + 1)).id)).id;
  },
  'supplier_payment.rejected': async (context) => (await context.client.testHelpers.supplierPayments.reject((await supplierPayment(context)).id)).id,
  'supplier_payment.canceled': async (context) => (await context.client.supplierPayments.cancel((await supplierPayment(context)).id)).id,
  'supplier_payment.expired': async (context) => {
    const created = await supplierPayment(context);
    await advance(context, 7 * DAY_S + 1); // the approval deadline
    return created.id;
  },
  'collection.collected': async (context) => (await collected(context)).id,
  'collection.deposit_under_review': async (context) => {
    const collection = await collected(context);
    return (await context.client.testHelpers.collections.validateDeposit(collection.id, { amount_received: collection.amount - 100 })).id;
  },
  'collection.deposit_overdue': async (context) => {
    const collection = await collected(context);
    await advance(context, DAY_S + 1); // the deposit is due 24 hours after the handover
    return collection.id;
  },
  'settlement.completed': async (context) => {
    const collection = await collected(context);
    return (await context.client.testHelpers.collections.validateDeposit(collection.id, { amount_received: collection.amount })).id;
  },
  'refund.succeeded': async (context) => (await context.client.refunds.create({ payment: (await paid(context)).id, amount: TRIGGER_AMOUNT / 2, reason: 'sandbox: refund.succeeded' })).id,
  'refund.failed': failedRefund,
  'webhook_endpoint.disabled': disabledEndpoint,
  'payout.canceled': async (context) => (await context.client.payouts.cancel((await payout(context)).id)).id,
  'payout.in_transit': async (context) => (await inTransit(context)).id,
  'payout.paid': (context) => settledPayout(context, 'paid'),
  'payout.failed': (context) => settledPayout(context, 'returned'),
};

export const TRIGGER_TYPES = Object.keys(RECIPES) as EventType[];

/** Makes the event happen in the sandbox and waits until it is listed: the event's id. */
export async function trigger(type: string, context: TriggerContext): Promise<{ objectId: string; eventId: string }> {
  const recipe = RECIPES[type as EventType];
  if (!recipe) throw new UsageError(`unknown event type '${type}'; one of: ${TRIGGER_TYPES.join(', ')}`);
  const objectId = await recipe(context);
  const event = await waitUntil(`the ${type} event of ${objectId}`, async () => (await context.client.events.list({ type: type as EventType, object_id: objectId, limit: 1 }).page()).data[0]);
  return { objectId, eventId: event.id };
}
