import { CONSOLE_STATEMENT_XML_MAX_BYTES, FORM_BODY_LIMIT_BYTES } from '@pay/kernel';
import { consolePost, consoleSession } from './console-checks';
import { plain } from './hosted-checks';
import { startTestService, type TestService } from './harness';
import { statement } from './payouts-files';

// A service on a busy machine: generous bounds.
jest.setTimeout(300_000);

/** A statement of `count` entries, each an unknown payout's. */
const xmlOf = (count: number): string =>
  statement(
    `STMT-FORM-${count}`,
    Array.from({ length: count }, (_, i) => ({ e2e: `po_unknown${i}`, amount: '5.00', currency: 'DZD', indicator: 'DBIT' as const, ref: `FORM-${i}` })),
  );

/** The largest statement of these entries within `bytes`. */
const largestWithin = (bytes: number): string => {
  let count = 1;
  while (Buffer.byteLength(xmlOf(count + 1)) <= bytes) count += 1;
  return xmlOf(count);
};

/** The console's statement form takes what console.md promises: up to 16 KB of XML, URL-encoded. */
describe('console: the statement form', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
  });

  it('a statement of up to 16 KB is read, its form body well over 16 KB once URL-encoded', async () => {
    const session = await consoleSession(service.url, service.adminKey);
    const xml = largestWithin(CONSOLE_STATEMENT_XML_MAX_BYTES);
    const body = new URLSearchParams({ csrf: session.csrf, step: 'review', statement: xml }).toString();
    expect(Buffer.byteLength(body)).toBeGreaterThan(FORM_BODY_LIMIT_BYTES);
    const read = await consolePost(service.url, '/console/finance/payouts/statements', `${session.cookie}; pay_console_lang=en`, { csrf: session.csrf, step: 'review', statement: xml });
    expect({ status: read.status, type: read.headers.get('content-type') }).toEqual({ status: 200, type: expect.stringMatching(/^text\/html/) });
    expect(plain(await read.text())).toContain(`STMT-FORM-`);
  });

  it('a larger statement is refused in the page, saying the bound; another console form stays within 16 KB, and says so', async () => {
    const session = await consoleSession(service.url, service.adminKey);
    const xml = largestWithin(CONSOLE_STATEMENT_XML_MAX_BYTES + 4_000);
    expect(Buffer.byteLength(xml)).toBeGreaterThan(CONSOLE_STATEMENT_XML_MAX_BYTES);
    const refused = await consolePost(service.url, '/console/finance/payouts/statements', `${session.cookie}; pay_console_lang=en`, { csrf: session.csrf, step: 'review', statement: xml });
    expect({ status: refused.status, type: refused.headers.get('content-type') }).toEqual({ status: 400, type: expect.stringMatching(/^text\/html/) });
    expect(plain(await refused.text())).toContain('16,384 bytes');
    const other = await consolePost(service.url, '/console/operations/redeliver', session.cookie, { csrf: session.csrf, padding: 'x'.repeat(FORM_BODY_LIMIT_BYTES) });
    expect(other.status).toBe(413);
    expect(JSON.stringify(await other.json())).toContain('16 KB (16,384 bytes)');
  });
});
