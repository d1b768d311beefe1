import { join } from 'node:path';
import { Client } from 'pg';
import { startWithStatements } from './pg-stats';
import { fmt, type Row } from './report';
import { sleep, spawnService, type ServiceProcess } from './service';
import { seedSize, type Seeded, type StoredOptions } from './stored';

/**
 * Does the console stay quick with a million payments stored? For each size (the reference, then the
 * large one), a database of its own seeded as the stored phase seeds it (set-based SQL cloning one
 * template payment), the service started on it, a console session opened with the admin key through
 * the sign-in form, then, in turns, a search by an order reference and a payment's page, each beside
 * its baseline: the same question asked of the API (the list filtered by order_reference, the
 * payment's retrieve). Each figure is the p99 of `requests` requests, `concurrency` at a time.
 */
export interface ConsoleOptions {
  sizes: number[];
  requests: number;
  concurrency: number;
  /** What seedSize needs from the stored phase's options (its fixture's customers and funding). */
  stored: StoredOptions;
}

export const CONSOLE_P99_TARGET_MS = 300;
/**
 * The phase's own PostgreSQL, set as a database of several gigabytes is run: shared buffers that hold
 * the indexes a request reads, and WAL room for the seed's bulk writes without a checkpoint every
 * gigabyte (each one writing every page it touches again in full).
 */
/** A start on a cold database of gigabytes on a busy machine: its first reads come from the disk. */
const START_TIMEOUT_MS = 300_000;
const POSTGRES_SETTINGS = { shared_buffers: '1GB', max_wal_size: '16GB', checkpoint_timeout: '30min' };

export interface Timing {
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  statuses: Record<number, number>;
}

export interface ConsoleSize {
  size: number;
  seedS: number;
  search: Timing;
  searchBaseline: Timing;
  object: Timing;
  objectBaseline: Timing;
  account: Timing;
}

/** `seed-<g, 18 digits>`: the order reference the stored seed gives payment g. */
const seededReference = (g: number): string => `seed-${String(g).padStart(18, '0')}`;

export async function consolePhase(root: string, options: ConsoleOptions, cleanups: (() => Promise<unknown>)[], log: (line: string) => void): Promise<{ rows: Row[]; sizes: ConsoleSize[] }> {
  const postgres = await startWithStatements(join(root, 'console-postgres'), { settings: POSTGRES_SETTINGS });
  cleanups.push(() => postgres.stop());
  const sizes: ConsoleSize[] = [];
  try {
    for (const size of options.sizes) {
      const url = new URL(postgres.url);
      url.pathname = `/bench_console_${size}`;
      const seeded = await seedSize(url.toString(), join(root, `console-${size}`), size, 1, options.stored, (line) => log(`console: ${line}`));
      sizes.push(await measure(seeded, options, log));
    }
  } finally {
    await postgres.stop();
  }
  return { rows: report(sizes), sizes };
}

async function measure(seeded: Seeded, options: ConsoleOptions, log: (line: string) => void): Promise<ConsoleSize> {
  const { size } = seeded.facts;
  let service: ServiceProcess | undefined;
  try {
    const started = performance.now();
    service = await spawnService({ databaseUrl: seeded.databaseUrl, dataDir: seeded.dataDir, startTimeoutMs: START_TIMEOUT_MS });
    log(`console ${size.toLocaleString('en')}: the service listened ${fmt((performance.now() - started) / 1000)} s after its start`);
    await sealed(seeded.databaseUrl, size, log);
    const base = service.url;
    const cookie = await signIn(base, service.adminKey);
    const api = { authorization: `Bearer ${seeded.fixture.apiKey}` };
    const console = { cookie };
    // Payments spread over the whole table, each asked once per scenario.
    const picks = Array.from({ length: options.requests }, (_, i) => 1 + Math.floor(((i * 7919) % options.requests) * (size / options.requests)));
    const ids = seeded.ids;
    const idAt = (i: number) => ids[(i * 7919) % ids.length]!;
    const run = (name: string, path: (i: number) => string, headers: Record<string, string>) => timed(base, name, options, path, headers, log, size);
    // Warm-up (not recorded): the first requests compile templates and fill caches.
    await run('warm-up', (i) => `/console/search?q=${seededReference(picks[i]!)}`, console);
    await run('warm-up', (i) => `/v1/payments/${idAt(i)}`, api);
    const search = await run('console search by reference', (i) => `/console/search?q=${seededReference(picks[i]!)}`, console);
    const searchBaseline = await run('API list by order_reference', (i) => `/v1/payments?order_reference=${seededReference(picks[i]!)}`, api);
    const object = await run('console payment page', (i) => `/console/objects/${idAt(i)}`, console);
    const objectBaseline = await run('API payment retrieve', (i) => `/v1/payments/${idAt(i)}`, api);
    // Every seeded payment moved the merchant's account: its page's balances, chart and statement read
    // a bounded part of a history as long as the table.
    const account = await run('console merchant account page', () => `/console/accounts/${seeded.fixture.merchantConnection}`, console);
    return { size, seedS: seeded.facts.seedS, search, searchBaseline, object, objectBaseline, account };
  } finally {
    await service?.stop();
  }
}

/**
 * The seeded entries have no place in the ledger's hash chain: the service seals them in the background
 * from its start. Waited for, then vacuumed (sealing updated every entry), so that the timed requests
 * share the machine with neither.
 */
async function sealed(databaseUrl: string, size: number, log: (line: string) => void): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const started = performance.now();
    for (;;) {
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger_entries WHERE sequence IS NULL');
      if (rows[0]!.n === 0) break;
      await sleep(2_000);
    }
    await db.query('VACUUM (ANALYZE) ledger_entries, ledger_chain_head');
    log(`console ${size.toLocaleString('en')}: the ledger sealed the seeded entries into its chain in ${fmt((performance.now() - started) / 1000)} s (VACUUM included)`);
  } finally {
    await db.end();
  }
}

/** Through the console's own form: the sign-in page's CSRF cookie and field, then the session cookie. */
async function signIn(base: string, key: string): Promise<string> {
  const page = await fetch(`${base}/console/sign-in`);
  const csrfCookie = (page.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]!).join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!csrf) throw new Error('console sign-in: no CSRF field on the page');
  const signedIn = await fetch(`${base}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
    body: new URLSearchParams({ csrf, next: '', key }).toString(),
  });
  const session = (signedIn.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]!).filter((c) => !c.startsWith('Max-Age')).join('; ');
  if (signedIn.status !== 303 || !/location/i.test([...signedIn.headers.keys()].join(' ')) || signedIn.headers.get('location')?.includes('error')) {
    throw new Error(`console sign-in refused: ${signedIn.status} ${signedIn.headers.get('location') ?? ''}`);
  }
  return session;
}

async function timed(base: string, name: string, options: ConsoleOptions, path: (i: number) => string, headers: Record<string, string>, log: (line: string) => void, size: number): Promise<Timing> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let failure: string | undefined;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < options.requests; i = next++) {
      const started = performance.now();
      const response = await fetch(`${base}${path(i)}`, { headers, redirect: 'manual' });
      const body = await response.text();
      latencies.push(performance.now() - started);
      if (response.status >= 300 && failure === undefined) failure = `${response.status} on ${path(i)}: ${body.replace(/\s+/g, ' ').slice(0, 600)}`;
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  const non2xx = Object.entries(statuses).reduce((sum, [status, count]) => sum + (Number(status) >= 300 ? count : 0), 0);
  const timing = { p50Ms: at(0.5), p99Ms: at(0.99), non2xx, statuses };
  if (name !== 'warm-up') log(`console ${size.toLocaleString('en')}: ${name}: p50 ${fmt(timing.p50Ms, 1)} ms, p99 ${fmt(timing.p99Ms, 1)} ms, statuses ${JSON.stringify(statuses)}`);
  if (failure) log(`console ${size.toLocaleString('en')}: ${name}: the first answer not 2xx: ${failure}`);
  return timing;
}

function report(sizes: ConsoleSize[]): Row[] {
  return sizes.flatMap((s) => {
    const n = s.size.toLocaleString('en');
    const row = (figure: string, t: Timing, target: string) => ({
      figure: `console ${n}: ${figure} p99`,
      value: `${fmt(t.p99Ms, 1)} ms (p50 ${fmt(t.p50Ms, 1)})${t.non2xx > 0 ? `, ${t.non2xx} not 2xx: ${JSON.stringify(t.statuses)}` : ''}`,
      target,
    });
    return [
      row('search by order reference', s.search, `< ${CONSOLE_P99_TARGET_MS} ms`),
      row('  baseline: API list by order_reference', s.searchBaseline, '—'),
      row("a payment's page", s.object, `< ${CONSOLE_P99_TARGET_MS} ms`),
      row('  baseline: API retrieve', s.objectBaseline, '—'),
      row("the merchant's account page (a posting per seeded payment)", s.account, '—'),
    ];
  });
}
