import { balanceOf, createCustomer, createIntegrator, createPayment, DISTRIBUTED, expectBalancedTrialBalance, startTestService, type TestService } from './harness';

/** Requests of `topic` handled so far, summed over every process (bus_messages_handled_total). */
const handled = async (service: TestService, topic: string): Promise<number> => {
  let sum = 0;
  for (const url of Object.values(service.processUrls())) {
    for (const line of (await (await fetch(`${url}/metrics`)).text()).split('\n')) {
      if (line.startsWith('bus_messages_handled_total{') && line.includes(`topic="${topic}"`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
};

describe('no customer account below zero, under any concurrency', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it('a customer funded for 10 payments authorizes 20 at once: exactly 10 succeed, 10 are declined insufficient_balance, balance 0', async () => {
    const shop = await createIntegrator(service);
    const amount = 50_000;
    const customer = await createCustomer(service, amount * 10);
    const payments = await Promise.all(Array.from({ length: 20 }, () => createPayment(service, shop, { amount })));
    const batchTopics = ['payments.authorize-batch', 'ledger.transfer-batch'];
    const batchesBefore = await Promise.all(batchTopics.map((topic) => handled(service, topic)));
    const responses = await Promise.all(
      payments.map((p) => service.http('POST', `/v1/test_helpers/payments/${p.id}/authorize`, { key: shop.apiKey, body: { customer } })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const statuses = responses.map((r) => `${r.body.status}:${r.body.decline_reason}`);
    expect(statuses.filter((s) => s === 'succeeded:null')).toHaveLength(10);
    expect(statuses.filter((s) => s === 'declined:insufficient_balance')).toHaveLength(10);
    expect(await balanceOf(service, customer)).toBe(0);
    const fees = responses.filter((r) => r.body.status === 'succeeded').reduce((sum, r) => sum + r.body.fee_amount, 0);
    expect(await balanceOf(service, shop.merchant)).toBe(amount * 10 - fees);
    await expectBalancedTrialBalance(service);
    // Over Kafka concurrent authorizations, and their transfers, leave together; in one process each is a call.
    const batches = await Promise.all(batchTopics.map(async (topic, index) => (await handled(service, topic)) - batchesBefore[index]!));
    for (const count of batches) {
      if (DISTRIBUTED) expect(count).toBeGreaterThan(0);
      else expect(count).toBe(0);
    }
  });

  it('one payment authorized 10 times at once is debited once', async () => {
    const shop = await createIntegrator(service);
    const customer = await createCustomer(service, 10_000_000);
    const payment = await createPayment(service, shop);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: shop.apiKey, body: { customer } })),
    );
    expect(responses.filter((r) => r.status === 200 && r.body.status === 'succeeded')).toHaveLength(1);
    for (const r of responses.filter((r) => r.status !== 200)) expect(r.body.error.code).toBe('invalid_status');
    expect(await balanceOf(service, customer)).toBe(10_000_000 - payment.amount);
    const entries = await service.admin('GET', `/admin/v1/ledger/entries?reference=${payment.id}`);
    expect(entries.body.data).toHaveLength(1);
  });

  it('cancel racing authorize: never both, the loser gets invalid_status', async () => {
    const shop = await createIntegrator(service);
    const customer = await createCustomer(service, 100_000_000);
    for (let round = 0; round < 10; round++) {
      const payment = await createPayment(service, shop, { amount: 1_000 });
      const [cancel, authorize] = await Promise.all([
        service.http('POST', `/v1/payments/${payment.id}/cancel`, { key: shop.apiKey }),
        service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key: shop.apiKey, body: { customer } }),
      ]);
      const winners = [cancel, authorize].filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      const final = await service.http('GET', `/v1/payments/${payment.id}`, { key: shop.apiKey });
      expect(final.body.status).toBe(cancel.status === 200 ? 'canceled' : 'succeeded');
    }
    await expectBalancedTrialBalance(service);
  });
});
