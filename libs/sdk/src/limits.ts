/**
 * The SDK's own bounds, named once. The SDK depends on nothing (it is published on its own), so it
 * cannot import the platform's limits (libs/kernel/src/limits.ts); these are the client's side.
 */

/** One HTTP attempt is abandoned after this. */
export const REQUEST_TIMEOUT_MS_DEFAULT = 60_000;
/** Retries of a request that may be repeated, after the first attempt. */
export const RETRIES_MAX_DEFAULT = 3;
/** The first backoff delay, doubled each retry (with jitter) up to the largest, which also caps a Retry-After honoured. */
export const RETRY_DELAY_MS_INITIAL_DEFAULT = 500;
export const RETRY_DELAY_MS_MAX_DEFAULT = 20_000;
/** `toArray` collects at most this many objects of a list: a guard against unbounded memory. */
export const LIST_TO_ARRAY_MAX_DEFAULT = 10_000;
/** How far a webhook's timestamp may be from now, either way, before it is refused as stale or replayed. */
export const WEBHOOK_TOLERANCE_SECONDS_DEFAULT = 300;
/** Digits of a webhook-timestamp (Unix seconds): more is no timestamp (and would lose precision as a number). */
export const WEBHOOK_TIMESTAMP_DIGITS_MAX = 15;
