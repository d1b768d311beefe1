import { request } from 'node:http';
import { Client } from 'pg';
import { CATALOGUES } from '@pay/hosted-ui';
import { SIGN_IN_ADDRESS_FAILURES_MAX, SIGN_IN_ADDRESS_WINDOW_MS, SIGN_IN_FAILURES_MAX, SIGN_IN_GLOBAL_FAILURES_MAX, SIGN_IN_GLOBAL_WINDOW_MS } from '@pay/kernel';
import { createIntegrator, createPayment, startTestService, type Integrator, type TestService } from './harness';

/**
 * PIN guessing at scale, over HTTP as a script would send it. Each guess comes from a loopback address
 * of its own (127.x.y.z) where the test plays many clients.
 *
 * - 200 sign-ins at once on one phone: at most five are checked against the PIN, the right PIN is
 *   locked out afterwards (before the attempt was counted ahead of the check, 128 of 200 were checked).
 * - One PIN across many phones from one address (96 attempts on 24 phones): 20 checked, then a page
 *   that says so (before: every one checked, never slowed).
 * - Over the whole service: past 100 failures in ten minutes, every sign-in is paused, with its page.
 * - A lock that lasts until the PIN is reset: the admin API's reset lifts it (audited).
 */
const fr = CATALOGUES.fr;
const PHONE = '+213555000111';
const RIGHT_PIN = '1234';

type Outcome = 'signed-in' | 'wrong' | 'locked' | 'locked_longer' | 'locked_until_reset' | 'address_limited' | 'paused';

describe('hosted sign-in under guessing', () => {
  let service: TestService;
  let shop: Integrator;
  let db: Client;
  let customer: string;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    const created = await service.admin('POST', '/admin/v1/customers', { body: { name: 'Amina', phone: PHONE, pin: RIGHT_PIN, currency: 'DZD' } });
    expect(created.status).toBe(201);
    customer = created.body.id;
    db = new Client({ connectionString: service.databaseUrl });
    await db.connect();
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await service?.stop();
  });

  /** The page's sign-in form: its URL, its CSRF token and the cookie the token is checked against. */
  const signInForm = async () => {
    const payment = await createPayment(service, shop);
    const path = new URL(payment.authorization_url).pathname;
    const response = await fetch(`${service.url}${path}`);
    const html = await response.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    const cookie = response.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    expect(csrf).toBeTruthy();
    return { url: `${service.url}${path}/sign-in`, page: path, csrf: csrf!, cookie };
  };
  type Form = Awaited<ReturnType<typeof signInForm>>;

  const pages: { status: number; retryAfter: string | undefined; body: string }[] = [];

  /** One sign-in from `address`: its outcome (a limit's page is kept in `pages`). */
  const signIn = (form: Form, phone: string, pin: string, address: string): Promise<Outcome> =>
    new Promise((resolve, reject) => {
      const body = new URLSearchParams({ phone, pin, csrf: form.csrf }).toString();
      const url = new URL(form.url);
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress: address, headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: form.cookie, 'Content-Length': Buffer.byteLength(body) } },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => {
            if (response.statusCode === 429) {
              pages.push({ status: 429, retryAfter: response.headers['retry-after'], body: text });
              return resolve(text.includes(fr['page.sign_in_paused']) ? 'paused' : 'address_limited');
            }
            if (response.statusCode !== 303) return reject(new Error(`sign-in answered ${response.statusCode}: ${text.slice(0, 200)}`));
            const error = new URL(response.headers.location ?? '', service.url).searchParams.get('error');
            resolve(error === null ? 'signed-in' : error === 'sign_in' ? 'wrong' : (error as Outcome));
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  let next = 0;
  /** A loopback address no other sign-in of this file used. */
  const freshAddress = () => {
    next++;
    return `127.${Math.floor(next / 250) + 10}.${next % 250}.1`;
  };
  const loginOf = (phone: string) => `customer:${phone}`;
  /** The lock's time has passed (as if the test waited 15 minutes, an hour, a day). */
  const expireLock = (phone: string) => db.query(`UPDATE gw_sign_in_attempts SET locked_until = now() - interval '1 second' WHERE login = $1 AND locked_until <> 'infinity'`, [loginOf(phone)]);

  it(`one PIN across many phones from one address: ${SIGN_IN_ADDRESS_FAILURES_MAX} are checked, then a page says why, for every phone`, async () => {
    const form = await signInForm();
    const address = freshAddress();
    const phones = Array.from({ length: 24 }, (_, i) => `+21355501${String(i).padStart(4, '0')}`);
    pages.length = 0;
    const outcomes: Outcome[] = [];
    // 96 attempts, four rounds over 24 phones, in parallel within a round.
    for (let round = 0; round < 4; round++) outcomes.push(...(await Promise.all(phones.map((phone) => signIn(form, phone, '0000', address)))));
    expect(outcomes.filter((o) => o === 'wrong').length).toBeLessThanOrEqual(SIGN_IN_ADDRESS_FAILURES_MAX);
    expect(outcomes.filter((o) => o === 'address_limited').length).toBeGreaterThanOrEqual(96 - SIGN_IN_ADDRESS_FAILURES_MAX);
    expect(pages[0]!.retryAfter).toBe(String(SIGN_IN_ADDRESS_WINDOW_MS / 1000));
    expect(pages[0]!.body).toContain(`<h1>${fr['page.sign_in_address_limited']}</h1>`);
    expect(pages[0]!.body).toContain(fr['page.sign_in_address_limited_text']);
    // The right PIN from there is refused too; from another address it signs in.
    expect(await signIn(form, PHONE, RIGHT_PIN, address)).toBe('address_limited');
    expect(await signIn(form, PHONE, RIGHT_PIN, freshAddress())).toBe('signed-in');
  });

  it('locks grow on one phone (15 minutes, 1 hour, 24 hours), then last until the admin API resets the PIN (audited)', async () => {
    const form = await signInForm();
    const locks: Outcome[] = [];
    for (let lock = 0; lock < 4; lock++) {
      for (let i = 0; i < SIGN_IN_FAILURES_MAX - 1; i++) expect(await signIn(form, PHONE, '0000', freshAddress())).toBe('wrong');
      locks.push(await signIn(form, PHONE, '0000', freshAddress()));
      expect(await signIn(form, PHONE, RIGHT_PIN, freshAddress())).toBe(locks[lock]);
      await expireLock(PHONE);
    }
    expect(locks).toEqual(['locked', 'locked_longer', 'locked_longer', 'locked_until_reset']);
    // The page says so, in French by default.
    const page = await (await fetch(`${service.url}${form.page}?error=locked_until_reset`)).text();
    expect(page).toContain(fr['error.locked_pin_reset'].split('’')[0]);
    expect(await signIn(form, PHONE, RIGHT_PIN, freshAddress())).toBe('locked_until_reset');

    expect((await service.admin('POST', '/admin/v1/customers/cus_nope/reset_pin', { body: { pin: '5678' } })).status).toBe(404);
    expect((await service.admin('POST', `/admin/v1/customers/${customer}/reset_pin`, { body: { pin: '56' } })).status).toBe(400);
    const reset = await service.admin('POST', `/admin/v1/customers/${customer}/reset_pin`, { body: { pin: '5678' } });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ id: customer, object: 'customer', name: 'Amina', phone: PHONE, currency: 'DZD', created_at: expect.any(String) });
    expect(await signIn(form, PHONE, RIGHT_PIN, freshAddress())).toBe('wrong');
    expect(await signIn(form, PHONE, '5678', freshAddress())).toBe('signed-in');
    const audit = await service.admin('GET', '/admin/v1/audit_events?action=customer.pin_reset');
    expect(audit.status).toBe(200);
    expect(audit.body.data).toEqual([expect.objectContaining({ action: 'customer.pin_reset', target: { object: 'customer', id: customer } })]);
  });

  it(`200 guesses at once on one phone from as many addresses: at most ${SIGN_IN_FAILURES_MAX} are checked, the right PIN is locked after; past ${SIGN_IN_GLOBAL_FAILURES_MAX} failures every sign-in pauses`, async () => {
    const form = await signInForm();
    const phone = '+213555000222';
    await service.admin('POST', '/admin/v1/customers', { body: { name: 'Karim', phone, pin: RIGHT_PIN, currency: 'DZD' } });
    pages.length = 0;
    const pins = Array.from({ length: 200 }, (_, i) => String(i).padStart(4, '0')).filter((pin) => pin !== RIGHT_PIN);
    const answers = await Promise.all(pins.map((pin) => signIn(form, phone, pin, freshAddress())));
    expect(answers).not.toContain('signed-in');
    expect(answers.filter((answer) => answer === 'wrong').length).toBeLessThanOrEqual(SIGN_IN_FAILURES_MAX);
    expect(answers.filter((answer) => answer === 'wrong' || answer === 'locked').length).toBeLessThanOrEqual(SIGN_IN_GLOBAL_FAILURES_MAX);
    // The whole service's window is full (this file's earlier failures and these): every sign-in pauses.
    expect(answers).toContain('paused');
    const paused = pages.find((p) => p.body.includes(fr['page.sign_in_paused']))!;
    expect(paused.retryAfter).toBe(String(SIGN_IN_GLOBAL_WINDOW_MS / 1000));
    expect(await signIn(form, PHONE, '5678', freshAddress())).toBe('paused');
    // Its window over, the phone guessed at is still locked, and the other signs in.
    await db.query(`UPDATE gw_sign_in_rates SET window_start = now() - interval '1 day'`);
    expect(await signIn(form, phone, RIGHT_PIN, freshAddress())).toBe('locked');
    expect(await signIn(form, PHONE, '5678', freshAddress())).toBe('signed-in');
  });
});
