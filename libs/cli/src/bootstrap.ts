import { randomInt } from 'node:crypto';
import { AdminClient } from './admin';
import { FIXTURE_VARIABLES, UsageError, type Fixtures, type Settings } from './settings';

export interface BootstrapOptions {
  currency: string;
  name: string;
}

export interface Bootstrapped extends Fixtures {
  integrator: string;
  apiKey: string;
  customerPhone: string;
  customerPin: string;
}

/** What a first try needs, in minor units: enough for a few dozen payments and supplier payments. */
export const CUSTOMER_FUNDS = 50_000_000;
export const BUSINESS_FUNDS = 50_000_000;

/**
 * A sandbox integrator with one connection of each kind, a funded customer, a funded business with an
 * authorized beneficiary, and a cash point: everything the four use cases need.
 */
export async function bootstrap(settings: Settings, options: BootstrapOptions): Promise<Bootstrapped> {
  if (!settings.adminKey) throw new UsageError('no admin key: set PAY_ADMIN_KEY or pass --admin-key (npm start keeps it in .data/admin-api-key)');
  const admin = new AdminClient(settings.baseUrl, settings.adminKey);
  // Its top-ups are money: on a service with the sandbox off they would fund a live customer and business.
  if (!(await admin.isSandbox())) throw new Error(`the service at ${settings.baseUrl} runs with the sandbox off: bootstrap creates and funds test accounts only on a sandbox (SANDBOX=true)`);
  const { currency, name } = options;
  const integrator = await admin.post<{ id: string; api_key: string }>('/admin/v1/integrators', { name });
  const connection = async (kind: string, label: string) =>
    (await admin.post<{ id: string }>('/admin/v1/connections', { integrator: integrator.id, kind, name: label, currency })).id;
  const merchant = await connection('merchant', name);
  const business = await connection('business', `${name} (purchasing)`);
  const wholesaler = await connection('wholesaler', `${name} (wholesale)`);
  const refundsMerchant = await connection('merchant', `${name} (refund tests)`);

  const customerPhone = `+213555${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;
  const customerPin = String(randomInt(0, 10_000)).padStart(4, '0');
  const customer = (await admin.post<{ id: string }>('/admin/v1/customers', { name: 'Amina (sandbox)', phone: customerPhone, pin: customerPin, currency })).id;
  await admin.post('/admin/v1/topups', { account: customer, amount: CUSTOMER_FUNDS, currency });
  await admin.post('/admin/v1/topups', { account: business, amount: BUSINESS_FUNDS, currency });
  const beneficiary = (await admin.post<{ id: string }>('/admin/v1/beneficiaries', { business, account_name: 'Supplier (sandbox)', currency })).id;
  const cashPoint = (await admin.post<{ id: string }>('/admin/v1/cash_points', { name: 'Cash point (sandbox)', address: '1 Rue Didouche Mourad, Algiers' })).id;
  return { integrator: integrator.id, apiKey: integrator.api_key, merchant, customer, customerPhone, customerPin, business, beneficiary, wholesaler, cashPoint, refundsMerchant };
}

/** Shell lines for `eval "$(npx payments bootstrap)"`: the values are ids and keys, quoted anyway. */
export function exportLines(baseUrl: string, currency: string, result: Bootstrapped): string {
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  const variables: [string, string][] = [
    ['PAY_BASE_URL', baseUrl],
    ['PAY_API_KEY', result.apiKey],
    ['PAY_CURRENCY', currency],
    ...(Object.entries(FIXTURE_VARIABLES) as [keyof Fixtures, string][]).map(([field, variable]): [string, string] => [variable, result[field]]),
  ];
  return variables.map(([variable, value]) => `export ${variable}=${quote(value)}`).join('\n') + '\n';
}
