import type { Pool } from 'pg';
import { ServiceError, type ApiKeyResource, type RevokedKeyResource } from '@pay/contracts';
import { API_KEY_RANDOM_LENGTH, newId, randomBase62 } from '@pay/kernel';
import { inTransaction } from '@pay/platform';
import { FULL_ACCESS } from '../auth/scopes';
import type { AuditWriter } from './audit-log';
import { newApiKeySecret, redact, sha256 } from './directory.repository';

/** Restricted keys' secrets: `rk_` and the same entropy as `sk_` keys. */
export const RESTRICTED_KEY_PREFIX = 'rk_';
const newRestrictedKeySecret = (): string => `${RESTRICTED_KEY_PREFIX}${randomBase62(API_KEY_RANDOM_LENGTH)}`;

/** An API key as the contract shows it (section 16): never its secret. */
export type { ApiKeyResource };

interface KeyRow {
  id: string;
  integrator_id: string;
  name: string | null;
  scopes: string[];
  redacted: string | null;
  status: 'active' | 'revoked';
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
}

const COLUMNS = 'id, integrator_id, name, scopes, redacted, status, created_at, expires_at, last_used_at';

export const toApiKeyResource = (row: Omit<KeyRow, 'integrator_id'>, now: Date): ApiKeyResource => ({
  id: row.id,
  object: 'api_key',
  name: row.name,
  scopes: row.scopes,
  redacted: row.redacted,
  status: row.status === 'revoked' ? 'revoked' : row.expires_at && row.expires_at.getTime() <= now.getTime() ? 'expired' : 'active',
  created_at: row.created_at.toISOString(),
  expires_at: row.expires_at?.toISOString() ?? null,
  last_used_at: row.last_used_at?.toISOString() ?? null,
});

const notFound = (id: string) => new ServiceError('resource_not_found', `no such API key: '${id}'`, 'id');

/**
 * An integrator's own keys (`/v1/api_keys`): restricted keys with scopes and an expiry, rolling with an
 * overlap, revocation, and the batched `last_used_at`. Secrets are stored as their SHA-256 only.
 */
export class ApiKeysRepository {
  constructor(private readonly pool: Pool) {}

  /** Each change takes an optional `audit`: its audit event, written in the change's own transaction. */
  async create(
    integratorId: string,
    input: { name: string | null; scopes: string[]; expiresAt: Date | null },
    now: Date,
    id = newId('apiKey'),
    audit?: AuditWriter,
  ): Promise<{ key: ApiKeyResource; secret: string }> {
    return inTransaction(this.pool, async (client) => {
      const created = await this.insert(client, integratorId, input, now, id);
      await audit?.(client, { object: 'api_key', id }, integratorId);
      return created;
    });
  }

  async find(integratorId: string, id: string, now: Date): Promise<ApiKeyResource> {
    const { rows } = await this.pool.query<KeyRow>(`SELECT ${COLUMNS} FROM gw_api_keys WHERE id = $1 AND integrator_id = $2 AND role = 'integrator'`, [id, integratorId]);
    if (!rows[0]) throw notFound(id);
    return toApiKeyResource(rows[0], now);
  }

  /** Newest first; `startingAfter` must be one of the integrator's keys. */
  async list(integratorId: string, query: { limit: number; startingAfter?: string }, now: Date): Promise<{ data: ApiKeyResource[]; hasMore: boolean }> {
    const values: unknown[] = [integratorId, query.limit + 1];
    let after = '';
    if (query.startingAfter !== undefined) {
      const { rows } = await this.pool.query<{ created_at: Date }>(`SELECT created_at FROM gw_api_keys WHERE id = $1 AND integrator_id = $2`, [query.startingAfter, integratorId]);
      if (!rows[0]) throw new ServiceError('invalid_request', `starting_after '${query.startingAfter}' is not an id of this list`, 'starting_after');
      values.push(rows[0].created_at, query.startingAfter);
      after = 'AND (created_at, id) < ($3, $4)';
    }
    const { rows } = await this.pool.query<KeyRow>(
      `SELECT ${COLUMNS} FROM gw_api_keys WHERE integrator_id = $1 AND role = 'integrator' ${after} ORDER BY created_at DESC, id DESC LIMIT $2`,
      values,
    );
    return { data: rows.slice(0, query.limit).map((row) => toApiKeyResource(row, now)), hasMore: rows.length > query.limit };
  }

  /**
   * A new key with the same name, scopes and expiry; the old one stops working `expiresInSeconds` later
   * (or at its own expiry, if sooner). A key is rolled once: the old key names its successor, and a key
   * that has one refuses another roll. One transaction, the old key locked: two rolls of one key do not
   * both pass.
   */
  async roll(
    integratorId: string,
    id: string,
    expiresInSeconds: number,
    now: Date,
    newKeyId = newId('apiKey'),
    audit?: AuditWriter,
  ): Promise<{ key: ApiKeyResource; secret: string; old: ApiKeyResource }> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<KeyRow & { rolled_to: string | null }>(
        `SELECT ${COLUMNS}, rolled_to FROM gw_api_keys WHERE id = $1 AND integrator_id = $2 AND role = 'integrator' FOR UPDATE`,
        [id, integratorId],
      );
      const row = rows[0];
      if (!row) throw notFound(id);
      // The same roll again (its answer was lost in a crash): the old key keeps the overlap it was given,
      // the successor its expiry (the upsert changes the secret only).
      if ((await client.query('SELECT 1 FROM gw_api_keys WHERE id = $1', [newKeyId])).rowCount === 1) {
        const created = await this.insert(client, integratorId, { name: row.name, scopes: row.scopes, expiresAt: row.expires_at }, now, newKeyId);
        return { ...created, old: toApiKeyResource(row, now) };
      }
      const status = toApiKeyResource(row, now).status;
      if (status !== 'active') throw new ServiceError('invalid_status', `the API key is ${status}: only an active key can be rolled`);
      if (row.rolled_to !== null) throw new ServiceError('invalid_status', `the API key was rolled already, to ${row.rolled_to}: roll that key instead`);
      const overlapEnds = new Date(now.getTime() + expiresInSeconds * 1000);
      const expiresAt = row.expires_at && row.expires_at < overlapEnds ? row.expires_at : overlapEnds;
      const { rows: updated } = await client.query<KeyRow>(`UPDATE gw_api_keys SET expires_at = $2, rolled_to = $3 WHERE id = $1 RETURNING ${COLUMNS}`, [id, expiresAt, newKeyId]);
      // A temporary key's successor is as temporary: it keeps the original's expiry.
      const created = await this.insert(client, integratorId, { name: row.name, scopes: row.scopes, expiresAt: row.expires_at }, now, newKeyId);
      await audit?.(client, { object: 'api_key', id: newKeyId }, integratorId);
      return { ...created, old: toApiKeyResource(updated[0]!, now) };
    });
  }

  async revoke(integratorId: string, id: string, now: Date, audit?: AuditWriter): Promise<ApiKeyResource> {
    const revoked = await this.revokeWhere(id, now, audit, integratorId);
    if (!revoked) throw notFound(id);
    return toApiKeyResource(revoked, now);
  }

  /** Any key revoked by id (the admin API): the key, its integrator and its revocation's time; undefined when unknown. */
  async revokeAny(id: string, now: Date, audit?: AuditWriter): Promise<RevokedKeyResource | undefined> {
    const revoked = await this.revokeWhere(id, now, audit);
    if (!revoked) return undefined;
    const revokedAt = revoked.revoked_at.toISOString();
    if (revoked.role === 'finance') {
      return { id: revoked.id, object: 'api_key', role: 'finance', name: revoked.name, redacted: revoked.redacted, status: 'revoked', created_at: revoked.created_at.toISOString(), last_used_at: revoked.last_used_at?.toISOString() ?? null, revoked_at: revokedAt };
    }
    return { ...toApiKeyResource(revoked, now), integrator: revoked.integrator_id, revoked_at: revokedAt };
  }

  /** Revokes key `id` (one of `integratorId`'s own keys, when given) and audits it, in one transaction; undefined when there is none. */
  private async revokeWhere(id: string, now: Date, audit: AuditWriter | undefined, integratorId?: string) {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<Omit<KeyRow, 'integrator_id'> & { integrator_id: string | null; revoked_at: Date; role: 'integrator' | 'finance' }>(
        `UPDATE gw_api_keys SET status = 'revoked', revoked_at = COALESCE(revoked_at, $2)
         WHERE id = $1 AND ($3::text IS NULL OR (integrator_id = $3 AND role = 'integrator')) RETURNING ${COLUMNS}, revoked_at, role`,
        [id, now, integratorId ?? null],
      );
      const row = rows[0];
      if (row) await audit?.(client, { object: 'api_key', id }, row.integrator_id);
      return row;
    });
  }

  /** Any key by id (the admin API), with its integrator; undefined when unknown. */
  async findAny(id: string, now: Date): Promise<(ApiKeyResource & { integrator: string | null }) | undefined> {
    const { rows } = await this.pool.query<KeyRow>(`SELECT ${COLUMNS} FROM gw_api_keys WHERE id = $1`, [id]);
    return rows[0] && { ...toApiKeyResource(rows[0], now), integrator: rows[0].integrator_id };
  }

  /** The keys' last uses, in one statement; a use never moves `last_used_at` back. */
  async recordLastUses(uses: ReadonlyMap<string, Date>): Promise<void> {
    if (uses.size === 0) return;
    await this.pool.query(
      `UPDATE gw_api_keys k SET last_used_at = GREATEST(k.last_used_at, u.at)
       FROM unnest($1::text[], $2::timestamptz[]) AS u (id, at) WHERE k.id = u.id`,
      [[...uses.keys()], [...uses.values()]],
    );
  }

  private async insert(
    db: Pick<Pool, 'query'>,
    integratorId: string,
    input: { name: string | null; scopes: string[]; expiresAt: Date | null },
    now: Date,
    id: string,
  ): Promise<{ key: ApiKeyResource; secret: string }> {
    const secret = input.scopes.length === 1 && input.scopes[0] === FULL_ACCESS ? newApiKeySecret() : newRestrictedKeySecret();
    // The id is the idempotent request's own: finding it taken means the same request ran before and
    // its answer was never stored (a crash between the two), so no one holds that secret. The key is
    // issued again under a new secret rather than answered with a duplicate-id error.
    const { rows } = await db.query<KeyRow>(
      `INSERT INTO gw_api_keys (id, integrator_id, secret_sha256, status, created_at, name, scopes, expires_at, redacted)
       VALUES ($1, $2, $3, 'active', $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO UPDATE SET secret_sha256 = EXCLUDED.secret_sha256, redacted = EXCLUDED.redacted
         WHERE gw_api_keys.integrator_id = EXCLUDED.integrator_id AND gw_api_keys.role = 'integrator'
       RETURNING ${COLUMNS}`,
      [id, integratorId, sha256(secret), now, input.name, input.scopes, input.expiresAt, redact(secret)],
    );
    if (!rows[0]) throw new Error(`API key id ${id} is taken by another owner`);
    return { key: toApiKeyResource(rows[0], now), secret };
  }
}
