import { Client } from 'pg';
import { startEmbeddedPostgres, type RunningDatabase } from '@pay/platform';

/** Statements listed per phase in the log, most called first. */
const STATEMENTS_LISTED = 15;
/** Then the statements that took the most execution time in all, among those not listed already. */
const LONGEST_LISTED = 5;

/**
 * Embedded PostgreSQL, restarted once with pg_stat_statements preloaded (it cannot be loaded later).
 * `ioTiming`: also time every block read (track_io_timing), so that pg_stat_statements says how long
 * a statement waited for pages it did not have in its buffers.
 */
export async function startWithStatements(
  dir: string,
  { ioTiming = false, settings = {} }: { ioTiming?: boolean; /** Server settings (ALTER SYSTEM), e.g. shared_buffers. */ settings?: Record<string, string> } = {},
): Promise<RunningDatabase> {
  const first = await startEmbeddedPostgres(dir);
  const client = new Client({ connectionString: first.url });
  await client.connect();
  try {
    await client.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
    await client.query(`ALTER SYSTEM SET pg_stat_statements.max = 10000`);
    if (ioTiming) await client.query('ALTER SYSTEM SET track_io_timing = on');
    for (const [name, value] of Object.entries(settings)) await client.query(`ALTER SYSTEM SET ${client.escapeIdentifier(name)} = ${client.escapeLiteral(value)}`);
  } finally {
    await client.end();
  }
  await first.stop();
  return startEmbeddedPostgres(dir);
}

/** Cumulative counters of one database, from PostgreSQL's statistics views. */
export interface PgStats {
  commits: number;
  rollbacks: number;
  tables: Map<string, { seqScan: number; seqTupRead: number; idxScan: number; inserted: number; updated: number }>;
  /** By pg_stat_statements' query id, where the database has the extension (empty otherwise). */
  statements: Map<string, { query: string; calls: number; execMs: number }>;
}

/**
 * What the service asks of PostgreSQL per request is evidence that latency figures alone do not give
 * (commits are WAL flushes; sequential scans on growing tables are missing indexes). Backends publish
 * their counters up to a second late, so a snapshot waits that long first.
 */
export async function pgStats(url: string): Promise<PgStats> {
  await new Promise((done) => setTimeout(done, 1_200));
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const db = await client.query<{ commits: string; rollbacks: string }>(
      'SELECT xact_commit AS commits, xact_rollback AS rollbacks FROM pg_stat_database WHERE datname = current_database()',
    );
    const tables = await client.query<{ relname: string; seq_scan: string; seq_tup_read: string; idx_scan: string | null; n_tup_ins: string; n_tup_upd: string }>(
      'SELECT relname, seq_scan, seq_tup_read, idx_scan, n_tup_ins, n_tup_upd FROM pg_stat_user_tables',
    );
    return {
      statements: await statementCounts(client),
      commits: Number(db.rows[0]?.commits ?? 0),
      rollbacks: Number(db.rows[0]?.rollbacks ?? 0),
      tables: new Map(
        tables.rows.map((t) => [
          t.relname,
          { seqScan: Number(t.seq_scan), seqTupRead: Number(t.seq_tup_read), idxScan: Number(t.idx_scan ?? 0), inserted: Number(t.n_tup_ins), updated: Number(t.n_tup_upd) },
        ]),
      ),
    };
  } finally {
    await client.end();
  }
}

/** The statements this database was sent, by query id; the bench's own reads of the statistics views left out. */
async function statementCounts(client: Client): Promise<PgStats['statements']> {
  const installed = await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements'`);
  if (installed.rowCount === 0) return new Map();
  const { rows } = await client.query<{ queryid: string; query: string; calls: string; exec_ms: number }>(
    `SELECT queryid::text, query, calls::text, total_exec_time AS exec_ms FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat%' AND query NOT LIKE '%pg_extension%'`,
  );
  return new Map(rows.map((row) => [row.queryid, { query: row.query.replace(/\s+/g, ' ').trim(), calls: Number(row.calls), execMs: row.exec_ms }]));
}

/** One line per figure: the counters' growth between two snapshots, per request of the phase. */
export function describeDelta(before: PgStats, after: PgStats, requests: number): string[] {
  const per = (n: number) => (requests > 0 ? (n / requests).toFixed(2) : 'n/a');
  const lines = [`commits/request ${per(after.commits - before.commits)}, rollbacks ${after.rollbacks - before.rollbacks}`];
  for (const [name, t] of after.tables) {
    const b = before.tables.get(name) ?? { seqScan: 0, seqTupRead: 0, idxScan: 0, inserted: 0, updated: 0 };
    const d = { seqScan: t.seqScan - b.seqScan, seqTupRead: t.seqTupRead - b.seqTupRead, idxScan: t.idxScan - b.idxScan, ins: t.inserted - b.inserted, upd: t.updated - b.updated };
    if (d.seqScan + d.idxScan + d.ins + d.upd === 0) continue;
    lines.push(
      `${name}: inserts/request ${per(d.ins)}, updates/request ${per(d.upd)}, index scans/request ${per(d.idxScan)}, ` +
        `seq scans ${d.seqScan} reading ${d.seqTupRead} rows`,
    );
  }
  const statements = [...after.statements]
    .map(([id, st]) => ({ query: st.query, calls: st.calls - (before.statements.get(id)?.calls ?? 0), execMs: st.execMs - (before.statements.get(id)?.execMs ?? 0) }))
    .filter((st) => st.calls > 0)
    .sort((a, b) => b.calls - a.calls);
  if (statements.length > 0) {
    // Execution time is the backend's own (planning, locks waited for and the commit's flush left out).
    const execMs = statements.reduce((sum, st) => sum + st.execMs, 0);
    lines.push(`statements/request ${per(statements.reduce((sum, st) => sum + st.calls, 0))}, executing ${per(execMs)} ms/request (pg_stat_statements), the most called:`);
    const listed = statements.slice(0, STATEMENTS_LISTED);
    const describe = (st: (typeof statements)[number]) => `  ${per(st.calls)}/request ${per(st.execMs)} ms/request  ${st.query.slice(0, 140)}`;
    for (const st of listed) lines.push(describe(st));
    // A statement called rarely may still cost the most: a batch's one write for many requests.
    const longest = statements.slice(STATEMENTS_LISTED).sort((a, b) => b.execMs - a.execMs).slice(0, LONGEST_LISTED);
    if (longest.length > 0) lines.push('the longest in all of the others:');
    for (const st of longest) lines.push(describe(st));
  }
  return lines;
}
