/**
 * Every size, length, timeout, retry and concurrency bound of the platform, named once (TigerBeetle's
 * `constants` habit): a bound that two places must agree on is one constant, and the bounds that depend
 * on each other are checked below when this module loads, so a change that breaks a relation fails at
 * start-up and in every test, not in production. The figures of the README and docs/ are checked
 * against this file by a test (limits.unit.spec.ts).
 */
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from './clock';

// ---- money ----
/** The smallest and largest amount of one payment, in minor units. */
export const AMOUNT_MIN_MINOR = 1;
export const AMOUNT_MAX_MINOR = 100_000_000_000;
/** A connection's fixed fee above the largest amount the API accepts is surely a typo. */
export const FIXED_FEE_MAX_MINOR = AMOUNT_MAX_MINOR;
/** Digits before the decimal point of an amount typed on a hosted page: more is no amount. */
export const AMOUNT_TYPED_DIGITS_MAX = 15;

// ---- identifiers and text an integrator sends ----
/** Random characters of a generated id (`pay_` + 24 base62 characters: about 143 bits). */
export const ID_RANDOM_LENGTH = 24;
/** An id of ours as a whole (hasPrefix), and the part after the prefix in the patterns that recognise ids. */
export const ID_LENGTH_MAX = 64;
/** Any identifier or short text field: order references, names, idempotency keys, path parameters. */
export const STRING_LENGTH_MAX = 255;
export const IDEMPOTENCY_KEY_LENGTH_MAX = STRING_LENGTH_MAX;
export const PATH_PARAM_LENGTH_MAX = STRING_LENGTH_MAX;
export const LEDGER_ID_LENGTH_MAX = STRING_LENGTH_MAX;
/** A ledger account id finance reads: an owner's id, `cp_…:<CUR>` or `platform:<kind>:<CUR>`. */
export const LEDGER_ACCOUNT_ID_LENGTH_MAX = 100;
/** A supplier payment's description. */
export const DESCRIPTION_LENGTH_MAX = 1000;
/** A cash point's address, as the back office types it. */
export const CASH_POINT_ADDRESS_LENGTH_MAX = 1000;
/** A webhook endpoint's or a return URL. */
export const URL_LENGTH_MAX = 2048;
/** The brand name on the hosted pages. */
export const BRAND_NAME_LENGTH_MAX = 40;
/** A customer's phone (digits and spaces, optionally after +) and PIN, as the back office registers them. */
export const PHONE_LENGTH_MIN = 4;
export const PHONE_LENGTH_MAX = 20;
export const PIN_LENGTH_MIN = 4;
export const PIN_LENGTH_MAX = 6;
/** A business user's or agent's login and password. */
export const LOGIN_LENGTH_MIN = 3;
export const LOGIN_LENGTH_MAX = 100;
export const PASSWORD_LENGTH_MIN = 10;
export const PASSWORD_LENGTH_MAX = 200;

// ---- HTTP ----
/** A JSON body; a form posted by a hosted page is far smaller. */
export const BODY_LIMIT_BYTES = 1_048_576;
export const FORM_BODY_LIMIT_BYTES = 16_384;
/** A statement pasted in the console's form (camt.053 XML); a larger one goes through the admin API. */
export const CONSOLE_STATEMENT_XML_MAX_BYTES = 16_384;
/**
 * The console's statement form, URL-encoded: each byte of the XML takes up to three (`%3C`), and the
 * form's other fields fit in a form's own limit.
 */
export const CONSOLE_STATEMENT_FORM_BODY_LIMIT_BYTES = 3 * CONSOLE_STATEMENT_XML_MAX_BYTES + FORM_BODY_LIMIT_BYTES;
/** A bank statement (camt.053, XML) posted to the admin API: the one body allowed above BODY_LIMIT_BYTES. */
export const STATEMENT_BODY_LIMIT_BYTES = 10 * 1_048_576;
/**
 * Entries of one imported statement: the parsed entries cross the bus in one message (Kafka's default
 * limit is 1 MB; an entry is at most ~400 bytes there). A longer statement is split by the bank or by finance.
 */
export const STATEMENT_ENTRIES_MAX = 2_000;
/**
 * Payouts one batch takes (the oldest first; the next batch takes the rest): its file crosses the bus
 * in one reply (~700 bytes a payout) and stays a size banks accept in one upload.
 */
export const PAYOUT_BATCH_MAX = 1_000;
/** A bank account's holder: the pain.001 file's `Cdtr/Nm` is ISO 20022 Max140Text. */
export const ACCOUNT_HOLDER_LENGTH_MAX = 140;
/** Payouts a batch moves in transit at once, and statement entries (of distinct payouts) applied at once. */
export const PAYOUT_STEPS_CONCURRENCY = 16;
/** A batch's creation and a statement's import answer once every payout is moved: longer than a bus request's usual bound. */
export const PAYOUT_ADMIN_REQUEST_TIMEOUT_MS = 2 * MINUTE_MS;
/**
 * How long an import of a statement waits for a concurrent import of the same statement to answer
 * (polling at STATEMENT_IMPORT_POLL_MS), within its caller's PAYOUT_ADMIN_REQUEST_TIMEOUT_MS.
 */
export const STATEMENT_IMPORT_WAIT_MS = MINUTE_MS;
export const STATEMENT_IMPORT_POLL_MS = 50;
/**
 * How far after the service's clock a statement's booking date may be: a date alone is midnight UTC of
 * the bank's day, which starts up to a day before UTC's east of it. A later one is no booking that
 * happened: the entry is unmatched (`booking_date_in_future`), not a payout paid in the future.
 */
export const STATEMENT_BOOKING_AHEAD_MAX_MS = DAY_MS;
/** A statement's claim that sees no row retries with a new snapshot, which sees the committed row: more than one retry means something else is wrong. */
export const STATEMENT_CLAIM_ATTEMPTS_MAX = 3;
/** Nesting of a JSON body: deeper is refused before it is parsed (class-transformer recurses per level). */
export const JSON_DEPTH_MAX = 64;
/** A request value echoed in an error message is cut to this. */
export const ECHOED_VALUE_LENGTH_MAX = 64;
/**
 * Retry-After of a 429 that names no wait of its own (the per-minute windows) and of a 503 (the
 * database or another app unreachable for a moment: a restart, a failover).
 */
export const RETRY_AFTER_RATE_LIMITED_SECONDS = 60;
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 2;
/** Keep-alive connections from load balancers (idle timeouts of 60 s) outlive Node's default 5 s. */
export const HTTP_KEEP_ALIVE_TIMEOUT_MS = 65 * SECOND_MS;
/** A client that has not sent its whole request by then is answered 408. */
export const HTTP_REQUEST_TIMEOUT_MS = 30 * SECOND_MS;
/** How long browsers may cache the hosted pages' CSS, scripts and QR codes, and the API docs' assets. */
export const HOSTED_ASSET_CACHE_SECONDS = 300;
export const API_DOCS_ASSET_CACHE_SECONDS = 3600;
/** Entries of an Accept-Language header looked at: the rest is read no further (the header is attacker-controlled). */
export const ACCEPT_LANGUAGE_ENTRIES_MAX = 20;
/** `limit` of the public lists. */
export const LIST_LIMIT_DEFAULT = 10;
export const LIST_LIMIT_MAX = 100;
/** Finance reads: a statement's page, a ledger entries' page, and the collections listed behind the cash in transit (the oldest; the totals cover all). */
export const STATEMENT_LIMIT_DEFAULT = 100;
export const STATEMENT_LIMIT_MAX = 1000;
export const LEDGER_ENTRIES_PAGE_MAX = LIST_LIMIT_MAX;
export const CASH_IN_TRANSIT_COLLECTIONS_MAX = 1000;
export const CASH_POINTS_ON_PAGE_MAX = 500;
/** The collections each list of an agent's home shows at most (expected deposits, pickups waiting, cash held to deposit). */
export const AGENT_DEPOSITS_READ_MAX = 200;
/** A reconciliation reads the books in pages of objects or references, and reports at most this many differences (the count checked is always complete); reading everything may take longer than a request. */
export const RECONCILIATION_PAGE = 500;
export const RECONCILIATION_DIFFERENCES_MAX = 1000;
export const RECONCILIATION_TIMEOUT_MS = MINUTE_MS;
/** The sandbox clock moves at most ten years in one call. */
export const CLOCK_ADVANCE_SECONDS_MAX = 10 * 365 * 24 * 3600;
/** Each app applies the deadlines a clock advance passed (many overdue rounds) within this. */
export const CLOCK_ADVANCE_REQUEST_TIMEOUT_MS = MINUTE_MS;

// ---- authentication and hosted pages ----
/** Requests per second and API key (RATE_LIMIT_PER_SECOND; 0 turns the limit off), bursts up to twice that. */
export const RATE_LIMIT_PER_SECOND_DEFAULT = 100;
export const RATE_LIMIT_PER_SECOND_MAX = 1_000_000;
export const RATE_LIMIT_BURST_FACTOR = 2;
/** Keys tracked by one gateway's rate limiter before the idle ones are dropped. */
export const RATE_LIMIT_BUCKETS_MAX = 10_000;
/** A bearer token's characters: longer is refused without a lookup. */
export const API_KEY_LENGTH_MAX = 200;
/** Random base62 characters of a generated API key (`sk_…`, about 190 bits) and admin key (`admin_…`). */
export const API_KEY_RANDOM_LENGTH = 32;
export const ADMIN_API_KEY_RANDOM_LENGTH = 40;
/** A secret an operator configures (ADMIN_API_KEY, METRICS_TOKEN). */
export const CONFIGURED_SECRET_LENGTH_MIN = 16;
export const CONFIGURED_SECRET_LENGTH_MAX = 200;
/**
 * A key revoked or rolled through another gateway is refused at most this long after (contract section
 * 16: within a second on every instance).
 */
export const API_KEY_CACHE_TTL_MS = SECOND_MS / 2;
/** How often a gateway writes its keys' last uses (`last_used_at` at most 60 s behind). */
export const API_KEY_LAST_USED_FLUSH_MS = 10 * SECOND_MS;
/** The longest overlap of a rolled key (`expires_in`, seconds): one week. */
export const API_KEY_ROLL_OVERLAP_MAX_SECONDS = 604_800;
/** Scopes one restricted key may list. */
export const API_KEY_SCOPES_MAX = 50;
/** Attempts to record a done change in the audit trail before the failure is logged (the answer stands). */
export const AUDIT_RECORD_ATTEMPTS = 3;
/**
 * An audit intent (a change dispatched to its owning app) older than this is settled by the sweeper,
 * which reads the target back: longer than any gateway request waits for its answer, so an intent still
 * in flight is left to its request.
 */
export const AUDIT_INTENT_SETTLE_AFTER_MS = PAYOUT_ADMIN_REQUEST_TIMEOUT_MS + 30 * SECOND_MS;
/** How often each gateway looks for audit intents to settle (also once at start). */
export const AUDIT_SWEEP_INTERVAL_MS = 10 * SECOND_MS;
/** Intents one sweep settles, each in its own short transaction. */
export const AUDIT_SWEEP_BATCH_MAX = 100;
export const API_KEY_CACHE_MAX = 10_000;
export const CONNECTION_CACHE_MAX = 10_000;
/** Customers a gateway remembers (id and currency, which never change); past it the cache starts over. */
export const CUSTOMER_CACHE_MAX = 10_000;
export const HOSTED_SESSION_TTL_MS = 15 * MINUTE_MS;
export const LANGUAGE_COOKIE_TTL_MS = 365 * DAY_MS;
/** Wrong PINs, passwords or codes in a row (since the last success) before each lock, and the first lock. */
export const SIGN_IN_FAILURES_MAX = 5;
export const SIGN_IN_LOCK_MS = 15 * MINUTE_MS;
/**
 * A sign-in's locks in turn, each after SIGN_IN_FAILURES_MAX more failures (a lock's end does not reset
 * the count; a success does); after the last, the login stays locked until its PIN or password is reset
 * through the admin API. One login gets 15 guesses in its first day and 20 in all.
 */
export const SIGN_IN_LOCKS_MS: readonly number[] = [SIGN_IN_LOCK_MS, HOUR_MS, DAY_MS];
/** Failed sign-ins from one client address, over every login, per window: past it, that address is refused. */
export const SIGN_IN_ADDRESS_FAILURES_MAX = 20;
export const SIGN_IN_ADDRESS_WINDOW_MS = HOUR_MS;
/** Failed sign-ins over the whole service per window: past it, every sign-in is paused until the window ends. */
export const SIGN_IN_GLOBAL_FAILURES_MAX = 100;
export const SIGN_IN_GLOBAL_WINDOW_MS = 10 * MINUTE_MS;
export const HANDOVER_CODE_DIGITS = 6;
/**
 * The back office console's sessions: closed after CONSOLE_SESSION_IDLE_MS without a request, and
 * CONSOLE_SESSION_ABSOLUTE_MS after sign-in whatever the activity (a stolen cookie's worth is bounded).
 */
export const CONSOLE_SESSION_IDLE_MS = 30 * MINUTE_MS;
export const CONSOLE_SESSION_ABSOLUTE_MS = 8 * HOUR_MS;
/** Wrong keys from one client address before the console's sign-in is locked for it, and for how long. */
export const CONSOLE_SIGN_IN_FAILURES_MAX = 5;
export const CONSOLE_SIGN_IN_LOCK_MS = 15 * MINUTE_MS;
/** What the console's search box reads (an id or a reference); longer is refused before it is looked up. */
export const CONSOLE_SEARCH_LENGTH_MAX = 200;
/** Rows a console list shows at once (search results, deliveries, entries). */
export const CONSOLE_LIST_MAX = 50;
/** A balance series (a chart) shows each movement of its period up to this many, else samples the balance. */
export const BALANCE_SERIES_MOVEMENTS_MAX = 1000;
/** The most instants a sampled balance series reads, each one index lookup. */
export const BALANCE_SERIES_SAMPLES_MAX = 200;
/** A balance chart over a period with more movements than BALANCE_SERIES_MOVEMENTS_MAX: the balance read at this many instants. */
export const CONSOLE_CHART_SAMPLES = 60;
/** Lines of a statement's CSV download from the console (every page of the period, up to this). */
export const CONSOLE_STATEMENT_CSV_LINES_MAX = 100_000;
/** Months of fee revenue the console's chart shows, and the most a period may span. */
export const CONSOLE_FEE_MONTHS_DEFAULT = 12;
export const CONSOLE_FEE_MONTHS_MAX = 36;
/** A sign-in form's login and password are cut to this before they are looked up. */
export const SIGN_IN_FIELD_LENGTH_MAX = PASSWORD_LENGTH_MAX;
/** Customers with one phone whose PIN a sign-in tries. */
export const SIGN_IN_CUSTOMERS_PER_PHONE_MAX = 20;
/** A handover code and a cash payment reference as an agent types them are cut to this. */
export const TYPED_CODE_LENGTH_MAX = 20;
export const TYPED_REFERENCE_LENGTH_MAX = 40;
/** Digits of a cash payment reference before its check digit, and with it. */
export const PAYMENT_REFERENCE_RANDOM_DIGITS = 9;
export const PAYMENT_REFERENCE_LENGTH = PAYMENT_REFERENCE_RANDOM_DIGITS + 1;
/** A typed reference longer than this (a separator after every digit) is no reference: refused before it is read. */
export const PAYMENT_REFERENCE_INPUT_LENGTH_MAX = 2 * PAYMENT_REFERENCE_LENGTH;

// ---- idempotency ----
/** A request in progress holds its key this long (a retry meanwhile is 409); longer, it is presumed dead and a retry takes over. */
export const IDEMPOTENCY_LOCK_MS = 30 * SECOND_MS;
/** A key whose release failed (its database unreachable: the 503 the client got) is released again this often, until its lock ends. */
export const IDEMPOTENCY_RELEASE_RETRY_MS = 250;
/** Keys are kept at least 24 h (contract), purged after this, looked for once an hour. */
export const IDEMPOTENCY_RETENTION_HOURS = 48;
/**
 * Idempotency keys claimed, or answers stored, in one statement (group commit: those that arrive while
 * one is written), and most waiting for it; beyond, the create is refused at once (503, retryable).
 */
export const IDEMPOTENCY_GROUP_MAX = 64;
export const IDEMPOTENCY_QUEUE_LENGTH_MAX = 64 * IDEMPOTENCY_GROUP_MAX;
export const IDEMPOTENCY_PURGE_INTERVAL_MS = HOUR_MS;

// ---- deadlines of the use cases ----
/** The customer has 30 minutes to authorize a payment (contract). */
export const AUTHORIZATION_TTL_MS = 30 * MINUTE_MS;
export const CASH_PAYMENT_TTL_MS_DEFAULT = 72 * HOUR_MS;
export const CASH_EXPIRES_AT_MIN_AHEAD_MS = 5 * MINUTE_MS;
export const CASH_EXPIRES_AT_MAX_AHEAD_MS = 30 * DAY_MS;
export const APPROVAL_TTL_MS_DEFAULT = 7 * DAY_MS;
/** Validating or resolving a collection's deposit settles it in the same request: longer than a bus request. */
export const SETTLEMENT_REQUEST_TIMEOUT_MS = 30 * SECOND_MS;

// ---- the ledger and the processes that call it ----
/**
 * Most transfers one ledger transaction applies (group commit): a hot account (a marketplace merchant)
 * is locked once per batch instead of once per transfer; the statements stay small (a few hundred rows).
 */
export const TRANSFER_BATCH_SIZE_MAX = 64;
/** Authorizations in one `payments.authorize-batch` (a gateway's authorizations that queued together). */
export const AUTHORIZE_BATCH_MAX = 64;
/**
 * Once a batch of n authorizations is answered, a gateway's next batch waits for n/2 to queue, this
 * long at most (coalescedCall's gatherMs): the answered clients' next requests, which arrive within a
 * few milliseconds, leave with the others instead of one of them alone (a whole round trip for one).
 */
export const AUTHORIZE_GATHER_MS = 5;
/** Most transfers waiting for a batch (64 full batches): beyond it a transfer is refused at once, and its caller retries. */
export const TRANSFER_QUEUE_LENGTH_MAX = 64 * TRANSFER_BATCH_SIZE_MAX;
/** The ledger's hash chain: a page of `GET /admin/v1/ledger/chain` (and of the export and verification's reads). */
export const LEDGER_CHAIN_PAGE_DEFAULT = 100;
export const LEDGER_CHAIN_PAGE_MAX = 1000;
/** How often the sealer looks for entries not chained yet (older than the chain, or written straight in SQL): well within the 5 s the contract allows. */
export const LEDGER_CHAIN_SEAL_INTERVAL_MS = SECOND_MS;
/** Entries one sealing transaction chains. */
export const LEDGER_CHAIN_SEAL_BATCH_MAX = 1000;
/** A verification or an export reads the whole chain: longer than a bus request. */
export const LEDGER_CHAIN_VERIFY_TIMEOUT_MS = 5 * MINUTE_MS;
/** A ledger call that takes longer is abandoned by its request and finished by the recovery sweep. */
export const LEDGER_TIMEOUT_MS = 10 * SECOND_MS;
/** A bus request with no reply by then fails as service_unavailable (retryable). */
export const BUS_REQUEST_TIMEOUT_MS = 10 * SECOND_MS;
/** A process step started this long ago without an outcome is taken over by the sweep. */
export const STALLED_PROCESS_MS = 5 * SECOND_MS;
/** A context's sweep runs this often; each pass reads at most a batch of objects per query, and applies at most this many batches of deadlines. */
export const SWEEP_INTERVAL_MS = SECOND_MS;
export const SWEEP_BATCH_MAX = 100;
export const SWEEP_ROUNDS_MAX = 100;
/** PostgreSQL cancels a statement running longer than this. */
export const STATEMENT_TIMEOUT_MS = 15 * SECOND_MS;
export const ASYNC_COMMIT_POOL_MAX = 10;
/** Connections of a process's main pool (DB_POOL_MAX). */
export const DB_POOL_SIZE_DEFAULT = 20;
export const DB_POOL_SIZE_MIN = 2;
export const DB_POOL_SIZE_MAX = 200;
/**
 * Every process's old generation is collected once it has grown by this percentage over what survived
 * its last full collection. V8's own factor goes up to 300 % (four times) when collections are cheap,
 * and under load most of that heap is garbage: the work that was in flight at a young collection.
 * A `--heap-growing-percent` given to node wins.
 */
export const HEAP_GROWING_PERCENT = 100;
/** An idle pooled connection is closed after this; getting a new one fails after this. */
export const DB_IDLE_TIMEOUT_MS = 30 * SECOND_MS;
export const DB_CONNECTION_TIMEOUT_MS = 10 * SECOND_MS;
/** How long a pool's shutdown waits for its connections to close before PostgreSQL is stopped. */
export const DB_POOL_END_WAIT_MS = 2 * SECOND_MS;
/** A statement gets no answer this long after its statement_timeout (a frozen server): the client gives up on it. */
export const DB_QUERY_TIMEOUT_GRACE_MS = 2 * SECOND_MS;
/** Movements a collection's settlement finishes per call, and overdue sweeps per deadline pass. */
export const MOVEMENTS_PER_FINISH_MAX = 100;
export const OVERDUE_ROUNDS_MAX = 10;
/** Tries at a free cash payment number before giving up (a collision is one in a billion). */
export const RESERVE_ATTEMPTS_MAX = 10;
/** Digits of a cash receipt number's sequence (`R-00000042-7`): the number is zero-padded to this. */
export const RECEIPT_SEQUENCE_DIGITS = 8;

// ---- event store and subscriptions ----
/** Retries of a command whose append met a concurrent writer; a contended stream (refunds) gets more. */
export const COMMAND_RETRIES_MAX = 5;
export const CONTENDED_COMMAND_RETRIES_MAX = 64;
/** Objects per aggregate type whose latest state a process remembers, to decide a command without reading its stream. */
export const AGGREGATE_STATES_REMEMBERED_MAX = 10_000;
export const APPEND_EVENTS_MAX = 1000;
/**
 * Appends the PostgreSQL event store writes in one statement (group commit: those that arrive while one
 * is written, each stream once), and most waiting for it; beyond, an append is refused at once (503).
 */
export const APPEND_GROUP_MAX = 64;
export const APPEND_QUEUE_LENGTH_MAX = 64 * APPEND_GROUP_MAX;
export const READ_ALL_COUNT_MAX = 1000;
/** An aggregate's stream is read whole on every command: longer ones are a modelling error. */
export const STREAM_LENGTH_MAX = 10_000;
/**
 * Streams the PostgreSQL event store reads in one statement (the commands that read while one read
 * runs, as appends group), and most waiting for it; beyond, a read is refused at once (503).
 */
export const STREAM_READ_GROUP_MAX = 64;
export const STREAM_READ_QUEUE_LENGTH_MAX = 64 * STREAM_READ_GROUP_MAX;
/**
 * How long a command waits for the webhooks app to record its event before answering anyway: the change
 * and its event are stored in the stream, and the relay records the event once the webhooks app answers
 * again. Far above a record's usual tens of milliseconds, far below the caller's own deadline.
 */
export const EVENTS_RECORD_TIMEOUT_MS = 2 * SECOND_MS;
/** Integration events in one `events.record-batch` request (a relay's batch is sent in requests of at most this many). */
export const EVENTS_RECORD_BATCH_MAX = 100;
/**
 * Integration events a process remembers having recorded with the webhooks app itself (its requests'
 * answers), so that its relay does not send them again: many seconds of authorizations at full speed.
 * One forgotten, or recorded by another instance, is sent again by the relay (recording is idempotent).
 */
export const EVENTS_RECORDED_REMEMBERED_MAX = 20_000;
/**
 * Integration events the webhooks app records in one statement (group commit: those that arrive while
 * one is written), and most waiting for it; beyond, a record is refused at once and its caller retries
 * (the request answers, the relay records it later).
 */
export const EVENTS_RECORD_GROUP_MAX = EVENTS_RECORD_BATCH_MAX;
export const EVENTS_RECORD_QUEUE_LENGTH_MAX = 64 * EVENTS_RECORD_GROUP_MAX;
/** Streams one readStreams reads (a relay's batch reads the streams of its events at once). */
export const STREAMS_READ_MAX = 1000;
/** Event type prefixes one readAll filters on. */
export const TYPE_PREFIXES_MAX = 100;
/** How long readAll waits, by default, for an older open writer before returning a short page anyway; it looks again after 2 ms, doubling to 50 ms. */
export const READ_ALL_WAIT_MS_DEFAULT = 5 * SECOND_MS;
export const READ_ALL_RETRY_MS_MIN = 2;
export const READ_ALL_RETRY_MS_MAX = 50;
/**
 * Events past the horizon (committed after an older writer that is still open) whose types readAll
 * looks at to tell whether it must wait; more than this many counts as a reason to wait. They are
 * usually a few milliseconds of appends.
 */
export const READ_ALL_PENDING_LOOK_MAX = 1000;
/** How often the in-process notifier looks whether an append has become readable, and how long at most before it notifies anyway. */
export const APPEND_VISIBILITY_POLL_MS = 5;
export const APPEND_VISIBILITY_WAIT_MS_MAX = 2 * SECOND_MS;
/** EventStoreDB: raw $all events per read while readAll scans for matches (a page holds `after` itself, so 2 at least). */
export const ESDB_SCAN_PAGE_SIZE_MIN = 2;
export const ESDB_SCAN_PAGE_SIZE_DEFAULT = 1000;
export const ESDB_SCAN_PAGE_SIZE_MAX = 10_000;
/** EventStoreDB: after the notification subscription drops, wait this long before subscribing again. */
export const ESDB_RESUBSCRIBE_DELAY_MS_DEFAULT = SECOND_MS;
export const ESDB_RESUBSCRIBE_DELAY_MS_MAX = MINUTE_MS;
export const SUBSCRIPTION_BATCH_SIZE_DEFAULT = 100;
export const SUBSCRIPTION_BATCH_SIZE_MAX = READ_ALL_COUNT_MAX;
export const SUBSCRIPTION_POLL_INTERVAL_MS = 250;
/**
 * A subscription whose types have not occurred moves its checkpoint past the events of other types it
 * read over at most this often: each move is a write; between moves a read looks over at most this
 * long's worth of other events again.
 */
export const SUBSCRIPTION_IDLE_ADVANCE_MS = SECOND_MS;
export const SUBSCRIPTION_RETRY_DELAY_MS_MIN = 100;
export const SUBSCRIPTION_RETRY_DELAY_MS_MAX = 5 * SECOND_MS;
/** Failures in a row before a batch is retried one event at a time, and an event parked. */
export const POISON_AFTER_FAILURES = 5;
/**
 * With several instances of an app, one runs its subscriptions and sweeps (it holds the app's advisory
 * lock); the others try to take over this often. A request served by one of the others waits for the
 * runner's checkpoint, polled this often, for at most a bus request's deadline (its caller has been
 * answered 503 by then).
 */
export const SINGLE_RUNNER_RETRY_MS = SECOND_MS;
/**
 * How often an instance re-reads its app's service clock offset, to follow an advance that another
 * instance observed: in the sandbox (where the clock moves) often; elsewhere the offset stays 0.
 */
export const SERVICE_CLOCK_REFRESH_MS = SECOND_MS;
export const SERVICE_CLOCK_REFRESH_MS_SANDBOX = 50;
/** A service clock whose LISTEN connection failed or was lost tries again this long after (reading by the short interval meanwhile). */
export const SERVICE_CLOCK_LISTEN_RETRY_MS = SECOND_MS;
/** The sandbox's clock advance answers this long after every app stored the new offset: by then every instance follows it. */
export const SERVICE_CLOCK_FOLLOW_MS = 3 * SERVICE_CLOCK_REFRESH_MS_SANDBOX;
export const SUBSCRIPTION_FOLLOW_POLL_MS = 20;
export const SUBSCRIPTION_FOLLOW_WAIT_MS = BUS_REQUEST_TIMEOUT_MS;
/** A parked event's error is a stack trace, not a novel; an operator lists this many at most, and one replay takes this many (the operator asks again for the rest). */
export const PARKED_ERROR_LENGTH_MAX = 10_000;
export const PARKED_LIST_MAX = 1000;
export const PARKED_REPLAY_MAX = 100;
/**
 * `/ready` answers 503 when a subscription is further behind than this: what it feeds is stale. Far
 * above the lag of one that keeps up (about its poll interval).
 */
export const READY_MAX_SUBSCRIPTION_LAG_SECONDS = 60;
/**
 * Each dependency answers /ready's probe within this, or counts as down; the checks run at once, so
 * /ready answers within about this too. A probe's own timeout must be longer (Docker's is 4 s here).
 */
export const READY_CHECK_TIMEOUT_MS = 2 * SECOND_MS;

// ---- webhooks ----
/** Attempts in flight at once, all endpoints together, and to one endpoint (a slow or dead one holds at most this many slots). */
export const WEBHOOK_IN_FLIGHT_MAX = 128;
export const WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX = 16;
/**
 * Contract section 13: endpoints one integrator may have (deleted ones not counted). Every event fans out
 * to each of them, so this bounds the POSTs one event (or one redelivery) can send.
 */
export const WEBHOOK_ENDPOINTS_PER_INTEGRATOR_MAX = 16;
/**
 * Deliveries that redeliveries (`POST /v1/events/{id}/redeliver`) of one integrator may create per window
 * (ten redeliveries a minute to a full set of endpoints); more is `429`. An endpoint that still has a
 * delivery of the event pending gets no second one, so repeating a redelivery adds nothing.
 */
export const WEBHOOK_REDELIVERIES_PER_INTEGRATOR_MAX = 10 * WEBHOOK_ENDPOINTS_PER_INTEGRATOR_MAX;
export const WEBHOOK_REDELIVERY_WINDOW_MS = MINUTE_MS;
/** Contract section 6: any 2xx within 15 seconds is a success. */
export const WEBHOOK_DELIVERY_TIMEOUT_MS = 15 * SECOND_MS;
/** A claimed delivery is claimed again after a crash once its lease expires: longer than an attempt. */
export const WEBHOOK_LEASE_MS = 60 * SECOND_MS;
export const WEBHOOK_POLL_INTERVAL_MS = SECOND_MS;
/**
 * A dispatcher claims again after this when its claim left due deliveries on endpoints whose slots other
 * dispatchers (other instances of the webhooks app) hold: their attempts free those slots unseen.
 */
export const WEBHOOK_CLAIM_RETRY_MS = 100;
export const WEBHOOK_RESPONSE_READ_BYTES_MAX = 64 * 1024;
/** A refused redirect's location and a failed attempt's error, as recorded with the attempt. */
export const WEBHOOK_LOCATION_LENGTH_MAX = 200;
export const WEBHOOK_ERROR_LENGTH_MAX = 500;
/** Random bytes of an endpoint's signing secret (`whsec_` + base64: 192 bits). */
export const WEBHOOK_SECRET_BYTES = 24;
/** Keep-alive agents for webhook attempts: one per origin, at most this many (the least recently used dropped). */
export const WEBHOOK_AGENT_ORIGINS_MAX = 256;
/**
 * Idle sockets kept per origin: as many as attempts may be in flight at once, since several endpoints
 * may share an origin (16 per endpoint, four endpoints on one host: 64). Fewer, and every burst beyond
 * them closed its extra connections and opened them again. Each idle socket closes after WEBHOOK_KEEP_ALIVE_IDLE_MS.
 */
export const WEBHOOK_KEEP_ALIVE_FREE_SOCKETS_MAX = WEBHOOK_IN_FLIGHT_MAX;
/** An idle socket is closed after this, or well before the receiver's announced `Keep-Alive: timeout`. */
export const WEBHOOK_KEEP_ALIVE_IDLE_MS = SECOND_MS;
/** The due deliveries gauge counts up to this: the count stays one index range read however large a backlog grows. */
export const WEBHOOK_DUE_COUNT_MAX = 10_000;
export const DNS_LOOKUP_TIMEOUT_MS = 5 * SECOND_MS;
/** A rotated secret keeps signing beside the new one for a day. */
export const PREVIOUS_SECRET_TTL_MS = DAY_MS;
/**
 * A secret answered by rotate_secret stays the endpoint's for at least this (another rotation meanwhile
 * is 409): only two secrets sign, so concurrent rotations would void a secret just answered. Short, so
 * that an integrator rotating twice on purpose waits only seconds.
 */
export const SECRET_ROTATION_INTERVAL_MIN_MS = 10 * SECOND_MS;
/** An endpoint failing this long is flagged to the operator, and this long disabled. */
export const FAILING_ENDPOINT_FLAGGED_AFTER_MS = HOUR_MS;
export const FAILING_ENDPOINT_DISABLED_AFTER_MS = 5 * DAY_MS;

// ---- the operator's API ----
/** Each subscribing app answers within this, or is reported unavailable (the others still answer). */
export const OPERATIONS_APP_TIMEOUT_MS = 5 * SECOND_MS;
/** Replaying parked events and bulk redelivery do work (events handled again, an UPDATE of many rows): a longer bound. */
export const OPERATIONS_REPLAY_TIMEOUT_MS = 30 * SECOND_MS;
/** One bulk redelivery reschedules at most this many deliveries; the operator calls again for the rest. */
export const REDELIVER_FAILED_MAX = 10_000;

// ---- observability ----
/** W3C's own bounds: traceparent is 55 characters in its version 00, tracestate at most 32 entries of 256; a longer header is dropped. */
export const TRACE_HEADER_LENGTH_MAX = 512;
/** Span attributes we write are ids, routes, topics, hosts and SQL statements: anything longer is cut. */
export const SPAN_ATTRIBUTE_LENGTH_MAX = 2048;
/** An OTEL_* number (milliseconds or a size) above one day, or some 86 million spans, is a typo rather than a setting. */
export const OTEL_SDK_SETTING_MAX = DAY_MS;
/** Label sets a metric family keeps cached children for (routes, methods and statuses are bounded already: this bounds them again). */
export const METRIC_CHILDREN_CACHED_MAX = 2_000;
/** A scrape waits this long at most for a PostgreSQL-derived gauge; one that is late is left out of that scrape. */
export const SCRAPE_SOURCE_TIMEOUT_MS = 2 * SECOND_MS;

// ---- the host: embedded PostgreSQL, migrations, the distributed test topology ----
/** The embedded PostgreSQL's max_connections: every process's pools together stay below it. */
export const EMBEDDED_POSTGRES_CONNECTIONS_MAX = 300;
/** An embedded PostgreSQL that dies is started again this many times at most (waiting longer each time), then the process exits. */
export const EMBEDDED_POSTGRES_RESTARTS_MAX = 5;
export const EMBEDDED_POSTGRES_RESTART_DELAY_MS = SECOND_MS;
/** A postmaster left by a killed process gets this long to stop, looked at this often. */
export const STALE_POSTMASTER_WAIT_MS = 30 * SECOND_MS;
export const STALE_POSTMASTER_POLL_MS = 100;
/** PostgreSQL's last lines kept for the message when it fails to start. */
export const EMBEDDED_POSTGRES_LOG_LINES_KEPT = 30;
/** Tries at DATA_DIR's pid file: a second after removing one left by a dead process. */
export const DATA_DIR_LOCK_ATTEMPTS = 2;
/** Apps started together migrate one at a time: the others retry this often, this long at most. */
export const MIGRATION_LOCK_RETRY_MS = 500;
export const MIGRATION_LOCK_WAIT_MS_MAX = 2 * MINUTE_MS;
/** One app of the distributed topology must answer /ready within this, polled this often. */
export const TOPOLOGY_APP_START_TIMEOUT_MS = 90 * SECOND_MS;
/**
 * The same with several instances per app: each joining instance makes its app's consumer groups
 * rebalance, on a machine running twice as many processes.
 */
export const TOPOLOGY_SCALED_OUT_APP_START_TIMEOUT_MS = 4 * TOPOLOGY_APP_START_TIMEOUT_MS;
export const TOPOLOGY_READY_POLL_MS = 150;
/** An app's output kept by the topology, and the tail of it shown when the app fails to start. */
export const TOPOLOGY_APP_OUTPUT_KEPT_CHARS = 200_000;
export const TOPOLOGY_APP_OUTPUT_SHOWN_CHARS = 5_000;

// ---- Kafka ----
/** A caller instance owns one reply partition per app: at most this many instances of an app. */
export const KAFKA_REPLY_PARTITIONS = 4;
/** Request topics have as many partitions as reply topics (kafkaTopicsFor): a server reads them all at once. */
export const KAFKA_PARTITIONS_CONSUMED_CONCURRENTLY = KAFKA_REPLY_PARTITIONS;
/**
 * A server's requests handled at once (one key's in order, the others together): past it, its consumer
 * stops fetching until one is answered. Well above a gateway's connections' worth of authorizations.
 */
export const KAFKA_SERVER_IN_FLIGHT_MAX = 128;
/**
 * A server's requests answered but not yet committable (behind an older one still running), at most:
 * about ten seconds of a thousand requests a second behind one slow handler before the consumer waits.
 */
export const KAFKA_SERVER_UNCOMMITTED_MAX = 10_000;
/**
 * A server commits its offsets this long after an answer: one commit for the answers in between (a
 * request to the broker and a write to its offsets topic each). A partition that moves in a rebalance
 * is read again from its last commit: up to this long of answered requests run again (idempotent).
 */
export const KAFKA_OFFSET_COMMIT_DELAY_MS = 100;
/**
 * A caller commits the offsets of its reply partition at most this often. A reply read is never needed
 * again: the commit only spares a member that rejoins its group re-reading old replies (ignored, their
 * requests answered), so it need not follow each fetch (kafkajs' auto-commit commits after every batch).
 */
export const KAFKA_REPLY_COMMIT_INTERVAL_MS = SECOND_MS;
/**
 * How long a fetch waits when its partitions are empty (KAFKA_FETCH_MAX_WAIT_MS). Apache Kafka answers a
 * waiting fetch as soon as a message arrives (minBytes 1), so a long wait costs no latency and spares the
 * apps and the broker the idle fetches of fourteen consumers: at 500 ms they took 60 ms of the apps' CPU
 * and 20 of the broker's a second at rest, at 50 ms a sixth of a core. kafkajs fetches on a connection of
 * its own (heartbeats and commits are not queued behind a waiting fetch) but heartbeats only between
 * fetches: the bus heartbeats while a fetch waits and ends the wait when the group rebalances
 * (kafkajs-fetch-wait.ts), so a member joins a rebalance within a heartbeat, not a wait late.
 */
export const KAFKA_CONSUMER_MAX_WAIT_MS = 2 * SECOND_MS;
/**
 * The same for librdkafka's mock cluster, which waits the whole time out even when a message arrives:
 * there every idle hop costs up to this much, and at 5 ms the idle fetch loops took both cores.
 */
export const KAFKA_MOCK_CONSUMER_MAX_WAIT_MS = 50;
/**
 * The longest KAFKA_FETCH_MAX_WAIT_MS accepted: an idle member heartbeats several times within its
 * session timeout even where kafkajs heartbeats between fetches only (a kafkajs the bus's patch does not
 * apply to), and the fetch stays well inside kafkajs's 30 s request timeout.
 */
export const KAFKA_CONSUMER_MAX_WAIT_MS_MAX = 2 * SECOND_MS;
/** Sends made while one is in flight leave together, this many messages at most (coalescingSend). */
export const KAFKA_PRODUCE_BATCH_MESSAGES_MAX = 500;
/** How long the bus's close() waits for in-flight handlers and requests. */
export const KAFKA_CLOSE_TIMEOUT_MS = 10 * SECOND_MS;
/**
 * A request still unread this long after its caller's deadline is not run (its caller answered
 * service_unavailable long ago): what an app finds in its topic after a long outage, or in a partition
 * read from its start. The grace covers clock differences between the caller's host and the server's.
 */
export const KAFKA_REQUEST_DEADLINE_GRACE_MS = MINUTE_MS;
/**
 * Group membership: a member that stops heartbeating is replaced after the session timeout. kafkajs
 * heartbeats between messages, and a server's handlers run beside its fetch loop (KeyOrderedDispatcher),
 * so the session need not outlast the longest handler. Kept short because a rebalance holds an app's
 * requests: librdkafka's mock cluster waits the session timeout less a second for every member to
 * rejoin, whatever they do, so with several instances a 15 s session held requests past their deadline.
 */
export const KAFKA_SESSION_TIMEOUT_MS = 6 * SECOND_MS;
export const KAFKA_HEARTBEAT_INTERVAL_MS = SECOND_MS;
/** While a server waits for room for its next request, a heartbeat is offered this often (kafkajs throttles to the heartbeat interval). */
export const KAFKA_HANDLER_HEARTBEAT_EVERY_MS = 500;
export const KAFKA_CONNECTION_TIMEOUT_MS = SECOND_MS;
/** Connecting and producing: bounded retries (~2 s) from 100 ms, well inside a request's deadline. */
export const KAFKA_RETRY_MS_MIN = 100;
export const KAFKA_RETRY_MS_MAX = SECOND_MS;
export const KAFKA_RETRIES = 5;
/**
 * Consuming: a consumer that exhausts its retries crashes and kafkajs restarts it as a new group
 * member, which waits for the old member's session to expire (seconds to a rebalance). Retrying for
 * ~15 s instead rides out a broker restart and keeps the member, its partitions and its reply partition.
 */
export const KAFKA_CONSUMER_RETRY_MS_MAX = 2 * SECOND_MS;
export const KAFKA_CONSUMER_RETRIES = 10;
/**
 * A consumer that crashed on an error kafkajs does not retry (it stays disconnected for good) rejoins
 * its group as a new member after this pause, doubled on each failed rejoin up to the maximum.
 */
export const KAFKA_REJOIN_AFTER_CRASH_MS_MIN = 500;
export const KAFKA_REJOIN_AFTER_CRASH_MS_MAX = 10 * SECOND_MS;

/** The relations between bounds. */
function check(relation: boolean, what: string): void {
  if (!relation) throw new Error(`limits.ts: ${what}`);
}
check(LIST_LIMIT_DEFAULT <= LIST_LIMIT_MAX, 'the default list limit exceeds the maximum');
check(STATEMENT_LIMIT_DEFAULT <= STATEMENT_LIMIT_MAX, 'the default statement limit exceeds the maximum');
check(CONSOLE_CHART_SAMPLES >= 1 && CONSOLE_CHART_SAMPLES <= BALANCE_SERIES_SAMPLES_MAX, 'the console chart samples more instants than a balance series reads');
check(SUBSCRIPTION_BATCH_SIZE_DEFAULT <= SUBSCRIPTION_BATCH_SIZE_MAX, 'the default batch exceeds the maximum');
check(SUBSCRIPTION_RETRY_DELAY_MS_MIN <= SUBSCRIPTION_RETRY_DELAY_MS_MAX, 'the retry delays are inverted');
check(LEDGER_TIMEOUT_MS <= BUS_REQUEST_TIMEOUT_MS, 'a ledger call must fail by the time the bus gives up on it');
check(LEDGER_TIMEOUT_MS < STATEMENT_TIMEOUT_MS, 'a ledger statement outliving its call would finish unseen');
check(WEBHOOK_DELIVERY_TIMEOUT_MS < WEBHOOK_LEASE_MS, 'an attempt must end before its lease lets another dispatcher claim it');
check(WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX <= WEBHOOK_IN_FLIGHT_MAX, 'one endpoint cannot have more slots than all');
check(WEBHOOK_CLAIM_RETRY_MS < WEBHOOK_POLL_INTERVAL_MS, "a claim for others' freed slots comes sooner than the poll");
check(SECRET_ROTATION_INTERVAL_MIN_MS < PREVIOUS_SECRET_TTL_MS, 'a secret is rotated again only after a while, well within the previous one\'s life');
check(FAILING_ENDPOINT_FLAGGED_AFTER_MS < FAILING_ENDPOINT_DISABLED_AFTER_MS, 'an endpoint is flagged before it is disabled');
check(READY_CHECK_TIMEOUT_MS < READY_MAX_SUBSCRIPTION_LAG_SECONDS * SECOND_MS, 'a readiness check must be shorter than the lag it tolerates');
check(IDEMPOTENCY_LOCK_MS < IDEMPOTENCY_RETENTION_HOURS * HOUR_MS, 'an idempotency key must outlive its lock');
check(CASH_EXPIRES_AT_MIN_AHEAD_MS < CASH_PAYMENT_TTL_MS_DEFAULT && CASH_PAYMENT_TTL_MS_DEFAULT <= CASH_EXPIRES_AT_MAX_AHEAD_MS, 'the default cash deadline is outside the allowed range');
check(FIXED_FEE_MAX_MINOR <= AMOUNT_MAX_MINOR && AMOUNT_MIN_MINOR >= 1, 'amount bounds');
check(Number.isSafeInteger(AMOUNT_MAX_MINOR * 2), 'two amounts must add up exactly in a double');
check(String(AMOUNT_MAX_MINOR).length <= AMOUNT_TYPED_DIGITS_MAX, 'the largest amount (in XOF, scale 0) must be typeable');
check(ID_RANDOM_LENGTH < ID_LENGTH_MAX && ID_LENGTH_MAX <= PATH_PARAM_LENGTH_MAX, 'an id must fit its bound, and the bound a path parameter');
check('cp_'.length + ID_LENGTH_MAX + ':DZD'.length <= LEDGER_ACCOUNT_ID_LENGTH_MAX, "a cash point's account id must fit an account id");
check(LEDGER_ACCOUNT_ID_LENGTH_MAX <= STRING_LENGTH_MAX, 'an account id must fit a query parameter');
check(FORM_BODY_LIMIT_BYTES <= BODY_LIMIT_BYTES, 'a form body cannot be allowed more than a JSON body');
check(CONSOLE_STATEMENT_FORM_BODY_LIMIT_BYTES <= BODY_LIMIT_BYTES, 'the statement form cannot be allowed more than a JSON body');
check(PHONE_LENGTH_MIN <= PHONE_LENGTH_MAX && PIN_LENGTH_MIN <= PIN_LENGTH_MAX, 'phone or PIN bounds inverted');
check(LOGIN_LENGTH_MIN <= LOGIN_LENGTH_MAX && PASSWORD_LENGTH_MIN <= PASSWORD_LENGTH_MAX, 'login or password bounds inverted');
check(SIGN_IN_LOCKS_MS[0] === SIGN_IN_LOCK_MS && SIGN_IN_LOCKS_MS.every((ms, i) => i === 0 || ms > SIGN_IN_LOCKS_MS[i - 1]!), 'each sign-in lock must be longer than the one before');
check(SIGN_IN_FAILURES_MAX <= SIGN_IN_ADDRESS_FAILURES_MAX && SIGN_IN_ADDRESS_FAILURES_MAX <= SIGN_IN_GLOBAL_FAILURES_MAX, 'a login must lock before its address, an address before the whole service');
check(LOGIN_LENGTH_MAX <= SIGN_IN_FIELD_LENGTH_MAX && PASSWORD_LENGTH_MAX <= SIGN_IN_FIELD_LENGTH_MAX, 'a sign-in form must not cut a valid login or password');
check(HANDOVER_CODE_DIGITS <= TYPED_CODE_LENGTH_MAX, 'a typed handover code must not be cut');
check(PAYMENT_REFERENCE_LENGTH < PAYMENT_REFERENCE_INPUT_LENGTH_MAX && PAYMENT_REFERENCE_INPUT_LENGTH_MAX <= TYPED_REFERENCE_LENGTH_MAX, 'a typed payment reference (with its check digit and separators) must not be cut');
check(RATE_LIMIT_PER_SECOND_DEFAULT <= RATE_LIMIT_PER_SECOND_MAX && RATE_LIMIT_BURST_FACTOR >= 1, 'rate limit bounds');
check(CONFIGURED_SECRET_LENGTH_MIN <= CONFIGURED_SECRET_LENGTH_MAX, 'configured secret bounds inverted');
check(API_KEY_CACHE_TTL_MS < SECOND_MS && API_KEY_LAST_USED_FLUSH_MS < 60 * SECOND_MS, 'a revocation must hold within a second, last_used_at within 60 s');
check(CONFIGURED_SECRET_LENGTH_MAX <= API_KEY_LENGTH_MAX, 'a configured admin key must pass as a bearer token');
check('admin_'.length + ADMIN_API_KEY_RANDOM_LENGTH <= CONFIGURED_SECRET_LENGTH_MAX && 'sk_'.length + API_KEY_RANDOM_LENGTH <= API_KEY_LENGTH_MAX, 'a generated key must pass as a bearer token');
check(BUS_REQUEST_TIMEOUT_MS <= SETTLEMENT_REQUEST_TIMEOUT_MS && BUS_REQUEST_TIMEOUT_MS <= CLOCK_ADVANCE_REQUEST_TIMEOUT_MS && BUS_REQUEST_TIMEOUT_MS <= OPERATIONS_REPLAY_TIMEOUT_MS, 'a longer bus request cannot be shorter than the default');
check(DB_POOL_SIZE_MIN <= DB_POOL_SIZE_DEFAULT && DB_POOL_SIZE_DEFAULT <= DB_POOL_SIZE_MAX, 'the default pool size is outside its range');
check(DB_POOL_SIZE_MAX + ASYNC_COMMIT_POOL_MAX < EMBEDDED_POSTGRES_CONNECTIONS_MAX, "one process's pools must fit the embedded PostgreSQL's connections");
check(MIGRATION_LOCK_RETRY_MS < MIGRATION_LOCK_WAIT_MS_MAX && STALE_POSTMASTER_POLL_MS < STALE_POSTMASTER_WAIT_MS, 'a wait must allow more than one look');
check(TOPOLOGY_READY_POLL_MS < TOPOLOGY_APP_START_TIMEOUT_MS && READY_CHECK_TIMEOUT_MS < TOPOLOGY_APP_START_TIMEOUT_MS, "an app's start must allow its readiness checks");
check(SUBSCRIPTION_POLL_INTERVAL_MS < READY_MAX_SUBSCRIPTION_LAG_SECONDS * SECOND_MS, 'a subscription that keeps up must count as ready');
check(TOPOLOGY_APP_OUTPUT_SHOWN_CHARS <= TOPOLOGY_APP_OUTPUT_KEPT_CHARS, 'more output shown than kept');
check(OPERATIONS_APP_TIMEOUT_MS <= OPERATIONS_REPLAY_TIMEOUT_MS, "an operator's read cannot be allowed longer than a replay");
check(OVERDUE_ROUNDS_MAX <= SWEEP_ROUNDS_MAX, 'a context cannot apply more deadline batches than the sweep allows');
check(PARKED_REPLAY_MAX <= PARKED_LIST_MAX, 'one replay cannot take more parked events than are listed');
check(READ_ALL_RETRY_MS_MIN <= READ_ALL_RETRY_MS_MAX && READ_ALL_RETRY_MS_MAX < READ_ALL_WAIT_MS_DEFAULT, "readAll's retries must fit its wait");
check(APPEND_VISIBILITY_POLL_MS < APPEND_VISIBILITY_WAIT_MS_MAX, 'a wait must allow more than one look');
check(ESDB_SCAN_PAGE_SIZE_MIN <= ESDB_SCAN_PAGE_SIZE_DEFAULT && ESDB_SCAN_PAGE_SIZE_DEFAULT <= ESDB_SCAN_PAGE_SIZE_MAX, 'the default scan page is outside its range');
check(SUBSCRIPTION_BATCH_SIZE_MAX <= READ_ALL_COUNT_MAX, 'a batch must fit one readAll');
check(SUBSCRIPTION_BATCH_SIZE_MAX <= STREAMS_READ_MAX, 'a relay reads the streams of a whole batch at once');
check(KAFKA_HEARTBEAT_INTERVAL_MS < KAFKA_SESSION_TIMEOUT_MS, 'a Kafka member must heartbeat within its session timeout');
check(KAFKA_CONSUMER_MAX_WAIT_MS <= KAFKA_CONSUMER_MAX_WAIT_MS_MAX && 3 * KAFKA_CONSUMER_MAX_WAIT_MS_MAX <= KAFKA_SESSION_TIMEOUT_MS, 'an idle Kafka member heartbeats between fetches only: several times within its session timeout');
check(KAFKA_HANDLER_HEARTBEAT_EVERY_MS <= KAFKA_HEARTBEAT_INTERVAL_MS, 'a server waiting for room must heartbeat at least as often as the group expects');
check(KAFKA_HANDLER_HEARTBEAT_EVERY_MS < KAFKA_SESSION_TIMEOUT_MS, 'a server waiting for room must keep its member in the group');
check(KAFKA_SERVER_IN_FLIGHT_MAX <= KAFKA_SERVER_UNCOMMITTED_MAX, 'every request in flight must fit among the uncommitted');
check(KAFKA_OFFSET_COMMIT_DELAY_MS < KAFKA_HEARTBEAT_INTERVAL_MS, 'offsets must be committed well within a rebalance');
check(KAFKA_SESSION_TIMEOUT_MS - SECOND_MS < BUS_REQUEST_TIMEOUT_MS, "a rebalance (on the mock cluster: the session timeout less a second) must end within a request's deadline");
check(BUS_REQUEST_TIMEOUT_MS <= KAFKA_CLOSE_TIMEOUT_MS, 'closing the bus must wait as long as a request in flight may take');
check(KAFKA_CONNECTION_TIMEOUT_MS < BUS_REQUEST_TIMEOUT_MS, 'connecting to Kafka must fail inside a request deadline');
check(KAFKA_REJOIN_AFTER_CRASH_MS_MIN <= KAFKA_REJOIN_AFTER_CRASH_MS_MAX, 'the Kafka rejoin delays are inverted');
check(KAFKA_RETRY_MS_MIN <= KAFKA_RETRY_MS_MAX && KAFKA_RETRY_MS_MIN <= KAFKA_CONSUMER_RETRY_MS_MAX, 'the Kafka retry delays are inverted');
check(WEBHOOK_KEEP_ALIVE_FREE_SOCKETS_MAX <= WEBHOOK_IN_FLIGHT_MAX, 'an origin keeps no more idle sockets than attempts may be in flight at once');
check(
  AUDIT_INTENT_SETTLE_AFTER_MS > Math.max(PAYOUT_ADMIN_REQUEST_TIMEOUT_MS, SETTLEMENT_REQUEST_TIMEOUT_MS, BUS_REQUEST_TIMEOUT_MS),
  'an audit intent is settled only after its request has stopped waiting for the answer',
);
