/**
 * `node tools/run.js tools/bench/lists.ts [count]`: how a list page costs with many objects. Seeds
 * `count` payments (default 1,000,000) for one integrator straight into the payments projection (as
 * the projection itself would write them, from a real payment's state), then times
 * `GET /v1/payments?status=succeeded&limit=100` and the unfiltered newest page over real HTTP, and
 * prints the plan of the filtered query. Not part of `npm test`: timing belongs to benchmarks.
 */
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '@pay/platform';
import { expectCall } from './http';
import { spawnService } from './service';

const SAMPLES = 200;

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 1_000_000);
  const dir = await mkdtemp(join(tmpdir(), 'bench-lists-'));
  await chmod(dir, 0o755); // PostgreSQL runs as its own user, who must reach the cluster below
  const database = await startEmbeddedPostgres(join(dir, 'pg'));
  const service = await spawnService({ databaseUrl: database.url, dataDir: join(dir, 'data') });
  const db = new Client({ connectionString: database.url });
  await db.connect();
  try {
    const admin = { key: service.adminKey };
    const integrator = (await expectCall(service.url, 'POST', '/admin/v1/integrators', 201, { ...admin, body: { name: 'lists bench' } })).body;
    const merchant = (await expectCall(service.url, 'POST', '/admin/v1/connections', 201, { ...admin, body: { integrator: integrator.id, kind: 'merchant', name: 'm', currency: 'DZD' } })).body;
    const key = { key: integrator.api_key };
    const sample = (await expectCall(service.url, 'POST', '/v1/payments', 201, {
      ...key,
      headers: { 'Idempotency-Key': 'lists-bench-sample' },
      body: { amount: 1000, currency: 'DZD', order_reference: 'sample', merchant_connection: merchant.id, return_url: 'https://shop.example/r' },
    })).body;
    await expectCall(service.url, 'GET', '/v1/payments', 200, key); // the projection has the sample
    const started = Date.now();
    // One in five succeeded; the state is the sample's, with its own id and status.
    await db.query(
      `INSERT INTO payment_views (payment_id, integrator_id, status, expires_at, order_reference, merchant_connection, created_at, state, revision, updated_at)
       SELECT 'pay_bench' || lpad(g::text, 16, '0'), v.integrator_id, CASE WHEN g % 5 = 0 THEN 'succeeded' ELSE 'expired' END, v.expires_at,
              'order-' || g, v.merchant_connection, v.created_at - make_interval(secs => $2 - g),
              jsonb_set(jsonb_set(v.state, '{terms,paymentId}', to_jsonb('pay_bench' || lpad(g::text, 16, '0'))), '{status}', to_jsonb(CASE WHEN g % 5 = 0 THEN 'succeeded' ELSE 'expired' END)),
              v.revision, now()
       FROM payment_views v, generate_series(1, $2::int) g WHERE v.payment_id = $1`,
      [sample.id, count],
    );
    await db.query('ANALYZE payment_views');
    console.log(`seeded ${count.toLocaleString('en')} payments in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    for (const [label, path] of [
      ['newest 100, status=succeeded', '/v1/payments?status=succeeded&limit=100'],
      ['newest 100, unfiltered', '/v1/payments?limit=100'],
      ['page 2 of status=succeeded', ''],
    ] as const) {
      let target: string = path;
      if (!target) {
        const first = (await expectCall(service.url, 'GET', '/v1/payments?status=succeeded&limit=100', 200, key)).body;
        target = `/v1/payments?status=succeeded&limit=100&starting_after=${first.data.at(-1).id}`;
      }
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const t0 = process.hrtime.bigint();
        const page = (await expectCall(service.url, 'GET', target, 200, key)).body;
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (page.data.length !== 100) throw new Error(`${label}: ${page.data.length} objects`);
      }
      times.sort((a, b) => a - b);
      console.log(`${label.padEnd(32)} p50 ${times[Math.floor(SAMPLES * 0.5)]!.toFixed(1)} ms  p99 ${times[Math.floor(SAMPLES * 0.99)]!.toFixed(1)} ms`);
    }
    const plan = await db.query(
      `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT state AS state FROM payment_views WHERE integrator_id = $1 AND status = $2 ORDER BY created_at DESC, seq DESC LIMIT 101`,
      [integrator.id, 'succeeded'],
    );
    console.log(plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
  } finally {
    await db.end();
    await service.stop();
    await database.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
