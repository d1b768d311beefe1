import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupRunsIn, troubleLines } from './ctrl-c';

/**
 * Ctrl-C on `npm run start:distributed`: the terminal sends SIGINT to the launcher's process group. The
 * apps, the Kafka cluster and PostgreSQL run in groups of their own, and the launcher stops the apps
 * first (each drains), then the broker and the database: no app loses Kafka or PostgreSQL while it
 * drains, nothing printed looks like trouble, and the launcher exits 0.
 */
describe('Ctrl-C on npm run start:distributed', () => {
  const runs = groupRunsIn('pay-ctrl-c-distributed-');

  it('stops every app, then the broker and the database, with no error or warning line, exit status 0', async () => {
    const dataDir = runs.dataDir();
    // As a user starts it: its own broker and database (not the test run's shared broker), no admin key
    // given (the gateway makes one under DATA_DIR, beside the launcher's embedded PostgreSQL).
    const env: Record<string, string> = { DATA_DIR: dataDir, PORT: '0', SANDBOX: 'true', ADMIN_API_KEY: '', LOG_LEVEL: 'info', KAFKA_BROKERS: '', DATABASE_URL: '', TOPOLOGY_SHARED_KAFKA: '' };
    const run = runs.start('tools/start-distributed.ts', env);
    await run.waitFor(/distributed topology ready: gateway on (http:\/\/[\d.:]+)/, 240_000);
    const url = /distributed topology ready: gateway on (http:\/\/[\d.:]+)/.exec(run.output())![1]!;
    expect(run.output()).toContain('[gateway] ');
    const keyFile = join(dataDir, 'admin-api-key');
    expect(run.output()).toContain(`Generated the admin API key (shown once; stored in ${keyFile})`);
    const adminKey = readFileSync(keyFile, 'utf8').trim();
    expect(run.output().split(adminKey)).toHaveLength(2); // printed once
    expect(run.output()).toMatch(/sandbox on: .*the admin API key is in /);
    // Some work across the apps first, so that their consumers and background work are under way.
    const integrator = await fetch(`${url}/admin/v1/integrators`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Ctrl-C shop' }),
    });
    expect(integrator.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    run.ctrlC();
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(troubleLines(run.output())).toEqual([]);
    expect(run.output()).toContain('SIGINT: stopping every app');
    // Every app drained on the launcher's SIGTERM.
    for (const app of ['gateway', 'payments', 'ledger', 'webhooks', 'cash', 'supplier-payments', 'collections']) {
      expect(run.output()).toMatch(new RegExp(`\\[${app}\\] .*SIGTERM: shutting down`));
    }
  }, 400_000);
});
