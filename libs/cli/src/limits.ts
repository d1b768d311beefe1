/**
 * The CLI's own bounds, named once. The CLI imports only node: and @pay/sdk (lint enforces it), so it
 * cannot import the platform's limits (libs/kernel/src/limits.ts); these are the CLI's side.
 */

/** `listen`: how often the events API is polled, how far back each poll looks again for late arrivals, and a forward's bound. */
export const POLL_INTERVAL_MS = 1_000;
export const LATE_ARRIVAL_WINDOW_MS = 60_000;
export const FORWARD_TIMEOUT_MS = 10_000;
/** Events one page of the events API holds (the API's page maximum). */
export const EVENTS_PAGE_MAX = 100;
/** Rows shown by one `ops` listing: the API's page maximum. */
export const OPS_ROWS_MAX = 100;
/** A cell longer than this (an error's stack) is cut: the table stays readable; the API has it whole. */
export const CELL_CHARS_MAX = 80;
/** `trigger`: how long to wait for the event a trigger caused to be listed. */
export const EVENT_WAIT_MS = 60_000;
/** An admin API call (bootstrap, clock) is abandoned after this. */
export const ADMIN_REQUEST_TIMEOUT_MS = 30_000;
