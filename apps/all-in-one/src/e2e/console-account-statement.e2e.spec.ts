import { CONSOLE_LIST_MAX } from '@pay/kernel';
import { consoleSession } from './console-checks';
import { createCustomer, startTestService, type TestService } from './harness';

// A service on a busy machine: generous bounds.
jest.setTimeout(300_000);

const TOPUPS = CONSOLE_LIST_MAX + 5;
const TOPUP_AMOUNT = 100;

/** The statement's summary on an account's page is the period's, whatever page of its lines is shown. */
describe('console: an account’s statement summary is the period’s on every page', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
  });

  /** The summary's figures (dt → dd) of the statement card, and the link to the next page. */
  const summaryOf = (html: string): { facts: Record<string, string>; next: string | null } => {
    const card = html.slice(html.indexOf('id="statement-card"'));
    const dl = card.slice(card.indexOf('<dl'), card.indexOf('</dl>'));
    const facts = Object.fromEntries([...dl.matchAll(/<dt>([^<]*)<\/dt><dd>([^<]*)<\/dd>/g)].map((m) => [m[1]!, m[2]!.replace(/\s/g, ' ')]));
    const next = /href="([^"]*after=[^"]*)"/.exec(card)?.[1]?.replace(/&amp;/g, '&') ?? null;
    return { facts, next };
  };

  it('more lines than a page: both pages show the period’s opening, totals and closing', async () => {
    const customer = await createCustomer(service, 0);
    for (let i = 0; i < TOPUPS; i++) {
      const topup = await service.admin('POST', '/admin/v1/topups', { body: { account: customer, amount: TOPUP_AMOUNT, currency: 'DZD' } });
      expect(topup.status).toBe(201);
    }
    const session = await consoleSession(service.url, service.adminKey);
    const get = async (path: string) => (await fetch(`${service.url}${path}`, { headers: { Cookie: `${session.cookie}; pay_console_lang=en` } })).text();
    const first = summaryOf(await get(`/console/accounts/${customer}`));
    expect(first.next).not.toBeNull();
    const second = summaryOf(await get(first.next!.split('#')[0]!));
    const total = `${(TOPUPS * TOPUP_AMOUNT) / 100}.00`;
    for (const page of [first, second]) {
      const figures = Object.values(page.facts);
      expect(figures).toHaveLength(4);
      const [opening, debits, credits, closing] = figures;
      expect({ opening, debits, credits, closing }).toEqual({
        opening: 'DZD 0.00',
        debits: 'DZD 0.00',
        credits: `DZD ${total}`,
        closing: `DZD ${total}`,
      });
    }
    expect(second.facts).toEqual(first.facts);
  });
});
