import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { CATALOGUES } from '@pay/hosted-ui';
import { CONSOLE_SIGN_IN_FAILURES_MAX, randomBase62 } from '@pay/kernel';
import { consolePost, consoleSession, postSignIn, signInForm } from './console-checks';
import { DISTRIBUTED, startTestService, type TestService } from './harness';

// A service on a busy machine: generous bounds.
jest.setTimeout(300_000);

const fr = CATALOGUES.fr;
const page = (cookie: string | undefined, path: string, baseUrl: string) => fetch(`${baseUrl}${path}`, { redirect: 'manual', headers: cookie ? { Cookie: cookie } : {} });

describe('console: sessions, roles, CSRF and the sign-in lockout', () => {
  let service: TestService;
  let financeKey: string;

  beforeAll(async () => {
    service = await startTestService();
    const finance = await service.admin('POST', '/admin/v1/finance_keys', { body: { name: 'Console security' } });
    expect(finance.status).toBe(201);
    financeKey = finance.body.api_key;
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
  });

  const gatewayDb = async <T>(use: (db: PgClient) => Promise<T>): Promise<T> => {
    const db = new PgClient({ connectionString: service.databaseUrls?.['gateway'] ?? service.databaseUrl });
    await db.connect();
    try {
      return await use(db);
    } finally {
      await db.end();
    }
  };

  it('the session cookie is HTTP-only, SameSite=Strict, under /console; only its hash is stored', async () => {
    const response = await postSignIn(service.url, service.adminKey);
    expect(response.status).toBe(303);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('pay_console='))!;
    expect(cookie).toMatch(/; Path=\/console; /);
    expect(cookie).toMatch(/; HttpOnly;/);
    expect(cookie).toMatch(/SameSite=Strict$/);
    const value = cookie.split(';')[0]!.split('=')[1]!;
    const stored = await gatewayDb((db) => db.query('SELECT id_sha256, role FROM gw_console_sessions'));
    expect(stored.rows.map((r) => r.id_sha256)).not.toContain(value);
    expect(stored.rows.some((r) => r.role === 'admin')).toBe(true);
  });

  it('no cookie, a made-up one, another cookie of ours (a hosted page session) or a signed-out one: sent to the sign-in, forms refused', async () => {
    const admin = await consoleSession(service.url, service.adminKey);
    const fresh = await page(admin.cookie, '/console/search', service.url);
    expect(fresh.status).toBe(200);
    const signedOut = await consolePost(service.url, '/console/sign-out', admin.cookie, { csrf: admin.csrf });
    expect(signedOut.status).toBe(303);
    const value = admin.cookie.split('=')[1]!;
    for (const cookie of [undefined, 'pay_console=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', `pay_session=${value}`, admin.cookie]) {
      const get = await page(cookie, '/console/operations', service.url);
      expect({ cookie, status: get.status, location: get.headers.get('location') }).toEqual({ cookie, status: 303, location: '/console/sign-in?next=%2Fconsole%2Foperations' });
      const post = await consolePost(service.url, '/console/operations/redeliver', cookie ?? '', { csrf: admin.csrf });
      expect({ cookie, status: post.status }).toEqual({ cookie, status: 403 });
      expect(await post.text()).toContain(fr['console.sign_in_first']);
    }
  });

  it('a session idle too long, or past its absolute end, is refused', async () => {
    const idle = await consoleSession(service.url, service.adminKey);
    const ended = await consoleSession(service.url, service.adminKey);
    expect((await page(idle.cookie, '/console/search', service.url)).status).toBe(200);
    await gatewayDb(async (db) => {
      await db.query(`UPDATE gw_console_sessions SET last_seen_at = now() - interval '31 minutes' WHERE csrf_token = $1`, [idle.csrf]);
      await db.query(`UPDATE gw_console_sessions SET expires_at = now() - interval '1 second' WHERE csrf_token = $1`, [ended.csrf]);
    });
    for (const session of [idle, ended]) expect((await page(session.cookie, '/console/search', service.url)).status).toBe(303);
  });

  it('a finance session ends when its key is revoked or expires', async () => {
    const keys = await Promise.all(['Revoked', 'Expired'].map((name) => service.admin('POST', '/admin/v1/finance_keys', { body: { name } })));
    const [revoked, expired] = keys.map((k) => k.body as { id: string; api_key: string });
    const sessions = await Promise.all([revoked!, expired!].map((k) => consoleSession(service.url, k.api_key)));
    for (const session of sessions) expect((await page(session.cookie, '/console/search', service.url)).status).toBe(200);
    expect((await service.admin('POST', `/admin/v1/api_keys/${revoked!.id}/revoke`)).status).toBe(200);
    await gatewayDb((db) => db.query(`UPDATE gw_api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired!.id]));
    for (const session of sessions) {
      const refused = await page(session.cookie, '/console/search', service.url);
      expect({ status: refused.status, location: refused.headers.get('location') }).toEqual({ status: 303, location: '/console/sign-in?next=%2Fconsole%2Fsearch' });
    }
    // Another finance key's session goes on.
    const other = await consoleSession(service.url, financeKey);
    expect((await page(other.cookie, '/console/search', service.url)).status).toBe(200);
  });

  it('finance sees no action, and a crafted POST with a valid finance session and its CSRF token is refused', async () => {
    const finance = await consoleSession(service.url, financeKey);
    const search = await (await page(finance.cookie, '/console/search', service.url)).text();
    expect(search).toContain(fr['console.role.finance']);
    expect(search).not.toContain('/console/operations"');
    expect((await page(finance.cookie, '/console/operations', service.url)).status).toBe(403);
    expect((await page(finance.cookie, '/console/operations/redeliver', service.url)).status).toBe(403);
    const before = await service.admin('GET', '/admin/v1/operations/failed_deliveries');
    for (const [path, fields] of [
      ['/console/operations/redeliver', {}],
      ['/console/operations/replay', {}],
      ['/console/objects/pay_000000000000000000000000/redeliver', { event: 'evt_000000000000000000000000' }],
    ] as const) {
      const refused = await consolePost(service.url, path, finance.cookie, { csrf: finance.csrf, ...fields });
      expect({ path, status: refused.status }).toEqual({ path, status: 403 });
      expect(await refused.text()).toContain(fr['console.forbidden']);
    }
    expect((await service.admin('GET', '/admin/v1/operations/failed_deliveries')).body).toEqual(before.body);
    // Finance may still sign out (a form with its token).
    expect((await consolePost(service.url, '/console/sign-out', finance.cookie, { csrf: finance.csrf })).status).toBe(303);
  });

  it('CSRF: of 20 parallel posts without the session’s token none is done; the one with it is', async () => {
    const admin = await consoleSession(service.url, service.adminKey);
    const other = await consoleSession(service.url, service.adminKey);
    const forged = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        consolePost(service.url, '/console/operations/redeliver', admin.cookie, i % 3 === 0 ? {} : i % 3 === 1 ? { csrf: 'forged' } : { csrf: other.csrf }),
      ),
    );
    expect(forged.map((r) => r.status)).toEqual(Array(20).fill(403));
    expect(await forged[1]!.text()).toContain(fr['page.form_expired']);
    const done = await consolePost(service.url, '/console/operations/redeliver', admin.cookie, { csrf: admin.csrf });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toMatch(/^\/console\/operations\?done=redelivered&count=0/);
    // The sign-in form wants its own double-submit token.
    const form = await signInForm(service.url);
    const noToken = await postSignIn(service.url, service.adminKey, { cookie: form.cookie, csrf: 'x'.repeat(43) });
    expect(noToken.headers.get('location')).toBe('/console/sign-in?error=expired');
  });

  it('a crafted next (a header injection attempt) falls back to the console’s home, in a page or a redirect, never an error', async () => {
    for (const next of ['/console?a\r\nSet-Cookie: evil=1', '/console/search?q=a\nb', '/console?a\u0000b', '/console?q=é']) {
      const signedIn = await postSignIn(service.url, service.adminKey, undefined, { next });
      expect({ next, status: signedIn.status, location: signedIn.headers.get('location') }).toEqual({ next, status: 303, location: '/console/search' });
      expect(signedIn.headers.getSetCookie().some((c) => c.startsWith('evil'))).toBe(false);
      const wrong = await postSignIn(service.url, 'wrong-key-for-next', undefined, { next });
      expect({ next, status: wrong.status, location: wrong.headers.get('location') }).toEqual({ next, status: 303, location: '/console/sign-in?error=sign_in' });
      // A query that cannot be stored (NUL) is a console page too: 400.
      const form = await fetch(`${service.url}/console/sign-in?next=${encodeURIComponent(next)}`);
      const status = next.includes('\u0000') ? 400 : 200;
      expect({ next, status: form.status, type: form.headers.get('content-type') }).toEqual({ next, status, type: expect.stringMatching(/^text\/html/) });
      if (status === 200) expect(await form.text()).toMatch(/name="next" value=""/);
    }
    // A right key starts the address's count of wrong ones again (the lockout below counts from zero).
    expect((await postSignIn(service.url, service.adminKey)).status).toBe(303);
  });

  it('console URLs a handler never sees (a query that cannot be stored or decoded, an id that cannot exist, a trailing slash) answer console pages', async () => {
    const admin = await consoleSession(service.url, service.adminKey);
    for (const [path, status] of [
      ['/console/search?q=%00', 400],
      ['/console/search?q=%ZZ', 400],
      ['/console/accounts/%3Cx%3E', 404],
      ['/console/finance/', 404],
      ['/console/no-such-page', 404],
    ] as const) {
      const answer = await page(admin.cookie, path, service.url);
      expect({ path, status: answer.status, type: answer.headers.get('content-type') }).toEqual({ path, status, type: expect.stringMatching(/^text\/html/) });
    }
    // Without a session, the sign-in first (and back after it), as for any console page.
    for (const path of ['/console/accounts/%3Cx%3E', '/console/search?q=%00']) {
      const answer = await page(undefined, path, service.url);
      expect({ path, status: answer.status, location: answer.headers.get('location') }).toEqual({ path, status: 303, location: expect.stringMatching(/^\/console\/sign-in/) });
    }
  });

  it('lockout: of 30 parallel wrong keys from one address exactly 5 are checked, the rest refused, then even the right key', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => postSignIn(service.url, i % 2 ? `fk_wrong${i}` : `wrong-admin-key-${i}`)));
    const codes = answers.map((r) => new URL(r.headers.get('location')!, service.url).searchParams.get('error'));
    // A checked key answers sign_in (wrong), one not checked answers locked.
    expect(codes.filter((c) => c === 'sign_in')).toHaveLength(CONSOLE_SIGN_IN_FAILURES_MAX);
    expect(codes.filter((c) => c === 'locked')).toHaveLength(30 - CONSOLE_SIGN_IN_FAILURES_MAX);
    const right = await postSignIn(service.url, service.adminKey);
    expect(right.headers.get('location')).toBe('/console/sign-in?error=locked');
    expect(right.headers.getSetCookie().some((c) => c.startsWith('pay_console='))).toBe(false);
    const shown = await (await fetch(`${service.url}/console/sign-in?error=locked`)).text();
    expect(shown).toContain(fr['console.error.locked'].replace('{minutes}', '\u206815\u2069')); // the value isolated in its sentence
  });
});

/** The admin key is the service's configuration: a restart with another one ends the sessions opened with the old one. */
(DISTRIBUTED ? describe.skip : describe)('console: an admin session ends when its key is no longer the admin key', () => {
  let dataDir: string;
  let running: TestService | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pay-console-admin-key-'));
  });
  afterAll(async () => {
    await running?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a restart with the same key keeps the session; with another key it is refused, and the new key signs in', async () => {
    const first = `admin_${randomBase62(32)}`;
    running = await startTestService({ DATA_DIR: dataDir, ADMIN_API_KEY: first });
    const databaseUrl = running.databaseUrls!['all-in-one']!;
    const session = await consoleSession(running.url, first);
    expect((await page(session.cookie, '/console/search', running.url)).status).toBe(200);
    const stored = await (async () => {
      const db = new PgClient({ connectionString: databaseUrl });
      await db.connect();
      try {
        return JSON.stringify((await db.query('SELECT * FROM gw_console_sessions')).rows);
      } finally {
        await db.end();
      }
    })();
    expect(stored).not.toContain(first);

    await running.stop();
    running = await startTestService({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ADMIN_API_KEY: first });
    expect((await page(session.cookie, '/console/search', running.url)).status).toBe(200);

    await running.stop();
    const second = `admin_${randomBase62(32)}`;
    running = await startTestService({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, ADMIN_API_KEY: second });
    const refused = await page(session.cookie, '/console/search', running.url);
    expect({ status: refused.status, location: refused.headers.get('location') }).toEqual({ status: 303, location: '/console/sign-in?next=%2Fconsole%2Fsearch' });
    const fresh = await consoleSession(running.url, second);
    expect((await page(fresh.cookie, '/console/search', running.url)).status).toBe(200);
  });
});
