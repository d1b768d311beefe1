import type { Pool } from 'pg';
import { ServiceError, type AuditActorType, type AuditEventResource } from '@pay/contracts';
import { newId } from '@pay/kernel';

/** An audit event as the contract shows it (section 16). */
export type { AuditActorType, AuditEventResource };

export interface AuditEntry {
  action: string;
  actor: { type: AuditActorType; id: string | null };
  integrator: string | null;
  target: { object: string; id: string };
  requestId: string | null;
  at: Date;
}

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
 */
export class AuditLog {
  constructor(private readonly pool: Pool) {}

  async record(entry: AuditEntry): Promise<string> {
    const id = newId('auditEvent');
    await this.pool.query({
      name: 'gw-audit-record',
      text: `INSERT INTO gw_audit_events (id, action, actor_type, actor_id, integrator_id, target_object, target_id, request_id, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      values: [id, entry.action, entry.actor.type, entry.actor.id, entry.integrator, entry.target.object, entry.target.id, entry.requestId, entry.at],
    });
    return id;
  }

  /** Newest first (insertion order); `startingAfter` must be an event of the same list (same integrator). */
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
      const { rows } = await this.pool.query<{ seq: string }>(
        `SELECT seq FROM gw_audit_events WHERE id = $1 AND ($2::text IS NULL OR integrator_id = $2)`,
        [query.startingAfter, query.integrator ?? null],
      );
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
