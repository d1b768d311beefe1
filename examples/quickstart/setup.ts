import { Payments, type Currency } from '@pay/sdk';

/** What `eval "$(npx payments bootstrap)"` exported: a clear message for each one missing. */
export function setting(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is not set: start the service with SANDBOX=true npm start, then run eval "$(npx payments bootstrap)"`);
    process.exit(2);
  }
  return value;
}

export const client = () => new Payments({ apiKey: setting('PAY_API_KEY'), baseUrl: setting('PAY_BASE_URL') });

/** The currency of the bootstrapped connections (amounts below are in its minor units). */
export const currency = (): Currency => (process.env['PAY_CURRENCY'] ?? 'DZD') as Currency;

/** An order number of this run, so that the quick start can be run again. */
export const orderNumber = () => String(Date.now());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Your webhook endpoint would receive the event; here it is read from the events API. */
export async function eventAbout(payments: Payments, objectId: string, type: string): Promise<{ id: string; type: string }> {
  for (let tries = 0; tries < 240; tries++) {
    const { data } = await payments.events.list({ object_id: objectId }).page();
    const event = data.find((e) => e.type === type);
    if (event) return event;
    await sleep(250);
  }
  throw new Error(`no ${type} event about ${objectId} within a minute`);
}

/** Runs a quick start: exit 1 with the error's message (code, Request-Id) when a step fails. */
export function run(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
