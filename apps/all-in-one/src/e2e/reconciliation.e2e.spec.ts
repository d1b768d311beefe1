import { Pool } from 'pg';
import { PostgresEventStore } from '@pay/event-store';
import { createCustomer, createIntegrator, createPayment, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';

/** Reconciliation: the ledger compared with what every object's own history says moved. */
describe('POST /admin/v1/ledger/reconciliations', () => {
  let service: TestService;
  let shop: Integrator;
  let pool: Pool;
  let cashPool: Pool;
  let payment: any;
  let cashPayment: any;

  const reconcile = async () => {
    const response = await service.admin('POST', '/admin/v1/ledger/reconciliations');
    expect(response.status).toBe(200);
    return response.body;
  };

  beforeAll(async () => {
    service = await startTestService();
    // The ledger's tables and the cash payments' streams (each app's own database with a database per service).
    pool = new Pool({ connectionString: service.databaseUrls?.['ledger'] ?? service.databaseUrl, max: 2 });
    cashPool = new Pool({ connectionString: service.databaseUrls?.['cash'] ?? service.databaseUrl, max: 2 });
    shop = await createIntegrator(service);
    const key = shop.apiKey;
    const headers = () => ({ 'Idempotency-Key': idempotencyKey() });

    // Pay, with a partial refund.
    const customer = await createCustomer(service, 5_000_000);
    payment = await createPayment(service, shop, { amount: 2_000_000 });
    expect((await service.http('POST', `/v1/test_helpers/payments/${payment.id}/authorize`, { key, body: { customer } })).body.status).toBe('succeeded');
    expect((await service.http('POST', '/v1/refunds', { key, headers: headers(), body: { payment: payment.id, amount: 500_000 } })).body.status).toBe('succeeded');
    await createPayment(service, shop); // pending: nothing moved

    // Cash checkout: one paid, one still awaiting payment.
    const point = (await service.admin('POST', '/admin/v1/cash_points', { body: { name: 'Point', address: '1 rue' } })).body;
    const cash = async () =>
      (await service.http('POST', '/v1/cash_payments', { key, headers: headers(), body: { amount: 300_000, currency: 'DZD', order_reference: 'c', merchant_connection: shop.merchant } })).body;
    const paid = await cash();
    expect((await service.http('POST', `/v1/test_helpers/cash_payments/${paid.id}/pay`, { key, body: { cash_point: point.id, amount: 300_000 } })).body.status).toBe('succeeded');
    cashPayment = await cash();

    // A supplier payment.
    const connection = (kind: string) => service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind, name: kind, currency: 'DZD' } });
    const business = (await connection('business')).body.id;
    await service.admin('POST', '/admin/v1/topups', { body: { account: business, amount: 2_000_000, currency: 'DZD' } });
    const beneficiary = (await service.admin('POST', '/admin/v1/beneficiaries', { body: { business, account_name: 'S', currency: 'DZD' } })).body.id;
    const supplier = (await service.http('POST', '/v1/supplier_payments', { key, headers: headers(), body: { payer_connection: business, beneficiary, amount: 700_000, currency: 'DZD', invoice_reference: 'INV' } })).body;
    expect((await service.http('POST', `/v1/test_helpers/supplier_payments/${supplier.id}/approve`, { key })).body.status).toBe('succeeded');

    // Collections: one settled, one under review (cash at the point), one with the carrier.
    const wholesaler = (await connection('wholesaler')).body.id;
    const collection = async () =>
      (await service.http('POST', '/v1/collections', { key, headers: headers(), body: { amount: 400_000, currency: 'DZD', order_reference: 'col', beneficiary_connection: wholesaler } })).body;
    for (const received of [400_000, 350_000, null]) {
      const c = await collection();
      await service.http('POST', `/v1/test_helpers/collections/${c.id}/confirm_handover`, { key });
      if (received !== null) await service.http('POST', `/v1/test_helpers/collections/${c.id}/validate_deposit`, { key, body: { amount_received: received } });
    }
  });
  afterAll(async () => {
    await pool.end();
    await cashPool.end();
    await service.stop();
  });

  it('answers balanced after a mixed scenario of the four use cases and a refund', async () => {
    const report = await reconcile();
    expect(report).toEqual({ object: 'reconciliation', status: 'balanced', checked_objects: expect.any(Number), differences: [] });
    expect(report.checked_objects).toBe(9); // 2 payments, 1 refund, 2 cash payments, 1 supplier payment, 3 collections
  });

  it('finds a difference planted in the ledger tables, even one that keeps the trial balance balanced', async () => {
    // The payment's customer debit and merchant credit both grow by 1: debits still equal credits.
    await pool.query(
      `UPDATE ledger_postings p SET amount = amount + 1 FROM ledger_entries e
       WHERE e.id = p.entry_id AND e.reference = $1 AND p.account_id NOT LIKE 'platform:%'`,
      [payment.id],
    );
    const report = await reconcile();
    expect(report.status).toBe('differences');
    expect(report.differences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ object_id: payment.id, reference: payment.id, kind: 'amount_mismatch', account: shop.merchant, expected: 2_000_000 - 30_000, found: 2_000_000 - 30_000 + 1 }),
      ]),
    );
    await pool.query(
      `UPDATE ledger_postings p SET amount = amount - 1 FROM ledger_entries e
       WHERE e.id = p.entry_id AND e.reference = $1 AND p.account_id NOT LIKE 'platform:%'`,
      [payment.id],
    );
    expect((await reconcile()).status).toBe('balanced');
  });

  it('finds a difference planted in an object’s stream', async () => {
    const store = new PostgresEventStore(cashPool);
    const at = new Date().toISOString();
    await store.appendToStream(
      `cash-payment-${cashPayment.id}`,
      [
        { type: 'CashPaymentValidationStarted', data: { type: 'CashPaymentValidationStarted', cashPaymentId: cashPayment.id, cashPointId: 'cp_planted', receiptNumber: 'R-1', operationId: 'planted', paidAt: at } },
        { type: 'CashPaymentSucceeded', data: { type: 'CashPaymentSucceeded', cashPaymentId: cashPayment.id, feeAmount: 6_000, netAmount: 294_000, ledgerEntryId: 'je_planted', succeededAt: at } },
      ],
      { expectedRevision: 'any' },
    );
    const report = await reconcile();
    expect(report.status).toBe('differences');
    expect(report.differences).toEqual(expect.arrayContaining([expect.objectContaining({ object_id: cashPayment.id, kind: 'missing_entry', account: shop.merchant, expected: 294_000, found: 0 })]));
  });

  it('is the admin key’s: a finance key is 403', async () => {
    const finance = (await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'F' } })).body.api_key;
    const response = await service.http('POST', '/admin/v1/ledger/reconciliations', { key: finance });
    expect(response.status).toBe(403);
  });
});
