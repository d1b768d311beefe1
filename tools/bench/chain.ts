/**
 * `node tools/run.js tools/bench/chain.ts` (`npm run bench:chain`): what the ledger's hash chain costs
 * settled payments. The authorize scenario against two all-in-one services side by side, each on its
 * own database of one embedded PostgreSQL: one from this checkout (with the chain), one from the commit
 * before the chain (`BENCH_CHAIN_BASE`, default: the parent of the commit that added the chain's
 * migration), extracted with `git archive` into a temp dir that shares this checkout's node_modules.
 * They are loaded in turns (without, with, then with, without, …) so that a change in the machine's
 * load meanwhile falls on both. Then, on the side with the chain, the chain must be gapless and verify.
 * Target: settled payments/s at most 5 % lower with the chain. Not part of `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ensureDatabase, startEmbeddedPostgres } from '@pay/platform';
import { expectCall } from './http';
import { fmt, table, type Row } from './report';
import { authorizeScenario, createPendingPayments } from './scenarios';
import { REPO_ROOT, spawnService, type ServiceProcess } from './service';
import { setUp, type Fixture } from './setup';

const envInt = (name: string, fallback: number): number => (process.env[name] ? Number(process.env[name]) : fallback);
const OPTIONS = {
  rounds: envInt('BENCH_CHAIN_ROUNDS', 4),
  batch: envInt('BENCH_CHAIN_BATCH', 1_500),
  warmUp: 300,
  connections: envInt('BENCH_AUTHORIZE_CONNECTIONS', 32),
  customers: 50,
};
/** Settled payments/s with the chain may be at most this much lower. */
const SLOWDOWN_TARGET = 0.05;

interface Side {
  name: 'without chain' | 'with chain';
  service: ServiceProcess;
  databaseUrl: string;
  fixture: Fixture;
  pending: string[];
  succeeded: number;
  durationS: number;
}

async function main(): Promise<void> {
  const base = process.env['BENCH_CHAIN_BASE'] ?? `${git('log', '--format=%H', '-1', '--diff-filter=A', '--', 'libs/ledger/feature/migrations/006_chain.sql')}^`;
  const baseCommit = git('rev-parse', '--short', base);
  const dir = await mkdtemp(join(tmpdir(), 'bench-chain-'));
  await chmod(dir, 0o755); // PostgreSQL runs as its own user, who must reach the cluster below
  const baseTree = join(dir, 'without-chain');
  await mkdir(baseTree);
  execFileSync('sh', ['-c', `git archive ${baseCommit} | tar -x -C ${JSON.stringify(baseTree)}`], { cwd: REPO_ROOT });
  await symlink(join(REPO_ROOT, 'node_modules'), join(baseTree, 'node_modules'));
  console.log(`without the chain: ${baseCommit} in ${baseTree}; with the chain: ${git('rev-parse', '--short', 'HEAD')} (and its working tree)`);

  const database = await startEmbeddedPostgres(join(dir, 'pg'));
  const sides: Side[] = [];
  try {
    for (const [name, cwd] of [
      ['without chain', baseTree],
      ['with chain', REPO_ROOT],
    ] as const) {
      const databaseUrl = database.url.replace(/\/[^/]*$/, `/bench_${name.replace(/ /g, '_')}`);
      await ensureDatabase(databaseUrl);
      // SWC_NODE_PROJECT (set by this process's loader, inherited) names the tsconfig whose paths resolve @pay/*: each tree its own.
      const env = { LOG_LEVEL: 'error', SWC_NODE_PROJECT: join(cwd, 'tsconfig.base.json') };
      const service = await spawnService({ databaseUrl, dataDir: join(dir, `data-${name.replace(/ /g, '-')}`), cwd, env });
      const perSide = OPTIONS.warmUp + OPTIONS.rounds * OPTIONS.batch;
      const fixture = await setUp(service.url, service.adminKey, OPTIONS.customers, Math.ceil(perSide / OPTIONS.customers));
      const pending = await createPendingPayments(fixture, perSide, 32);
      console.log(`${name}: service pid ${service.pid}, ${pending.length} pending payments`);
      sides.push({ name, service, databaseUrl, fixture, pending, succeeded: 0, durationS: 0 });
    }
    for (const side of sides) await authorizeScenario(side.fixture, side.pending.splice(0, OPTIONS.warmUp), OPTIONS.connections, async () => undefined);
    for (let round = 0; round < OPTIONS.rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const result = await authorizeScenario(side.fixture, side.pending.splice(0, OPTIONS.batch), OPTIONS.connections, async () => undefined);
        side.succeeded += result.statuses['succeeded'] ?? 0;
        side.durationS += result.load.durationS;
        console.log(`${side.name}, round ${round + 1}: ${fmt(result.succeededPerSecond)} settled payments/s, p99 ${fmt(result.load.p99Ms, 2)} ms`);
      }
    }
    const [without, withChain] = sides as [Side, Side];
    const perSecond = (side: Side) => side.succeeded / side.durationS;
    const slowdown = 1 - perSecond(withChain) / perSecond(without);
    const chain = await checkChain(withChain);
    const measured = OPTIONS.rounds * OPTIONS.batch;
    const rows: Row[] = [
      { figure: 'without chain: settled payments/s', value: fmt(perSecond(without)), target: '' },
      { figure: 'with chain: settled payments/s', value: fmt(perSecond(withChain)), target: '' },
      { figure: 'chain: slowdown', value: `${fmt(slowdown * 100)} %`, target: `<= ${SLOWDOWN_TARGET * 100} %`, pass: slowdown <= SLOWDOWN_TARGET },
      { figure: 'succeeded (GET), without + with', value: `${without.succeeded + withChain.succeeded}/${2 * measured}`, target: 'all', pass: without.succeeded === measured && withChain.succeeded === measured },
      { figure: 'chain after the load: entries, gapless, verifies', value: `${chain.entries}, ${chain.gapless ? 'yes' : 'NO'}, ${chain.status}`, target: 'yes, valid', pass: chain.gapless && chain.status === 'valid' },
    ];
    console.log(`\n${table(rows)}`);
  } finally {
    for (const side of sides) await side.service.stop();
    await database.stop();
  }
}

/** The side with the chain, after its load: every entry chained, 1..N without a gap, and POST verify valid. */
async function checkChain(side: Side): Promise<{ entries: number; gapless: boolean; status: string }> {
  const db = new Client({ connectionString: side.databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ entries: number; chained: number; max: number | null }>(
      'SELECT count(*)::int AS entries, count(sequence)::int AS chained, max(sequence)::int AS max FROM ledger_entries',
    );
    const { entries, chained, max } = rows[0]!;
    const verified = (await expectCall(side.service.url, 'POST', '/admin/v1/ledger/chain/verify', 200, { key: side.service.adminKey })).body;
    return { entries, gapless: chained === entries && max === entries, status: verified.status };
  } finally {
    await db.end();
  }
}

const git = (...args: string[]): string => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
