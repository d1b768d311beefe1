import type { Pool, PoolClient } from 'pg';
import { newId } from '@pay/kernel';
import { inTransaction } from '@pay/platform';
import type { AuditWriter } from './audit-log';
import { hashSecret, secretMatches } from './directory.repository';

export type AgentRole = 'cashier' | 'carrier';

export interface BusinessUser {
  id: string;
  business: string;
  name: string;
  login: string;
  createdAt: string;
}

export interface Agent {
  id: string;
  cashPoint: string;
  role: AgentRole;
  name: string;
  login: string;
  createdAt: string;
}

/** Ids of people: a kind prefix and 24 random base62 characters, like every other id. */

/** A password hash that matches nothing: an unknown login costs the same scrypt as a known one. */
const NO_PASSWORD = `${Buffer.alloc(16).toString('base64')}:${Buffer.alloc(32).toString('base64')}`;

type Row = { id: string; name: string; login: string; created_at: Date };

/** Business users and cash agents of the hosted pages (the gateway's directory). Logins are unique. */
export class PeopleRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Undefined when the login is taken; the same id again (a create resumed after a crash) answers the user
   * it made. Audited in its transaction (the business's integrator).
   */
  async createBusinessUser(
    input: { business: string; name: string; login: string; password: string },
    now: Date,
    id = newId('businessUser'),
    audit?: AuditWriter,
    integratorId: string | null = null,
  ): Promise<BusinessUser | undefined> {
    const passwordScrypt = await hashSecret(input.password);
    const { rows } = await inTransaction(this.pool, async (client) => {
      const created = await client.query<{ created_at: Date }>(
        `INSERT INTO gw_business_users (id, business, name, login, password_scrypt, created_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (login) DO UPDATE SET login = EXCLUDED.login WHERE gw_business_users.id = EXCLUDED.id RETURNING created_at`,
        [id, input.business, input.name, input.login, passwordScrypt, now],
      );
      if (created.rows[0] && audit) await audit(client, { object: 'business_user', id }, integratorId);
      return created;
    });
    return rows[0] && { id, business: input.business, name: input.name, login: input.login, createdAt: rows[0].created_at.toISOString() };
  }

  async findBusinessUser(id: string): Promise<BusinessUser | undefined> {
    const { rows } = await this.pool.query<Row & { business: string }>('SELECT id, business, name, login, created_at FROM gw_business_users WHERE id = $1', [id]);
    const row = rows[0];
    return row && { id: row.id, business: row.business, name: row.name, login: row.login, createdAt: row.created_at.toISOString() };
  }

  /** The user with this login and password (constant-time check), else undefined. */
  async signInBusinessUser(login: string, password: string): Promise<BusinessUser | undefined> {
    const { rows } = await this.pool.query<Row & { business: string; password_scrypt: string }>(
      'SELECT id, business, name, login, password_scrypt, created_at FROM gw_business_users WHERE login = $1',
      [login],
    );
    const row = rows[0];
    const matches = await secretMatches(row?.password_scrypt ?? NO_PASSWORD, password);
    return row && matches ? { id: row.id, business: row.business, name: row.name, login: row.login, createdAt: row.created_at.toISOString() } : undefined;
  }

  /** Undefined when the login is taken; the same id again (a create resumed after a crash) answers the agent it made. Audited in its transaction. */
  async createAgent(input: { cashPoint: string; role: AgentRole; name: string; login: string; password: string }, now: Date, id = newId('agent'), audit?: AuditWriter): Promise<Agent | undefined> {
    const passwordScrypt = await hashSecret(input.password);
    const { rows } = await inTransaction(this.pool, async (client) => {
      const created = await client.query<{ created_at: Date }>(
        `INSERT INTO gw_agents (id, cash_point, role, name, login, password_scrypt, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (login) DO UPDATE SET login = EXCLUDED.login WHERE gw_agents.id = EXCLUDED.id RETURNING created_at`,
        [id, input.cashPoint, input.role, input.name, input.login, passwordScrypt, now],
      );
      if (created.rows[0] && audit) await audit(client, { object: 'agent', id }, null);
      return created;
    });
    return rows[0] && { id, cashPoint: input.cashPoint, role: input.role, name: input.name, login: input.login, createdAt: rows[0].created_at.toISOString() };
  }

  /** A new password for the business user (admin API), audited in its transaction; undefined when there is no such user. */
  async resetBusinessUserPassword(id: string, password: string, audit?: AuditWriter, integratorOf?: (business: string) => Promise<string | null>): Promise<BusinessUser | undefined> {
    const passwordScrypt = await hashSecret(password);
    const { rows } = await inTransaction(this.pool, async (client) => {
      const updated = await client.query<Row & { business: string }>('UPDATE gw_business_users SET password_scrypt = $2 WHERE id = $1 RETURNING id, business, name, login, created_at', [id, passwordScrypt]);
      await endSessions(client, 'business_user', id);
      const row = updated.rows[0];
      if (row && audit) await audit(client, { object: 'business_user', id: row.id }, (await integratorOf?.(row.business)) ?? null);
      return updated;
    });
    const row = rows[0];
    return row && { id: row.id, business: row.business, name: row.name, login: row.login, createdAt: row.created_at.toISOString() };
  }

  /** A new password for the agent (admin API), audited in its transaction; undefined when there is no such agent. */
  async resetAgentPassword(id: string, password: string, audit?: AuditWriter): Promise<Agent | undefined> {
    const passwordScrypt = await hashSecret(password);
    const { rows } = await inTransaction(this.pool, async (client) => {
      const updated = await client.query<Row & { cash_point: string; role: AgentRole }>('UPDATE gw_agents SET password_scrypt = $2 WHERE id = $1 RETURNING id, cash_point, role, name, login, created_at', [id, passwordScrypt]);
      await endSessions(client, 'agent', id);
      if (updated.rows[0] && audit) await audit(client, { object: 'agent', id: updated.rows[0].id }, null);
      return updated;
    });
    const row = rows[0];
    return row && toAgent(row);
  }

  async findAgent(id: string): Promise<Agent | undefined> {
    const { rows } = await this.pool.query<Row & { cash_point: string; role: AgentRole }>('SELECT id, cash_point, role, name, login, created_at FROM gw_agents WHERE id = $1', [id]);
    const row = rows[0];
    return row && toAgent(row);
  }

  async signInAgent(login: string, password: string): Promise<Agent | undefined> {
    const { rows } = await this.pool.query<Row & { cash_point: string; role: AgentRole; password_scrypt: string }>(
      'SELECT id, cash_point, role, name, login, password_scrypt, created_at FROM gw_agents WHERE login = $1',
      [login],
    );
    const row = rows[0];
    const matches = await secretMatches(row?.password_scrypt ?? NO_PASSWORD, password);
    return row && matches ? toAgent(row) : undefined;
  }
}

const toAgent = (row: Row & { cash_point: string; role: AgentRole }): Agent => ({
  id: row.id,
  cashPoint: row.cash_point,
  role: row.role,
  name: row.name,
  login: row.login,
  createdAt: row.created_at.toISOString(),
});

/**
 * A reset secret ends the subject's open hosted sessions, in the reset's transaction: whoever signed in
 * with the old one (the reason for a reset, often) is asked to sign in again, on every gateway.
 */
const endSessions = (client: Pick<PoolClient, 'query'>, kind: 'business_user' | 'agent', subjectId: string) =>
  client.query('DELETE FROM gw_sessions WHERE kind = $1 AND subject_id = $2', [kind, subjectId]);
