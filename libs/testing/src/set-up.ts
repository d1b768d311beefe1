/**
 * A test file's set-up (`beforeAll`) whose work is waited for before the file's own `afterAll` hooks
 * (declare it first): on a busy machine a set-up can outlive its hook's timeout, and one still running
 * after the file is torn down opens its pools then, in another file's time (`TypeError: Cannot read
 * properties of undefined (reading 'Socket')` from pg/lib/stream.js). Waited for, it finishes and the
 * file's afterAll closes what it opened.
 */
export function setUp(work: () => Promise<unknown>, timeoutMs?: number): void {
  let running: Promise<unknown> | undefined;
  beforeAll(() => (running = work()), timeoutMs);
  afterAll(async () => {
    await running?.catch(() => undefined);
  }, timeoutMs);
}

/** A property test over PostgreSQL: tens of generated runs, each several statements, on a machine that may be busy. */
export const PROPERTY_TEST_TIMEOUT_MS = 300_000;
