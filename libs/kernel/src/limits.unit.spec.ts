import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './clock';
import * as limits from './limits';

const root = join(__dirname, '..', '..', '..');
const read = (file: string): string => readFileSync(join(root, file), 'utf8').replace(/\s+/g, ' ');

/**
 * The documentation's figures, each found by a pattern and compared with the limit it states: a
 * limit changed in limits.ts without its documentation (or the reverse) fails here.
 */
const documented: { file: string; pattern: RegExp; values: (n: string[]) => [number, number][] }[] = [
  {
    file: 'docs/architecture.md',
    pattern: /(\d+) attempts in flight at most and (\d+) per endpoint/,
    values: ([all, perEndpoint]) => [
      [Number(all), limits.WEBHOOK_IN_FLIGHT_MAX],
      [Number(perEndpoint), limits.WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX],
    ],
  },
  {
    file: 'docs/architecture.md',
    pattern: /no subscription is over (\d+) s behind/,
    values: ([seconds]) => [[Number(seconds), limits.READY_MAX_SUBSCRIPTION_LAG_SECONDS]],
  },
  {
    file: 'docs/supplier-payments.md',
    pattern: /`limit` \(1–(\d+), default (\d+)\)/,
    values: ([max, fallback]) => [
      [Number(max), limits.LIST_LIMIT_MAX],
      [Number(fallback), limits.LIST_LIMIT_DEFAULT],
    ],
  },
  {
    file: 'docs/hosted-pages.md',
    pattern: /five wrong PINs or passwords lock the login for (\d+) minutes/,
    values: ([minutes]) => [
      [5, limits.SIGN_IN_FAILURES_MAX],
      [Number(minutes) * MINUTE_MS, limits.SIGN_IN_LOCK_MS],
    ],
  },
  {
    file: 'docs/webhooks.md',
    pattern: /Any `2xx` within (\d+) s is a success/,
    values: ([seconds]) => [[Number(seconds) * 1000, limits.WEBHOOK_DELIVERY_TIMEOUT_MS]],
  },
  {
    file: 'README.md',
    pattern: /\| `RATE_LIMIT_PER_SECOND` \| `(\d+)` \| per API key, bursts up to twice that/,
    values: ([perSecond]) => [
      [Number(perSecond), limits.RATE_LIMIT_PER_SECOND_DEFAULT],
      [2, limits.RATE_LIMIT_BURST_FACTOR],
    ],
  },
  {
    file: 'README.md',
    pattern: /\| `DB_POOL_MAX` \| `(\d+)` \|/,
    values: ([size]) => [[Number(size), limits.DB_POOL_SIZE_DEFAULT]],
  },
  {
    file: 'docs/lists.md',
    pattern: /`limit` \(1 to (\d+), default (\d+)\)/,
    values: ([max, fallback]) => [
      [Number(max), limits.LIST_LIMIT_MAX],
      [Number(fallback), limits.LIST_LIMIT_DEFAULT],
    ],
  },
  {
    file: 'docs/finance.md',
    pattern: /`limit` 1–(\d+), default (\d+)/,
    values: ([max, fallback]) => [
      [Number(max), limits.STATEMENT_LIMIT_MAX],
      [Number(fallback), limits.STATEMENT_LIMIT_DEFAULT],
    ],
  },
  {
    file: 'docs/finance.md',
    pattern: /at most ([\d,]+) differences listed/,
    values: ([max]) => [[Number(max.replace(',', '')), limits.RECONCILIATION_DIFFERENCES_MAX]],
  },
  {
    file: 'docs/webhooks.md',
    pattern: /both work during the (\d+) h/,
    values: ([hours]) => [[Number(hours) * HOUR_MS, limits.PREVIOUS_SECRET_TTL_MS]],
  },
  {
    file: 'docs/webhooks.md',
    pattern: /has failed for (\d+) days/,
    values: ([days]) => [[Number(days) * DAY_MS, limits.FAILING_ENDPOINT_DISABLED_AFTER_MS]],
  },
  {
    file: 'docs/refunds.md',
    pattern: /`reason` is a string of at most (\d+) characters/,
    values: ([max]) => [[Number(max), limits.STRING_LENGTH_MAX]],
  },
];

describe('the documented limits are the limits', () => {
  it.each(documented.map((d) => [`${d.file}: ${d.pattern.source}`, d] as const))('%s', (_, { file, pattern, values }) => {
    const match = read(file).match(pattern);
    expect(match).not.toBeNull();
    for (const [stated, actual] of values(match!.slice(1))) expect(stated).toBe(actual);
  });
});
