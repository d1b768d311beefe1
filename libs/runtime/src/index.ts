export * from './host-config';
export * from './infrastructure';
export * from './nest-host';
export * from './run-main';
export * from './health';
export { configureHttp, fastifyOptions, BODY_LIMIT_BYTES } from './http-setup';
export { READY_CHECK_TIMEOUT_MS, READY_MAX_SUBSCRIPTION_LAG_SECONDS } from './readiness';
