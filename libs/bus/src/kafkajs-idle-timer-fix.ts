/**
 * kafkajs 2.2.4, its last release, keeps a 1 ms timer running on every broker connection for as long
 * as the connection lives. Each answer from the broker makes its RequestQueue check for requests held
 * back (by a broker's throttle or the in-flight limit) and schedule the next check at
 * `throttledUntil - Date.now()`. When nothing is throttled, `throttledUntil` is -1, so that delay is
 * negative; Node runs a negative delay after 1 ms; and the check schedules itself again, forever. This
 * is upstream issues #1556 and #1704, and the fix was never released. Measured on an idle distributed
 * topology: each app's event loop woke about 1,460 times a second, and the fix took an idle app from 86
 * to 90 ms of CPU a second down to 64 to 74.
 *
 * The replacement below schedules a check only when a request is held back: at the throttle's end, or
 * after kafkajs' own 10 ms when the in-flight limit holds it (the answer that frees a slot checks too).
 * A request that is not held back is sent at once by `push`, and needs no check.
 */

/** The release whose RequestQueue this replaces a method of; another version must be looked at again. */
export const KAFKAJS_VERSION_FIXED = '2.2.4';
/** kafkajs' CHECK_PENDING_REQUESTS_INTERVAL: a held-back request is looked at again this often. */
const HELD_BACK_CHECK_MS = 10;

interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

let applied = false;

/**
 * Replaces RequestQueue.scheduleCheckPendingRequests in the kafkajs this process loaded, once (Nest's
 * Kafka transport requires the same module). Does nothing for a kafkajs other than KAFKAJS_VERSION_FIXED:
 * its unit test fails then, so that an upgrade looks at the fix again.
 */
export function fixKafkajsIdleTimer(): void {
  if (applied) return;
  applied = true;
  // Internal modules of kafkajs, not typed; the version pin above is what makes reaching them safe.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { version } = require('kafkajs/package.json') as { version: string };
  if (version !== KAFKAJS_VERSION_FIXED) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RequestQueue = require('kafkajs/src/network/requestQueue') as { prototype: RequestQueueInternals };
  RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
    if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      untilUnthrottled > 0 ? untilUnthrottled : HELD_BACK_CHECK_MS,
    );
  };
}
