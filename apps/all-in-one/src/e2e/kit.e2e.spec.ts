import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { verifyWebhook } from '@pay/sdk';
import { startTestService, type TestService } from './harness';
import { Receiver } from './receiver';

const ROOT = join(__dirname, '..', '..', '..', '..');
const run = promisify(execFile);

/**
 * The integrator's kit as a newcomer uses it, each piece a real process against the real service:
 * `npx payments bootstrap`, the four quick starts of the README, `listen` forwarding to a local
 * receiver, and `trigger` for every event type.
 */
describe('the integrator kit: CLI and quick starts', () => {
  let service: TestService;
  let env: Record<string, string>;

  const cli = (args: string[], extra: Record<string, string> = {}) =>
    run(process.execPath, [join(ROOT, 'tools', 'payments.js'), ...args], { cwd: ROOT, env: { ...process.env, ...env, ...extra }, timeout: 180_000 });

  beforeAll(async () => {
    service = await startTestService();
    const { stdout, stderr } = await cli(['bootstrap'], { PAY_BASE_URL: service.url, PAY_ADMIN_KEY: service.adminKey });
    expect(stderr).toMatch(/Created a sandbox integrator int_/);
    // The exports are meant for `eval`: read them the way a shell would.
    env = Object.fromEntries([...stdout.matchAll(/^export (PAY_[A-Z_]+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(Object.keys(env).sort()).toEqual(
      ['PAY_API_KEY', 'PAY_BASE_URL', 'PAY_BENEFICIARY', 'PAY_BUSINESS', 'PAY_CASH_POINT', 'PAY_CURRENCY', 'PAY_CUSTOMER', 'PAY_MERCHANT', 'PAY_REFUNDS_MERCHANT', 'PAY_WHOLESALER'].sort(),
    );
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
  });

  it.each([
    ['pay', /payment\.succeeded \(evt_.*merchant credited 1231250\n.*refund re_\w+ succeeded/s],
    ['cash-checkout', /cash_payment\.succeeded \(evt_\w+\): paid at cp_\w+, receipt R-\d{8}-\d, merchant credited \d+/],
    ['supplier-payments', /supplier_payment\.succeeded \(evt_\w+\): 2000000 to ben_\w+, fee 20000/],
    ['collections', /collection\.collected: deposit due[^\n]*\n3\. settlement\.completed \(evt_\w+\): gross 900000, fee 22500, wholesaler credited 877500/],
  ])('the %s quick start runs as the README shows', async (name, expected) => {
    const { stdout } = await run(process.execPath, [join(ROOT, 'tools', 'run.js'), join(ROOT, 'examples', 'quickstart', `${name}.ts`)], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      timeout: 180_000,
    });
    expect(stdout).toMatch(expected);
  }, 180_000);

  describe('listen', () => {
    let receiver: Receiver;
    let listener: ChildProcess | undefined;
    beforeEach(async () => {
      receiver = await new Receiver().start();
    });
    afterEach(async () => {
      listener?.kill('SIGTERM');
      await receiver.stop();
    });

    /** `listen` as a process; resolves once it says it is ready. */
    const listen = async (args: string[]) => {
      listener = spawn(process.execPath, [join(ROOT, 'tools', 'payments.js'), 'listen', '--forward-to', receiver.url, ...args], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`listen did not start within 60 s: ${stderr}`)), 60_000);
        listener!.stderr!.on('data', (chunk) => {
          stderr += chunk;
          if (!stderr.includes('Ready.')) return;
          clearTimeout(timer);
          resolve();
        });
        listener!.on('exit', (code) => reject(new Error(`listen exited with ${code}: ${stderr}`)));
      });
      return () => stderr;
    };

    it('forwards a triggered payment.succeeded, signed with the local secret, to a receiver that verifies it; --from replays it', async () => {
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      await listen(['--secret', secret]);
      const { stdout } = await cli(['trigger', 'payment.succeeded']);
      const [, eventId, paymentId] = stdout.trim().split(' ');
      await receiver.waitFor(1);
      const forwarded = verifyWebhook(receiver.received[0]!.body, receiver.received[0]!.headers, secret);
      expect(forwarded).toMatchObject({ id: eventId, type: 'payment.succeeded', data: { id: paymentId, status: 'succeeded' } });
      expect(receiver.received[0]!.headers['webhook-id']).toBe(eventId);

      listener!.kill('SIGTERM');
      const stderr = await listen(['--from', eventId!]);
      expect(stderr()).toMatch(/Your local webhook signing secret is whsec_/);
      await receiver.waitFor(2);
      expect(JSON.parse(receiver.received[1]!.body)).toMatchObject({ id: eventId });
      // Signed with the new listener's own secret: the first one no longer verifies.
      expect(() => verifyWebhook(receiver.received[1]!.body, receiver.received[1]!.headers, secret)).toThrow();
    }, 180_000);
  });

  it('keys: create a restricted key, list it, roll it, revoke it; audit lists what was done', async () => {
    const created = await cli(['keys', 'create', '--name', 'Reporting job', '--scopes', 'events:read,balances:read']);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^rk_[A-Za-z0-9]{24,}$/);
    const keyId = /Created (key_\w+)/.exec(created.stderr)![1]!;
    expect((await service.http('GET', '/v1/events?limit=1', { key: secret })).status).toBe(200);
    const listed = await cli(['keys', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`${keyId}\\s+Reporting job\\s+events:read,balances:read\\s+${secret.slice(0, 3)}${secret.slice(-4)}\\s+active`));
    expect(listed.stdout).not.toContain(secret);
    const rolled = await cli(['keys', 'roll', keyId, '--expires-in', '0']);
    const newSecret = rolled.stdout.trim();
    expect(newSecret).toMatch(/^rk_/);
    expect((await service.http('GET', '/v1/events?limit=1', { key: secret })).status).toBe(401);
    const newId = /into (key_\w+)/.exec(rolled.stderr)![1]!;
    expect((await cli(['keys', 'revoke', newId])).stdout.trim()).toBe(`${newId} revoked`);
    expect((await service.http('GET', '/v1/events?limit=1', { key: newSecret })).status).toBe(401);
    const audit = await cli(['audit', '--action', 'api_key.rolled']);
    expect(audit.stdout).toMatch(new RegExp(`api_key\\.rolled\\s+api_key ${newId}\\s+api_key key_\\w+`));
    const all = await cli(['audit', '--all', '--action', 'api_key.revoked'], { PAY_ADMIN_KEY: service.adminKey });
    expect(all.stdout).toContain(`api_key ${newId}`);
    const bad = await cli(['keys', 'create', '--name', 'x', '--scopes', 'ledger:read']).catch((error: { code: number; stderr: string }) => error);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringMatching(/unknown scope 'ledger:read'.*invalid_request, scopes/) });
  }, 180_000);

  it('trigger makes each event type happen and names the event', async () => {
    // Last: several recipes move the sandbox clock forward by days.
    const types = [
      'payment.succeeded', 'payment.declined', 'payment.canceled', 'payment.expired',
      'cash_payment.succeeded', 'cash_payment.expired', 'cash_payment.canceled',
      'supplier_payment.succeeded', 'supplier_payment.declined', 'supplier_payment.rejected', 'supplier_payment.canceled', 'supplier_payment.expired',
      'collection.collected', 'collection.deposit_under_review', 'collection.deposit_overdue', 'settlement.completed',
      'refund.succeeded', 'refund.failed', 'refund.failed', 'webhook_endpoint.disabled',
    ];
    const { stdout } = await cli(['trigger', ...types]);
    const lines = stdout.trim().split('\n').map((line) => line.split(' '));
    expect(lines.map(([type]) => type)).toEqual(types);
    for (const [type, eventId, objectId] of lines) {
      const event = await service.http('GET', `/v1/events/${eventId}`, { key: env['PAY_API_KEY'] });
      expect(event.body).toMatchObject({ id: eventId, type, data: { id: objectId } });
    }

    const unknown = await cli(['trigger', 'payment.shipped']).catch((error: { code: number; stderr: string }) => error);
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown event type payment\.shipped; one of: payment\.succeeded/) });
  }, 300_000);
});

describe('bootstrap against a service with the sandbox off', () => {
  let live: TestService;
  beforeAll(async () => {
    live = await startTestService({ SANDBOX: 'false' });
  }, 180_000);
  afterAll(() => live?.stop());

  it('refuses (exit 1, saying why) and creates nothing: its top-ups would be money on a live ledger', async () => {
    const created = async () => ((await live.admin('GET', '/admin/v1/audit_events?limit=100')).body.data as { action: string }[]).filter((e) => e.action === 'integrator.created').length;
    const before = await created();
    const refused = await run(process.execPath, [join(ROOT, 'tools', 'payments.js'), 'bootstrap'], { cwd: ROOT, env: { ...process.env, PAY_BASE_URL: live.url, PAY_ADMIN_KEY: live.adminKey }, timeout: 180_000 }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/runs with the sandbox off/) });
    expect(await created()).toBe(before);
  }, 180_000);
});
