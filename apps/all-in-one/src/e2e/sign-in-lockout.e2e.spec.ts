import { createCustomer, createIntegrator, createPayment, startTestService, type Integrator, type TestService } from './harness';

/**
 * A lockout that parallel guesses walk through is no lockout. 200 sign-ins at once on a payment page,
 * over HTTP as a script would send them: at most five are checked against the PIN (the lockout's
 * count), every other one is refused as locked, and the right PIN is locked out afterwards. Before the
 * attempt was counted in one statement ahead of the check, 128 of 200 were checked and the right PIN
 * got a session after more than 100 wrong ones.
 */
const PHONE = '+213555000111';
const RIGHT_PIN = '1234';
const GUESSES = 200;
const ATTEMPTS_MAX = 5;

describe('hosted sign-in under parallel guesses', () => {
  let service: TestService;
  let shop: Integrator;

  beforeAll(async () => {
    service = await startTestService();
    shop = await createIntegrator(service);
    await createCustomer(service, 1_000_000);
  });
  afterAll(() => service.stop());

  /** The page's sign-in form: its URL, its CSRF token and the cookie the token is checked against. */
  const signInForm = async () => {
    const payment = await createPayment(service, shop);
    const path = new URL(payment.authorization_url).pathname;
    const response = await fetch(`${service.url}${path}`);
    const html = await response.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    const cookie = response.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    expect(csrf).toBeTruthy();
    return { url: `${service.url}${path}/sign-in`, csrf: csrf!, cookie };
  };

  /** One sign-in: `signed-in`, `wrong` (the PIN was checked), or `locked` (it was not). */
  const signIn = async (form: Awaited<ReturnType<typeof signInForm>>, pin: string) => {
    const response = await fetch(form.url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: form.cookie },
      body: new URLSearchParams({ phone: PHONE, pin, csrf: form.csrf }).toString(),
    });
    const location = response.headers.get('location') ?? '';
    expect(response.status).toBe(303);
    return location.includes('error=locked') ? 'locked' : location.includes('error=') ? 'wrong' : 'signed-in';
  };

  it(`${GUESSES} guesses at once: at most ${ATTEMPTS_MAX} are checked, the others are locked, and so is the right PIN after`, async () => {
    const form = await signInForm();
    const pins = Array.from({ length: GUESSES }, (_, i) => String(i).padStart(4, '0')).filter((pin) => pin !== RIGHT_PIN);
    const answers = await Promise.all(pins.map((pin) => signIn(form, pin)));
    const checked = answers.filter((answer) => answer !== 'locked').length;
    expect(answers).not.toContain('signed-in');
    expect(checked).toBeLessThanOrEqual(ATTEMPTS_MAX);
    expect(await signIn(form, RIGHT_PIN)).toBe('locked');
  });
});
