export * from './webhooks.module';
export { RETRY_DELAYS_MS, ATTEMPTS_MAX } from './retry-schedule';
export { DISPATCHER_DEFAULTS } from './webhook-dispatcher';
