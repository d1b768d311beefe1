import { balanceOf, createCustomer, createIntegrator, createPayment, expectBalancedTrialBalance, idempotencyKey, startTestService, type TestService } from './harness';
import { iban } from './payouts-files';

/**
 * Payouts, refunds and supplier payments interleaved at random on shared balances (a property test,
 * seeded): whatever the order and the races, no account goes below zero, each balance is exactly what
 * its movements say, and the trial balance is balanced.
 */
describe('payouts, refunds and supplier payments racing on shared balances', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  /** A small deterministic PRNG (mulberry32): a failing seed can be replayed. */
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };

  it.each([11, 29, 47])('seed %i: no balance below zero, every balance what its movements say, the books balanced', async (seed) => {
    const next = random(seed);
    const shop = await createIntegrator(service);
    const as = (method: string, path: string, body?: unknown) => service.http(method, path, { key: shop.apiKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });
    const business = (await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'business', name: 'B', currency: 'DZD' } })).body.id as string;
    const beneficiary = (await service.admin('POST', '/admin/v1/beneficiaries', { body: { business, account_name: 'Supplier', currency: 'DZD' } })).body.id as string;
    await service.admin('POST', '/admin/v1/topups', { body: { account: business, amount: 2_000_000, currency: 'DZD' }, headers: { 'Idempotency-Key': idempotencyKey() } });
    const customer = await createCustomer(service, 10_000_000);
    const payments: string[] = [];
    for (let i = 0; i < 4; i++) {
      const payment = await createPayment(service, shop, { amount: 1_000_000 });
      await service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: shop.apiKey, body: { customer } });
      payments.push(payment.id);
    }
    const merchantStart = await balanceOf(service, shop.merchant);
    const businessStart = await balanceOf(service, business);
    const accounts = {
      [shop.merchant]: (await as('POST', '/v1/bank_accounts', { connection: shop.merchant, account_holder: 'M', iban: iban('DZ', '0002100001113000000570') })).body.id as string,
      [business]: (await as('POST', '/v1/bank_accounts', { connection: business, account_holder: 'B', iban: iban('DZ', '0002100001113000000570') })).body.id as string,
    };
    const amount = () => 50_000 + Math.floor(next() * 400_000);
    const operations = Array.from({ length: 24 }, () => {
      const pick = next();
      if (pick < 0.35) {
        const connection = next() < 0.5 ? shop.merchant : business;
        return () => as('POST', '/v1/payouts', { connection, bank_account: accounts[connection], amount: amount(), currency: 'DZD' });
      }
      if (pick < 0.45) {
        return async () => {
          const created = await as('POST', '/v1/payouts', { connection: shop.merchant, bank_account: accounts[shop.merchant], amount: amount(), currency: 'DZD' });
          return created.status === 201 ? as('POST', `/v1/payouts/${created.body.id}/cancel`) : created;
        };
      }
      if (pick < 0.75) {
        const payment = payments[Math.floor(next() * payments.length)]!;
        return () => as('POST', '/v1/refunds', { payment, amount: amount() });
      }
      return async () => {
        const created = await as('POST', '/v1/supplier_payments', { payer_connection: business, beneficiary, amount: amount(), currency: 'DZD', invoice_reference: `INV-${idempotencyKey()}` });
        return created.status === 201 ? as('POST', `/v1/test_helpers/supplier_payments/${created.body.id}/approve`) : created;
      };
    });
    const answers = await Promise.all(operations.map((operation) => operation()));
    for (const answer of answers) expect([200, 201, 400, 409]).toContain(answer.status);
    for (const answer of answers) if (answer.status === 400) expect(['insufficient_balance', 'invalid_amount']).toContain(answer.body.error.code);

    for (const [connection, start] of [
      [shop.merchant, merchantStart],
      [business, businessStart],
    ] as const) {
      const balance = await balanceOf(service, connection);
      expect(balance).toBeGreaterThanOrEqual(0);
      const movements = (await service.http('GET', `/v1/balance_transactions?connection=${connection}&limit=100`, { key: shop.apiKey })).body.data as { amount: number; type: string }[];
      const since = movements.filter((m) => ['payout', 'payout_reversal', 'refund', 'supplier_payment'].includes(m.type));
      expect(balance).toBe(start + since.reduce((sum, m) => sum + m.amount, 0));
    }
    await expectBalancedTrialBalance(service);
    expect((await service.admin('POST', '/admin/v1/ledger/reconciliations')).body).toMatchObject({ status: 'balanced' });
  });
});
