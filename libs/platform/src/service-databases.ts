import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** PostgreSQL's limit on a name (NAMEDATALEN - 1). */
const NAME_LENGTH_MAX = 63;

/**
 * A database per service on one PostgreSQL server: the database `<base>_<service>` (e.g.
 * `payments_supplier_payments`), owned by a role of the same name that may log in with a fresh
 * password, and that only that role (and superusers) may connect to: CONNECT is revoked from PUBLIC.
 * So an app whose URL is the answer reaches its own database and no other, and creates its own tables
 * there (the owner of a database owns its `public` schema's rights from PostgreSQL 15 on).
 *
 * `adminUrl` must be a superuser's, or a role with CREATEROLE and CREATEDB (it grants the new role's
 * membership to itself to hand the database over). Idempotent: at every start the role gets a new
 * password (only the URL answered knows it), the database is created when missing. Answers the URL of
 * the service's role on its database.
 */
export async function ensureServiceDatabase(adminUrl: string, service: string): Promise<string> {
  const base = decodeURIComponent(new URL(adminUrl).pathname.slice(1)) || 'payments';
  const name = `${base}_${service}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  if (name.length > NAME_LENGTH_MAX) throw new RangeError(`database name ${name} is longer than ${NAME_LENGTH_MAX} characters: use a shorter base database name`);
  const password = randomBytes(18).toString('hex');
  const maintenance = new URL(adminUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const ident = quoteIdent(name);
    // Two starters racing on the same name: the loser sees a duplicate (42710 role, 42P04/23505 database).
    await ignoring(['42710', '23505'], () => client.query(`CREATE ROLE ${ident} LOGIN`));
    await client.query(`ALTER ROLE ${ident} LOGIN PASSWORD ${quoteLiteral(password)}`);
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await ignoring(['42P04', '23505'], () => client.query(`CREATE DATABASE ${ident} OWNER ${ident}`));
    await client.query(`REVOKE CONNECT, TEMPORARY ON DATABASE ${ident} FROM PUBLIC`);
    await client.query(`GRANT CONNECT ON DATABASE ${ident} TO ${ident}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.username = encodeURIComponent(name);
  url.password = encodeURIComponent(password);
  url.pathname = `/${name}`;
  return url.toString();
}

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const quoteLiteral = (value: string): string => `'${value.replace(/'/g, "''")}'`;

async function ignoring(codes: string[], run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!codes.includes((error as { code?: string }).code ?? '')) throw error;
  }
}
