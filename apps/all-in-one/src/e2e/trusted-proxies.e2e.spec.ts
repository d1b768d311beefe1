import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CONSOLE_SIGN_IN_FAILURES_MAX } from '@pay/kernel';
import { signInForm } from './console-checks';
import { startTestService, type TestService } from './harness';

// A service on a busy machine: generous bounds.
jest.setTimeout(300_000);

const ROOT = join(__dirname, '..', '..', '..', '..');

/** The console's sign-in form posted with `key`, as a proxy would forward it for `client`: where it sends the browser. */
const signInFrom = async (service: TestService, client: string, key: string): Promise<string> => {
  const { cookie, csrf } = await signInForm(service.url);
  const response = await fetch(`${service.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, 'X-Forwarded-For': client },
    body: new URLSearchParams({ csrf, key }).toString(),
  });
  expect(response.status).toBe(303);
  return response.headers.get('location')!;
};

/** One client locked out by its wrong keys; then the right key from another client behind the same proxy. */
const lockOneThenSignInAnother = async (service: TestService): Promise<{ locked: string; other: string }> => {
  for (let i = 0; i < CONSOLE_SIGN_IN_FAILURES_MAX; i++) await signInFrom(service, '203.0.113.7', `wrong-admin-key-${i}`);
  const locked = await signInFrom(service, '203.0.113.7', service.adminKey);
  const other = await signInFrom(service, '198.51.100.9', service.adminKey);
  return { locked, other };
};

/**
 * The client address of the sign-in limits behind a load balancer (TRUSTED_PROXIES): the address the
 * trusted proxy forwards, so each customer has its own limits; without the setting X-Forwarded-For is
 * anyone's to write, and is ignored.
 */
describe('the client address behind a trusted proxy', () => {
  it('with TRUSTED_PROXIES naming the proxy: two clients behind it have separate per-address limits', async () => {
    // The test connects from 127.0.0.1: it is the proxy.
    const service = await startTestService({ TRUSTED_PROXIES: '127.0.0.1/32, ::1' });
    try {
      const { locked, other } = await lockOneThenSignInAnother(service);
      expect(locked).toBe('/console/sign-in?error=locked');
      expect(other).toBe('/console/search');
    } finally {
      await service.stop();
    }
  });

  it('without it: a forged X-Forwarded-For changes nothing (the TCP peer is locked out, whatever it claims)', async () => {
    const service = await startTestService();
    try {
      const { locked, other } = await lockOneThenSignInAnother(service);
      expect(locked).toBe('/console/sign-in?error=locked');
      expect(other).toBe('/console/sign-in?error=locked');
    } finally {
      await service.stop();
    }
  });

  it('a TRUSTED_PROXIES that is not addresses or CIDRs: refused at start, exit status 2, naming the variable', () => {
    const { ADMIN_API_KEY: _ignored, DATABASE_URL: _alsoIgnored, ...inherited } = process.env;
    const result = spawnSync(process.execPath, [join(ROOT, 'tools', 'run.js'), join(ROOT, 'apps', 'all-in-one', 'src', 'main.ts')], {
      cwd: ROOT,
      env: { ...inherited, PORT: '0', TRUSTED_PROXIES: '10.0.0.0/8, load-balancer, 10.1.2.3/33' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('invalid configuration');
    expect(result.stderr).toContain('TRUSTED_PROXIES must be IP addresses or CIDR blocks');
    expect(result.stderr).toContain('"load-balancer", "10.1.2.3/33"');
  });
});
