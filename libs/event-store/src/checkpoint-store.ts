import type { Pool, PoolClient } from 'pg';
import { comparePositions, type Position, START } from './event-store';

interface CheckpointRow {
  commit_position: string;
  prepare_position: string;
}

const toPosition = (row: CheckpointRow): Position => ({ commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) });

/** The subscription's checkpoint, created at START the first time (one statement either way). */
export async function loadCheckpoint(pool: Pool, subscriptionId: string): Promise<Position> {
  // Two instances creating the same checkpoint at once: the one whose INSERT waited finds nothing to
  // insert and, in its statement's snapshot, no row either; read again, the other's row is committed.
  for (let attempt = 1; ; attempt++) {
    const row = await loadOrCreate(pool, subscriptionId);
    if (row) return toPosition(row);
    if (attempt === 2) throw new Error(`checkpoint ${subscriptionId} could not be loaded`);
  }
}

async function loadOrCreate(pool: Pool, subscriptionId: string): Promise<CheckpointRow | undefined> {
  const { rows } = await pool.query<CheckpointRow>({
    name: 'es_checkpoint_load',
    text: `WITH created AS (
        INSERT INTO es_checkpoints (subscription_id, commit_position, prepare_position) VALUES ($1::text, $2, $3)
        ON CONFLICT (subscription_id) DO NOTHING
        RETURNING commit_position::text, prepare_position::text)
      SELECT * FROM created
      UNION ALL
      SELECT commit_position::text, prepare_position::text FROM es_checkpoints WHERE subscription_id = $1::text`,
    values: [subscriptionId, String(START.commit), String(START.prepare)],
  });
  return rows[0];
}

/** Thrown when the stored checkpoint is not where this instance left it (another instance moved it). */
export class CheckpointMovedError extends Error {
  constructor(readonly subscriptionId: string) {
    super(`checkpoint ${subscriptionId} was moved by another instance`);
    this.name = 'CheckpointMovedError';
  }
}

/** Moves the checkpoint `from` → `to` inside the batch's transaction; compare-and-set, so two instances never both commit a batch. */
export async function advanceCheckpoint(tx: PoolClient, subscriptionId: string, from: Position, to: Position): Promise<void> {
  const { rowCount } = await tx.query({
    name: 'es_checkpoint_advance',
    text: `UPDATE es_checkpoints SET commit_position = $4, prepare_position = $5, updated_at = now()
      WHERE subscription_id = $1::text AND commit_position = $2 AND prepare_position = $3`,
    values: [subscriptionId, String(from.commit), String(from.prepare), String(to.commit), String(to.prepare)],
  });
  if (rowCount !== 1) throw new CheckpointMovedError(subscriptionId);
}

/** Where the checkpoint stands and when it last moved; null for both before the first batch. */
export async function readCheckpoint(pool: Pool, subscriptionId: string): Promise<{ position: Position; updatedAt: Date } | null> {
  const { rows } = await pool.query<CheckpointRow & { updated_at: Date }>(
    'SELECT commit_position::text, prepare_position::text, updated_at FROM es_checkpoints WHERE subscription_id = $1::text',
    [subscriptionId],
  );
  const row = rows[0];
  if (!row) return null;
  const position = toPosition(row);
  // Created at START by the first load: no batch has moved it yet.
  return comparePositions(position, START) === 0 ? null : { position, updatedAt: row.updated_at };
}
