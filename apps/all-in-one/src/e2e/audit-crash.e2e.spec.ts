import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUDIT_INTENT_SETTLE_AFTER_MS, AUDIT_SWEEP_INTERVAL_MS, randomBase62, SECOND_MS } from '@pay/kernel';
import { afterAuditSweep, startServiceProcess, type ServiceProcess } from './process-harness';

/**
 * The audit trail survives a crash between a change and its event: the service runs as `npm start`
 * does, on embedded PostgreSQL under DATA_DIR; a failpoint kills it (SIGKILL) after a top-up (made by
 * the ledger, over the bus) answered, before its event is written. After a restart the sweeper reads
 * the top-up back and records it once, with the actor and Request-Id of the request that made it; an
 * idempotent replay and later sweeps add nothing.
 */
describe('audit trail: crash between a change and its event', () => {
  let dataDir: string;
  let running: ServiceProcess | undefined;
  const adminKey = `admin_${randomBase62(32)}`;
  const env = () => ({ DATA_DIR: dataDir, SANDBOX: 'true', ADMIN_API_KEY: adminKey, RATE_LIMIT_PER_SECOND: '0' });
  const admin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => running!.http(method, path, { key: adminKey, body, ...(headers ? { headers } : {}) });
  const eventsOf = async (targetId: string): Promise<any[]> => {
    const response = await admin('GET', '/admin/v1/audit_events?limit=100');
    expect(response.status).toBe(200);
    return response.body.data.filter((event: any) => event.target.id === targetId);
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pay-audit-crash-'));
  });
  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('after a restart the top-up is recorded exactly once; a replay does not double it', async () => {
    running = await startServiceProcess({ ...env(), FAILPOINTS: 'audit.after-change' });
    // Changes the gateway stores itself are recorded in their own transaction: the failpoint is not on their way.
    const integrator = (await admin('POST', '/admin/v1/integrators', { name: 'Audit crash shop' })).body;
    const merchant = (await admin('POST', '/admin/v1/connections', { integrator: integrator.id, kind: 'merchant', name: 'M', currency: 'DZD' })).body;
    expect(merchant.id).toMatch(/^conn_/);
    const topup = { account: merchant.id, amount: 500_000, currency: 'DZD' };
    const idempotency = { 'Idempotency-Key': 'audit-crash-topup' };

    // The process dies inside this request, after the ledger made the top-up: the client sees the connection drop.
    await expect(admin('POST', '/admin/v1/topups', topup, idempotency)).rejects.toThrow();
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(running.output()).toContain('failpoint audit.after-change');

    running = await startServiceProcess(env());
    expect((await admin('GET', `/admin/v1/balances/${merchant.id}`)).body.available).toBe(500_000);
    // The retry answers the stored top-up and records nothing itself.
    const replay = await admin('POST', '/admin/v1/topups', topup, idempotency);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const topupId: string = replay.body.id;
    expect(await eventsOf(topupId)).toEqual([]);

    // Past the bound an intent waits for its request, the sweeper settles it: read back from the ledger, recorded once.
    const events = await afterAuditSweep(running, integrator.api_key, () => eventsOf(topupId));
    expect(events).toEqual([
      {
        id: expect.stringMatching(/^aud_/),
        object: 'audit_event',
        action: 'topup.created',
        actor: { type: 'admin', id: null },
        integrator: integrator.id,
        target: { object: 'topup', id: topupId },
        request_id: expect.stringMatching(/^req_/),
        created_at: expect.any(String),
      },
    ]);
    // The request's own id: not the replay's.
    expect(events[0].request_id).not.toBe(replay.headers.get('request-id'));

    // Another replay, and the sweeps that follow (every gateway's), add nothing.
    expect((await admin('POST', '/admin/v1/topups', topup, idempotency)).headers.get('idempotent-replayed')).toBe('true');
    await new Promise((resolve) => setTimeout(resolve, 2 * AUDIT_SWEEP_INTERVAL_MS));
    expect(await eventsOf(topupId)).toHaveLength(1);
    // The ledger holds one top-up: the crash did not make a second.
    expect((await admin('GET', `/admin/v1/ledger/entries?reference=${topupId}`)).body.data).toHaveLength(1);
  }, 300_000);

  it('a change its gateway died before dispatching is not recorded: the sweeper finds no target and drops the intent', async () => {
    running!.child.kill('SIGTERM');
    await running!.exited;
    running = await startServiceProcess({ ...env(), FAILPOINTS: 'audit.after-intent' });
    const integrator = (await admin('POST', '/admin/v1/integrators', { name: 'Audit crash shop 2' })).body;
    // The intent is committed, then the process dies before asking the cash app to create the cash point.
    await expect(admin('POST', '/admin/v1/cash_points', { name: 'Never made', address: '1 rue' })).rejects.toThrow();
    expect(await running.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(running.output()).toContain('failpoint audit.after-intent');

    running = await startServiceProcess(env());
    const advance = await running.http('POST', '/v1/test_helpers/clock/advance', { key: integrator.api_key, body: { seconds: Math.ceil((AUDIT_INTENT_SETTLE_AFTER_MS + 10 * SECOND_MS) / SECOND_MS) } });
    expect(advance.status).toBe(200);
    const deadline = Date.now() + 6 * AUDIT_SWEEP_INTERVAL_MS;
    while (!running.output().includes('0 recorded, 1 not done') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 500));
    expect(running.output()).toContain('audit intents settled after a crash: 0 recorded, 1 not done');
    const events = await admin('GET', '/admin/v1/audit_events?action=cash_point.created');
    expect(events.body.data).toEqual([]);
  }, 300_000);
});
