import type { Pool } from 'pg';
import { EVENT_STORE_MIGRATIONS } from '@pay/event-store';
import { createPool, runMigrations } from '@pay/platform';
import { createTestDatabase } from '@pay/testing';
import { SUPPLIER_PAYMENTS_MIGRATIONS } from './supplier-payments.module';
import { SupplierPaymentViews } from './supplier-payment-projection';

/**
 * The supplier payments list over a real PostgreSQL: newest first by created_at (the request's time),
 * whatever order the projection inserted the rows in, and paging neither skips nor repeats one.
 */
describe('supplier payment list order', () => {
  let pool: Pool;
  let views: SupplierPaymentViews;
  const integratorId = 'int_sp_order';
  const BASE = Date.parse('2026-11-22T10:00:00.000Z');

  beforeAll(async () => {
    const url = await createTestDatabase('sp_list');
    await runMigrations(url, [EVENT_STORE_MIGRATIONS, SUPPLIER_PAYMENTS_MIGRATIONS]);
    pool = createPool(url, { max: 2, statementTimeoutMs: 30_000 });
    views = new SupplierPaymentViews(pool);
    // Inserted out of creation order, as concurrent creates can commit.
    for (const [id, offset] of [['sp_a', 722], ['sp_b', 744], ['sp_c', 712], ['sp_d', 742], ['sp_e', 742]] as const) {
      const createdAt = new Date(BASE + offset).toISOString();
      const terms = { supplierPaymentId: id, integratorId, invoiceReference: 'INV', payerConnection: 'conn_p', beneficiary: 'ben_x', amount: 1, currency: 'DZD', description: null, createdAt, expiresAt: createdAt };
      await pool.query(
        `INSERT INTO sp_supplier_payment_views (supplier_payment_id, integrator_id, invoice_reference, status, expires_at, state, revision, updated_at, created_at)
         VALUES ($1, $2, 'INV', 'awaiting_approval', $3, $4, 1, now(), $3)`,
        [id, integratorId, createdAt, { status: 'awaiting_approval', terms, approval: null }],
      );
    }
  });
  afterAll(() => pool?.end());

  it('lists newest first by created_at, equal times the later inserted first, and pages through once', async () => {
    const expected = ['sp_b', 'sp_e', 'sp_d', 'sp_a', 'sp_c'];
    expect((await views.list({ integratorId, limit: 100 })).data.map((p) => p.id)).toEqual(expected);
    const seen: string[] = [];
    let startingAfter: string | undefined;
    for (let page = 0; page < 10; page++) {
      const list = await views.list({ integratorId, limit: 2, invoiceReference: 'INV', ...(startingAfter ? { startingAfter } : {}) });
      seen.push(...list.data.map((p) => p.id));
      if (!list.has_more) break;
      startingAfter = seen[seen.length - 1];
    }
    expect(seen).toEqual(expected);
  });
});
