/**
 * Every size, length, timeout, retry and concurrency bound of the platform, named once (TigerBeetle's
 * `constants` habit): a bound that two places must agree on is one constant, and the bounds that depend
 * on each other are checked below when this module loads, so a change that breaks a relation fails at
 * start-up and in every test, not in production. The README's figures are checked against this file
 * by a test (limits.unit.spec.ts).
 */
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from './clock';

// ---- money ----
/** The smallest and largest amount of one payment, in minor units. */
export const AMOUNT_MIN_MINOR = 1;
export const AMOUNT_MAX_MINOR = 100_000_000_000;
/** A connection's fixed fee cannot exceed the largest amount. */
export const FIXED_FEE_MAX_MINOR = AMOUNT_MAX_MINOR;

// ---- identifiers and text an integrator sends ----
/** Random characters of a generated id (`pay_` + 24 base62 characters: about 143 bits). */
export const ID_RANDOM_LENGTH = 24;
/** Any identifier or short text field: order references, names, idempotency keys, path parameters. */
export const STRING_LENGTH_MAX = 255;
export const IDEMPOTENCY_KEY_LENGTH_MAX = STRING_LENGTH_MAX;
export const PATH_PARAM_LENGTH_MAX = STRING_LENGTH_MAX;
export const LEDGER_ID_LENGTH_MAX = STRING_LENGTH_MAX;
/** A supplier payment's description. */
export const DESCRIPTION_LENGTH_MAX = 1000;
/** A webhook endpoint's or a return URL. */
export const URL_LENGTH_MAX = 2048;
/** The brand name on the hosted pages. */
export const BRAND_NAME_LENGTH_MAX = 40;

// ---- HTTP ----
/** A JSON body; a form posted by a hosted page is far smaller. */
export const BODY_LIMIT_BYTES = 1_048_576;
export const FORM_BODY_LIMIT_BYTES = 16_384;
/** Nesting of a JSON body: deeper is refused before anything parses it further. */
export const JSON_DEPTH_MAX = 64;
/** Entries of an Accept-Language header looked at. */
export const ACCEPT_LANGUAGE_ENTRIES_MAX = 20;
/** `limit` of the public lists. */
export const LIST_LIMIT_DEFAULT = 10;
export const LIST_LIMIT_MAX = 100;
/** Finance reads: a statement's page, and the collections counted as cash in transit. */
export const STATEMENT_LIMIT_DEFAULT = 100;
export const STATEMENT_LIMIT_MAX = 1000;
export const LEDGER_ENTRIES_PAGE_MAX = LIST_LIMIT_MAX;
export const CASH_IN_TRANSIT_COLLECTIONS_MAX = 1000;
export const CASH_POINTS_ON_PAGE_MAX = 500;
/** A reconciliation reads the books in pages and reports at most this many differences. */
export const RECONCILIATION_PAGE = 500;
export const RECONCILIATION_DIFFERENCES_MAX = 1000;
export const RECONCILIATION_TIMEOUT_MS = MINUTE_MS;
/** The sandbox clock moves at most ten years in one call. */
export const CLOCK_ADVANCE_SECONDS_MAX = 10 * 365 * 24 * 3600;

// ---- authentication and hosted pages ----
export const RATE_LIMIT_PER_SECOND_DEFAULT = 100;
/** A revoked key is refused at most this long after its revocation by another gateway's cache. */
export const API_KEY_CACHE_TTL_MS = 2 * SECOND_MS;
export const API_KEY_CACHE_MAX = 10_000;
export const CONNECTION_CACHE_MAX = 10_000;
export const HOSTED_SESSION_TTL_MS = 15 * MINUTE_MS;
export const LANGUAGE_COOKIE_TTL_MS = 365 * DAY_MS;
/** Wrong PINs before a customer's or agent's sign-in is locked, and for how long. */
export const SIGN_IN_FAILURES_MAX = 5;
export const SIGN_IN_LOCK_MS = 15 * MINUTE_MS;
export const HANDOVER_CODE_DIGITS = 6;
/** Digits of a cash payment reference before its check digit. */
export const PAYMENT_REFERENCE_RANDOM_DIGITS = 9;

// ---- idempotency ----
/** A request in progress holds its key this long; a retry meanwhile is 409. */
export const IDEMPOTENCY_LOCK_MS = 30 * SECOND_MS;
export const IDEMPOTENCY_RETENTION_HOURS = 48;
export const IDEMPOTENCY_PURGE_INTERVAL_MS = HOUR_MS;

// ---- deadlines of the use cases ----
/** The customer has 30 minutes to authorize a payment (contract). */
export const AUTHORIZATION_TTL_MS = 30 * MINUTE_MS;
export const CASH_PAYMENT_TTL_MS_DEFAULT = 72 * HOUR_MS;
export const CASH_EXPIRES_AT_MIN_AHEAD_MS = 5 * MINUTE_MS;
export const CASH_EXPIRES_AT_MAX_AHEAD_MS = 30 * DAY_MS;
export const APPROVAL_TTL_MS_DEFAULT = 7 * DAY_MS;

// ---- the ledger and the processes that call it ----
/** A ledger call that takes longer is abandoned by its request and finished by the recovery sweep. */
export const LEDGER_TIMEOUT_MS = 10 * SECOND_MS;
/** A bus request with no reply by then fails as service_unavailable (retryable). */
export const BUS_REQUEST_TIMEOUT_MS = 10 * SECOND_MS;
/** A process step started this long ago without an outcome is taken over by the sweep. */
export const STALLED_PROCESS_MS = 5 * SECOND_MS;
/** PostgreSQL cancels a statement running longer than this. */
export const STATEMENT_TIMEOUT_MS = 15 * SECOND_MS;
export const ASYNC_COMMIT_POOL_MAX = 10;
/** Movements a collection's settlement finishes per call, and overdue sweeps per deadline pass. */
export const MOVEMENTS_PER_FINISH_MAX = 100;
export const OVERDUE_ROUNDS_MAX = 10;
/** Tries at a free cash payment number before giving up (a collision is one in a billion). */
export const RESERVE_ATTEMPTS_MAX = 10;

// ---- event store and subscriptions ----
/** Retries of a command whose append met a concurrent writer; a contended stream (refunds) gets more. */
export const COMMAND_RETRIES_MAX = 5;
export const CONTENDED_COMMAND_RETRIES_MAX = 64;
export const APPEND_EVENTS_MAX = 1000;
export const READ_ALL_COUNT_MAX = 1000;
export const STREAM_LENGTH_MAX = 10_000;
export const SUBSCRIPTION_BATCH_SIZE_DEFAULT = 100;
export const SUBSCRIPTION_BATCH_SIZE_MAX = READ_ALL_COUNT_MAX;
export const SUBSCRIPTION_POLL_INTERVAL_MS = 250;
export const SUBSCRIPTION_RETRY_DELAY_MS_MIN = 100;
export const SUBSCRIPTION_RETRY_DELAY_MS_MAX = 5 * SECOND_MS;
/** Failures in a row before a batch is retried one event at a time, and an event parked. */
export const POISON_AFTER_FAILURES = 5;
/** `/ready` answers 503 when a subscription is further behind than this. */
export const READY_MAX_SUBSCRIPTION_LAG_SECONDS = 60;
export const READY_CHECK_TIMEOUT_MS = 2 * SECOND_MS;

// ---- webhooks ----
export const WEBHOOK_IN_FLIGHT_MAX = 128;
export const WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX = 16;
export const WEBHOOK_DELIVERY_TIMEOUT_MS = 15 * SECOND_MS;
/** A claimed delivery is claimed again after a crash once its lease expires: longer than an attempt. */
export const WEBHOOK_LEASE_MS = 60 * SECOND_MS;
export const WEBHOOK_POLL_INTERVAL_MS = SECOND_MS;
export const WEBHOOK_RESPONSE_READ_BYTES_MAX = 64 * 1024;
export const DNS_LOOKUP_TIMEOUT_MS = 5 * SECOND_MS;
/** A rotated secret keeps signing beside the new one for a day. */
export const PREVIOUS_SECRET_TTL_MS = DAY_MS;
/** An endpoint failing this long is flagged to the operator, and this long disabled. */
export const FAILING_ENDPOINT_FLAGGED_AFTER_MS = HOUR_MS;
export const FAILING_ENDPOINT_DISABLED_AFTER_MS = 5 * DAY_MS;

// ---- Kafka ----
/** A caller instance owns one reply partition per app: at most this many instances of an app. */
export const KAFKA_REPLY_PARTITIONS = 4;

/** The relations between bounds. */
function check(relation: boolean, what: string): void {
  if (!relation) throw new Error(`limits.ts: ${what}`);
}
check(LIST_LIMIT_DEFAULT <= LIST_LIMIT_MAX, 'the default list limit exceeds the maximum');
check(STATEMENT_LIMIT_DEFAULT <= STATEMENT_LIMIT_MAX, 'the default statement limit exceeds the maximum');
check(SUBSCRIPTION_BATCH_SIZE_DEFAULT <= SUBSCRIPTION_BATCH_SIZE_MAX, 'the default batch exceeds the maximum');
check(SUBSCRIPTION_RETRY_DELAY_MS_MIN <= SUBSCRIPTION_RETRY_DELAY_MS_MAX, 'the retry delays are inverted');
check(LEDGER_TIMEOUT_MS <= BUS_REQUEST_TIMEOUT_MS, 'a ledger call must fail by the time the bus gives up on it');
check(LEDGER_TIMEOUT_MS < STATEMENT_TIMEOUT_MS, 'a ledger statement outliving its call would finish unseen');
check(WEBHOOK_DELIVERY_TIMEOUT_MS < WEBHOOK_LEASE_MS, 'an attempt must end before its lease lets another dispatcher claim it');
check(WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX <= WEBHOOK_IN_FLIGHT_MAX, 'one endpoint cannot have more slots than all');
check(FAILING_ENDPOINT_FLAGGED_AFTER_MS < FAILING_ENDPOINT_DISABLED_AFTER_MS, 'an endpoint is flagged before it is disabled');
check(READY_CHECK_TIMEOUT_MS < READY_MAX_SUBSCRIPTION_LAG_SECONDS * SECOND_MS, 'a readiness check must be shorter than the lag it tolerates');
check(IDEMPOTENCY_LOCK_MS < IDEMPOTENCY_RETENTION_HOURS * HOUR_MS, 'an idempotency key must outlive its lock');
check(CASH_EXPIRES_AT_MIN_AHEAD_MS < CASH_PAYMENT_TTL_MS_DEFAULT && CASH_PAYMENT_TTL_MS_DEFAULT <= CASH_EXPIRES_AT_MAX_AHEAD_MS, 'the default cash deadline is outside the allowed range');
check(FIXED_FEE_MAX_MINOR <= AMOUNT_MAX_MINOR && AMOUNT_MIN_MINOR >= 1, 'amount bounds');
check(Number.isSafeInteger(AMOUNT_MAX_MINOR * 2), 'two amounts must add up exactly in a double');
