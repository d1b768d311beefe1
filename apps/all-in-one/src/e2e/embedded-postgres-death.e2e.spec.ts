import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { groupRunsIn } from './ctrl-c';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `npm start` supervises its embedded PostgreSQL: the postmaster killed under the running service
 * (SIGKILL, as the out-of-memory killer does) is started again on the same port, the pools reconnect,
 * and the service serves again without a restart. Meanwhile every request is answered `503` or served,
 * never `500`; `/health` stays 200 (the process serves) and `/ready` says whether PostgreSQL is there.
 */
describe('the embedded PostgreSQL killed under npm start', () => {
  const runs = groupRunsIn('pay-pg-death-');

  /** The postmaster's pid, from its cluster's postmaster.pid (the cluster is elsewhere when noted, as root). */
  const postmasterPid = async (): Promise<number> => {
    const note = join(runs.dataDir(), 'postgres-cluster-location');
    const clusterDir = existsSync(note) ? (await readFile(note, 'utf8')).split('\n')[0]!.trim() : join(runs.dataDir(), 'postgres');
    return Number((await readFile(join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  };

  it('killed: 503 or served meanwhile, started again by the service, which serves and is ready again without a restart', async () => {
    const dataDir = runs.dataDir();
    const portFile = join(dataDir, 'port');
    const run = runs.start('apps/all-in-one/src/main.ts', { DATA_DIR: dataDir, PORT: '0', PORT_FILE: portFile, SANDBOX: 'true', LOG_LEVEL: 'info' });
    await run.waitFor(/sandbox on/, 120_000);
    const url = `http://127.0.0.1:${(await readFile(portFile, 'utf8')).trim()}`;
    const adminKey = (await readFile(join(dataDir, 'admin-api-key'), 'utf8')).trim();
    // A write of the admin API reaches PostgreSQL every time (no cache on the way).
    const createIntegrator = (name: string) =>
      fetch(`${url}/admin/v1/integrators`, { method: 'POST', headers: { Authorization: `Bearer ${adminKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name }) });
    const before = await createIntegrator('Before the crash');
    expect(before.status).toBe(201);
    const pid = await postmasterPid();

    process.kill(pid, 'SIGKILL');
    const statuses: number[] = [];
    const ready: number[] = [];
    const health: number[] = [];
    const deadline = Date.now() + 90_000;
    let served = false;
    for (let i = 0; !served && Date.now() < deadline; i++) {
      const [created, readiness, liveness] = await Promise.all([createIntegrator(`During ${i}`), fetch(`${url}/ready`), fetch(`${url}/health`)]);
      statuses.push(created.status);
      ready.push(readiness.status);
      health.push(liveness.status);
      served = created.status === 201 && readiness.status === 200;
      if (!served) await sleep(250);
    }
    expect(served).toBe(true);
    expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
    expect(ready.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(health.every((status) => status === 200)).toBe(true);
    expect(run.running()).toBe(true);
    expect(run.output()).toContain('embedded PostgreSQL exited with SIGKILL; starting it again');
    // The same cluster, on the same port: a new postmaster, and what was written before is still there.
    expect(await postmasterPid()).not.toBe(pid);
    const listed = await fetch(`${url}/admin/v1/audit_events?action=integrator.created&limit=100`, { headers: { Authorization: `Bearer ${adminKey}` } });
    expect(listed.status).toBe(200);
    const targets = ((await listed.json()) as { data: { target: { id: string } }[] }).data.map((event) => event.target.id);
    expect(targets).toContain(((await before.json()) as { id: string }).id);

    run.ctrlC();
    expect(await run.exited).toEqual({ code: 0, signal: null });
  }, 300_000);
});
