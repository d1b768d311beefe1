import type { Pool } from 'pg';
import type { AdminBeneficiaryResource, BeneficiaryResource, CreateBeneficiary } from '@pay/contracts';
import type { Currency } from '@pay/kernel';

export interface Beneficiary {
  id: string;
  businessConnection: string;
  integratorId: string;
  accountName: string;
  currency: Currency;
  status: 'authorized' | 'revoked';
  createdAt: string;
}

export class BeneficiariesStore {
  constructor(private readonly pool: Pool) {}

  /** Idempotent by id: a retried create finds the beneficiary already there. */
  async create(request: CreateBeneficiary, now: Date): Promise<Beneficiary> {
    await this.pool.query(
      `INSERT INTO sp_beneficiaries (id, business_connection, integrator_id, account_name, currency, status, created_at)
       VALUES ($1, $2, $3, $4, $5, 'authorized', $6) ON CONFLICT (id) DO NOTHING`,
      [request.beneficiaryId, request.business, request.integratorId, request.accountName, request.currency, now],
    );
    return (await this.find(request.beneficiaryId))!;
  }

  async revoke(id: string, now: Date): Promise<Beneficiary | undefined> {
    await this.pool.query(`UPDATE sp_beneficiaries SET status = 'revoked', revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`, [id, now]);
    return this.find(id);
  }

  async find(id: string): Promise<Beneficiary | undefined> {
    const { rows } = await this.pool.query<BeneficiaryRow>('SELECT * FROM sp_beneficiaries WHERE id = $1', [id]);
    const row = rows[0];
    return (
      row && {
        id: row.id,
        businessConnection: row.business_connection,
        integratorId: row.integrator_id,
        accountName: row.account_name,
        currency: row.currency,
        status: row.status,
        createdAt: row.created_at.toISOString(),
      }
    );
  }
}

interface BeneficiaryRow {
  id: string;
  business_connection: string;
  integrator_id: string;
  account_name: string;
  currency: Currency;
  status: 'authorized' | 'revoked';
  created_at: Date;
}

export const toBeneficiaryResource = (b: Beneficiary): BeneficiaryResource => ({
  id: b.id,
  object: 'beneficiary',
  account_name: b.accountName,
  status: b.status,
  created_at: b.createdAt,
});

export const toAdminBeneficiaryResource = (b: Beneficiary): AdminBeneficiaryResource => ({
  ...toBeneficiaryResource(b),
  business: b.businessConnection,
  currency: b.currency,
});
