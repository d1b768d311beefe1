import { ServiceError } from '@pay/contracts';
import { createHash } from 'node:crypto';
import { type PoolClient } from 'pg';

/** sha256 of the inputs in a fixed order: the same request always hashes the same. */
export const requestHash = (kind: string, fields: readonly unknown[]): string =>
  createHash('sha256').update(JSON.stringify([kind, ...fields])).digest('hex');

/**
 * Runs an operation at most once per `operationId`, inside the caller's transaction. The first caller
 * claims the id (its row stays locked until it commits); a repeat waits on that lock and then answers
 * the stored outcome, or `idempotency_key_reused` when its inputs differ. `work` must store its
 * outcome (storeOutcome, or within its last write) before the transaction commits.
 */
export async function once<T>(client: PoolClient, operation: { id: string; hash: string; now: Date }, work: () => Promise<T>): Promise<T> {
  const claimed = await client.query({
    name: 'ledger.claim-operation',
    text: 'INSERT INTO ledger_operations (operation_id, request_hash, created_at) VALUES ($1, $2, $3) ON CONFLICT (operation_id) DO NOTHING',
    values: [operation.id, operation.hash, operation.now],
  });
  if (claimed.rowCount === 1) return work();

  // A new statement, hence a new snapshot: it sees the first caller's committed row.
  const { rows } = await client.query<{ request_hash: string; outcome: T | null }>({
    name: 'ledger.stored-operation',
    text: 'SELECT request_hash, outcome FROM ledger_operations WHERE operation_id = $1',
    values: [operation.id],
  });
  const stored = rows[0];
  if (!stored || stored.outcome === null) throw new Error(`operation ${operation.id} has no stored outcome`);
  if (stored.request_hash !== operation.hash) throw keyReused(operation.id);
  return stored.outcome;
}

/** The same operation id with other inputs: a conflict, never a second movement. */
export const keyReused = (operationId: string): ServiceError =>
  new ServiceError('idempotency_key_reused', `operation '${operationId}' was already used with other inputs`);

export async function storeOutcome(client: PoolClient, operationId: string, outcome: unknown): Promise<void> {
  await client.query({
    name: 'ledger.store-outcome',
    text: 'UPDATE ledger_operations SET outcome = $2 WHERE operation_id = $1',
    values: [operationId, outcome],
  });
}

/**
 * `once` for many operations in one statement (distinct ids): claims every id not claimed yet and
 * returns those this transaction claimed. Rows are inserted in id order, so that two transactions
 * claiming overlapping ids never wait on each other in a cycle; an id another transaction is still
 * claiming is waited for (the conflicting insert waits on its row lock, as in `once`), and is ours if
 * that transaction rolls back.
 */
export async function claimOperations(client: PoolClient, operations: readonly { id: string; hash: string }[], now: Date): Promise<Set<string>> {
  const { rows } = await client.query<{ operation_id: string }>({
    name: 'ledger.claim-operations',
    text: `
      INSERT INTO ledger_operations (operation_id, request_hash, created_at)
      SELECT o.id, o.hash, $3 FROM unnest($1::text[], $2::text[]) AS o (id, hash) ORDER BY o.id
      ON CONFLICT (operation_id) DO NOTHING RETURNING operation_id`,
    values: [operations.map((o) => o.id), operations.map((o) => o.hash), now],
  });
  return new Set(rows.map((row) => row.operation_id));
}

export interface StoredOperation {
  hash: string;
  outcome: unknown;
}

/**
 * The stored outcomes of operations claimed before, read after claimOperations (a new statement, hence
 * a new snapshot that sees what it waited for). Each must have one: a missing one is a bug.
 */
export async function storedOperations(client: PoolClient, ids: readonly string[]): Promise<Map<string, StoredOperation>> {
  if (ids.length === 0) return new Map();
  const { rows } = await client.query<{ operation_id: string; request_hash: string; outcome: unknown }>({
    name: 'ledger.stored-operations',
    text: 'SELECT operation_id, request_hash, outcome FROM ledger_operations WHERE operation_id = ANY($1::text[])',
    values: [ids],
  });
  const stored = new Map(rows.map((row) => [row.operation_id, { hash: row.request_hash, outcome: row.outcome }]));
  for (const id of ids) if (stored.get(id)?.outcome == null) throw new Error(`operation ${id} has no stored outcome`);
  return stored;
}
