export * from './gateway.module';
export { configureHttp, fastifyOptions, BODY_LIMIT_BYTES } from './http/http-setup';
export type { GatewayConfig } from './gateway.core';
