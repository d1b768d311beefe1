import type { Pool } from 'pg';
import type { CashPointResource, CreateCashPoint, ListResource } from '@pay/contracts';

export class CashPointsStore {
  constructor(private readonly pool: Pool) {}

  /** Idempotent by id: a retried create finds the cash point already there. */
  async create(request: CreateCashPoint, now: Date): Promise<CashPointResource> {
    await this.pool.query('INSERT INTO cash_points (id, name, address, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING', [
      request.cashPointId,
      request.name,
      request.address,
      now,
    ]);
    return (await this.find(request.cashPointId))!;
  }

  async find(id: string): Promise<CashPointResource | undefined> {
    const { rows } = await this.pool.query<CashPointRow>('SELECT id, name, address, created_at FROM cash_points WHERE id = $1', [id]);
    return rows[0] && toResource(rows[0]);
  }

  /** Oldest first, as a customer reads a list of places. */
  async list(limit: number): Promise<ListResource<CashPointResource>> {
    const { rows } = await this.pool.query<CashPointRow>('SELECT id, name, address, created_at FROM cash_points ORDER BY seq LIMIT $1', [limit + 1]);
    return { object: 'list', data: rows.slice(0, limit).map(toResource), has_more: rows.length > limit };
  }
}

interface CashPointRow {
  id: string;
  name: string;
  address: string;
  created_at: Date;
}

const toResource = (row: CashPointRow): CashPointResource => ({
  id: row.id,
  object: 'cash_point',
  name: row.name,
  address: row.address,
  created_at: row.created_at.toISOString(),
});
