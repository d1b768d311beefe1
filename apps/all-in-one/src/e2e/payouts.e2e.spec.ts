import { pain001SchemaCheck, xmllintAgainst } from '@pay/testing';
import { iban, statement } from './payouts-files';
import { balanceOf, createIntegrator, expectBalancedTrialBalance, idempotencyKey, startTestService, type Integrator, type TestService } from './harness';

/** Contract section 15: bank accounts, payouts, batches and their pain.001 file, camt.053 statements. */

const DZ_IBAN = iban('DZ', '0002100001113000000570');

const schemaCheck = pain001SchemaCheck();

describe('payouts', () => {
  let service: TestService;
  let shop: Integrator;
  let bankAccount: string;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    const created = await bankAccountOf(shop, DZ_IBAN);
    bankAccount = created.body.id;
  });
  afterAll(() => service.stop());

  const bankAccountOf = (integrator: Integrator, ibanText: string, connection = integrator.merchant) =>
    service.http('POST', '/v1/bank_accounts', {
      key: integrator.apiKey,
      body: { connection, account_holder: 'Atlas Trading SARL', iban: ibanText },
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
  const fund = async (connection: string, amount: number, currency = 'DZD') =>
    expect((await service.admin('POST', '/admin/v1/topups', { body: { account: connection, amount, currency }, headers: { 'Idempotency-Key': idempotencyKey() } })).status).toBe(201);
  const payout = (body: Record<string, unknown>, integrator = shop, key = idempotencyKey()) =>
    service.http('POST', '/v1/payouts', { key: integrator.apiKey, body: { connection: integrator.merchant, bank_account: bankAccount, currency: 'DZD', ...body }, headers: { 'Idempotency-Key': key } });
  const batch = (currency = 'DZD') => service.admin('POST', '/admin/v1/payout_batches', { body: { currency }, headers: { 'Idempotency-Key': idempotencyKey() } });
  const importStatement = (xml: string) => service.admin('POST', '/admin/v1/bank_statements', { rawBody: xml, headers: { 'Content-Type': 'application/xml' } });
  const retrieve = async (id: string, integrator = shop) => (await service.http('GET', `/v1/payouts/${id}`, { key: integrator.apiKey })).body;

  describe('bank accounts', () => {
    it('answers the full IBAN only at creation, iban_last4 after; spaces are ignored', async () => {
      const printed = DZ_IBAN.replace(/(.{4})/g, '$1 ').trim().toLowerCase();
      const created = await bankAccountOf(shop, printed);
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^ba_[A-Za-z0-9]{20,}$/),
        object: 'bank_account',
        connection: shop.merchant,
        account_holder: 'Atlas Trading SARL',
        country: 'DZ',
        iban_last4: DZ_IBAN.slice(-4),
        iban: DZ_IBAN,
        currency: 'DZD',
        created_at: expect.any(String),
      });
      const { iban: _full, ...rest } = created.body;
      const retrieved = await service.http('GET', `/v1/bank_accounts/${created.body.id}`, { key: shop.apiKey });
      expect(retrieved.body).toEqual(rest);
      expect(JSON.stringify(retrieved.body)).not.toContain(DZ_IBAN);
      const listed = await service.http('GET', `/v1/bank_accounts?connection=${shop.merchant}`, { key: shop.apiKey });
      expect(listed.body).toMatchObject({ object: 'list', has_more: false });
      expect(listed.body.data[0]).toEqual(rest);
      expect(JSON.stringify(listed.body)).not.toContain(DZ_IBAN);
    });

    it.each([
      ['a wrong check digit', DZ_IBAN.slice(0, 2) + (DZ_IBAN[2] === '9' ? '1' : '9') + DZ_IBAN.slice(3)],
      ['a wrong length', `${DZ_IBAN}1`],
      ['not an IBAN', 'hello'],
      ['a country of another currency (MA for a DZD connection)', iban('MA', '011519000001205000534921')],
      ['a country outside the four currencies (FR)', iban('FR', '20041010050500013M02606')],
    ])('refuses %s with 400 invalid_request, param iban', async (_what, value) => {
      const response = await bankAccountOf(shop, value);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_request', param: 'iban' });
    });

    it('takes the XOF countries for an XOF connection; another integrator sees neither the account nor the connection', async () => {
      const xof = await createIntegrator(service, 'XOF');
      for (const account of [iban('SN', 'SA0100152000004563452001'), iban('CI', 'A12345678901234567890123')]) {
        const created = await bankAccountOf(xof, account);
        expect(created.status).toBe(201);
        expect(created.body.currency).toBe('XOF');
      }
      expect((await bankAccountOf(xof, DZ_IBAN)).body.error).toMatchObject({ code: 'invalid_request', param: 'iban' });
      const other = await createIntegrator(service);
      expect((await service.http('GET', `/v1/bank_accounts/${bankAccount}`, { key: other.apiKey })).status).toBe(404);
      expect((await bankAccountOf(other, DZ_IBAN, shop.merchant)).status).toBe(403);
    });
  });

  describe('payouts', () => {
    it('creation debits the available balance at once (balance transaction payout, -amount), pending', async () => {
      await fund(shop.merchant, 5_000_000);
      const before = await balanceOf(service, shop.merchant);
      const created = await payout({ amount: 1_250_000, description: 'November earnings' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^po_[A-Za-z0-9]{20,}$/),
        object: 'payout',
        connection: shop.merchant,
        bank_account: bankAccount,
        amount: 1_250_000,
        currency: 'DZD',
        description: 'November earnings',
        fee_amount: 0,
        status: 'pending',
        failure_reason: null,
        failure_code: null,
        batch: null,
        created_at: expect.any(String),
        paid_at: null,
      });
      expect(await balanceOf(service, shop.merchant)).toBe(before - 1_250_000);
      const txns = await service.http('GET', `/v1/balance_transactions?connection=${shop.merchant}&source=${created.body.id}`, { key: shop.apiKey });
      expect(txns.body.data).toEqual([expect.objectContaining({ type: 'payout', amount: -1_250_000, source: created.body.id, fee_amount: 0 })]);
      expect(await retrieve(created.body.id)).toEqual(created.body);
      await expectBalancedTrialBalance(service);
    });

    it('an amount above the available balance is 400 insufficient_balance and nothing moves', async () => {
      const poor = await createIntegrator(service);
      const account = (await bankAccountOf(poor, DZ_IBAN)).body.id;
      await fund(poor.merchant, 100_000);
      const response = await payout({ amount: 100_001, bank_account: account }, poor);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('insufficient_balance');
      expect(await balanceOf(service, poor.merchant)).toBe(100_000);
      expect((await service.http('GET', '/v1/payouts', { key: poor.apiKey })).body.data).toEqual([]);
    });

    it('validation: currency_mismatch, another connection 403, another bank account 404, amount and currency', async () => {
      expect((await payout({ amount: 1000, currency: 'MAD' })).body.error).toMatchObject({ code: 'currency_mismatch' });
      expect((await payout({ amount: 1000, currency: 'EUR' })).body.error).toMatchObject({ code: 'unsupported_currency' });
      expect((await payout({ amount: 0 })).body.error).toMatchObject({ code: 'invalid_amount' });
      expect((await payout({ amount: 1000, bank_account: undefined })).body.error).toMatchObject({ code: 'invalid_request', param: 'bank_account' });
      const other = await createIntegrator(service);
      expect((await payout({ amount: 1000, connection: other.merchant })).status).toBe(403);
      const othersAccount = (await bankAccountOf(other, DZ_IBAN)).body.id;
      const foreign = await payout({ amount: 1000, bank_account: othersAccount });
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('resource_not_found');
      const mine = (await payout({ amount: 1000 })).body.id;
      expect((await service.http('GET', `/v1/payouts/${mine}`, { key: other.apiKey })).status).toBe(404);
      expect((await service.http('POST', `/v1/payouts/${mine}/cancel`, { key: other.apiKey })).status).toBe(404);
    });

    it('an account holder or a description with a control character or a noncharacter is 400 invalid_request naming it; nothing is created', async () => {
      await fund(shop.merchant, 100_000);
      const before = await balanceOf(service, shop.merchant);
      for (const hostile of ['A\u0001B\u001fC', 'tab\there', 'line\nbreak', 'cr\rhere', 'del\u007f', 'c1\u0085', 'non\ufffe', 'non\uffff', 'non\ufdd0', 'non\udbff\udfff', 'non\u{1FFFE}', '\u{EFFFF}', 'non\u{10FFFE}']) {
        const account = await service.http('POST', '/v1/bank_accounts', {
          key: shop.apiKey,
          body: { connection: shop.merchant, account_holder: hostile, iban: DZ_IBAN },
          headers: { 'Idempotency-Key': idempotencyKey() },
        });
        expect({ hostile, status: account.status, error: account.body.error }).toMatchObject({ hostile, status: 400, error: { code: 'invalid_request', param: 'account_holder' } });
        const made = await payout({ amount: 1000, description: hostile });
        expect({ hostile, status: made.status, error: made.body.error }).toMatchObject({ hostile, status: 400, error: { code: 'invalid_request', param: 'description' } });
      }
      expect(await balanceOf(service, shop.merchant)).toBe(before);
      expect((await payout({ amount: 1000, description: 'Facture n° 42 — été 😀' })).status).toBe(201);
      expect((await payout({ amount: 1000, description: 'plane 16 \u{10FFFD}, plane 1 \u{1FFFD}' })).status).toBe(201);
    });

    it('a retried create (same Idempotency-Key) answers the same payout and debits once', async () => {
      await fund(shop.merchant, 300_000);
      const before = await balanceOf(service, shop.merchant);
      const key = idempotencyKey();
      const first = await payout({ amount: 300_000 }, shop, key);
      const again = await payout({ amount: 300_000 }, shop, key);
      expect(again.body).toEqual(first.body);
      expect(await balanceOf(service, shop.merchant)).toBe(before - 300_000);
    });

    it('cancel: only from pending (the amount back, payout_reversal +amount, payout.canceled); again is 409', async () => {
      await fund(shop.merchant, 200_000);
      const created = (await payout({ amount: 200_000 })).body;
      const before = await balanceOf(service, shop.merchant);
      const canceled = await service.http('POST', `/v1/payouts/${created.id}/cancel`, { key: shop.apiKey });
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ id: created.id, status: 'canceled' });
      expect(await balanceOf(service, shop.merchant)).toBe(before + 200_000);
      const txns = await service.http('GET', `/v1/balance_transactions?connection=${shop.merchant}&source=${created.id}`, { key: shop.apiKey });
      expect(txns.body.data.map((t: { type: string; amount: number }) => [t.type, t.amount])).toEqual([
        ['payout_reversal', 200_000],
        ['payout', -200_000],
      ]);
      const again = await service.http('POST', `/v1/payouts/${created.id}/cancel`, { key: shop.apiKey });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('invalid_status');
      const events = await service.http('GET', '/v1/events?type=payout.canceled&limit=100', { key: shop.apiKey });
      expect(events.body.data.find((e: { data: { id: string } }) => e.data.id === created.id)?.data).toMatchObject({ object: 'payout', status: 'canceled' });
    });

    it('20 parallel payouts on a balance covering 10: exactly 10 created, the rest insufficient_balance', async () => {
      const racer = await createIntegrator(service);
      const account = (await bankAccountOf(racer, DZ_IBAN)).body.id;
      await fund(racer.merchant, 10 * 50_000);
      const responses = await Promise.all(Array.from({ length: 20 }, () => payout({ amount: 50_000, bank_account: account }, racer)));
      expect(responses.filter((r) => r.status === 201)).toHaveLength(10);
      expect(responses.filter((r) => r.status === 400 && r.body.error.code === 'insufficient_balance')).toHaveLength(10);
      expect(await balanceOf(service, racer.merchant)).toBe(0);
      await expectBalancedTrialBalance(service);
    });
  });

  describe('batches, the file and the statement', () => {
    it('a batch takes every pending payout of its currency (in_transit, payout.in_transit); count 0 is allowed', async () => {
      const empty = await batch('TND');
      expect(empty.status).toBe(201);
      expect(empty.body).toMatchObject({ object: 'payout_batch', id: expect.stringMatching(/^pob_/), currency: 'TND', count: 0, total_amount: 0 });
    });

    it('the file is pain.001.001.09 (amounts in major units, CtrlSum, EndToEndId = payout id) and validates against the XSD; the statement pays, returns, lists the rest, applies nothing twice', async () => {
      const finance = await createIntegrator(service);
      const account = (await bankAccountOf(finance, DZ_IBAN)).body.id;
      await fund(finance.merchant, 10_000_000);
      const mk = async (amount: number) => (await payout({ amount, bank_account: account }, finance)).body.id as string;
      const [paid, returned, wrongAmount, repeated] = [await mk(1_250_000), await mk(500_000), await mk(300_001), await mk(10_050)];
      const canceledBefore = await mk(1_000);
      await service.http('POST', `/v1/payouts/${canceledBefore}/cancel`, { key: finance.apiKey });
      const made = await batch('DZD');
      expect(made.status).toBe(201);
      expect(made.body.count).toBeGreaterThanOrEqual(4);
      for (const id of [paid, returned, wrongAmount, repeated]) expect(await retrieve(id, finance)).toMatchObject({ status: 'in_transit', batch: made.body.id });
      expect(await retrieve(canceledBefore, finance)).toMatchObject({ status: 'canceled', batch: null });
      // Cancel after batching: the payout is at the bank.
      expect((await service.http('POST', `/v1/payouts/${paid}/cancel`, { key: finance.apiKey })).status).toBe(409);
      const inTransit = await service.http('GET', '/v1/events?type=payout.in_transit&limit=100', { key: finance.apiKey });
      expect(inTransit.body.data.map((e: { data: { id: string } }) => e.data.id)).toEqual(expect.arrayContaining([paid, returned]));

      const file = await service.admin('GET', `/admin/v1/payout_batches/${made.body.id}/file`);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toMatch(/^application\/xml/);
      const xml = file.body as string;
      expect(xml).toContain('xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"');
      expect(xml.match(/<PmtInf>/g)).toHaveLength(1);
      expect(xml).toContain(`<NbOfTxs>${made.body.count}</NbOfTxs>`);
      expect(xml).toContain(`<CtrlSum>${(made.body.total_amount / 100).toFixed(2)}</CtrlSum>`);
      expect(xml).toMatch(new RegExp(`<EndToEndId>${paid}</EndToEndId>\\s*</PmtId>\\s*<Amt>\\s*<InstdAmt Ccy="DZD">12500.00</InstdAmt>`));
      expect(xml).toContain('<InstdAmt Ccy="DZD">100.50</InstdAmt>');
      expect(xml).toContain(`<IBAN>${DZ_IBAN}</IBAN>`);
      expect(xml).toContain('<Nm>Atlas Trading SARL</Nm>');
      if ('xsd' in schemaCheck) {
        const lint = xmllintAgainst(schemaCheck.xsd, xml);
        expect(lint.stderr).toContain('validates');
        expect(lint.status).toBe(0);
      }

      const merchantBefore = await balanceOf(service, finance.merchant);
      const body = statement(`STMT-${made.body.id}`, [
        { e2e: paid, amount: '12500.00', currency: 'DZD', indicator: 'DBIT', ref: `R1-${paid}`, bookingDate: '2026-11-28' },
        { e2e: returned, amount: '5000.00', currency: 'DZD', indicator: 'CRDT', ref: `R2-${returned}`, returnCode: 'AC04' },
        { e2e: 'po_doesnotexist000000000000', amount: '1.00', currency: 'DZD', indicator: 'DBIT', ref: `R3-${paid}` },
        { e2e: wrongAmount, amount: '3000.00', currency: 'DZD', indicator: 'DBIT', ref: `R4-${wrongAmount}` },
        { e2e: repeated, amount: '100.50', currency: 'DZD', indicator: 'DBIT', ref: `R5-${repeated}` },
        { e2e: repeated, amount: '100.50', currency: 'DZD', indicator: 'DBIT', ref: `R5-${repeated}` },
      ]);
      const imported = await importStatement(body);
      expect(imported.status).toBe(201);
      expect(imported.body).toEqual({
        object: 'bank_statement_import',
        id: expect.any(String),
        statement_id: `STMT-${made.body.id}`,
        entries: 6,
        paid: 2,
        failed: 1,
        unmatched: [
          { end_to_end_id: 'po_doesnotexist000000000000', amount: 100, currency: 'DZD', reason: expect.any(String) },
          { end_to_end_id: wrongAmount, amount: 300_000, currency: 'DZD', reason: expect.any(String) },
          { end_to_end_id: repeated, amount: 10_050, currency: 'DZD', reason: expect.any(String) },
        ],
        duplicate: false,
      });
      expect(await retrieve(paid, finance)).toMatchObject({ status: 'paid', paid_at: '2026-11-28T00:00:00.000Z', failure_reason: null });
      expect(await retrieve(returned, finance)).toMatchObject({ status: 'failed', failure_reason: 'returned_by_bank', failure_code: 'AC04', paid_at: null });
      expect(await retrieve(wrongAmount, finance)).toMatchObject({ status: 'in_transit' });
      expect(await balanceOf(service, finance.merchant)).toBe(merchantBefore + 500_000);
      const events = await service.http('GET', '/v1/events?limit=100', { key: finance.apiKey });
      const types = (id: string) => events.body.data.filter((e: { data: { id: string } }) => e.data.id === id).map((e: { type: string }) => e.type);
      expect(types(paid)).toEqual(['payout.paid', 'payout.in_transit']);
      expect(types(returned)).toEqual(['payout.failed', 'payout.in_transit']);
      // The event is dated when the payment is recorded (the service clock), not on the booking date before it.
      const createdAt = (id: string, type: string) => events.body.data.find((e: { type: string; data: { id: string } }) => e.type === type && e.data.id === id).created_at as string;
      expect(Date.parse(createdAt(paid, 'payout.paid'))).toBeGreaterThanOrEqual(Date.parse(createdAt(paid, 'payout.in_transit')));

      // The same statement again: nothing applied, duplicate.
      const again = await importStatement(body);
      expect(again.status).toBe(201);
      expect(again.body).toMatchObject({ statement_id: `STMT-${made.body.id}`, duplicate: true, paid: 2, failed: 1 });
      expect(await balanceOf(service, finance.merchant)).toBe(merchantBefore + 500_000);
      // An entry already applied, in another statement; a return after paid: unmatched, nothing changes.
      const later = await importStatement(
        statement(`STMT2-${made.body.id}`, [
          { e2e: paid, amount: '12500.00', currency: 'DZD', indicator: 'DBIT', ref: `R1-${paid}` },
          { e2e: paid, amount: '12500.00', currency: 'DZD', indicator: 'CRDT', ref: `R9-${paid}`, returnCode: 'AC04' },
        ]),
      );
      expect(later.body).toMatchObject({ entries: 2, paid: 0, failed: 0, duplicate: false });
      expect(later.body.unmatched).toHaveLength(2);
      expect(await retrieve(paid, finance)).toMatchObject({ status: 'paid' });
      expect(await balanceOf(service, finance.merchant)).toBe(merchantBefore + 500_000);

      // The ledger: paid out moved from in transit, the return back to the connection; reconciled.
      const entries = await service.admin('GET', `/admin/v1/ledger/entries?reference=${paid}`);
      expect(entries.body.data.map((e: { kind: string }) => e.kind)).toEqual(['payout', 'payout_paid']);
      const accounts = await service.admin('GET', '/admin/v1/ledger/accounts?kind=platform_payouts_in_transit&currency=DZD');
      expect(accounts.body.data).toEqual([expect.objectContaining({ id: 'platform:payouts_in_transit:DZD', balance: expect.any(Number) })]);
      await expectBalancedTrialBalance(service);
      const reconciliation = await service.admin('POST', '/admin/v1/ledger/reconciliations');
      expect(reconciliation.body).toMatchObject({ status: 'balanced' });

      const listed = await service.http('GET', `/v1/payouts?status=paid&connection=${finance.merchant}`, { key: finance.apiKey });
      expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([repeated, paid]);
      const all = await service.http('GET', '/v1/payouts?limit=100', { key: finance.apiKey });
      expect(all.body.data.map((p: { id: string }) => p.id)).toEqual([canceledBefore, repeated, wrongAmount, returned, paid]);
      const none = await service.http('GET', `/v1/payouts?created_gte=2000-01-01T00:00:00Z&created_lt=2000-01-02T00:00:00Z`, { key: finance.apiKey });
      expect(none.body.data).toEqual([]);
    });

    it('a batch booked by the bank as one entry (a TxDtls each, with its amount) pays each payout once', async () => {
      const booker = await createIntegrator(service);
      const account = (await bankAccountOf(booker, DZ_IBAN)).body.id;
      await fund(booker.merchant, 1_000_000);
      const first = (await payout({ amount: 125_000, bank_account: account }, booker)).body.id as string;
      const second = (await payout({ amount: 75_000, bank_account: account }, booker)).body.id as string;
      const made = await batch('DZD');
      expect(made.status).toBe(201);
      const booked = (id: string) => statement(id, [{ e2e: first, amount: '2000.00', currency: 'DZD', indicator: 'DBIT', ref: `BATCH-${made.body.id}` }]).replace(
        /<NtryDtls>[\s\S]*<\/NtryDtls>/,
        `<NtryDtls>${[first, second].map((e2e, i) => `<TxDtls><Refs><EndToEndId>${e2e}</EndToEndId></Refs><Amt Ccy="DZD">${i === 0 ? '1250.00' : '750.00'}</Amt></TxDtls>`).join('')}</NtryDtls>`,
      );
      const imported = await importStatement(booked(`SB1-${made.body.id}`));
      expect(imported.status).toBe(201);
      expect(imported.body).toMatchObject({ entries: 2, paid: 2, failed: 0, unmatched: [], duplicate: false });
      for (const id of [first, second]) expect(await retrieve(id, booker)).toMatchObject({ status: 'paid', paid_at: '2026-11-28T00:00:00.000Z' });
      // The same booking again (another statement): the payouts are paid already, nothing applied twice.
      const later = await importStatement(booked(`SB2-${made.body.id}`));
      expect(later.body).toMatchObject({ entries: 2, paid: 0, failed: 0, duplicate: false });
      expect(later.body.unmatched.map((u: { reason: string }) => u.reason)).toEqual(['payout_not_in_transit', 'payout_not_in_transit']);
      await expectBalancedTrialBalance(service);
    });

    it("statements that number their entries 1, 2, 3 each: tomorrow's entry 1 pays its own payout", async () => {
      const numbered = await createIntegrator(service);
      const account = (await bankAccountOf(numbered, DZ_IBAN)).body.id;
      await fund(numbered.merchant, 1_000_000);
      const today = (await payout({ amount: 10_000, bank_account: account }, numbered)).body.id as string;
      const tomorrow = (await payout({ amount: 20_000, bank_account: account }, numbered)).body.id as string;
      const made = await batch('DZD');
      const first = await importStatement(statement(`N1-${made.body.id}`, [{ e2e: today, amount: '100.00', currency: 'DZD', indicator: 'DBIT', ref: '1' }]));
      expect(first.body).toMatchObject({ paid: 1, unmatched: [] });
      const second = await importStatement(statement(`N2-${made.body.id}`, [{ e2e: tomorrow, amount: '200.00', currency: 'DZD', indicator: 'DBIT', ref: '1', bookingDate: '2026-11-29' }]));
      expect(second.body).toMatchObject({ paid: 1, unmatched: [] });
      expect(await retrieve(tomorrow, numbered)).toMatchObject({ status: 'paid', paid_at: '2026-11-29T00:00:00.000Z' });
    });

    it('a booking date more than a day ahead of the service clock pays nothing: unmatched booking_date_in_future', async () => {
      const ahead = await createIntegrator(service);
      const account = (await bankAccountOf(ahead, DZ_IBAN)).body.id;
      await fund(ahead.merchant, 100_000);
      const id = (await payout({ amount: 10_000, bank_account: account }, ahead)).body.id as string;
      const made = await batch('DZD');
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const far = await importStatement(statement(`F1-${made.body.id}`, [{ e2e: id, amount: '100.00', currency: 'DZD', indicator: 'DBIT', ref: 'F', bookingDate: '9999-12-31' }]));
      expect(far.body).toMatchObject({ paid: 0, unmatched: [{ end_to_end_id: id, amount: 10_000, currency: 'DZD', reason: 'booking_date_in_future' }] });
      expect(await retrieve(id, ahead)).toMatchObject({ status: 'in_transit', paid_at: null });
      // Tomorrow's date, from a bank east of UTC, is today there.
      const near = await importStatement(statement(`F2-${made.body.id}`, [{ e2e: id, amount: '100.00', currency: 'DZD', indicator: 'DBIT', ref: 'F', bookingDate: tomorrow }]));
      expect(near.body).toMatchObject({ paid: 1, unmatched: [] });
    });

    it('hostile statements: XXE, billion laughs, a NUL or a control character refused with 400, not XML 400, JSON 400, over 10 MB 413; nothing applied', async () => {
      await fund(shop.merchant, 100_000);
      const target = (await payout({ amount: 100_000 })).body.id;
      await batch('DZD');
      const genuine = statement('STMT-HOSTILE', [{ e2e: target, amount: '1000.00', currency: 'DZD', indicator: 'DBIT', ref: `H-${target}` }]);
      const xxe = genuine.replace('<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0"?>\n<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>').replace('<Id>STMT-HOSTILE</Id>', '<Id>&x;</Id>');
      const laughs = `<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n${genuine.split('\n').slice(1).join('\n').replace('<Id>STMT-HOSTILE</Id>', '<Id>&lol3;</Id>')}`;
      const nul = genuine.replace('<Id>STMT-HOSTILE</Id>', '<Id>STMT-\u0000NUL</Id>');
      const control = genuine.replace(`<NtryRef>H-${target}</NtryRef>`, `<NtryRef>H-\u001f${target}</NtryRef>`);
      for (const hostile of [xxe, laughs, nul, control, '<not-closed>', 'plain text', '<Document xmlns="urn:other"/>']) {
        const response = await importStatement(hostile);
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('invalid_request');
        expect(JSON.stringify(response.body)).not.toContain('root:');
      }
      const json = await service.admin('POST', '/admin/v1/bank_statements', { body: { statement: genuine } });
      expect(json.status).toBe(400);
      const big = await importStatement(`${genuine}<!--${'x'.repeat(10 * 1_048_576)}-->`);
      expect(big.status).toBe(413);
      // XML on any other route is refused.
      const elsewhere = await service.http('POST', '/v1/payouts', { key: shop.apiKey, rawBody: genuine, headers: { 'Content-Type': 'application/xml', 'Idempotency-Key': idempotencyKey() } });
      expect(elsewhere.status).toBe(400);
      expect(await retrieve(target)).toMatchObject({ status: 'in_transit' });
      // The genuine statement is still new.
      expect((await importStatement(genuine)).body).toMatchObject({ paid: 1, duplicate: false });
    });

    it('a return changes the payout only when booked and with a reason code: blank is return_without_reason, PDNG not_a_booked_debit_or_return, anything but a code 400', async () => {
      const returns = await createIntegrator(service);
      const account = (await bankAccountOf(returns, DZ_IBAN)).body.id;
      await fund(returns.merchant, 100_000);
      const [blank, pending] = [(await payout({ amount: 10_000, bank_account: account }, returns)).body.id as string, (await payout({ amount: 20_000, bank_account: account }, returns)).body.id as string];
      const made = await batch('DZD');
      const before = await balanceOf(service, returns.merchant);
      const imported = await importStatement(
        statement(`RT1-${made.body.id}`, [
          { e2e: blank, amount: '100.00', currency: 'DZD', indicator: 'CRDT', ref: 'B', returnCode: '   ' },
          { e2e: pending, amount: '200.00', currency: 'DZD', indicator: 'CRDT', ref: 'P', status: 'PDNG', returnCode: 'AC04' },
        ]).replace(/<Ntry>(\s*<NtryRef>P<\/NtryRef>[\s\S]*?)<BookgDt>[\s\S]*?<\/BookgDt>/, '<Ntry>$1'),
      );
      expect(imported.status).toBe(201);
      expect(imported.body).toMatchObject({ paid: 0, failed: 0 });
      expect(imported.body.unmatched.map((u: { end_to_end_id: string; reason: string }) => [u.end_to_end_id, u.reason])).toEqual([
        [blank, 'return_without_reason'],
        [pending, 'not_a_booked_debit_or_return'],
      ]);
      for (const code of ['A'.repeat(1000), '&lt;img src=x onerror=alert(1)&gt;']) {
        const refused = await importStatement(statement(`RT2-${made.body.id}`, [{ e2e: blank, amount: '100.00', currency: 'DZD', indicator: 'CRDT', ref: 'H', returnCode: code }]));
        expect(refused.status).toBe(400);
        expect(refused.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('Ntry 1') });
      }
      for (const id of [blank, pending]) expect(await retrieve(id, returns)).toMatchObject({ status: 'in_transit', failure_code: null });
      expect(await balanceOf(service, returns.merchant)).toBe(before);
      // Booked, the same return fails the payout and credits the money back.
      const booked = await importStatement(statement(`RT3-${made.body.id}`, [{ e2e: pending, amount: '200.00', currency: 'DZD', indicator: 'CRDT', ref: 'P', returnCode: 'AC04' }]));
      expect(booked.body).toMatchObject({ failed: 1, unmatched: [] });
      expect(await retrieve(pending, returns)).toMatchObject({ status: 'failed', failure_reason: 'returned_by_bank', failure_code: 'AC04' });
      expect(await balanceOf(service, returns.merchant)).toBe(before + 20_000);
    });

    it('a statement in another namespace, with two BkToCstmrStmt, or with an undeclared entity reference is 400 invalid_request; nothing applied', async () => {
      const reader = await createIntegrator(service);
      const account = (await bankAccountOf(reader, DZ_IBAN)).body.id;
      await fund(reader.merchant, 100_000);
      const [first, second] = [(await payout({ amount: 10_000, bank_account: account }, reader)).body.id as string, (await payout({ amount: 20_000, bank_account: account }, reader)).body.id as string];
      const made = await batch('DZD');
      const NS = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08';
      const paying = (id: string, e2e: string, amount: string) => statement(id, [{ e2e, amount, currency: 'DZD', indicator: 'DBIT', ref: 'N1' }]);
      const inner = (xml: string) => /<BkToCstmrStmt>[\s\S]*<\/BkToCstmrStmt>/.exec(xml)![0];
      const hostile = [
        `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09" xmlns:c="${NS}">${inner(paying(`NS1-${made.body.id}`, first, '100.00'))}</Document>`,
        `<Document xmlns:c="${NS}">${inner(paying(`NS2-${made.body.id}`, first, '100.00'))}</Document>`,
        `<x:Document xmlns:x="urn:evil" xmlns="${NS}">${inner(paying(`NS3-${made.body.id}`, first, '100.00'))}</x:Document>`,
        `<Document xmlns="${NS}">${inner(paying(`NS4-${made.body.id}`, second, '200.00')).replace('<BkToCstmrStmt>', '<BkToCstmrStmt xmlns="urn:evil">')}</Document>`,
        `<Document xmlns="${NS}">${inner(paying(`TWO-${made.body.id}`, first, '100.00'))}${inner(paying(`TWO-${made.body.id}-2`, second, '200.00'))}</Document>`,
        paying(`ENT-${made.body.id}&x;`, first, '100.00'),
        paying(`ENT2-${made.body.id}`, first, '100.00').replace('Ccy="DZD"', 'Ccy="DZD&x;"'),
      ];
      for (const xml of hostile) {
        const response = await importStatement(xml);
        expect({ xml, status: response.status, code: response.body.error?.code }).toEqual({ xml, status: 400, code: 'invalid_request' });
      }
      for (const id of [first, second]) expect(await retrieve(id, reader)).toMatchObject({ status: 'in_transit', paid_at: null });
    });

    it('a statement not in UTF-8 (Latin-1 bytes, UTF-16, another declared encoding) is 400 naming the encoding, another charset 415; nothing applied', async () => {
      const latin = await createIntegrator(service);
      const account = (await bankAccountOf(latin, DZ_IBAN)).body.id;
      await fund(latin.merchant, 100_000);
      const id = (await payout({ amount: 10_000, bank_account: account }, latin)).body.id as string;
      const made = await batch('DZD');
      const genuine = statement(`ENC-${made.body.id}`, [{ e2e: id, amount: '100.00', currency: 'DZD', indicator: 'DBIT', ref: 'E' }]);
      const declared = genuine.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"');
      const sent = (body: string | Uint8Array, contentType = 'application/xml') => service.admin('POST', '/admin/v1/bank_statements', { rawBody: body, headers: { 'Content-Type': contentType } });
      for (const [body, named] of [
        [Buffer.from(declared.replace('<NtryRef>E</NtryRef>', '<NtryRef>\u00e9</NtryRef>'), 'latin1'), 'UTF-8'],
        [Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(genuine.replace('encoding="UTF-8"', 'encoding="UTF-16"'), 'utf16le')]), 'UTF-16'],
        [Buffer.from(genuine.replace('encoding="UTF-8"', 'encoding="UTF-16"'), 'utf16le'), 'UTF-16'],
        [declared, 'ISO-8859-1'],
      ] as const) {
        const response = await sent(body);
        expect({ named, status: response.status, code: response.body.error?.code }).toEqual({ named, status: 400, code: 'invalid_request' });
        expect(response.body.error.message).toContain(named);
      }
      // Authentication comes first: without the admin key, the same bodies are 401.
      for (const [body, contentType] of [
        [Buffer.from(declared.replace('<NtryRef>E</NtryRef>', '<NtryRef>\u00e9</NtryRef>'), 'latin1'), 'application/xml'],
        [genuine, 'application/xml; charset=iso-8859-1'],
      ] as const) {
        expect((await service.http('POST', '/admin/v1/bank_statements', { rawBody: body, headers: { 'Content-Type': contentType } })).status).toBe(401);
      }
      const charset = await sent(genuine, 'application/xml; charset=iso-8859-1');
      expect(charset.status).toBe(415);
      expect(charset.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('iso-8859-1') });
      expect(await retrieve(id, latin)).toMatchObject({ status: 'in_transit' });
      // UTF-8 with its byte order mark, and charset=utf-8, are read.
      const read = await sent(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(genuine.replace('<NtryRef>E</NtryRef>', '<NtryRef>\u00e9</NtryRef>'))]), 'application/xml; charset=UTF-8');
      expect(read.status).toBe(201);
      expect(read.body).toMatchObject({ paid: 1, unmatched: [] });
    });
  });
});
