import type { Pool } from 'pg';
import { ServiceError, type AuditActorType, type AuditEventResource } from '@pay/contracts';
import { newId } from '@pay/kernel';
import { inTransaction } from '@pay/platform';

/** An audit event as the contract shows it (section 16). */
export type { AuditActorType, AuditEventResource };

export interface AuditEntry {
  action: string;
  actor: { type: AuditActorType; id: string | null };
  integrator: string | null;
  target: { object: string; id: string };
  requestId: string | null;
  at: Date;
  /**
   * What makes a repeat of the same change a no-op: `<action> <target id>` for a change that happens
   * once to its target, the intent's id for one that may happen again; null records unconditionally.
   */
  operationKey: string | null;
}

/** A change dispatched to the app that owns its target, not settled yet (see AuditLog). */
export interface AuditIntent extends AuditEntry {
  id: string;
  operationKey: string;
  /** What reading the outcome back needs (e.g. the fields an update asked for); ids and settings, no secret. */
  details: Record<string, unknown>;
}

/** Anything that runs a query: the pool, or a transaction's client. */
export type Queryable = Pick<Pool, 'query'>;

/**
 * Inserts the audit event of a change the gateway stores, on `db`: the change's own transaction. `action`:
 * a creation the same request makes besides its route's own change (an integrator's first key).
 */
export type AuditWriter = (db: Queryable, target: { object: string; id: string }, integrator: string | null, action?: string) => Promise<void>;

/** How the sweeper found an intent's change: done (with the target as its owner shows it), not done, or not known yet. */
export type IntentOutcome = { done: true; answer: Record<string, unknown> } | { done: false } | undefined;

interface IntentRow {
  id: string;
  operation_key: string;
  action: string;
  actor_type: AuditActorType;
  actor_id: string | null;
  integrator_id: string | null;
  target_object: string;
  target_id: string;
  request_id: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

const toIntent = (row: IntentRow): AuditIntent => ({
  id: row.id,
  operationKey: row.operation_key,
  action: row.action,
  actor: { type: row.actor_type, id: row.actor_id },
  integrator: row.integrator_id,
  target: { object: row.target_object, id: row.target_id },
  requestId: row.request_id,
  details: row.details,
  at: row.created_at,
});

export interface AuditQuery {
  /** Undefined: every integrator's (the admin API). */
  integrator?: string;
  action?: string;
  /** The changed object's id (the console's object pages). */
  target?: string;
  createdGte?: string;
  createdLt?: string;
  limit: number;
  startingAfter?: string;
}

const RESOURCE = `jsonb_build_object(
  'id', id, 'object', 'audit_event', 'action', action,
  'actor', jsonb_build_object('type', actor_type, 'id', actor_id),
  'integrator', integrator_id,
  'target', jsonb_build_object('object', target_object, 'id', target_id),
  'request_id', request_id,
  'created_at', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

/**
 * The audit trail (`gw_audit_events`): rows are only ever inserted; the database refuses an UPDATE,
 * DELETE or TRUNCATE (migration 006). Rows hold ids, never a secret or a request body.
 *
 * Exactly once (migration 007): a change the gateway stores is recorded in its own transaction
 * (`record` on that transaction's client). A change another app makes gets an intent before it is
 * dispatched (`intend`); its answer turns the intent into the event in one transaction (`settle`), and
 * after a crash the sweeper does (`sweep`), reading the target back. The operation key makes every
 * repeat (a retried request, the sweeper and the answer both) a no-op.
 */
export class AuditLog {
  constructor(private readonly pool: Pool) {}

  /** The event, unless one with the same operation key exists; its id, or undefined when it did. */
  async record(entry: AuditEntry, db: Queryable = this.pool): Promise<string | undefined> {
    const id = newId('auditEvent');
    const { rowCount } = await db.query({
      name: 'gw-audit-record',
      text: `INSERT INTO gw_audit_events (id, action, actor_type, actor_id, integrator_id, target_object, target_id, request_id, created_at, operation_key)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (operation_key) DO NOTHING`,
      values: [id, entry.action, entry.actor.type, entry.actor.id, entry.integrator, entry.target.object, entry.target.id, entry.requestId, entry.at, entry.operationKey],
    });
    return rowCount === 1 ? id : undefined;
  }

  /** Written (and committed) before the change is dispatched. */
  async intend(intent: AuditIntent): Promise<void> {
    await this.pool.query({
      name: 'gw-audit-intend',
      text: `INSERT INTO gw_audit_intents (id, operation_key, action, actor_type, actor_id, integrator_id, target_object, target_id, request_id, details, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      values: [
        intent.id,
        intent.operationKey,
        intent.action,
        intent.actor.type,
        intent.actor.id,
        intent.integrator,
        intent.target.object,
        intent.target.id,
        intent.requestId,
        intent.details,
        intent.at,
      ],
    });
  }

  /** The change is done: its event and the intent's end, in one transaction (the sweeper may have settled it already). */
  async settle(intentId: string, entry: AuditEntry): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      // The intent's row first, as a sweep takes it: the same order of locks, so the two never deadlock.
      await client.query('DELETE FROM gw_audit_intents WHERE id = $1', [intentId]);
      await this.record(entry, client);
    });
  }

  /** The owning app refused the change: nothing to record. */
  async drop(intentId: string): Promise<void> {
    await this.pool.query('DELETE FROM gw_audit_intents WHERE id = $1', [intentId]);
  }

  /**
   * Settles the intents older than `before` (a crash between a change and its event left them), each in
   * a transaction of its own holding its row: another gateway's sweep skips it (SKIP LOCKED), and an
   * answer arriving meanwhile waits, then records nothing twice. `outcome` reads the change back;
   * undefined (not known: its owner did not answer) leaves the intent for the next sweep. Answers how
   * many were recorded and dropped.
   */
  async sweep(
    before: Date,
    limit: number,
    outcome: (intent: AuditIntent) => Promise<IntentOutcome>,
    record: (intent: AuditIntent, answer: Record<string, unknown>) => Promise<AuditEntry>,
  ): Promise<{ recorded: number; dropped: number }> {
    const { rows: due } = await this.pool.query<{ id: string }>('SELECT id FROM gw_audit_intents WHERE created_at < $1 ORDER BY created_at LIMIT $2', [before, limit]);
    const settled = { recorded: 0, dropped: 0 };
    for (const { id } of due) {
      await inTransaction(this.pool, async (client) => {
        const { rows } = await client.query<IntentRow>('SELECT * FROM gw_audit_intents WHERE id = $1 FOR UPDATE SKIP LOCKED', [id]);
        if (!rows[0]) return;
        const intent = toIntent(rows[0]);
        const found = await outcome(intent);
        if (found === undefined) return;
        if (found.done) {
          await this.record(await record(intent, found.answer), client);
          settled.recorded++;
        } else settled.dropped++;
        await client.query('DELETE FROM gw_audit_intents WHERE id = $1', [id]);
      });
    }
    return settled;
  }

  /** Newest first (insertion order); `startingAfter` must be an event of the same list (its filters). */
  async list(query: AuditQuery): Promise<{ data: AuditEventResource[]; hasMore: boolean }> {
    const values: unknown[] = [];
    const where: string[] = [];
    const add = (condition: (param: string) => string, value: unknown) => {
      values.push(value);
      where.push(condition(`$${values.length}`));
    };
    if (query.integrator !== undefined) add((p) => `integrator_id = ${p}`, query.integrator);
    if (query.action !== undefined) add((p) => `action = ${p}`, query.action);
    if (query.target !== undefined) add((p) => `target_id = ${p}`, query.target);
    if (query.createdGte !== undefined) add((p) => `created_at >= ${p}`, query.createdGte);
    if (query.createdLt !== undefined) add((p) => `created_at < ${p}`, query.createdLt);
    if (query.startingAfter !== undefined) {
      // Looked up under the list's filters: an event of another action, target or period is not a cursor of it.
      const { rows } = await this.pool.query<{ seq: string }>(`SELECT seq FROM gw_audit_events WHERE ${[...where, `id = $${values.length + 1}`].join(' AND ')}`, [
        ...values,
        query.startingAfter,
      ]);
      if (!rows[0]) throw new ServiceError('invalid_request', `starting_after '${query.startingAfter}' is not an id of this list`, 'starting_after');
      add((p) => `seq < ${p}`, rows[0].seq);
    }
    values.push(query.limit + 1);
    const { rows } = await this.pool.query<{ event: AuditEventResource }>(
      `SELECT ${RESOURCE} AS event FROM gw_audit_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT $${values.length}`,
      values,
    );
    return { data: rows.slice(0, query.limit).map((r) => r.event), hasMore: rows.length > query.limit };
  }
}
