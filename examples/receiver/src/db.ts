import type { Pool, PoolClient } from 'pg';

/**
 * The receiver's own tables. `received_events` is the inbox: a row is written before the 2xx (rule 3)
 * and marked processed in the same transaction as the order update (rule 4).
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS received_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  body jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  outcome text,
  failures integer NOT NULL DEFAULT 0,
  retry_at timestamptz,
  last_error text
);
CREATE INDEX IF NOT EXISTS received_events_unprocessed ON received_events (received_at) WHERE processed_at IS NULL;

CREATE TABLE IF NOT EXISTS orders (
  reference text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('payment', 'cash_payment', 'supplier_payment', 'collection')),
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  connection text NOT NULL,
  beneficiary text,
  return_url text,
  status text NOT NULL DEFAULT 'unpaid' CHECK (status IN ('unpaid', 'collected', 'paid', 'payable')),
  paid_by text,
  review boolean NOT NULL DEFAULT false,
  review_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS attempts (
  idempotency_key text PRIMARY KEY,
  order_reference text NOT NULL REFERENCES orders (reference),
  object_id text UNIQUE,
  status text NOT NULL,
  object_version integer,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS attempts_by_order ON attempts (order_reference);
`;

/** Creates the tables when missing. Two receivers starting at once take turns (CREATE … IF NOT EXISTS can race). */
export async function createSchema(pool: Pool): Promise<void> {
  await inTransaction(pool, async (db) => {
    await db.query(`SELECT pg_advisory_xact_lock(hashtext('reference-receiver-schema'))`);
    await db.query(SCHEMA);
  });
}

/** Runs `work` in one transaction: committed if it returns, rolled back if it throws. */
export async function inTransaction<T>(pool: Pool, work: (db: PoolClient) => Promise<T>): Promise<T> {
  const db = await pool.connect();
  let broken = false;
  try {
    await db.query('BEGIN');
    const result = await work(db);
    await db.query('COMMIT');
    return result;
  } catch (error) {
    await db.query('ROLLBACK').catch(() => (broken = true));
    throw error;
  } finally {
    db.release(broken); // a connection that cannot even roll back is discarded
  }
}
