import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { ensureDatabase } from '@pay/platform';
import { expectCall } from './http';
import type { LoadResult } from './load';
import { startWithStatements } from './pg-stats';
import { fmt, type Row } from './report';
import { authorizeScenario, createPendingPayments, createScenario, retrieveScenario, type AuthorizeResult } from './scenarios';
import { sleep, spawnService, type ServiceProcess } from './service';
import { paymentBody, setUp, type Fixture } from './setup';

/**
 * Does a request cost more with a million payments stored than with ten thousand? For each size, a
 * database of its own (on a PostgreSQL of its own, with pg_stat_statements loaded): the service sets up
 * the fixture and one template payment (created, then authorized: succeeded), is stopped, the size is
 * seeded through SQL by cloning the template's rows (event stream, projection, integration event,
 * ledger operation, entry and postings), and the subscriptions' checkpoints are moved past the seeded
 * events. Once every size is seeded, each is measured in turn, the reference again last (the machine's
 * speed drifts over the minutes a million takes to seed: the reference's figure is the mean of its two
 * measurements, taken around the others): the service is started on the size's database, then create
 * and retrieve at a fixed rate, authorize at full speed. The statements it sent are then read from
 * pg_stat_statements and explained.
 */
export interface StoredOptions {
  /** Payments seeded per database, smallest first: the first is the reference of the ratios. */
  sizes: number[];
  customers: number;
  rate: number;
  durationS: number;
  warmUpS: number;
  instances: number;
  authorizeCount: number;
  connections: number;
  pendingConcurrency: number;
  /**
   * `handled` (default): only the checkpoints of subscriptions that handled the template's events are
   * moved past the seed, the others stay where they were, as after a million real payments. `all`: every
   * checkpoint is moved (subscriptions filtered on other types then never read the seeded events).
   */
  checkpoints: 'handled' | 'all';
}

/** Above this many rows (pg_class.reltuples), a Seq Scan in a hot-path plan is flagged. */
const LARGE_TABLE_ROWS = 10_000;
/** The seeded payments' creation times are spread over the last 30 days. */
const SEED_SPAN_MS = 30 * 24 * 3600 * 1000;
const TEMPLATE_REFERENCE = 'bench-stored-template-0001';
/** Statements explained: those the measured scenarios sent at least this often, the costliest first. */
const HOT_CALLS_MIN = 50;
const HOT_STATEMENTS_MAX = 30;
export const STORED_RATIO_TARGET = 0.2;

interface Statement {
  query: string;
  calls: number;
  meanMs: number;
  rowsPerCall: number;
  /** Pages found in PostgreSQL's buffers, and pages read in (from the OS), per call. */
  hitsPerCall: number;
  readsPerCall: number;
  /** Time spent reading those pages in, per call (track_io_timing). */
  readMsPerCall: number;
}

/** What the report shows of a size's seeding. */
interface SeedFacts {
  size: number;
  seedS: number;
  databaseMb: number;
  /** Subscriptions whose checkpoint was left before the seeded events (mode `handled`). */
  behind: string[];
}

/** One size's database, seeded, with the fixture the measurements use. */
export interface Seeded {
  facts: SeedFacts;
  databaseUrl: string;
  dataDir: string;
  fixture: Fixture;
  /** Seeded payments that retrieve reads. */
  ids: string[];
}

/** The service on one size's database, measured once. */
interface Measurement {
  create: LoadResult;
  retrieve: LoadResult;
  authorize: AuthorizeResult;
  statements: Statement[];
  /** Statements whose plan has a Seq Scan on a table of more than LARGE_TABLE_ROWS rows. */
  flagged: { query: string; tables: string[]; plan: string }[];
}

export interface StoredSize extends SeedFacts, Measurement {
  /** The reference size's second measurement, after the others. */
  again?: Measurement;
}

export async function storedPhase(
  root: string,
  options: StoredOptions,
  cleanups: (() => Promise<unknown>)[],
  log: (line: string) => void,
): Promise<{ rows: Row[]; sizes: StoredSize[] }> {
  const postgres = await startWithStatements(join(root, 'stored-postgres'), { ioTiming: true });
  log('stored: PostgreSQL of its own started with pg_stat_statements');
  cleanups.push(() => postgres.stop());
  const results: StoredSize[] = [];
  try {
    const seeded: Seeded[] = [];
    for (const [index, size] of options.sizes.entries()) {
      const url = new URL(postgres.url);
      url.pathname = `/bench_stored_${size}`;
      // The reference is measured twice: its customers are funded for both.
      seeded.push(await seedSize(url.toString(), join(root, `stored-${size}`), size, index === 0 && options.sizes.length > 1 ? 2 : 1, options, log));
    }
    for (const one of seeded) results.push({ ...one.facts, ...(await measureSize(one, options, log)) });
    const [reference] = results;
    if (reference && seeded.length > 1) {
      log(`stored ${reference.size.toLocaleString('en')}: measured again, after the others`);
      reference.again = await measureSize(seeded[0]!, options, log);
    }
  } finally {
    await postgres.stop();
  }
  const grown = growth(results);
  for (const g of grown) {
    const { small, large } = g;
    log(
      `stored: statement mean time grew ${fmt(g.factor, 1)}× (${fmt(small.meanMs, 3)} → ${fmt(large.meanMs, 3)} ms, ${large.calls} calls at the larger size; ` +
        `pages read in ${fmt(small.readsPerCall, 1)} → ${fmt(large.readsPerCall, 1)} a call, taking ${fmt(small.readMsPerCall, 3)} → ${fmt(large.readMsPerCall, 3)} ms): ${g.query.slice(0, 300)}`,
    );
  }
  return { rows: report(results, grown), sizes: results };
}

/** A statement is flagged when its mean time at the largest size is this many times the reference's, and above GROWN_MIN_MS. */
const GROWN_FACTOR = 2;
const GROWN_MIN_MS = 0.5;

interface Grown {
  query: string;
  small: Statement;
  large: Statement;
  factor: number;
}

/** The hot statements of the largest size whose mean time grew with the data (matched on their text across the two databases). */
function growth(sizes: StoredSize[]): Grown[] {
  const [reference, ...others] = sizes;
  const large = others.at(-1);
  if (!reference || !large) return [];
  const before = new Map(reference.statements.map((st) => [st.query, st]));
  return large.statements
    .flatMap((st) => {
      const small = before.get(st.query);
      if (!small) return [];
      const factor = st.meanMs / small.meanMs;
      return factor >= GROWN_FACTOR && st.meanMs >= GROWN_MIN_MS
        ? [{ query: st.query.replace(/\s+/g, ' ').trim(), small, large: st, factor }]
        : [];
    })
    .sort((a, b) => b.large.meanMs * b.large.calls - a.large.meanMs * a.large.calls);
}

export async function seedSize(databaseUrl: string, dataDir: string, size: number, rounds: number, options: StoredOptions, log: (line: string) => void): Promise<Seeded> {
  await ensureDatabase(databaseUrl);
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  let service: ServiceProcess | undefined;
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    service = await spawnService({ databaseUrl, dataDir });
    const created = options.rate * (options.durationS + options.warmUpS);
    const perCustomer = Math.ceil((rounds * (created + options.authorizeCount) + 1) / options.customers);
    const fixture = await setUp(service.url, service.adminKey, options.customers, perCustomer);
    const template = await templatePayment(fixture, db);
    await service.stop();
    service = undefined;

    log(`stored ${size.toLocaleString('en')}: seeding through SQL from template ${template.paymentId}`);
    const seedStarted = performance.now();
    const behind = await seed(db, template, fixture.customers, size, options.checkpoints, (line) => log(`stored ${size.toLocaleString('en')}: ${line}`));
    const seedS = (performance.now() - seedStarted) / 1000;
    const databaseMb = Number((await db.query<{ mb: string }>('SELECT pg_database_size(current_database()) / 1048576.0 AS mb')).rows[0]!.mb);
    log(`stored ${size.toLocaleString('en')}: seeded in ${fmt(seedS)} s (VACUUM ANALYZE and CHECKPOINT included), database ${fmt(databaseMb, 0)} MB`);
    if (behind.length > 0) log(`stored ${size.toLocaleString('en')}: checkpoints left before the seeded events (never handled a payment event): ${behind.join(', ')}`);
    return { facts: { size, seedS, databaseMb, behind }, databaseUrl, dataDir, fixture, ids: seededIds(Math.min(size, 100_000), size) };
  } finally {
    await service?.stop();
    await db.end();
  }
}

async function measureSize({ facts: { size }, databaseUrl, dataDir, fixture, ids }: Seeded, options: StoredOptions, log: (line: string) => void): Promise<Measurement> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  let service: ServiceProcess | undefined;
  try {
    service = await spawnService({ databaseUrl, dataDir });
    const measured = { ...fixture, baseUrl: service.url };
    await expectCall(measured.baseUrl, 'GET', `/v1/payments/${ids[0]!}`, 200, { key: measured.apiKey });
    log(`stored ${size.toLocaleString('en')}: service started; warm-up ${options.warmUpS} s of create and retrieve (not recorded)`);
    const paced = { rate: options.rate, durationS: options.warmUpS, instances: options.instances };
    await createScenario(measured, paced);
    await retrieveScenario(measured, ids, paced);
    const pending = await createPendingPayments(measured, options.authorizeCount, options.pendingConcurrency);
    await sleep(1_000);
    await db.query('SELECT pg_stat_statements_reset()');
    const pagesBefore = await pagesRead(db);

    const timed = { ...paced, durationS: options.durationS };
    const create = await createScenario(measured, timed);
    const retrieve = await retrieveScenario(measured, ids, timed);
    const authorize = await authorizeScenario(measured, pending, options.connections, async () => undefined);
    log(
      `stored ${size.toLocaleString('en')}: create p50 ${fmt(create.p50Ms, 2)} p99 ${fmt(create.p99Ms, 2)} ms (non-2xx ${create.non2xx}); ` +
        `retrieve p50 ${fmt(retrieve.p50Ms, 2)} p99 ${fmt(retrieve.p99Ms, 2)} ms (non-2xx ${retrieve.non2xx}); ` +
        `authorize ${fmt(authorize.authorizationsPerSecond)}/s p50 ${fmt(authorize.load.p50Ms, 2)} p99 ${fmt(authorize.load.p99Ms, 2)} ms, statuses ${JSON.stringify(authorize.statuses)}`,
    );
    logPagesRead(size, pagesBefore, await pagesRead(db), log);
    const statements = await hotStatements(db);
    const flagged = await explain(db, statements, size, log);
    return { create, retrieve, authorize, statements, flagged };
  } finally {
    await service?.stop();
    await db.end();
  }
}

interface Template {
  paymentId: string;
  streamId: string;
  entryId: string;
  whEventId: string | undefined;
  customer: string;
  /** Every ISO timestamp found in the template's rows, shifted per seeded payment. */
  timestamps: string[];
}

/** One payment created and authorized through the API, once every projection has caught up with it. */
async function templatePayment(fixture: Fixture, db: Client): Promise<Template> {
  const created = (
    await expectCall(fixture.baseUrl, 'POST', '/v1/payments', 201, {
      key: fixture.apiKey,
      headers: { 'Idempotency-Key': TEMPLATE_REFERENCE },
      body: JSON.parse(paymentBody(fixture, TEMPLATE_REFERENCE)),
    })
  ).body;
  const customer = fixture.customers[0]!;
  await expectCall(fixture.baseUrl, 'POST', `/v1/test_helpers/payments/${created.id}/authorize`, 200, { key: fixture.apiKey, body: { customer } });
  const paymentId = String(created.id);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { rows } = await db.query<{ status: string | null; wh: string | null; entry: string | null; stream: string | null }>(
      `SELECT (SELECT status FROM payment_views WHERE payment_id = $1) AS status,
              (SELECT id FROM wh_events WHERE object_id = $1 ORDER BY seq DESC LIMIT 1) AS wh,
              (SELECT id FROM ledger_entries WHERE reference = $1 AND kind = 'payment') AS entry,
              (SELECT stream_id FROM es_streams WHERE stream_id LIKE '%' || $1) AS stream`,
      [paymentId],
    );
    const row = rows[0]!;
    if (row.status === 'succeeded' && row.wh && row.entry && row.stream) {
      await sleep(1_000); // the last checkpoints commit after the rows they wrote
      const texts = await db.query<{ t: string }>(
        `SELECT data::text || metadata::text AS t FROM es_events WHERE stream_id = $1
         UNION ALL SELECT state::text FROM payment_views WHERE payment_id = $2
         UNION ALL SELECT body FROM wh_events WHERE object_id = $2
         UNION ALL SELECT outcome::text FROM ledger_operations WHERE operation_id = (SELECT operation_id FROM ledger_entries WHERE id = $3)`,
        [row.stream, paymentId, row.entry],
      );
      const timestamps = [...new Set(texts.rows.flatMap((r) => r.t.match(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g) ?? []))];
      return { paymentId, streamId: row.stream, entryId: row.entry, whEventId: row.wh, customer, timestamps };
    }
    if (Date.now() > deadline) throw new Error(`template payment ${paymentId} not projected within 30 s: ${JSON.stringify(row)}`);
    await sleep(200);
  }
}

/** The ids the seed gives payment g (1-based): random-looking, like the service's, and reproducible. */
const seededId = (g: number): string => `pay_${createHash('md5').update(`seed-pay:${g}`).digest('hex').slice(0, 24)}`;
/** `count` seeded ids spread evenly over the whole table. */
const seededIds = (count: number, size: number): string[] => Array.from({ length: count }, (_, i) => seededId(1 + Math.floor((i * size) / count)));

/**
 * One transaction, set-based. `seed` has a row per payment g: its ids, its customer (round robin) and
 * its time shift (the payments evenly over the last 30 days). Each table's template rows are cloned
 * for every g: text columns with the template's ids, customer, order reference and timestamps
 * replaced, timestamps shifted, sequences and identities left to their defaults; ledger postings are
 * written with their running balance_after, as the ledger writes them, after one top-up per customer
 * (from platform:funding) that covers its seeded payments.
 */
async function seed(db: Client, t: Template, customers: string[], size: number, checkpoints: StoredOptions['checkpoints'], log: (line: string) => void): Promise<string[]> {
  // Each step's time, so that a slow one is named.
  let stepStarted = performance.now();
  const step = (name: string) => {
    const now = performance.now();
    log(`seed step ${name}: ${fmt((now - stepStarted) / 1000)} s`);
    stepStarted = now;
  };
  const lit = (value: string) => db.escapeLiteral(value);
  const iso = (expr: string) => `to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const replacements: [string, string][] = [
    [lit(t.paymentId), 's.payment_id'],
    [lit(t.entryId), 's.entry_id'],
    [lit(t.customer), 's.customer'],
    [lit(TEMPLATE_REFERENCE), 's.order_reference'],
    ...(t.whEventId ? ([[lit(t.whEventId), 's.wh_event_id']] as [string, string][]) : []),
    // Shifted once per payment in `seed` (ts1, ts2, …), not once per column.
    ...t.timestamps.map((ts, i): [string, string] => [lit(ts), `s.ts${i + 1}`]),
  ];
  // The service's event ids are UUIDv7 (the time, then random bits): PostgreSQL 17 has no uuidv7(), so
  // a random uuid's last 10 bytes (version nibble set to 7) follow the time in ms.
  const uuidV7At = (time: string) =>
    `(SELECT encode(substring(int8send((extract(epoch FROM ${time}) * 1000)::bigint) FROM 3) || set_byte(r, 0, (get_byte(r, 0) & 15) | 112), 'hex')::uuid
      FROM (SELECT substring(uuid_send(gen_random_uuid()) FROM 7) AS r) AS random_bytes)`;
  // A text column is rewritten in one pass per seeded row: the template's value becomes a format string
  // once (its % doubled, each replaced literal a positional %N$s), then format() fills it per payment.
  // A chain of replace() per row scanned each event's JSON once per timestamp: 6 minutes at a million.
  const formatOf = (expr: string) => replacements.reduce((inner, [from], k) => `replace(${inner}, ${from}, '%${k + 1}$s')`, `replace(${expr}, '%', '%%')`);
  const fill = (format: string) => `format(${format}, ${replacements.map(([, to]) => to).join(', ')})`;
  if (replacements.length > 90) throw new Error(`the template has ${replacements.length} values to replace: more than format() takes`);
  const spacingMs = Math.max(1, Math.floor(SEED_SPAN_MS / size));

  /**
   * `insert` with `table`'s secondary indexes dropped, then built again from the whole table: a million
   * rows with random ids inserted one by one into each index read and write a random page per row once
   * the index outgrows the buffers; a build sorts once. Indexes a constraint stands on (the primary key,
   * a unique constraint, one a foreign key references) stay, so the rows are checked as they go in.
   */
  const withoutSecondaryIndexes = async (table: string, insert: () => Promise<unknown>) => {
    const { rows: indexes } = await db.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes i WHERE schemaname = 'public' AND tablename = $1
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = format('%I', i.indexname)::regclass)`,
      [table],
    );
    for (const index of indexes) await db.query(`DROP INDEX ${db.escapeIdentifier(index.name)}`);
    await insert();
    for (const index of indexes) await db.query(index.def);
  };

  /** INSERT … SELECT of every column of `table`, from its rows matching `where`, once per seeded payment. */
  const clone = async (table: string, where: string, orderBy: string) => {
    const { rows: columns } = await db.query<{ name: string; type: string; identity: string; def: string | null }>(
      `SELECT column_name AS name, data_type AS type, is_identity AS identity, column_default AS def FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
      [table],
    );
    // An entry's place in the hash chain is not copied: the seeded entries are sealed by the service at
    // its next start, after the chain's head, as an existing ledger's are.
    const unchained = (c: { name: string }) => table === 'ledger_entries' && (c.name === 'sequence' || c.name === 'hash');
    const copied = columns.filter((c) => c.identity !== 'YES' && !c.def?.startsWith('nextval(') && c.def !== 'pg_current_xact_id()' && !unchained(c));
    const textual = (c: { type: string }) => ['text', 'character varying', 'json', 'jsonb'].includes(c.type);
    const formatColumn = (c: { name: string }) => db.escapeIdentifier(`format of ${c.name}`);
    const expression = (c: { name: string; type: string }) => {
      const col = `t.${db.escapeIdentifier(c.name)}`;
      if (c.type === 'text' || c.type === 'character varying') return fill(`t.${formatColumn(c)}`);
      if (c.type === 'jsonb' || c.type === 'json') return `${fill(`t.${formatColumn(c)}`)}::${c.type}`;
      if (c.type === 'timestamp with time zone') return `${col} + s.shift`;
      if (c.type === 'uuid') return copied.some((other) => other.name === 'created_at') ? uuidV7At('t.created_at + s.shift') : 'gen_random_uuid()';
      return col;
    };
    await withoutSecondaryIndexes(table, () =>
      db.query(
        `INSERT INTO ${table} (${copied.map((c) => db.escapeIdentifier(c.name)).join(', ')})
         SELECT ${copied.map(expression).join(', ')} FROM seed s
         CROSS JOIN (SELECT *${copied.filter(textual).map((c) => `, ${formatOf(`${db.escapeIdentifier(c.name)}::text`)} AS ${formatColumn(c)}`).join('')} FROM ${table} WHERE ${where}) t
         ORDER BY s.g, ${orderBy}`,
      ),
    );
    step(table);
  };

  // The seed table of a million payments (their ids and shifted timestamps) is read by every clone:
  // kept in memory rather than in the default 8 MB of temporary buffers (set before any temporary table).
  await db.query(`SET temp_buffers = '512MB'`);
  await db.query('BEGIN');
  try {
    await db.query(`SET LOCAL maintenance_work_mem = '512MB'`);
    await db.query(`SET LOCAL synchronous_commit = off`);
    const before = (
      await db.query<{ entry_position: string; first_commit: string; first_prepare: string }>(
        `SELECT (SELECT coalesce(max(position), 0) FROM ledger_entries)::text AS entry_position,
                transaction_id::text AS first_commit, position::text AS first_prepare
         FROM es_events WHERE stream_id = $1 ORDER BY revision LIMIT 1`,
        [t.streamId],
      )
    ).rows[0]!;
    await db.query(
      `CREATE TEMP TABLE seed ON COMMIT DROP AS
       SELECT *${t.timestamps.map((ts, i) => `, ${iso(`${lit(ts)}::timestamptz + shift`)} AS ts${i + 1}`).join('')} FROM (
         SELECT g, 'pay_' || substr(md5('seed-pay:' || g), 1, 24) AS payment_id, 'je_' || substr(md5('seed-je:' || g), 1, 24) AS entry_id,
           'evt_' || substr(md5('seed-evt:' || g), 1, 24) AS wh_event_id, 'seed-' || lpad(g::text, 18, '0') AS order_reference,
           ($1::text[])[1 + (g - 1) % cardinality($1::text[])] AS customer, ($2::bigint - g + 1) * $3::bigint * interval '-1 millisecond' AS shift
         FROM generate_series(1, $2::int) g) AS base`,
      [customers, size, spacingMs],
    );
    step('seed table');
    await clone('es_streams', `stream_id = ${lit(t.streamId)}`, 't.stream_id');
    await clone('es_events', `stream_id = ${lit(t.streamId)}`, 't.revision');
    await clone('payment_views', `payment_id = ${lit(t.paymentId)}`, 't.payment_id');
    if (t.whEventId) await clone('wh_events', `id = ${lit(t.whEventId)}`, 't.id');
    const amount = `(SELECT amount FROM ledger_postings WHERE entry_id = ${lit(t.entryId)} AND account_id = ${lit(t.customer)})`;
    // One top-up per customer for what its seeded payments debit, a day before the first of them.
    await db.query(
      `CREATE TEMP TABLE seed_topups ON COMMIT DROP AS
       SELECT customer, 'top_' || substr(md5('seed-top:' || customer), 1, 24) AS id, 'je_' || substr(md5('seed-topje:' || customer), 1, 24) AS entry_id,
         count(*) * ${amount} AS amount, date_trunc('milliseconds', now() + min(shift) - interval '1 day') AS created_at
       FROM seed GROUP BY customer`,
    );
    await db.query(
      `INSERT INTO ledger_operations (operation_id, request_hash, outcome, created_at)
       SELECT id, md5(id), jsonb_build_object('id', id, 'amount', amount, 'object', 'topup', 'account', customer, 'currency', 'DZD',
         'created_at', ${iso('created_at')}), created_at FROM seed_topups`,
    );
    await db.query(`INSERT INTO ledger_entries (id, operation_id, reference, kind, created_at) SELECT entry_id, id, id, 'topup', created_at FROM seed_topups ORDER BY customer`);
    step('top-ups');
    await clone('ledger_operations', `operation_id = (SELECT operation_id FROM ledger_entries WHERE id = ${lit(t.entryId)})`, 't.operation_id');
    // The foreign key checks of the inserts below run a plan cached by the top-ups' when the referenced
    // tables held a few rows (a sequential scan): seeding a million entries then scanned the operations
    // a million times (over 20 minutes instead of seconds). Statistics that count the clones replan them.
    await db.query('ANALYZE ledger_operations');
    await clone('ledger_entries', `id = ${lit(t.entryId)}`, 't.id');
    await db.query('ANALYZE ledger_entries');
    await withoutSecondaryIndexes('ledger_postings', () => db.query(
      `INSERT INTO ledger_postings (entry_id, seq, account_id, direction, amount, currency, txn_id, balance_after, entry_position, created_at)
       SELECT p.entry_id, p.seq, p.account_id, p.direction, p.amount, p.currency, 'txn_' || substr(md5(p.entry_id || ':' || p.seq), 1, 24),
         a.balance + sum(CASE WHEN p.direction = 'credit' THEN p.amount ELSE -p.amount END) OVER (PARTITION BY p.account_id ORDER BY p.position, p.seq),
         p.position, p.created_at
       FROM (
         SELECT e.id AS entry_id, e.position, e.created_at, x.seq, x.account_id, x.direction, x.amount, 'DZD' AS currency
         FROM seed_topups u JOIN ledger_entries e ON e.id = u.entry_id
         CROSS JOIN LATERAL (VALUES (1::smallint, 'platform:funding:DZD', 'debit', u.amount), (2::smallint, u.customer, 'credit', u.amount)) AS x (seq, account_id, direction, amount)
         UNION ALL
         SELECT e.id, e.position, e.created_at, t.seq, CASE WHEN t.account_id = ${lit(t.customer)} THEN s.customer ELSE t.account_id END, t.direction, t.amount, t.currency
         FROM seed s JOIN ledger_entries e ON e.id = s.entry_id CROSS JOIN (SELECT * FROM ledger_postings WHERE entry_id = ${lit(t.entryId)}) t
       ) p JOIN ledger_accounts a ON a.id = p.account_id`,
    ));
    step('ledger_postings');
    const seeded = `entry_position > ${Number(before.entry_position)}`;
    await db.query(
      `UPDATE ledger_accounts a SET balance = a.balance + d.delta
       FROM (SELECT account_id, sum(CASE WHEN direction = 'credit' THEN amount ELSE -amount END) AS delta FROM ledger_postings WHERE ${seeded} GROUP BY account_id) d
       WHERE a.id = d.account_id`,
    );
    await db.query(
      `INSERT INTO ledger_fee_revenue_daily AS f (day, currency, kind, amount, postings)
       SELECT (p.created_at AT TIME ZONE 'UTC')::date, p.currency, e.kind, sum(p.amount), count(*)
       FROM ledger_postings p JOIN ledger_entries e ON e.id = p.entry_id
       WHERE p.${seeded} AND p.direction = 'credit' AND p.account_id IN (SELECT id FROM ledger_accounts WHERE kind = 'platform_fees')
       GROUP BY 1, 2, 3
       ON CONFLICT (day, currency, kind) DO UPDATE SET amount = f.amount + excluded.amount, postings = f.postings + excluded.postings`,
    );
    const { rows: broken } = await db.query<{ problem: string }>(
      `SELECT 'unbalanced ' || currency AS problem FROM ledger_postings GROUP BY currency
         HAVING sum(amount) FILTER (WHERE direction = 'debit') <> sum(amount) FILTER (WHERE direction = 'credit')
       UNION ALL
       SELECT 'balance of ' || a.id FROM ledger_accounts a
       WHERE a.balance <> coalesce((SELECT balance_after FROM ledger_postings p WHERE p.account_id = a.id ORDER BY entry_position DESC, seq DESC LIMIT 1), 0)`,
    );
    step('balances, fee revenue and the ledger check');
    if (broken.length > 0) throw new Error(`seeding broke the ledger: ${broken.map((r) => r.problem).join(', ')}`);

    // Past the seeded events: the subscriptions that handled the template's events (or every one).
    const moved = checkpoints === 'all' ? 'true' : `(commit_position, prepare_position) >= (${before.first_commit}, ${before.first_prepare})`;
    await db.query(
      `UPDATE es_checkpoints SET commit_position = pg_current_xact_id()::text::numeric, prepare_position = (SELECT max(position) FROM es_events), updated_at = now()
       WHERE ${moved}`,
    );
    const { rows: behind } = await db.query<{ id: string }>(
      `SELECT subscription_id AS id FROM es_checkpoints WHERE commit_position < pg_current_xact_id()::text::numeric ORDER BY 1`,
    );
    await db.query('COMMIT');
    step('checkpoints and commit');
    // As autovacuum would have after a million payments: statistics and the visibility map.
    await db.query('VACUUM (ANALYZE) es_streams, es_events, payment_views, wh_events, ledger_operations, ledger_entries, ledger_postings, ledger_accounts');
    step('VACUUM ANALYZE');
    // The seed leaves gigabytes of dirty buffers and WAL behind: flushed here, not by the measured phase
    // (its first statements waited on the writes, up to 11.6 times slower than with 10,000).
    await db.query('CHECKPOINT');
    step('CHECKPOINT');
    return behind.map((r) => r.id);
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** The statements the measured scenarios sent most (pg_stat_statements, reset before them), costliest first. */
async function hotStatements(db: Client): Promise<Statement[]> {
  const { rows } = await db.query<{ query: string; calls: string; mean: number; rows: string; hits: string; reads: string; read_ms: number }>(
    `SELECT query, calls::text, mean_exec_time AS mean, rows::text, shared_blks_hit::text AS hits, shared_blks_read::text AS reads,
       shared_blk_read_time AS read_ms FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND calls >= $1
       AND query ~* '^\\s*(select|insert|update|delete|with)\\s' AND query !~* 'pg_stat_statements'
     ORDER BY total_exec_time DESC LIMIT $2`,
    [HOT_CALLS_MIN, HOT_STATEMENTS_MAX],
  );
  return rows.map((r) => {
    const calls = Number(r.calls);
    return { query: r.query, calls, meanMs: r.mean, rowsPerCall: Number(r.rows) / calls, hitsPerCall: Number(r.hits) / calls, readsPerCall: Number(r.reads) / calls, readMsPerCall: r.read_ms / calls };
  });
}

/** Per table or index: pages read in (from the OS: not in PostgreSQL's buffers) and pages found in them, since the server started. */
type PagesByRelation = Map<string, { read: number; hit: number }>;

/** Tables and indexes, by the pages PostgreSQL read in for them and found in its buffers. */
async function pagesRead(db: Client): Promise<PagesByRelation> {
  await sleep(1_000); // backends publish their counters up to a second late
  const { rows } = await db.query<{ name: string; read: string; hit: string }>(
    `SELECT relname AS name, heap_blks_read::text AS read, heap_blks_hit::text AS hit FROM pg_statio_user_tables
     UNION ALL SELECT indexrelname, idx_blks_read::text, idx_blks_hit::text FROM pg_statio_user_indexes`,
  );
  return new Map(rows.map((r) => [r.name, { read: Number(r.read), hit: Number(r.hit) }]));
}

/** The relations the measured scenarios read the most pages in for: where a larger database costs reads. */
const PAGES_READ_LISTED = 10;

function logPagesRead(size: number, before: PagesByRelation, after: PagesByRelation, log: (line: string) => void): void {
  const mostRead = [...after]
    .map(([name, { read, hit }]) => ({ name, read: read - (before.get(name)?.read ?? 0), hit: hit - (before.get(name)?.hit ?? 0) }))
    .filter((r) => r.read > 0)
    .sort((a, b) => b.read - a.read)
    .slice(0, PAGES_READ_LISTED);
  const described = mostRead.map((r) => `${r.name} ${r.read.toLocaleString('en')} (${fmt((100 * r.read) / (r.read + r.hit), 1)} % of the pages it accessed)`);
  log(`stored ${size.toLocaleString('en')}: pages read in during the measured scenarios, by table or index: ${described.join(', ') || 'none'}`);
}

/** Each statement's generic plan (the one a prepared statement ends up with); Seq Scans on large tables flagged. */
async function explain(db: Client, statements: Statement[], size: number, log: (line: string) => void): Promise<StoredSize['flagged']> {
  const { rows: sizes } = await db.query<{ name: string; rows: number }>(
    `SELECT relname AS name, reltuples AS rows FROM pg_class WHERE relkind IN ('r', 'p') AND relnamespace = 'public'::regnamespace`,
  );
  const rowsOf = new Map(sizes.map((r) => [r.name, Number(r.rows)]));
  const flagged: StoredSize['flagged'] = [];
  log(`stored ${size.toLocaleString('en')}: hot-path statements (pg_stat_statements, >= ${HOT_CALLS_MIN} calls), costliest first, with their generic plans:`);
  for (const [i, statement] of statements.entries()) {
    const oneLine = statement.query.replace(/\s+/g, ' ').trim();
    log(
      `  #${i + 1} ${statement.calls} calls, mean ${fmt(statement.meanMs, 3)} ms, ${fmt(statement.rowsPerCall, 1)} rows/call, ` +
        `pages ${fmt(statement.hitsPerCall, 1)} hit / ${fmt(statement.readsPerCall, 1)} read in ${fmt(statement.readMsPerCall, 3)} ms a call: ${oneLine.slice(0, 400)}`,
    );
    let plan: string;
    try {
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (GENERIC_PLAN) ${statement.query}`);
      plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    } catch (error) {
      log(`     (no plan: ${(error as Error).message})`);
      continue;
    }
    for (const line of plan.split('\n')) log(`     ${line}`);
    const tables = [...plan.matchAll(/Seq Scan on (\w+)/g)].map((m) => m[1]!).filter((name) => (rowsOf.get(name) ?? 0) > LARGE_TABLE_ROWS);
    if (tables.length > 0) {
      flagged.push({ query: oneLine, tables: [...new Set(tables)], plan });
      log(`     ^ SEQ SCAN ON A LARGE TABLE: ${[...new Set(tables)].map((name) => `${name} (${Math.round(rowsOf.get(name) ?? 0)} rows)`).join(', ')}`);
    }
  }
  return flagged;
}

/** A measurement's non-2xx answers, and whether every authorized payment succeeded. */
const failures = (at: string, m: Measurement): Row => {
  const non2xx = m.create.non2xx + m.retrieve.non2xx + m.authorize.load.non2xx;
  const succeeded = m.authorize.statuses['succeeded'];
  return {
    figure: `${at}: non-2xx; authorized payments succeeded`,
    value: `${non2xx}; ${succeeded ?? 0}/${m.authorize.statusById.size}`,
    target: '0; all',
    pass: non2xx === 0 && succeeded === m.authorize.statusById.size,
  };
};

function report(sizes: StoredSize[], grown: Grown[]): Row[] {
  const rows: Row[] = [];
  const label = (n: number) => (n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}M` : n >= 1_000 && n % 1_000 === 0 ? `${n / 1_000}k` : String(n));
  for (const s of sizes) {
    const at = `stored ${label(s.size)}`;
    rows.push(
      { figure: `${at}: seeding (s); database (MB)`, value: `${fmt(s.seedS)}; ${fmt(s.databaseMb, 0)}`, target: '' },
      { figure: `${at}: create p50 / p99 (ms)`, value: `${fmt(s.create.p50Ms, 2)} / ${fmt(s.create.p99Ms, 2)}`, target: '' },
      { figure: `${at}: retrieve p50 / p99 (ms)`, value: `${fmt(s.retrieve.p50Ms, 2)} / ${fmt(s.retrieve.p99Ms, 2)}`, target: '' },
      { figure: `${at}: authorizations/s; p50 / p99 (ms)`, value: `${fmt(s.authorize.authorizationsPerSecond)}; ${fmt(s.authorize.load.p50Ms, 2)} / ${fmt(s.authorize.load.p99Ms, 2)}`, target: '' },
      failures(at, s),
      ...(s.again
        ? [
            { figure: `${at} again, after the others: create p50 / p99 (ms)`, value: `${fmt(s.again.create.p50Ms, 2)} / ${fmt(s.again.create.p99Ms, 2)}`, target: '' },
            { figure: `${at} again, after the others: retrieve p50 / p99 (ms)`, value: `${fmt(s.again.retrieve.p50Ms, 2)} / ${fmt(s.again.retrieve.p99Ms, 2)}`, target: '' },
            {
              figure: `${at} again, after the others: authorizations/s; p50 / p99 (ms)`,
              value: `${fmt(s.again.authorize.authorizationsPerSecond)}; ${fmt(s.again.authorize.load.p50Ms, 2)} / ${fmt(s.again.authorize.load.p99Ms, 2)}`,
              target: '',
            },
            failures(`${at} again, after the others`, s.again),
          ]
        : []),
      {
        figure: `${at}: hot-path plans with a Seq Scan on a large table`,
        value: s.flagged.length === 0 ? '0' : `${s.flagged.length} (${[...new Set(s.flagged.flatMap((f) => f.tables))].join(', ')})`,
        target: '0',
        pass: s.flagged.length === 0,
      },
    );
  }
  const reference = sizes[0] && figures(sizes[0]);
  for (const s of sizes.slice(1)) {
    if (!reference) break;
    const vs = `${label(s.size)} ÷ ${label(sizes[0]!.size)}`;
    const within = STORED_RATIO_TARGET * 100;
    const latency = (figure: string, ratio: number, gated: boolean): Row => ({
      figure: `stored ${vs}: ${figure}`,
      value: `${fmt(ratio * 100)} %`,
      target: gated ? `<= ${100 + within} %` : '',
      ...(gated ? { pass: ratio <= 1 + STORED_RATIO_TARGET } : {}),
    });
    const these = figures(s);
    const throughput = these.authorizationsPerSecond / reference.authorizationsPerSecond;
    rows.push(
      latency('create p50', these.createP50Ms / reference.createP50Ms, true),
      latency('create p99', these.createP99Ms / reference.createP99Ms, false),
      latency('retrieve p50', these.retrieveP50Ms / reference.retrieveP50Ms, true),
      latency('retrieve p99', these.retrieveP99Ms / reference.retrieveP99Ms, false),
      { figure: `stored ${vs}: authorizations/s`, value: `${fmt(throughput * 100)} %`, target: `>= ${100 - within} %`, pass: throughput >= 1 - STORED_RATIO_TARGET },
      latency('authorize p99', these.authorizeP99Ms / reference.authorizeP99Ms, false),
    );
  }
  const [first, large] = [sizes[0], sizes.at(-1)];
  if (first && large && large !== first) {
    rows.push({
      figure: `stored ${label(large.size)} ÷ ${label(first.size)}: hot statements ${GROWN_FACTOR}× slower or more`,
      value: grown.length === 0 ? '0' : `${grown.length} (worst ${fmt(grown[0]!.factor, 1)}×: ${grown[0]!.query.slice(0, 40)}…)`,
      target: '0',
      pass: grown.length === 0,
    });
  }
  return rows;
}

/** A size's figures that the ratios compare: for the reference, the mean of its two measurements. */
function figures(s: StoredSize) {
  const all = s.again ? [s, s.again] : [s];
  const mean = (of: (m: Measurement) => number) => all.reduce((sum, m) => sum + of(m), 0) / all.length;
  return {
    createP50Ms: mean((m) => m.create.p50Ms),
    createP99Ms: mean((m) => m.create.p99Ms),
    retrieveP50Ms: mean((m) => m.retrieve.p50Ms),
    retrieveP99Ms: mean((m) => m.retrieve.p99Ms),
    authorizationsPerSecond: mean((m) => m.authorize.authorizationsPerSecond),
    authorizeP99Ms: mean((m) => m.authorize.load.p99Ms),
  };
}

/** The table's summary row: every gated ratio within 20 % (create and retrieve p50, authorizations/s). */
export function storedSummary(sizes: StoredSize[]): { value: string; pass: boolean } | undefined {
  const [first, ...others] = sizes;
  const last = others.at(-1);
  if (!first || !last) return undefined;
  const [reference, large] = [figures(first), figures(last)];
  const ratios = {
    create: large.createP50Ms / reference.createP50Ms,
    retrieve: large.retrieveP50Ms / reference.retrieveP50Ms,
    authorize: large.authorizationsPerSecond / reference.authorizationsPerSecond,
  };
  return {
    value: `${last.size.toLocaleString('en')} ÷ ${first.size.toLocaleString('en')}: create p50 ${fmt(ratios.create * 100, 0)} %, retrieve p50 ${fmt(ratios.retrieve * 100, 0)} %, authorize/s ${fmt(ratios.authorize * 100, 0)} %`,
    pass: ratios.create <= 1 + STORED_RATIO_TARGET && ratios.retrieve <= 1 + STORED_RATIO_TARGET && ratios.authorize >= 1 - STORED_RATIO_TARGET,
  };
}
