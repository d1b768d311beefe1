import { randomBase62 } from '@pay/kernel';
import { untilAnswered, type Answer, type Call } from './http';

/** Setting up never races a fault: each call is retried until answered, as an operator would. */
const SETUP_DEADLINE_MS = 120_000;

/** One round's integrator and the parties of the four use cases, all in DZD. */
export interface RoundWorld {
  apiKey: string;
  merchant: string;
  business: string;
  wholesaler: string;
  beneficiary: string;
  customer: string;
  /** What the customer and the business were topped up with. */
  customerFunds: number;
  businessFunds: number;
  webhookEndpoint: string;
  webhookSecret: string;
}

const CURRENCY = 'DZD';

async function must(call: () => Promise<Answer>, what: string): Promise<any> {
  const answer = await untilAnswered(call, SETUP_DEADLINE_MS);
  if (answer.status !== 200 && answer.status !== 201) throw new Error(`chaos setup: ${what} answered ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** The one cash point: collections' deposits go to the first registered cash point. */
export async function createCashPoint(admin: Call): Promise<string> {
  return (await must(() => admin('POST', '/admin/v1/cash_points', { body: { name: 'Point chaos', address: '1 rue du Test' } }), 'cash point')).id;
}

export async function createRoundWorld(admin: Call, http: Call, round: number, receiverUrl: string, funds: { customer: number; business: number }): Promise<RoundWorld> {
  const integrator = await must(() => admin('POST', '/admin/v1/integrators', { body: { name: `Chaos round ${round}` } }), 'integrator');
  const connection = async (kind: string) =>
    (await must(() => admin('POST', '/admin/v1/connections', { body: { integrator: integrator.id, kind, name: `${kind} ${round}`, currency: CURRENCY } }), kind)).id as string;
  const merchant = await connection('merchant');
  const business = await connection('business');
  const wholesaler = await connection('wholesaler');
  const beneficiary = (await must(() => admin('POST', '/admin/v1/beneficiaries', { body: { business, account_name: `Supplier ${round}`, currency: CURRENCY } }), 'beneficiary')).id;
  const phone = `+21355${String(round).padStart(7, '0')}`;
  const customer = (await must(() => admin('POST', '/admin/v1/customers', { body: { name: 'Chaos customer', phone, pin: '1234', currency: CURRENCY } }), 'customer')).id;
  // Top-ups are not idempotent by key: each is tried once, and its effect read back from the balance.
  await topUp(admin, customer, funds.customer);
  await topUp(admin, business, funds.business);
  const endpoint = await must(
    () => http('POST', '/v1/webhook_endpoints', { key: integrator.api_key, body: { url: receiverUrl, enabled_events: ['*'] }, idempotencyKey: `chaos-we-${round}-${randomBase62(6)}` }),
    'webhook endpoint',
  );
  return {
    apiKey: integrator.api_key,
    merchant,
    business,
    wholesaler,
    beneficiary,
    customer,
    customerFunds: await balanceOf(admin, customer),
    businessFunds: await balanceOf(admin, business),
    webhookEndpoint: endpoint.id,
    webhookSecret: endpoint.secret,
  };
}

async function topUp(admin: Call, account: string, amount: number): Promise<void> {
  const answer = await admin('POST', '/admin/v1/topups', { body: { account, amount, currency: CURRENCY } });
  if (answer.status !== 201 && answer.status !== 0 && answer.status < 500) throw new Error(`chaos setup: top-up answered ${answer.status} ${JSON.stringify(answer.body)}`);
}

export async function balanceOf(admin: Call, owner: string): Promise<number> {
  return (await must(() => admin('GET', `/admin/v1/balances/${owner}`), `balance of ${owner}`)).available;
}
