import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Pool } from 'pg';
import type { ConnectionKind, ConnectionResource, CustomerResource, IntegratorResource } from '@pay/contracts';
import { API_KEY_RANDOM_LENGTH, CUSTOMER_CACHE_MAX, newId, randomBase62, SIGN_IN_CUSTOMERS_PER_PHONE_MAX, type Currency } from '@pay/kernel';
import { inTransaction } from '@pay/platform';
import type { AuditWriter, Queryable } from './audit-log';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/** A PIN or password stored as `salt:hash` (base64), scrypt with a random 16-byte salt. */
export const hashSecret = async (secret: string): Promise<string> => {
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, 32);
  return `${salt.toString('base64')}:${hash.toString('base64')}`;
};

/** Constant-time check of a PIN or password against its stored `salt:hash`. */
export const secretMatches = (stored: string, secret: string): Promise<boolean> => pinMatches(stored, secret);

/** A PIN hash that matches nothing, for constant work on unknown phones. */
const NO_PIN = `${Buffer.alloc(16, 1).toString('base64')}:${Buffer.alloc(32).toString('base64')}`;

const pinMatches = async (stored: string, pin: string): Promise<boolean> => {
  const [salt, expected] = stored.split(':').map((part) => Buffer.from(part, 'base64'));
  if (!salt?.length || !expected?.length) return false;
  return timingSafeEqual(await scrypt(pin, salt, 32), expected);
};

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** API keys are 32 random base62 characters after `sk_` (~190 bits): a fast hash is enough to store them. */
export const newApiKeySecret = (): string => `sk_${randomBase62(API_KEY_RANDOM_LENGTH)}`;
export const FINANCE_KEY_PREFIX = 'fk_';
const newFinanceKeySecret = (): string => `${FINANCE_KEY_PREFIX}${randomBase62(API_KEY_RANDOM_LENGTH)}`;

/** What the gateway shows of a secret: its first 3 and last 4 characters. */
export const redact = (secret: string): string => `${secret.slice(0, 3)}${secret.slice(-4)}`;

export interface ApiKeyRecord {
  keyId: string;
  integratorId: string;
  /** `['*']` (every /v1 route) or `<resource>:read|write` scopes. */
  scopes: readonly string[];
  /** Epoch milliseconds on the service clock after which the key is refused; null: never. */
  expiresAt: number | null;
}

export interface Connection {
  id: string;
  integratorId: string;
  kind: ConnectionKind;
  name: string;
  currency: Currency;
  createdAt: string;
}

/** The gateway's own tables: integrators, their keys and connections, customers. */
export class DirectoryRepository {
  /** Customers found, by id: a customer's id and currency never change and a customer is never deleted. */
  private readonly customers = new Map<string, { id: string; currency: Currency }>();

  constructor(private readonly pool: Pool) {}

  // Each change below takes an optional `audit`: its audit event, written in the change's own transaction.
  /**
   * `id` is kept with an Idempotency-Key: a create resumed after a crash finds its integrator there and
   * answers it with its first key under a new secret (the lost answer's secret is known to nobody).
   */
  async createIntegrator(name: string, now: Date, audit?: AuditWriter, id = newId('integrator')): Promise<{ integrator: IntegratorResource; apiKey: string; apiKeyId: string }> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ name: string; created_at: Date; first_key: string | null }>(
        `INSERT INTO gw_integrators (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id
         RETURNING name, created_at, (SELECT k.id FROM gw_api_keys k WHERE k.integrator_id = $1 ORDER BY k.created_at, k.id LIMIT 1) AS first_key`,
        [id, name, now],
      );
      const { keyId, secret } = await this.insertKey(client, id, now, rows[0]!.first_key ?? undefined);
      await audit?.(client, { object: 'integrator', id }, id);
      // Its first key is a key's creation too (contract: every key's creation is recorded).
      await audit?.(client, { object: 'api_key', id: keyId }, id, 'api_key.created');
      return { integrator: { id, object: 'integrator' as const, name: rows[0]!.name, created_at: rows[0]!.created_at.toISOString() }, apiKey: secret, apiKeyId: keyId };
    });
  }

  async integratorExists(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM gw_integrators WHERE id = $1', [id]);
    return rowCount === 1;
  }

  /** `keyId` is kept with an Idempotency-Key: a create resumed after a crash gives that key a new secret. */
  async createApiKey(integratorId: string, now: Date, audit?: AuditWriter, keyId = newId('apiKey')): Promise<{ keyId: string; secret: string }> {
    return this.audited(audit, (db) => this.insertKey(db, integratorId, now, keyId), () => [{ object: 'api_key', id: keyId }, integratorId]);
  }

  /** An unrevoked integrator key (the caller checks `expiresAt` on its clock), its stored hash compared in constant time. */
  async findActiveKey(secret: string): Promise<ApiKeyRecord | undefined> {
    const hash = sha256(secret);
    const { rows } = await this.pool.query<{ id: string; integrator_id: string; secret_sha256: string; scopes: string[]; expires_at: Date | null }>({
      name: 'gw-find-active-key-scoped',
      text: `SELECT id, integrator_id, secret_sha256, scopes, expires_at FROM gw_api_keys WHERE secret_sha256 = $1 AND status = 'active' AND role = 'integrator'`,
      values: [hash],
    });
    const row = rows[0];
    if (!row || !timingSafeEqual(Buffer.from(row.secret_sha256), Buffer.from(hash))) return undefined;
    return { keyId: row.id, integratorId: row.integrator_id, scopes: row.scopes, expiresAt: row.expires_at?.getTime() ?? null };
  }

  /** A read-only key for finance (the ledger's reads); the secret is shown once, by the caller. */
  async createFinanceKey(name: string, now: Date, audit?: AuditWriter, keyId = newId('apiKey')): Promise<{ keyId: string; secret: string }> {
    const secret = newFinanceKeySecret();
    // A create resumed after a crash (the id kept with its Idempotency-Key) gives the key a new secret.
    const { rowCount } = await this.audited(
      audit,
      (db) =>
        db.query(
          `INSERT INTO gw_api_keys (id, integrator_id, secret_sha256, status, created_at, role, name, redacted) VALUES ($1, NULL, $2, 'active', $3, 'finance', $4, $5)
           ON CONFLICT (id) DO UPDATE SET secret_sha256 = EXCLUDED.secret_sha256, redacted = EXCLUDED.redacted WHERE gw_api_keys.role = 'finance' AND gw_api_keys.status = 'active'`,
          [keyId, sha256(secret), now, name, redact(secret)],
        ),
      () => [{ object: 'api_key', id: keyId }, null],
    );
    if (rowCount !== 1) throw new Error(`API key id ${keyId} is taken by another owner, or revoked`);
    return { keyId, secret };
  }

  /** The id of the active finance key with this secret, if any (a console session follows its key by id). */
  async activeFinanceKeyId(secret: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ id: string }>({
      name: 'gw-find-finance-key',
      text: `SELECT id FROM gw_api_keys WHERE secret_sha256 = $1 AND status = 'active' AND role = 'finance'`,
      values: [sha256(secret)],
    });
    return rows[0]?.id;
  }

  async createConnection(input: Omit<Connection, 'createdAt'>, now: Date, audit?: AuditWriter): Promise<ConnectionResource> {
    // A create resumed after a crash (the id kept with its Idempotency-Key) answers the connection it made.
    const { rows } = await this.audited(
      audit,
      (db) =>
        db.query<{ created_at: Date }>(
          'INSERT INTO gw_connections (id, integrator_id, kind, name, currency, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id RETURNING created_at',
          [input.id, input.integratorId, input.kind, input.name, input.currency, now],
        ),
      () => [{ object: 'connection', id: input.id }, input.integratorId],
    );
    return toConnectionResource({ ...input, createdAt: rows[0]!.created_at.toISOString() });
  }

  async findConnection(id: string): Promise<Connection | undefined> {
    const { rows } = await this.pool.query<{ id: string; integrator_id: string; kind: ConnectionKind; name: string; currency: Currency; created_at: Date }>({
      name: 'gw-find-connection',
      text: 'SELECT id, integrator_id, kind, name, currency, created_at FROM gw_connections WHERE id = $1',
      values: [id],
    });
    const row = rows[0];
    return row && { id: row.id, integratorId: row.integrator_id, kind: row.kind, name: row.name, currency: row.currency, createdAt: row.created_at.toISOString() };
  }

  async createCustomer(input: { id: string; name: string; phone: string; pin: string; currency: Currency }, now: Date, audit?: AuditWriter): Promise<CustomerResource> {
    const salt = randomBytes(16);
    const hash = await scrypt(input.pin, salt, 32);
    // A create resumed after a crash (the id kept with its Idempotency-Key) answers the customer it made.
    const { rows } = await this.audited(
      audit,
      (db) =>
        db.query<{ created_at: Date }>(
          'INSERT INTO gw_customers (id, name, phone, pin_scrypt, currency, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id RETURNING created_at',
          [input.id, input.name, input.phone, `${salt.toString('base64')}:${hash.toString('base64')}`, input.currency, now],
        ),
      () => [{ object: 'customer', id: input.id }, null],
    );
    return { id: input.id, object: 'customer', name: input.name, phone: input.phone, currency: input.currency, created_at: rows[0]!.created_at.toISOString() };
  }

  /** A new PIN for the customer (admin API); undefined when there is no such customer. */
  async resetCustomerPin(id: string, pin: string, audit?: AuditWriter): Promise<CustomerResource | undefined> {
    const pinScrypt = await hashSecret(pin);
    const { rows } = await this.audited(
      audit,
      // The customer's open hosted sessions end with the old PIN, in the same statement.
      (db) =>
        db.query<{ id: string; name: string; phone: string; currency: Currency; created_at: Date }>(
          `WITH reset AS (UPDATE gw_customers SET pin_scrypt = $2 WHERE id = $1 RETURNING id, name, phone, currency, created_at),
                ended AS (DELETE FROM gw_sessions WHERE kind = 'customer' AND subject_id IN (SELECT id FROM reset))
           SELECT * FROM reset`,
          [id, pinScrypt],
        ),
      ({ rows: [row] }) => (row ? [{ object: 'customer', id: row.id }, null] : undefined),
    );
    const row = rows[0];
    return row && { id: row.id, object: 'customer', name: row.name, phone: row.phone, currency: row.currency, created_at: row.created_at.toISOString() };
  }

  /** Remembered once found (an id not found is asked again: it may be created meanwhile). */
  async findCustomer(id: string): Promise<{ id: string; currency: Currency } | undefined> {
    const known = this.customers.get(id);
    if (known) return known;
    const { rows } = await this.pool.query<{ id: string; currency: Currency }>({
      name: 'gw-find-customer',
      text: 'SELECT id, currency FROM gw_customers WHERE id = $1',
      values: [id],
    });
    const found = rows[0];
    if (found) {
      if (this.customers.size >= CUSTOMER_CACHE_MAX) this.customers.clear();
      this.customers.set(id, { id: found.id, currency: found.currency });
    }
    return found;
  }

  /** The customer's name, shown to them once signed in on a hosted page. */
  async findCustomerName(id: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ name: string }>('SELECT name FROM gw_customers WHERE id = $1', [id]);
    return rows[0]?.name;
  }

  /**
   * The customer with this phone and PIN (phones are not unique: each candidate's PIN is checked, in
   * constant time). `phones`: the spellings of one number the phone may be registered as. Several
   * matches: the one whose account is in `preferredCurrency`.
   */
  async signInCustomer(phones: readonly string[], pin: string, preferredCurrency: Currency): Promise<{ id: string; currency: Currency } | undefined> {
    const { rows } = await this.pool.query<{ id: string; currency: Currency; pin_scrypt: string }>(
      `SELECT id, currency, pin_scrypt FROM gw_customers WHERE phone = ANY($1::text[]) ORDER BY created_at LIMIT ${SIGN_IN_CUSTOMERS_PER_PHONE_MAX}`,
      [phones],
    );
    const matches = [];
    // An unknown phone costs one scrypt too: the time of an answer does not tell whether a phone is registered.
    if (rows.length === 0) await pinMatches(NO_PIN, pin);
    for (const row of rows) if (await pinMatches(row.pin_scrypt, pin)) matches.push({ id: row.id, currency: row.currency });
    return matches.find((m) => m.currency === preferredCurrency) ?? matches[0];
  }

  /** Constant-time PIN check (for the hosted pages). */
  async verifyPin(customerId: string, pin: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ pin_scrypt: string }>('SELECT pin_scrypt FROM gw_customers WHERE id = $1', [customerId]);
    return pinMatches(rows[0]?.pin_scrypt ?? ':', pin);
  }

  /** `work` on the pool; with `audit`, in a transaction that also writes the event `event` names (none when it names none). */
  private async audited<T>(audit: AuditWriter | undefined, work: (db: Queryable) => Promise<T>, event: (result: T) => [{ object: string; id: string }, string | null] | undefined): Promise<T> {
    if (!audit) return work(this.pool);
    return inTransaction(this.pool, async (client) => {
      const result = await work(client);
      const named = event(result);
      if (named) await audit(client, ...named);
      return result;
    });
  }

  /** A key already there under `keyId` (a create resumed after a crash) gets the new secret, if it is the integrator's and active. */
  private async insertKey(db: Pick<Pool, 'query'>, integratorId: string, now: Date, keyId = newId('apiKey')): Promise<{ keyId: string; secret: string }> {
    const secret = newApiKeySecret();
    const { rowCount } = await db.query(
      `INSERT INTO gw_api_keys (id, integrator_id, secret_sha256, status, created_at, redacted) VALUES ($1, $2, $3, 'active', $4, $5)
       ON CONFLICT (id) DO UPDATE SET secret_sha256 = EXCLUDED.secret_sha256, redacted = EXCLUDED.redacted
         WHERE gw_api_keys.integrator_id = EXCLUDED.integrator_id AND gw_api_keys.role = 'integrator' AND gw_api_keys.status = 'active'`,
      [keyId, integratorId, sha256(secret), now, redact(secret)],
    );
    if (rowCount !== 1) throw new Error(`API key id ${keyId} is taken by another owner, or revoked`);
    return { keyId, secret };
  }
}

export const toConnectionResource = (c: Connection): ConnectionResource => ({
  id: c.id,
  object: 'connection',
  integrator: c.integratorId,
  kind: c.kind,
  name: c.name,
  currency: c.currency,
  created_at: c.createdAt,
});
