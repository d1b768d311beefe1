import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { Webhook } from 'standardwebhooks';
import { randomBase62 } from '@pay/kernel';
import {
  balanceOf,
  createIntegrator,
  DISTRIBUTED,
  expectBalancedTrialBalance,
  idempotencyKey,
  PUBLIC_BASE_URL,
  startTestService,
  type Integrator,
  type TestService,
} from './harness';
import { CRASH_TEST_TIMEOUT_MS, startServiceProcess, type ServiceProcess } from './process-harness';
import { Receiver } from './receiver';

const HOUR_MS = 3_600_000;
const AMOUNT = 1_250_000;
/** Default fee schedule: cash payments 200 basis points. */
const FEE = 25_000;

/** Damm's check over a string of digits: 0 when the last digit is the right check digit. */
const DAMM = ['0317598642', '7092154863', '4206871359', '1750983426', '6123045978', '3674209581', '5869720134', '8945362017', '9438617205', '2581436790'];
const dammValid = (digits: string) => [...digits].reduce((interim, d) => Number(DAMM[interim]![Number(d)]), 0) === 0;

let orderCounter = 0;
const cashBody = (merchant: string, overrides: Record<string, unknown> = {}) => ({
  amount: AMOUNT,
  currency: 'DZD',
  order_reference: `cash-order-${++orderCounter}`,
  merchant_connection: merchant,
  ...overrides,
});

describe('Cash checkout: cash payments over HTTP', () => {
  let service: TestService;
  let shop: Integrator;
  let cashPoints: { id: string; name: string; address: string }[];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    cashPoints = [];
    for (const body of [
      { name: 'Bureau de poste Didouche', address: '12 rue Didouche Mourad, Alger' },
      { name: 'Épicerie <Chez Amine> & fils', address: '3 place "des Martyrs", Oran' },
    ]) {
      const created = await service.admin('POST', '/admin/v1/cash_points', { body });
      expect(created.status).toBe(201);
      cashPoints.push(created.body);
    }
  });
  afterAll(async () => {
    await service.stop();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  const create = (overrides: Record<string, unknown> = {}, integrator = shop, headers: Record<string, string> = {}) =>
    service.http('POST', '/v1/cash_payments', { key: integrator.apiKey, body: cashBody(integrator.merchant, overrides), headers });
  const createCash = async (overrides: Record<string, unknown> = {}, integrator = shop) => {
    const response = await create(overrides, integrator);
    expect(response.status).toBe(201);
    return response.body;
  };
  const retrieve = (id: string, integrator = shop) => service.http('GET', `/v1/cash_payments/${id}`, { key: integrator.apiKey });
  const cancel = (id: string, integrator = shop) => service.http('POST', `/v1/cash_payments/${id}/cancel`, { key: integrator.apiKey });
  const pay = (id: string, body: Record<string, unknown>, integrator = shop) =>
    service.http('POST', `/v1/test_helpers/cash_payments/${id}/pay`, { key: integrator.apiKey, body });
  const payExact = (payment: { id: string; amount: number }, integrator = shop) => pay(payment.id, { cash_point: cashPoints[0]!.id, amount: payment.amount }, integrator);
  const clockNow = async () => Date.parse((await service.http('GET', '/v1/test_helpers/clock', { key: shop.apiKey })).body.now);
  const expectError = (response: { status: number; body: any }, status: number, code: string, param?: string) =>
    expect({ status: response.status, ...response.body.error, message: undefined }).toEqual({ status, code, ...(param ? { param } : {}), message: undefined });
  const receiver = async () => {
    const started = await new Receiver().start();
    receivers.push(started);
    return started;
  };

  describe('create, retrieve, cancel', () => {
    it('create cash payment: 201, awaiting_payment, payment_reference, qr_code_url, instructions_url, expires_at 72 h by default', async () => {
      const payment = await createCash();
      expect(payment).toMatchObject({
        object: 'cash_payment',
        status: 'awaiting_payment',
        amount: AMOUNT,
        currency: 'DZD',
        merchant_connection: shop.merchant,
        cash_point: null,
        receipt_number: null,
        fee_amount: null,
        net_amount: null,
        paid_at: null,
      });
      expect(payment.id).toMatch(/^cpay_[0-9A-Za-z]{20,}$/);
      expect(payment.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(payment.expires_at) - Date.parse(payment.created_at)).toBe(72 * HOUR_MS);
      expect(payment.qr_code_url).toBe(`${PUBLIC_BASE_URL}/hosted/cash_payments/${payment.id}/qr.png`);
      expect(payment.instructions_url).toBe(`${PUBLIC_BASE_URL}/hosted/cash_payments/${payment.id}/instructions`);
    });

    it('payment_reference: 10 digits with a Damm check digit, random, unique among open cash payments', async () => {
      const payments = await Promise.all(Array.from({ length: 20 }, () => createCash({ amount: 1_000 })));
      const references = payments.map((p) => p.payment_reference);
      for (const reference of references) {
        expect(reference).toMatch(/^[0-9]{10}$/);
        expect(dammValid(reference)).toBe(true);
      }
      expect(new Set(references).size).toBe(references.length);
      const sorted = [...references].sort();
      expect(references).not.toEqual(sorted); // not handed out in order (1 chance in 20! to fail)
    });

    it('retrieve returns the same cash payment; an unknown id is 404 resource_not_found', async () => {
      const payment = await createCash();
      const retrieved = await retrieve(payment.id);
      expect(retrieved.status).toBe(200);
      expect(retrieved.body).toEqual(payment);
      expectError(await retrieve('cpay_doesnotexist0000000000'), 404, 'resource_not_found');
    });

    it('cancel a cash payment awaiting payment: 200 with status canceled; the reference can no longer be paid', async () => {
      const payment = await createCash();
      const canceled = await cancel(payment.id);
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ id: payment.id, status: 'canceled', payment_reference: payment.payment_reference, paid_at: null });
      expectError(await payExact(payment), 409, 'invalid_status');
      expect((await retrieve(payment.id)).body.status).toBe('canceled');
    });

    it("another integrator's cash payment is 404 on retrieve, cancel and pay", async () => {
      const payment = await createCash();
      const other = await createIntegrator(service);
      for (const response of [await retrieve(payment.id, other), await cancel(payment.id, other), await payExact(payment, other)]) {
        expectError(response, 404, 'resource_not_found');
      }
      expect((await retrieve(payment.id)).body.status).toBe('awaiting_payment');
    });
  });

  describe('validation (contract section 2)', () => {
    it('expires_at honoured when 5 minutes to 30 days ahead of the service clock', async () => {
      const now = await clockNow();
      for (const aheadMs of [6 * 60_000, 29 * 24 * HOUR_MS]) {
        const expiresAt = new Date(now + aheadMs).toISOString();
        const payment = await createCash({ expires_at: expiresAt });
        expect(payment.expires_at).toBe(expiresAt);
      }
      const instant = new Date(Math.floor((now + 2 * HOUR_MS) / 1000) * 1000);
      const withZoneOffset = `${new Date(instant.getTime() + HOUR_MS).toISOString().slice(0, 19)}+01:00`;
      expect((await createCash({ expires_at: withZoneOffset })).expires_at).toBe(instant.toISOString());
    });

    it('expires_at null counts as missing: the default 72 h applies', async () => {
      const payment = await createCash({ expires_at: null });
      expect(Date.parse(payment.expires_at) - Date.parse(payment.created_at)).toBe(72 * HOUR_MS);
    });

    it('expires_at less than 5 minutes or more than 30 days ahead, in the past, or not ISO 8601: 400 invalid_request (param expires_at)', async () => {
      const now = await clockNow();
      for (const expiresAt of [
        new Date(now + 4 * 60_000).toISOString(),
        new Date(now + 31 * 24 * HOUR_MS).toISOString(),
        new Date(now - HOUR_MS).toISOString(),
        'tomorrow',
        '2030-02-30T10:00:00Z',
        new Date(now + 2 * HOUR_MS).toISOString().slice(0, 19), // no zone
        '',
        12345,
        true,
      ]) {
        expectError(await create({ expires_at: expiresAt }), 400, 'invalid_request', 'expires_at');
      }
    });

    it.each([
      ['an unknown parameter', { color: 'red' }, 'invalid_request', 'color'],
      ['a missing amount', { amount: undefined }, 'invalid_request', 'amount'],
      ['amount null (counts as missing)', { amount: null }, 'invalid_request', 'amount'],
      ['order_reference null', { order_reference: null }, 'invalid_request', 'order_reference'],
      ['an empty order_reference', { order_reference: '' }, 'invalid_request', 'order_reference'],
      ['order_reference of 256 characters', { order_reference: 'x'.repeat(256) }, 'invalid_request', 'order_reference'],
      ['merchant_connection not a string', { merchant_connection: 42 }, 'invalid_request', 'merchant_connection'],
      ['amount 0', { amount: 0 }, 'invalid_amount', 'amount'],
      ['amount 1.5', { amount: 1.5 }, 'invalid_amount', 'amount'],
      ['amount "100"', { amount: '100' }, 'invalid_amount', 'amount'],
      ['amount above 100000000000', { amount: 100_000_000_001 }, 'invalid_amount', 'amount'],
      ['currency EUR', { currency: 'EUR' }, 'unsupported_currency', 'currency'],
      ['currency dzd (case-sensitive)', { currency: 'dzd' }, 'unsupported_currency', 'currency'],
    ])('%s: 400 %s', async (_case, overrides, code, param) => {
      expectError(await create(overrides), 400, code, param);
    });

    it('precedence: invalid_request, then invalid_amount, then unsupported_currency, then connection_not_authorized, then currency_mismatch', async () => {
      const other = await createIntegrator(service);
      const madShop = await createIntegrator(service, 'MAD');
      const now = await clockNow();
      const tooSoon = new Date(now + 60_000).toISOString();
      expectError(await create({ amount: 0, currency: 'EUR', expires_at: tooSoon }), 400, 'invalid_request', 'expires_at');
      expectError(await create({ amount: 0, currency: 'EUR', color: 'red' }), 400, 'invalid_request', 'color');
      expectError(await create({ amount: 0, currency: 'EUR' }), 400, 'invalid_amount', 'amount');
      expectError(await create({ currency: 'EUR', merchant_connection: other.merchant }), 400, 'unsupported_currency', 'currency');
      expectError(await create({ currency: 'MAD', merchant_connection: other.merchant }), 403, 'connection_not_authorized', 'merchant_connection');
      expectError(await create({ merchant_connection: 'conn_nosuchconnection000000000' }), 403, 'connection_not_authorized', 'merchant_connection');
      expectError(await create({ currency: 'MAD' }), 400, 'currency_mismatch', 'currency');
      expect((await create({ currency: 'MAD' }, madShop)).status).toBe(201);
    });

    it('a body that is not a JSON object: 400 invalid_request', async () => {
      for (const rawBody of ['[]', '"text"', '42']) {
        const response = await service.http('POST', '/v1/cash_payments', { key: shop.apiKey, rawBody });
        expectError(response, 400, 'invalid_request');
      }
    });
  });

  describe('idempotency (contract section 3)', () => {
    it('same Idempotency-Key and body: the same cash payment again, Idempotent-Replayed: true; another body: 409 idempotency_key_reused', async () => {
      const key = idempotencyKey();
      const body = cashBody(shop.merchant);
      const first = await service.http('POST', '/v1/cash_payments', { key: shop.apiKey, body, headers: { 'Idempotency-Key': key } });
      const again = await service.http('POST', '/v1/cash_payments', { key: shop.apiKey, body, headers: { 'Idempotency-Key': key } });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      const reused = await service.http('POST', '/v1/cash_payments', { key: shop.apiKey, body: { ...body, amount: 999 }, headers: { 'Idempotency-Key': key } });
      expectError(reused, 409, 'idempotency_key_reused');
    });

    it('the key is optional: without it, each create is a new cash payment', async () => {
      const body = cashBody(shop.merchant);
      const [a, b] = [await create(body), await create(body)];
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(a.body.id).not.toBe(b.body.id);
      expect(a.body.payment_reference).not.toBe(b.body.payment_reference);
    });

    it('a failed validation stores no result: the same key then works with a valid body', async () => {
      const key = idempotencyKey();
      expectError(await create({ amount: 0 }, shop, { 'Idempotency-Key': key }), 400, 'invalid_amount', 'amount');
      expect((await create({}, shop, { 'Idempotency-Key': key })).status).toBe(201);
    });
  });

  describe('the cash agent validates the cash (sandbox helper pay)', () => {
    it('amount exactly as requested: succeeded, merchant credited net_amount through the ledger, fee to the platform', async () => {
      const merchantBefore = await balanceOf(service, shop.merchant);
      const payment = await createCash();
      const paid = await payExact(payment);
      expect(paid.status).toBe(200);
      expect(paid.body).toMatchObject({
        id: payment.id,
        status: 'succeeded',
        cash_point: cashPoints[0]!.id,
        fee_amount: FEE,
        net_amount: AMOUNT - FEE,
        payment_reference: payment.payment_reference,
      });
      expect(paid.body.receipt_number).toMatch(/^R-\d{8}-\d$/);
      expect(paid.body.paid_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(paid.body.fee_amount + paid.body.net_amount).toBe(payment.amount);
      expect((await retrieve(payment.id)).body).toEqual(paid.body);
      expect(await balanceOf(service, shop.merchant)).toBe(merchantBefore + AMOUNT - FEE);

      const entries = await service.admin('GET', `/admin/v1/ledger/entries?reference=${payment.id}`);
      expect(entries.body.data).toHaveLength(1);
      expect(entries.body.data[0].postings).toEqual(
        expect.arrayContaining([
          { account: 'platform:cash:DZD', direction: 'debit', amount: AMOUNT, currency: 'DZD' },
          { account: shop.merchant, direction: 'credit', amount: AMOUNT - FEE, currency: 'DZD' },
          { account: 'platform:fees:DZD', direction: 'credit', amount: FEE, currency: 'DZD' },
        ]),
      );
      await expectBalancedTrialBalance(service);
    });

    it('receipt numbers are unique', async () => {
      const payments = await Promise.all(Array.from({ length: 5 }, () => createCash({ amount: 500 })));
      const paid = await Promise.all(payments.map((p) => payExact(p)));
      const receipts = paid.map((r) => r.body.receipt_number);
      expect(new Set(receipts).size).toBe(5);
    });

    it.each([
      ['one less', AMOUNT - 1],
      ['one more', AMOUNT + 1],
      ['half', AMOUNT / 2],
    ])('an amount other than the exact one (%s): 400 invalid_amount and nothing changes', async (_case, amount) => {
      const merchantBefore = await balanceOf(service, shop.merchant);
      const payment = await createCash();
      expectError(await pay(payment.id, { cash_point: cashPoints[0]!.id, amount }), 400, 'invalid_amount', 'amount');
      expect((await retrieve(payment.id)).body).toEqual(payment);
      expect(await balanceOf(service, shop.merchant)).toBe(merchantBefore);
      expect((await service.admin('GET', `/admin/v1/ledger/entries?reference=${payment.id}`)).body.data).toHaveLength(0);
      expect((await payExact(payment)).body.status).toBe('succeeded'); // still payable with the exact amount
    });

    it('an unknown cash point: 400 invalid_request (param cash_point), nothing changes', async () => {
      const payment = await createCash();
      expectError(await pay(payment.id, { cash_point: 'cp_nosuchcashpoint0000000000', amount: AMOUNT }), 400, 'invalid_request', 'cash_point');
      expect((await retrieve(payment.id)).body).toEqual(payment);
    });

    it('a malformed pay body: 400 invalid_request or invalid_amount', async () => {
      const payment = await createCash();
      expectError(await pay(payment.id, { amount: AMOUNT }), 400, 'invalid_request', 'cash_point');
      expectError(await pay(payment.id, { cash_point: cashPoints[0]!.id }), 400, 'invalid_request', 'amount');
      expectError(await pay(payment.id, { cash_point: cashPoints[0]!.id, amount: AMOUNT, tip: 5 }), 400, 'invalid_request', 'tip');
      expectError(await pay(payment.id, { cash_point: cashPoints[0]!.id, amount: '12500.00' }), 400, 'invalid_amount', 'amount');
    });

    it('a final cash payment (succeeded, canceled): cancel and pay are 409 invalid_status, unchanged; the merchant is credited once', async () => {
      const merchantBefore = await balanceOf(service, shop.merchant);
      const succeeded = await createCash();
      expect((await payExact(succeeded)).status).toBe(200);
      const canceled = await createCash();
      expect((await cancel(canceled.id)).status).toBe(200);
      for (const payment of [succeeded, canceled]) {
        const before = (await retrieve(payment.id)).body;
        expectError(await cancel(payment.id), 409, 'invalid_status');
        expectError(await payExact(payment), 409, 'invalid_status');
        expectError(await pay(payment.id, { cash_point: cashPoints[1]!.id, amount: 1 }), 409, 'invalid_status');
        expect((await retrieve(payment.id)).body).toEqual(before);
      }
      expect(await balanceOf(service, shop.merchant)).toBe(merchantBefore + AMOUNT - FEE);
      expect((await service.admin('GET', `/admin/v1/ledger/entries?reference=${succeeded.id}`)).body.data).toHaveLength(1);
    });

    it('one cash payment paid 10 times at once is credited once; the others get invalid_status', async () => {
      const merchantBefore = await balanceOf(service, shop.merchant);
      const payment = await createCash();
      const responses = await Promise.all(Array.from({ length: 10 }, () => payExact(payment)));
      expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of responses.filter((r) => r.status !== 200)) expectError(r, 409, 'invalid_status');
      expect(await balanceOf(service, shop.merchant)).toBe(merchantBefore + AMOUNT - FEE);
      expect((await service.admin('GET', `/admin/v1/ledger/entries?reference=${payment.id}`)).body.data).toHaveLength(1);
    });
  });

  describe('cancel racing the agent’s validation', () => {
    it('cancel and pay at once, 50 times: exactly one wins each time (never both, never neither), the loser gets invalid_status', async () => {
      const racer = await createIntegrator(service);
      const payments = await Promise.all(Array.from({ length: 50 }, () => createCash({ amount: 1_000 }, racer)));
      let paidCount = 0;
      for (const payment of payments) {
        const [canceled, paid] = await Promise.all([cancel(payment.id, racer), payExact(payment, racer)]);
        const winners = [canceled, paid].filter((r) => r.status === 200);
        expect(winners).toHaveLength(1);
        const loser = canceled.status === 200 ? paid : canceled;
        expectError(loser, 409, 'invalid_status');
        const final = (await retrieve(payment.id, racer)).body;
        expect(final.status).toBe(canceled.status === 200 ? 'canceled' : 'succeeded');
        if (final.status === 'succeeded') paidCount += 1;
        const entries = (await service.admin('GET', `/admin/v1/ledger/entries?reference=${payment.id}`)).body.data;
        expect(entries).toHaveLength(final.status === 'succeeded' ? 1 : 0);
      }
      const fee = 20; // 200 basis points of 1000
      expect(await balanceOf(service, racer.merchant)).toBe(paidCount * (1_000 - fee));
      await expectBalancedTrialBalance(service);
    });
  });

  describe('hosted instructions page and QR code', () => {
    it('instructions_url: 200 HTML with amount, currency, reference, QR code, deadline and every cash point (escaped), with a CSP', async () => {
      const payment = await createCash({ order_reference: 'order-<script>alert(1)</script>' });
      const page = await service.http('GET', new URL(payment.instructions_url).pathname);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      for (const directive of ["frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'"]) expect(page.headers.get('content-security-policy')).toContain(directive);
      expect(page.headers.get('content-security-policy')).not.toMatch(/script-src|unsafe-inline/);
      const html: string = page.body;
      expect(html).toContain('<html lang="fr" dir="ltr">'); // no Accept-Language: French
      expect(html).toContain('12\u202f500,00\u00a0DA');
      expect(html).toContain(`${payment.payment_reference.slice(0, 3)} ${payment.payment_reference.slice(3, 6)} ${payment.payment_reference.slice(6)}`);
      // The deadline in Algiers' local time, the zone named.
      const local = new Date(payment.expires_at).toLocaleTimeString('fr-FR', { timeZone: 'Africa/Algiers', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
      expect(html.replace(/[\u2066-\u2069]/g, '')).toContain(`à ${local} (heure d’Alger, UTC+1)`); // without the isolates around each value
      expect(html).toContain('Test shop'); // whom the customer pays
      expect(html).toContain('order-&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(html).toContain(`<img src="/hosted/cash_payments/${payment.id}/qr.png"`);
      expect(html).toContain('Bureau de poste Didouche');
      expect(html).toContain('12 rue Didouche Mourad, Alger');
      expect(html).toContain('Épicerie &lt;Chez Amine&gt; &amp; fils');
      expect(html).toContain('3 place &quot;des Martyrs&quot;, Oran');
      expect(html).not.toContain('<script>');
      expect(html).not.toContain('<Chez Amine>');
    });

    it('the amount is formatted with the currency scale (TND 3, XOF 0), in the customer\'s locale', async () => {
      const tnd = await createIntegrator(service, 'TND');
      const xof = await createIntegrator(service, 'XOF');
      const tndPayment = await createCash({ currency: 'TND', amount: 12_345 }, tnd);
      const xofPayment = await createCash({ currency: 'XOF', amount: 5_000 }, xof);
      expect((await service.http('GET', new URL(tndPayment.instructions_url).pathname)).body).toContain('12,345\u00a0DT');
      expect((await service.http('GET', new URL(xofPayment.instructions_url).pathname)).body).toContain('5\u202f000\u00a0F\u202fCFA');
    });

    it('qr_code_url: a PNG QR code that decodes to payment_reference', async () => {
      const payment = await createCash();
      const response = await fetch(`${service.url}${new URL(payment.qr_code_url).pathname}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      const png = PNG.sync.read(Buffer.from(await response.arrayBuffer()));
      const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
      expect(decoded?.data).toBe(payment.payment_reference);
    });

    it('an unknown cash payment id: 404, the Not found page on both (a customer never gets the API JSON)', async () => {
      for (const path of ['/hosted/cash_payments/cpay_nope00000000000000000000/instructions', '/hosted/cash_payments/cpay_nope00000000000000000000/qr.png']) {
        const response = await service.http('GET', path);
        expect({ path, status: response.status, type: response.headers.get('content-type') }).toEqual({ path, status: 404, type: 'text/html; charset=utf-8' });
        expect(response.body).toContain('Page introuvable');
      }
    });
  });

  describe('events (contract section 6)', () => {
    it('cash_payment.succeeded and cash_payment.canceled are delivered, signed, with the specification payload and object_version', async () => {
      const merchant = await createIntegrator(service);
      const hook = await receiver();
      const endpoint = await service.http('POST', '/v1/webhook_endpoints', { key: merchant.apiKey, body: { url: hook.url, enabled_events: ['*'] } });
      expect(endpoint.status).toBe(201);
      const toPay = await createCash({}, merchant);
      const paid = (await payExact(toPay, merchant)).body;
      const toCancel = await createCash({}, merchant);
      const canceled = (await cancel(toCancel.id, merchant)).body;
      await hook.waitFor(2);
      const verifier = new Webhook(endpoint.body.secret);
      for (const delivery of hook.received) {
        expect(() => verifier.verify(delivery.body, delivery.headers as Record<string, string>)).not.toThrow();
      }
      const byType = Object.fromEntries(hook.events().map((e) => [e.type, e]));
      expect(byType['cash_payment.succeeded']!.data).toMatchObject({
        id: paid.id,
        object: 'cash_payment',
        status: 'succeeded',
        amount: AMOUNT,
        currency: 'DZD',
        order_reference: toPay.order_reference,
        merchant_connection: merchant.merchant,
        payment_reference: toPay.payment_reference,
        cash_point: cashPoints[0]!.id,
        receipt_number: paid.receipt_number,
        fee_amount: FEE,
        net_amount: AMOUNT - FEE,
        paid_at: paid.paid_at,
        object_version: expect.any(Number),
      });
      expect(byType['cash_payment.canceled']!.data).toMatchObject({ id: canceled.id, status: 'canceled', object_version: 2 });
      const listed = await service.http('GET', `/v1/events/${byType['cash_payment.succeeded']!.id}`, { key: merchant.apiKey });
      expect(listed.body).toMatchObject({ type: 'cash_payment.succeeded', data: { id: paid.id } });
    });
  });

  // Last: it moves the service clock forward by days, which would expire the other tests' cash payments.
  describe('expiry at expires_at on the service clock', () => {
    it('advancing the clock past expires_at expires the cash payment, with cash_payment.expired; it can no longer be paid or canceled', async () => {
      const merchant = await createIntegrator(service);
      const hook = await receiver();
      expect((await service.http('POST', '/v1/webhook_endpoints', { key: merchant.apiKey, body: { url: hook.url, enabled_events: ['cash_payment.expired'] } })).status).toBe(201);
      const payment = await createCash({}, merchant);
      const paidInTime = await createCash({}, merchant);
      const advance = (seconds: number) => service.http('POST', '/v1/test_helpers/clock/advance', { key: merchant.apiKey, body: { seconds } });

      expect((await advance(72 * 3600 - 60)).status).toBe(200);
      expect((await retrieve(payment.id, merchant)).body.status).toBe('awaiting_payment');
      expect((await payExact(paidInTime, merchant)).body.status).toBe('succeeded');

      expect((await advance(61)).status).toBe(200);
      const expired = await retrieve(payment.id, merchant);
      expect(expired.body).toMatchObject({ status: 'expired', cash_point: null, fee_amount: null, paid_at: null });
      expect((await retrieve(paidInTime.id, merchant)).body.status).toBe('succeeded');
      expectError(await payExact(payment, merchant), 409, 'invalid_status');
      expectError(await cancel(payment.id, merchant), 409, 'invalid_status');
      expect(await balanceOf(service, merchant.merchant)).toBe(AMOUNT - FEE);

      await hook.waitFor(1);
      const [event] = hook.events();
      expect(event).toMatchObject({
        type: 'cash_payment.expired',
        data: { id: payment.id, object: 'cash_payment', status: 'expired', amount: AMOUNT, currency: 'DZD', order_reference: payment.order_reference },
      });
      await expectBalancedTrialBalance(service);
    });
  });
});

/**
 * The validation process survives a crash between its steps: a failpoint kills `npm start` (SIGKILL)
 * right after the ledger transfer, before CashPaymentSucceeded is recorded. The restart's recovery
 * finishes it, and the merchant is credited exactly once. (A process of its own: all-in-one only.)
 */
(DISTRIBUTED ? describe.skip : describe)('crash between the ledger transfer and the cash payment success event', () => {
  const adminKey = `admin_${randomBase62(32)}`;
  let running: ServiceProcess | undefined;
  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });

  it('resumes after restart: succeeded, the merchant credited net_amount once, cash_payment.succeeded recorded', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pay-cash-crash-'));
    const env = { DATA_DIR: dataDir, SANDBOX: 'true', ADMIN_API_KEY: adminKey, RATE_LIMIT_PER_SECOND: '0' };
    running = await startServiceProcess({ ...env, FAILPOINTS: 'cash.after-ledger-transfer' });
    const admin = (method: string, path: string, body?: unknown) => running!.http(method, path, { key: adminKey, body });
    const integrator = (await admin('POST', '/admin/v1/integrators', { name: 'Crash shop' })).body;
    const merchant = (await admin('POST', '/admin/v1/connections', { integrator: integrator.id, kind: 'merchant', name: 'M', currency: 'DZD' })).body;
    const cashPoint = (await admin('POST', '/admin/v1/cash_points', { name: 'Poste', address: 'Alger' })).body;
    const payment = (await running.http('POST', '/v1/cash_payments', { key: integrator.api_key, body: cashBody(merchant.id) })).body;
    expect(payment.status).toBe('awaiting_payment');

    await expect(
      running.http('POST', `/v1/test_helpers/cash_payments/${payment.id}/pay`, { key: integrator.api_key, body: { cash_point: cashPoint.id, amount: AMOUNT } }),
    ).rejects.toThrow();
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(running.output()).toContain('failpoint cash.after-ledger-transfer');

    running = await startServiceProcess(env);
    const after = await running.http('GET', `/v1/cash_payments/${payment.id}`, { key: integrator.api_key });
    expect(after.body).toMatchObject({ status: 'succeeded', cash_point: cashPoint.id, fee_amount: FEE, net_amount: AMOUNT - FEE });
    expect((await admin('GET', `/admin/v1/balances/${merchant.id}`)).body.available).toBe(AMOUNT - FEE);
    expect((await admin('GET', `/admin/v1/ledger/entries?reference=${payment.id}`)).body.data).toHaveLength(1);
    const events = await running.http('GET', '/v1/events', { key: integrator.api_key });
    expect(events.body.data.map((e: { type: string }) => e.type)).toEqual(['cash_payment.succeeded']);
    const again = await running.http('POST', `/v1/test_helpers/cash_payments/${payment.id}/pay`, { key: integrator.api_key, body: { cash_point: cashPoint.id, amount: AMOUNT } });
    expect(again.status).toBe(409);
    expect((await admin('GET', `/admin/v1/balances/${merchant.id}`)).body.available).toBe(AMOUNT - FEE);
  }, CRASH_TEST_TIMEOUT_MS);
});
