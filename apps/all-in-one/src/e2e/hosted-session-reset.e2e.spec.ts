import { createCashPoint, createIntegrator, createPayment, startTestService, type Integrator, type TestService } from './harness';

// A service on a busy machine: generous bounds.
jest.setTimeout(300_000);

const PIN = '1234';
const PASSWORD = 'correct horse battery';

/**
 * A reset PIN or password (admin API) ends the subject's open hosted sessions: whoever signed in with
 * the old secret (a stolen phone, a colleague who left) is asked to sign in again on the next page.
 * Over plain HTTP, as a browser: the page's form, its cookies, the redirects not followed.
 */
describe('a reset PIN or password ends the open hosted sessions', () => {
  let service: TestService;
  let shop: Integrator;
  let counter = 0;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
  });

  const cookiesOf = (response: globalThis.Response) =>
    response.headers
      .getSetCookie()
      .map((cookie) => cookie.split(';')[0]!)
      .filter((cookie) => !cookie.endsWith('='));
  const get = (path: string, cookies: string[]) => fetch(`${service.url}${path}`, { redirect: 'manual', headers: { Cookie: cookies.join('; ') } });

  /** Signs in on the page at `path` (its form posted to `<path>/sign-in`): the session's cookie. */
  const signIn = async (path: string, fields: Record<string, string>): Promise<string[]> => {
    const form = await get(path, []);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1];
    expect(csrf).toBeTruthy();
    const signInPath = `${path.replace(/\/$/, '')}/sign-in`;
    const response = await fetch(`${service.url}${signInPath}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookiesOf(form).join('; ') },
      body: new URLSearchParams({ ...fields, csrf: csrf! }).toString(),
    });
    expect({ status: response.status, error: new URL(response.headers.get('location') ?? '/', service.url).searchParams.get('error') }).toEqual({ status: 303, error: null });
    const session = cookiesOf(response).filter((cookie) => cookie.startsWith('pay_session='));
    expect(session).toHaveLength(1);
    return session;
  };
  /** Whether the page at `path`, with `cookies`, asks to sign in (its form has the secret's field). */
  const asksToSignIn = async (path: string, cookies: string[], secretField: string): Promise<boolean> => {
    const page = await get(path, cookies);
    expect(page.status).toBe(200);
    return (await page.text()).includes(`name="${secretField}"`);
  };

  /** Signed in, still signed in on the next page; reset; the next page asks to sign in, and the new secret signs in. */
  const check = async (path: string, secretField: string, signInWith: (secret: string) => Record<string, string>, reset: (secret: string) => Promise<number>, old: string) => {
    const session = await signIn(path, signInWith(old));
    const other = await signIn(path, signInWith(old)); // a second device
    expect(await asksToSignIn(path, session, secretField)).toBe(false);
    const fresh = `${old.slice(0, -1)}${old.endsWith('9') ? '8' : '9'}`;
    expect(await reset(fresh)).toBe(200);
    expect(await asksToSignIn(path, session, secretField)).toBe(true);
    expect(await asksToSignIn(path, other, secretField)).toBe(true);
    const again = await signIn(path, signInWith(fresh));
    expect(await asksToSignIn(path, again, secretField)).toBe(false);
  };

  it('a customer signed in on a payment page: after reset_pin the page asks for the phone and PIN again', async () => {
    const phone = '+213555000777';
    const customer = await service.admin('POST', '/admin/v1/customers', { body: { name: 'Amina', phone, pin: PIN, currency: 'DZD' } });
    expect(customer.status).toBe(201);
    const payment = await createPayment(service, shop);
    const path = new URL(payment.authorization_url).pathname;
    await check(
      path,
      'pin',
      (pin) => ({ phone, pin }),
      async (pin) => (await service.admin('POST', `/admin/v1/customers/${customer.body.id}/reset_pin`, { body: { pin } })).status,
      PIN,
    );
  });

  it('a business user signed in on an approval page: after reset_password the page asks to sign in again', async () => {
    const connection = await service.admin('POST', '/admin/v1/connections', { body: { integrator: shop.id, kind: 'business', name: 'Atlas Distribution', currency: 'DZD' } });
    expect(connection.status).toBe(201);
    const business = connection.body.id as string;
    const login = `user${++counter}@atlas.example`;
    const user = await service.admin('POST', '/admin/v1/business_users', { body: { business, name: 'Karim', login, password: PASSWORD } });
    expect(user.status).toBe(201);
    const beneficiary = await service.admin('POST', '/admin/v1/beneficiaries', { body: { business, account_name: 'Sahel Supplies SARL', currency: 'DZD' } });
    expect(beneficiary.status).toBe(201);
    const payment = await service.http('POST', '/v1/supplier_payments', {
      key: shop.apiKey,
      body: { payer_connection: business, beneficiary: beneficiary.body.id, amount: 5_000_000, currency: 'DZD', invoice_reference: `INV-${++counter}`, description: 'Supplies' },
    });
    expect(payment.status).toBe(201);
    await check(
      new URL(payment.body.approval_url).pathname,
      'password',
      (password) => ({ login, password }),
      async (password) => (await service.admin('POST', `/admin/v1/business_users/${user.body.id}/reset_password`, { body: { password } })).status,
      PASSWORD,
    );
  });

  it("a cash agent signed in on the agents' application: after reset_password it asks to sign in again", async () => {
    const point = await createCashPoint(service);
    const login = `agent${++counter}`;
    const agent = await service.admin('POST', '/admin/v1/agents', { body: { cash_point: point, name: 'Yacine', login, password: PASSWORD, role: 'cashier' } });
    expect(agent.status).toBe(201);
    await check(
      '/hosted/agent',
      'password',
      (password) => ({ login, password }),
      async (password) => (await service.admin('POST', `/admin/v1/agents/${agent.body.id}/reset_password`, { body: { password } })).status,
      PASSWORD,
    );
  });
});
