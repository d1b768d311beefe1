/** Nest injection tokens for the infrastructure the host hands to every app module. */
export const PG_POOL = Symbol('PgPool');
export const CLOCK = Symbol('Clock');
export const EVENT_STORE = Symbol('EventStore');
export const SERVICE_CONFIG = Symbol('ServiceConfig');
/** A pool whose commits do not wait for the WAL flush: see PoolOptions.asynchronousCommit. */
export const PG_POOL_ASYNC_COMMIT = Symbol('PgPoolAsyncCommit');
